"""The Triton frontend's access widths against the LLVM IR Triton itself emits (CPU only, no GPU).

    python benchmarks/vector_check.py [--set survey ...] [--data benchmarks/data/validation* ...] [--json OUT]

For every launch of the named survey sets (``benchmarks/survey_triton/harness.py``; all of them by default)
this lowers the kernel past TTGIR to LLVM IR with Triton's own passes for the H200's target and reads, per
source line, the widths of the global accesses there (the inline ``ld.global.v4.b32``: 16 bytes a thread;
``st.global.b16``: 2), then sets each plan load and store at that line beside them (a fully vectorised
action at its thread's share, up to 16 bytes). A plan width the line does not have is a misread of Triton's
vectorisation (the frontend narrows a vector by the address's and the mask's known alignment,
``frontends/triton/layouts.py``): stop 82 found a scalar mask's splat (``mask=r < n_rows``) read as
element-wide, 3.5x slow on the survey's ``rows_weight_reload``, and a remainder (``bias[i % n_cols]``) read
as of no alignment. Left out: accesses the LLVM IR makes by other instructions (``cp.async``, TMA, atomics),
scalars and tiles of fewer elements than threads, and actions at lines with no global access in the LLVM IR.
Exit status 1 where any access disagrees.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "survey_triton"))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

# an inline-asm global load / store in Triton's LLVM IR: its vector count and element bits, and its !dbg
_ACCESS = re.compile(
    r'asm sideeffect "[^"]*?(?:ld|st)\.global(?:\.[\w:]+)*?(?:\.v(\d))?\.[bsuf](\d+) [^"]*".*!dbg !(\d+)'
)
_METADATA = re.compile(r"^!(\d+) = (?:distinct )?!(\w+)\((.*)\)$")
_FIELD = re.compile(r"(\w+): (!\d+|\d+|\"[^\"]*\")")


def llir_widths(llir: str) -> dict[tuple[str, int], set[int]]:
    """(file name, line) -> the widths of the global loads / stores there, bytes a thread an instruction, from
    the inline-asm accesses of Triton's LLVM IR and their debug locations (an inlined helper's access at the
    line of the kernel's call, as the frontend places it)."""
    meta: dict[str, tuple[str, dict[str, str]]] = {}
    for line in llir.splitlines():
        m = _METADATA.match(line)
        if m:
            meta[m.group(1)] = (m.group(2), dict(_FIELD.findall(m.group(3))))

    def where(ref: str) -> tuple[str, int] | None:
        kind, fields = meta.get(ref, ("", {}))
        while "inlinedAt" in fields:
            kind, fields = meta.get(fields["inlinedAt"][1:], ("", {}))
        if kind != "DILocation":
            return None
        scope = fields.get("scope", "!")[1:]
        while scope in meta and "file" not in meta[scope][1]:
            scope = meta[scope][1].get("scope", "!")[1:]
        file = meta.get(meta.get(scope, ("", {}))[1].get("file", "!")[1:], ("", {}))[1].get("filename", '""')
        return file.strip('"').rsplit("/", 1)[-1], int(fields["line"])

    out: dict[tuple[str, int], set[int]] = defaultdict(set)
    for line in llir.splitlines():
        m = _ACCESS.search(line)
        if m is None:
            continue
        at = where(m.group(3))
        if at is not None:
            out[at].add(int(m.group(1) or 1) * int(m.group(2)) // 8)
    return dict(out)


def lowered_llir(case, hw) -> str:
    """``case``'s kernel lowered to LLVM IR by the installed Triton for ``hw`` (its LLVM stage run on the
    TTGIR the frontend reads, built as the frontend builds it; no PTX or ptxas)."""
    from tilesight.frontends.triton.binding import bind
    from tilesight.frontends.triton.compile import triton_module

    stages, module = triton_module(case.fn, bind(case.fn, case.args, dict(case.kw), hw), hw)
    metadata: dict = {}
    for stage in ("ttir", "ttgir", "llir"):
        module = stages[stage](module, metadata)
    return module


def plan_widths(case, hw) -> dict[tuple[str, int], list[tuple[str, int]]]:
    """(file name, line) -> the plan's (action, vector bytes) of the global loads and stores there."""
    from tilesight.frontends.triton.frontend import TritonFrontend

    from tilesight.dtypes import dtype_bytes
    from tilesight.plan import ActionKind

    plan = TritonFrontend().plan(case.fn, (case.grid, *case.args), dict(case.kw), hw)
    out: dict[tuple[str, int], list[tuple[str, int]]] = defaultdict(list)
    for act, _ in plan.actions():
        if act.kind not in (ActionKind.LOAD, ActionKind.STORE) or not act.location:
            continue
        if act.variant is not None:  # asynchronous copies, TMA, atomics: not plain ld/st.global
            continue
        name, _, line = act.location.rpartition(":")
        if not line.isdigit():
            continue
        width = act.vector_bytes
        if width is None:  # fully vectorised: a thread's whole share, up to one 16-byte instruction
            tensor = plan.tensor(act.tensor)
            share = math.prod(tensor.tile) / plan.resources.threads
            elem = dtype_bytes(tensor.dtype)
            if share < 1:  # a scalar (or fewer elements than threads): one element an access
                continue
            width = int(min(16, share * elem))
        out[(name.rsplit("/", 1)[-1], int(line))].append((act.name, width))
    return out


def check(case, hw) -> tuple[int, list[dict]]:
    """(accesses compared, the ones whose plan width is none of its line's LLVM IR widths) of ``case``."""
    lowered = llir_widths(lowered_llir(case, hw))
    bad, compared = [], 0
    for where, acts in plan_widths(case, hw).items():
        if where not in lowered:
            continue
        for name, width in acts:
            compared += 1
            if width not in lowered[where]:
                bad.append(dict(case=case.name, line=f"{where[0]}:{where[1]}", action=name, plan=width,
                                llir=sorted(lowered[where])))  # fmt: skip
    return compared, bad


def survey_cases(sets: list[str]) -> list[tuple[str, object]]:
    """(set, case) of the survey sets' launches, each name once."""
    import harness

    out, seen = [], set()
    for s in sets:
        for case in harness.cases_of(s):
            if case.name not in seen:
                seen.add(case.name)
                out.append((s, case))
    return out


def _specialisation(record: dict) -> str:
    """What Triton's vectorisation of a sweep record's launch depends on: its kernel, constants, warps and
    stages, dtypes, and which integers and strides are multiples of 16 (its specialisation)."""
    args = []
    for arg in record["args"]:
        if "tensor" in arg:
            t = arg["tensor"]
            args.append((t["dtype"], tuple(s % 16 == 0 for s in t["strides"])))
        else:
            v = arg["scalar"]
            args.append(v % 16 == 0 if isinstance(v, int) else type(v).__name__)
    key = (record["kernel"], record["constexprs"], record["num_warps"], record["num_stages"], args)
    return json.dumps(key, sort_keys=True, default=str)


def sweep_cases(folders: list[Path]) -> list[tuple[str, object]]:
    """(folder name, case) of the measured sweep sets' launches (``benchmarks/accuracy.py``'s records), one
    per specialisation (:func:`_specialisation`): the widths do not change with the sizes beyond it."""
    from types import SimpleNamespace

    import accuracy

    out, seen = [], set()
    for folder in folders:
        for record, where in accuracy.load(folder):
            key = _specialisation(record)
            if key in seen:
                continue
            seen.add(key)
            try:
                launch = accuracy.rebuild(record, where)
            except accuracy.DataError:  # an external kernel package not installed: counted by accuracy.py
                continue
            case = SimpleNamespace(
                name=record["id"], fn=launch.fn, grid=launch.grid, args=launch.args, kw=launch.options
            )
            out.append((folder.name, case))
    return out


def main(argv: list[str] | None = None) -> int:
    import harness

    from tilesight.hardware import load_profile

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--set",
        nargs="*",
        default=None,
        choices=tuple(harness.SETS),
        help="survey sets (default: all, unless --data)",
    )
    ap.add_argument("--data", type=Path, nargs="*", default=(), help="measured sweep folders to check too")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    # the widths do not depend on the register count: no ptxas runs for the plans (a sweep folder's band
    # register counts would each compile a cubin)
    os.environ.setdefault("TILESIGHT_REGISTERS", "estimate")
    hw = load_profile("h200")
    sets = args.set if args.set is not None else ([] if args.data else list(harness.SETS))
    import accuracy

    try:
        cases = survey_cases(sets) + sweep_cases(list(args.data))
    except accuracy.DataError as e:  # a folder with no measured sweep in it
        ap.error(str(e))
    rows, failed, compared = [], [], 0
    for s, case in cases:
        try:
            n, bad = check(case, hw)
        except Exception as e:  # a case the frontend refuses or Triton cannot lower: listed, not checked
            failed.append(f"{s}/{case.name}: {type(e).__name__}: {str(e)[:120]}")
            continue
        compared += n
        for row in bad:
            where = f"{s}/{row['case']} {row['line']} {row['action']}"
            print(f"{where}: plan {row['plan']} B, LLVM IR {row['llir']} B", flush=True)
        rows.extend(dict(row, set=s) for row in bad)
    print(
        f"{len(cases)} launches, {compared} accesses compared, {len(rows)} whose width differs from the "
        f"LLVM IR's, {len(failed)} not checked"
    )
    for line in failed:
        print("  not checked:", line)
    if args.json:
        args.json.write_text(json.dumps(dict(mismatches=rows, not_checked=failed), indent=1) + "\n")
    return 1 if rows else 0


if __name__ == "__main__":
    sys.exit(main())

"""What ptxas gives every measured TileLang kernel configuration: registers and spills, on CPU (no GPU).

    python benchmarks/tilelang_sweep/ptxas_registers.py [--out benchmarks/data/ptxas_tilelang.json] [--only S]
    python benchmarks/tilelang_sweep/ptxas_registers.py --check [benchmarks/data/ptxas_tilelang.json]

For each distinct block configuration among the committed TileLang sets
(``benchmarks/data/tilelang_h200.jsonl`` and ``benchmarks/data/tilelang_*/tilelang_h200.jsonl``: the
parameters less the problem shape, first occurrence's shape), the kernel is lowered for sm_90a with
TileLang's own passes (``tilelang.engine.lower``), compiled by ``nvcc -arch=sm_90a -cubin -O3 -Xptxas -v``
with TileLang's include paths, and ptxas's report is read per entry point: registers, stack frame, spill
store and load bytes. These are the compiler's facts behind the TileLang frontend's register and spill
estimate (``frontends/tilelang/lower.py``); no timing is read. Needs tilelang (its CUDA templates and
CUTLASS headers) and nvcc on PATH. ``--check`` (CPU, no nvcc) compares the committed report with the
frontend's own estimate of each configuration's plan: whether it spills
(``BlockResources.spill_bytes_per_thread``). (No ``from __future__ import annotations``: TileLang evaluates
a prim_func's annotations in the builder's scope.)
"""

import argparse
import datetime
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

import cases as case_list  # noqa: E402

DATA = ROOT / "benchmarks" / "data"
# parameters that set the problem, not the block configuration
SHAPE_KEYS = frozenset(
    {"M", "N", "K", "batch", "heads", "seq_len", "seqlen_kv", "total_q", "total_kv", "causal", "programs"}
)
# what cases.build / cases.launch_args read of a measured row (a block-sparse mask's seed and density, a
# varlen batch's lengths)
CASE_KEYS = ("id", "family", "kernel", "params", "seed", "density", "lens")
_ENTRY = re.compile(r"Compiling entry function '([^']+)'")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_REGS = re.compile(r"Used (\d+) registers")


def measured_configs() -> list[dict]:
    """One case (the first measured) per distinct (kernel, configuration) of the committed TileLang sets."""
    files = [DATA / "tilelang_h200.jsonl", *sorted(DATA.glob("tilelang_*/tilelang_h200.jsonl"))]
    seen: dict[tuple, dict] = {}
    for f in files:
        for line in f.read_text().splitlines():
            row = json.loads(line)
            config = tuple(sorted((k, str(v)) for k, v in row["params"].items() if k not in SHAPE_KEYS))
            if (row["kernel"], config) not in seen:
                seen[row["kernel"], config] = {
                    "set": f.parent.name if f.parent != DATA else "tilelang_h200",
                    **{k: row[k] for k in CASE_KEYS if k in row},
                }
    return list(seen.values())


def ptxas_report(text: str) -> dict[str, dict]:
    """ptxas -v's lines per entry function: registers, stack frame and spill bytes."""
    out: dict[str, dict] = {}
    entry = None
    for line in text.splitlines():
        if m := _ENTRY.search(line):
            entry = m.group(1)
            out[entry] = {}
        elif entry and (m := _FRAME.search(line)):
            out[entry].update(
                frame=int(m.group(1)), spill_stores=int(m.group(2)), spill_loads=int(m.group(3))
            )
        elif entry and (m := _REGS.search(line)):
            out[entry]["registers"] = int(m.group(1))
    return out


def compile_case(case: dict, workdir: Path) -> dict:
    import tilelang.env as tl_env
    from tilelang.engine.lower import lower
    from tvm.target import Target

    target = Target({"kind": "cuda", "arch": "sm_90a"})
    with target:
        art = lower(case_list.build(case), target=target)
    cu, cubin = workdir / "k.cu", workdir / "k.cubin"
    cu.write_text(art.kernel_source)
    cmd = [
        "nvcc", "-arch=sm_90a", "-cubin", "-O3", "-std=c++17", "-Xptxas", "-v",
        f"-I{tl_env.TILELANG_TEMPLATE_PATH}", f"-I{tl_env.CUTLASS_INCLUDE_DIR}", "-o", str(cubin), str(cu),
    ]  # fmt: skip
    built = subprocess.run(cmd, capture_output=True, text=True)
    if built.returncode:
        return {"error": built.stderr.strip().splitlines()[-1] if built.stderr.strip() else "nvcc failed"}
    return {"entries": ptxas_report(built.stderr)}


def check(path: Path) -> int:
    """The frontend's spill estimate against ptxas's report, configuration by configuration (CPU only):
    whether a kernel spills, and, where both spill, the frame a thread that holds fragments gets (the
    estimate's block total over the case's ``threads``, the consumers of a warp-specialised kernel) against
    ptxas's stack frame."""
    from tilesight.frontends.tilelang import TileLangFrontend

    from tilesight.hardware import load_profile

    hw = load_profile("h200")
    rows = json.loads(path.read_text())["rows"]
    agree = 0
    checked = 0
    frames: list[float] = []
    for row in rows:
        if "entries" not in row:
            print(f"{row['id']}: not compiled ({row.get('error')})")
            continue
        plan = TileLangFrontend().plan(case_list.build(row), case_list.launch_args(row), {}, hw)
        plans = getattr(plan, "plans", (plan,))
        # ptxas reports the entry points in reverse launch order; a frame of its own (a local array, no
        # spill stores) is not a register spill
        entries = list(reversed(list(row["entries"].values())))
        for p, entry in zip(plans, entries, strict=False):
            stores = entry.get("spill_stores", 0)
            res = p.resources
            block = res.spill_bytes_per_thread * res.threads
            checked += 1
            ok = (block > 0) == (stores > 0)
            agree += ok
            if block or stores or not ok:
                holders = row["params"].get("threads", res.threads)
                estimate = block / holders
                line = (
                    f"{row['id']:28s} {p.name[:24]:24s} ptxas frame {entry.get('frame', 0):4d} B "
                    f"(spill stores {stores:4d} B)  estimate {estimate:6.0f} B a thread"
                )
                if block and stores:
                    frames.append(estimate / entry["frame"])
                    line += f"  ratio {estimate / entry['frame']:.2f}"
                print(line + ("" if ok else "  DISAGREE"))
    print(f"spill or not: the estimate agrees with ptxas on {agree} of {checked} kernels")
    if frames:
        err = sum(abs(f - 1.0) for f in frames) / len(frames)
        print(f"frame size where both spill: {len(frames)} kernels, mean |estimate / ptxas - 1| {err:.1%}")
    return 0 if agree == checked else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DATA / "ptxas_tilelang.json")
    ap.add_argument("--only", default="", help="only configurations whose kernel name contains this")
    ap.add_argument("--check", nargs="?", const=DATA / "ptxas_tilelang.json", type=Path, default=None)
    args = ap.parse_args()
    if args.check is not None:
        return check(args.check)
    nvcc = subprocess.run(["nvcc", "--version"], capture_output=True, text=True)
    if nvcc.returncode:
        raise SystemExit("nvcc not found on PATH")
    import tilelang

    rows = []
    todo = [c for c in measured_configs() if args.only in c["kernel"]]
    with tempfile.TemporaryDirectory() as tmp:
        for i, case in enumerate(todo):
            t0 = time.time()
            try:
                res = compile_case(case, Path(tmp))
            except Exception as exc:  # a case TileLang cannot lower is recorded, not fatal
                res = {"error": f"{type(exc).__name__}: {exc}".splitlines()[0]}
            rows.append({**case, **res, "compile_s": round(time.time() - t0, 2)})
            entries = res.get("entries", {})
            summary = "; ".join(
                f"{e.get('registers')} regs, {e.get('spill_stores', 0)} B spilled" for e in entries.values()
            )
            print(
                f"[{i + 1}/{len(todo)}] {case['id']} {case['kernel']}: {summary or res.get('error')}",
                flush=True,
            )
    meta = {
        "command": "python benchmarks/tilelang_sweep/ptxas_registers.py"
        + (f" --only {args.only}" if args.only else ""),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "tilelang": tilelang.__version__,
        "nvcc": " ".join(nvcc.stdout.strip().splitlines()[-2:]),
        "target": "sm_90a, nvcc -O3 -Xptxas -v",
    }
    args.out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    print(f"wrote {args.out} ({len(rows)} configurations)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

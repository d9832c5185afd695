"""What the robustness sweeps share: a case's outcome, running cases in child processes, the results file.

A sweep hands real kernels from a project TileSight does not control to ``tilesight.estimate`` (h200 profile)
and sorts every case into one of four outcomes:

* ``predicted``: estimate returned a Report;
* ``refused``: it raised a ``tilesight.errors.TileSightError``, a typed refusal naming what it does not model;
* ``harness``: the case never reached TileSight (capturing the launch or building the example failed);
* ``crash``: anything else came out of estimate (or its process died or hung inside it): a TileSight bug.

Every case runs in its own Python process (``run.py --src SRC --case NAME``), ``--jobs`` at a time. The
child prints a marker line before each estimate and one line per finished record, so a process that dies or
times out inside estimate is a crash and one that dies anywhere else a harness failure, and the records it
finished before that are kept.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.metadata
import json
import math
import os
import shlex
import subprocess
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
# The profile every sweep predicts for: h200, or the one ROBUSTNESS_HW names (its case processes inherit it)
HW = os.environ.get("ROBUSTNESS_HW", "h200")

PREDICTED = "predicted"
REFUSED = "refused"
HARNESS = "harness"
CRASH = "crash"
OUTCOMES = (PREDICTED, REFUSED, HARNESS, CRASH)

_ESTIMATING = "@@estimating "
_RECORD = "@@record "
DETAIL_CHARS = 1000  # a message longer than this is cut in the results file
STDERR_TAIL_CHARS = 1500

# Sanity checks on a prediction (flags only; they do not change the outcome). The hardware rates come from the
# h200 profile; these are the harness's own thresholds.
TINY_LATENCY_US = 2.0  # at most this long ...
FOR_BYTES = 100e6  # ... for at least this many bytes moved is absurd
SLOW_FACTOR = 100.0  # a memory-bound launch this many times slower than its bytes at the DRAM rate ...
SLOW_MIN_BYTES = 8e6  # ... where it moves at least this many bytes
SPEC_SLACK = 1.05  # above the datasheet DRAM or tensor-core rate by more than this


# ------------------------------------------------------------------------------------------- child side


def emit(record: dict[str, Any]) -> None:
    """Hand one finished record to the parent (and print it for a person running ``--case``)."""
    print("\n" + _RECORD + json.dumps(record, default=str), flush=True)


def _package_roots() -> tuple[str, ...]:
    import tilesight.frontends
    import tilesight.hw_profiles
    import tilesight.kernels

    mods = (tilesight, tilesight.frontends, tilesight.kernels, tilesight.hw_profiles)
    return tuple(os.path.realpath(p) + os.sep for m in mods for p in m.__path__)


def _where(filename: str) -> str:
    path = os.path.realpath(filename)
    return os.path.relpath(path, REPO) if path.startswith(str(REPO) + os.sep) else filename


def _owner(filename: str, roots: tuple[str, ...]) -> str:
    """Which code a frame belongs to: tilesight, an installed package, or the file itself."""
    path = os.path.realpath(filename)
    if path.startswith(roots):
        return "tilesight"
    parts = Path(path).parts
    if "site-packages" in parts and parts.index("site-packages") + 1 < len(parts):
        return parts[parts.index("site-packages") + 1]
    return os.path.basename(path)


def crash_frames(exc: BaseException) -> dict[str, Any]:
    """The last frames of a crash, the last one in TileSight's own code, and whose code raised it."""
    roots = _package_roots()
    frames = traceback.extract_tb(exc.__traceback__)
    shown = [f"{_where(f.filename)}:{f.lineno} in {f.name}: {(f.line or '').strip()}" for f in frames[-3:]]
    ours = [f for f in frames if os.path.realpath(f.filename).startswith(roots)]
    last_ours = f"{_where(ours[-1].filename)}:{ours[-1].lineno} in {ours[-1].name}" if ours else None
    raised_in = _owner(frames[-1].filename, roots) if frames else "?"
    return {"frames": shown, "last_tilesight_frame": last_ours, "raised_in": raised_in}


def estimate_into(record: dict[str, Any], call: Callable[[], Any]) -> Any:
    """Run ``call`` (a ``tilesight.estimate``), fill ``record`` with its outcome; return the Report or None.

    The marker printed first lets the parent call a death or hang inside ``call`` a crash."""
    from tilesight.errors import TileSightError

    marker = {"case": record["case"], "idx": record.get("idx", 0), "kernel": record.get("kernel")}
    print("\n" + _ESTIMATING + json.dumps(marker), flush=True)
    t0 = time.monotonic()
    report = None
    try:
        report = call()
    except TileSightError as e:
        record.update(outcome=REFUSED, error=type(e).__name__, detail=str(e)[:DETAIL_CHARS])
    except Exception as e:  # anything untyped out of estimate is the bug this sweep looks for: record it
        record.update(outcome=CRASH, error=type(e).__name__, detail=str(e)[:DETAIL_CHARS], **crash_frames(e))
    else:
        record.update(
            outcome=PREDICTED,
            latency_us=report.latency_us,
            bottleneck=report.bottleneck.value,
            bottleneck_reason=report.bottleneck_reason[:200],
            dram_bytes=report.dram_bytes,
            flops=report.flops,
        )
    record["secs"] = round(time.monotonic() - t0, 2)
    return report


def harness_failure(record: dict[str, Any], exc: BaseException, context: str = "") -> dict[str, Any]:
    """Fill ``record`` as a harness failure: the case did not get as far as TileSight. ``exc``'s last frames
    say where; ``context`` goes before its message."""
    frames = traceback.extract_tb(exc.__traceback__)[-3:]
    record.update(
        outcome=HARNESS,
        error=type(exc).__name__,
        detail=(f"{context}: {exc}" if context else str(exc))[:DETAIL_CHARS],
        frames=[f"{_where(f.filename)}:{f.lineno} in {f.name}" for f in frames],
    )
    return record


def sanity_flags(
    record: dict[str, Any],
    *,
    arg_bytes: float = 0.0,
    memory_bound: bool = False,
    flops: float = 0.0,
    tc_dtype: str | None = None,
) -> list[str]:
    """Predictions no GPU could meet, or far slower than their bytes need: worth a look, not a verdict.

    ``arg_bytes``: the bytes of the launch's tensor arguments (the harness's own count); ``flops`` and
    ``tc_dtype``: a GEMM's work and operand type, checked against the datasheet tensor-core rate."""
    import tilesight

    profile = tilesight.load_profile(HW)
    us = record["latency_us"]
    if not (isinstance(us, float) and math.isfinite(us) and us > 0):
        return [f"latency {us!r} is not a positive number"]
    flags = []
    moved = max(arg_bytes, record.get("dram_bytes") or 0.0)
    if moved >= FOR_BYTES and us < TINY_LATENCY_US:
        flags.append(f"{moved / 1e6:.0f} MB in {us:.2f} us")
    dram = record.get("dram_bytes") or 0.0
    if dram / (us * 1e-6) > SPEC_SLACK * profile.ddr_bw_spec_bytes_per_s:
        flags.append(
            f"DRAM {dram / 1e6:.1f} MB in {us:.2f} us: {dram / us / 1e6:.2f} TB/s, above the datasheet"
        )
    if memory_bound and arg_bytes >= SLOW_MIN_BYTES:
        bound_us = arg_bytes / profile.ddr_bw_bytes_per_s * 1e6
        if us > SLOW_FACTOR * bound_us:
            flags.append(f"{us / bound_us:.0f}x its bytes at the DRAM rate")
    if flops:
        spec = profile.tc_spec_flops_per_s
        ceiling = spec.get(tc_dtype) if tc_dtype in spec else max(spec.values())
        rate = flops / (us * 1e-6)
        record["tflops"] = round(rate / 1e12, 1)
        if rate > SPEC_SLACK * ceiling:
            flags.append(f"{rate / 1e12:.0f} TFLOP/s, above the {ceiling / 1e12:.0f} of the datasheet")
    return flags


# ------------------------------------------------------------------------------------------ parent side


def _text(data: bytes | str | None) -> str:
    if data is None:
        return ""
    return data.decode(errors="replace") if isinstance(data, bytes) else data


def _parse_child(name: str, out: str, err: str, rc: int | None, timeout_s: float) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    pending: dict[str, Any] | None = None
    for line in out.splitlines():
        if line.startswith(_ESTIMATING):
            pending = json.loads(line[len(_ESTIMATING) :])
        elif line.startswith(_RECORD):
            records.append(json.loads(line[len(_RECORD) :]))
            pending = None
    if rc == 0 and pending is None:
        if records:
            return records
        return [
            {
                "case": name,
                "idx": 0,
                "outcome": HARNESS,
                "error": "NoRecord",
                "detail": err[-STDERR_TAIL_CHARS:],
            }
        ]
    how = f"timed out after {timeout_s:.0f} s" if rc is None else f"exited with status {rc}"
    if pending is not None:  # it died or hung inside tilesight.estimate
        error = "Timeout" if rc is None else "ProcessDied"
        crash = {**pending, "outcome": CRASH, "error": error, "detail": f"{how} in tilesight.estimate"}
        crash["stderr_tail"] = err[-STDERR_TAIL_CHARS:]
        return [*records, crash]
    idx = len(records)
    detail = f"{how} outside tilesight.estimate: {err[-STDERR_TAIL_CHARS:]}"
    return [
        *records,
        {"case": name, "idx": idx, "outcome": HARNESS, "error": "ChildFailed", "detail": detail},
    ]


def run_children(
    script: Path,
    src: Path,
    names: Iterable[str],
    *,
    jobs: int,
    timeout_s: float,
    extra_args: tuple[str, ...] = (),
) -> list[dict[str, Any]]:
    """Run ``script --src SRC --case NAME`` for every name, ``jobs`` at a time; the records in name order."""

    def one(name: str) -> list[dict[str, Any]]:
        cmd = [sys.executable, str(script), "--src", str(src), "--case", name, *extra_args]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
            out, err, rc = p.stdout, p.stderr, p.returncode
        except subprocess.TimeoutExpired as e:
            out, err, rc = _text(e.stdout), _text(e.stderr), None
        records = _parse_child(name, out, err, rc, timeout_s)
        tally = ", ".join(f"{n} {k}" for k, n in Counter(r["outcome"] for r in records).items())
        print(f"  {name}: {tally}", file=sys.stderr, flush=True)
        return records

    with ThreadPoolExecutor(jobs) as pool:
        return [r for rs in pool.map(one, list(names)) for r in rs]


def counts(records: Iterable[dict[str, Any]]) -> dict[str, int]:
    tally = Counter(r["outcome"] for r in records)
    return {o: tally.get(o, 0) for o in OUTCOMES}


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True, check=True).stdout


def tilesight_provenance() -> dict[str, Any]:
    """Which TileSight the sweep ran: this checkout (its HEAD and the package files changed in it) or, where
    PYTHONPATH holds a copy made by ``benchmarks/autotune/committed_copy.sh``, the commit it exported."""
    import tilesight

    package = Path(tilesight.__file__).resolve().parent
    if package.is_relative_to(REPO):
        commit = _git("rev-parse", "HEAD").strip()
        changed = _git("status", "--porcelain", "--", "tilesight", "frontends", "kernels", "hw_profiles")
        return {"tilesight_commit": commit, "tilesight_uncommitted_changes": changed.splitlines()}
    return {
        "tilesight_commit": os.environ.get("TILESIGHT_COMMIT"),
        "tilesight_uncommitted_changes": [],
        "tilesight_path": str(package),
    }


def source_commit(tree: Path) -> str | None:
    """The commit ``fetch.sh`` extracted into ``tree`` (its COMMIT file); None for a tree made otherwise."""
    stamp = tree / "COMMIT"
    return stamp.read_text().strip() if stamp.is_file() else None


def write_results(
    out: Path, *, sweep: str, source: dict[str, Any], records: list[dict[str, Any]], started: dt.datetime
) -> dict[str, Any]:
    """Write the results file: the command, date, TileSight commit, versions, counts and every record."""
    argv = [os.path.relpath(sys.argv[0], REPO) if os.path.isabs(sys.argv[0]) else sys.argv[0], *sys.argv[1:]]
    results = {
        "sweep": sweep,
        "command": "python " + shlex.join(argv),
        "date": started.isoformat(timespec="seconds"),
        "wall_s": round((dt.datetime.now(dt.UTC) - started).total_seconds()),
        **tilesight_provenance(),
        "versions": {
            "python": sys.version.split()[0],
            **{d: _version(d) for d in ("torch", "triton", "tilelang", "apache-tvm-ffi")},
        },
        "hw": HW,
        "source": source,
        "counts": counts(records),
        "records": records,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1, default=str) + "\n")
    return results


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def sweep_parser(description: str, src_env: str, src_help: str, timeout_s: float) -> argparse.ArgumentParser:
    """The arguments every sweep's ``run.py`` takes (``--src`` defaulting to ``$src_env``); a sweep adds its
    own before parsing."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--src", type=Path, default=os.environ.get(src_env), help=src_help)
    ap.add_argument("--out", type=Path, help="write the results file here")
    ap.add_argument("--case", help="run this one case in this process and print its records")
    ap.add_argument("--only", help="comma-separated substrings: run only the cases whose names hold one")
    ap.add_argument("--jobs", type=int, default=2, help="cases at a time, each in its own process")
    ap.add_argument("--timeout", type=float, default=timeout_s, help="seconds a case may take")
    ap.add_argument("--list", action="store_true", help="print the case names")
    return ap


def selected(names: Iterable[str], only: str | None) -> list[str]:
    """The case names ``--only`` keeps (comma-separated substrings; all where it is not given)."""
    return [n for n in names if not only or any(s in n for s in only.split(","))]


def tree_sweep(
    ap: argparse.ArgumentParser,
    args: argparse.Namespace,
    script: Path,
    names: Iterable[str],
    run_case: Callable[..., None],
    *,
    sweep: str,
    repo_url: str,
) -> int:
    """The rest of ``main`` for a sweep over one source tree (``--src``, checked by the caller: FlagGems,
    TileLang's examples): ``--case`` runs one case here and prints its report; else every case ``--only``
    keeps runs in its own process, and the results go to ``--out`` with the tree's commit."""
    src = args.src.resolve()
    if args.case:
        run_case(src, args.case, verbose=True)
        return 0
    if args.out is None:
        ap.error("give --out (or --case NAME)")
    chosen = selected(names, args.only)
    started = now()
    records = run_children(script, src, chosen, jobs=args.jobs, timeout_s=args.timeout)
    source = {"repo": repo_url, "commit": source_commit(args.src), "cases": len(chosen)}
    return finish(args.out, sweep=sweep, source=source, records=records, started=started)


def finish(
    out: Path, *, sweep: str, source: dict[str, Any], records: list[dict[str, Any]], started: dt.datetime
) -> int:
    """Write the results file, print its summary and counts; the sweep's exit status."""
    import summary  # beside this module (it reads the results files this one writes)

    results = write_results(out, sweep=sweep, source=source, records=records, started=started)
    summary.print_summary(results)
    print(json.dumps(results["counts"]))
    return 0

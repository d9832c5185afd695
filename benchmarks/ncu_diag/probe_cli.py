"""What the launch probes of ``benchmarks/ncu_diag`` share (``moe.py``, ``layout.py``): a probe's case, the
model's figures for both profiles (CPU), each case timed and launched for ncu (GPU), ncu's rows read back, and
the command line (``--predict`` / ``--time OUT`` / ``--once`` / ``--metrics`` / ``--report FOLDER``).

Runs on the GPU machine too (torch and triton only): nothing here imports TileSight but ``--predict``.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

# The line ``--once`` prints before each case (the committed runs of both probes were written with it).
MARK = "@@moe-case "


@dataclass(frozen=True)
class Probe:
    name: str
    fn: object
    grid: tuple
    args: tuple
    kw: dict
    twin_of: str = ""  # the case a twin stands beside (the MoE probe's dense GEMMs)


def predict(probes: Sequence[Probe]) -> int:
    """Print the model's latency, L2 hit rate, DRAM bytes and bottleneck of every case for the h100 and h200
    profiles, as JSON (the probe's ``predicted.json``)."""
    import tilesight

    rows = {}
    for p in probes:
        row: dict = {"twin_of": p.twin_of} if p.twin_of else {}
        for hw in ("h100", "h200"):
            r = tilesight.estimate(p.fn, p.grid, *p.args, hw=hw, **p.kw)
            row[hw] = {
                "us": round(r.latency_us, 3),
                "l2_hit_pct": round(100 * r.l2_hit_rate, 2),
                "dram_bytes": float(r.dram_bytes),
                "bottleneck": str(r.bottleneck),
            }
        rows[p.name] = row
    print(json.dumps({"command": " ".join(sys.argv), "cases": rows}, indent=1))
    return 0


def time_cases(probes: Sequence[Probe], launch_args: Callable[[Probe], list], path: Path) -> int:
    """Time every case with ``triton.testing.do_bench`` (warmup 25, rep 100, cold L2): one JSON line each,
    with the compiled kernel's registers and spills and the GPU's name."""
    import torch
    import triton

    meta = {"gpu": torch.cuda.get_device_name(0), "triton": triton.__version__, "torch": torch.__version__}
    with path.open("w") as fh:
        for p in probes:
            args = launch_args(p)
            k = p.fn[p.grid]
            compiled = k(*args, **p.kw)
            torch.cuda.synchronize()
            ms = triton.testing.do_bench(
                lambda k=k, a=args, kw=p.kw: k(*a, **kw), warmup=25, rep=100, quantiles=[0.5, 0.2, 0.8]
            )
            rec: dict = {"name": p.name, "twin_of": p.twin_of} if p.twin_of else {"name": p.name}
            rec.update(p50_us=ms[0] * 1e3, p20_us=ms[1] * 1e3, p80_us=ms[2] * 1e3)
            rec.update(n_regs=int(compiled.n_regs), n_spills=int(compiled.n_spills), **meta)
            fh.write(json.dumps(rec) + "\n")
            print(p.name, f"{rec['p50_us']:.1f} us", flush=True)
            del args
    return 0


def launch_once(probes: Sequence[Probe], launch_args: Callable[[Probe], list]) -> int:
    """Launch every case twice (compile, then the launch ncu's rows keep), a marker line before the second."""
    import torch

    for p in probes:
        args = launch_args(p)
        k = p.fn[p.grid]
        k(*args, **p.kw)
        torch.cuda.synchronize()
        print(MARK + p.name, flush=True)
        k(*args, **p.kw)
        torch.cuda.synchronize()
        del args
    return 0


def read_ncu(text: str) -> dict[str, dict[str, float]]:
    """Each case's profiled launch from ``--once`` under ``ncu --csv``: metric name -> value, in the units
    ``ncu`` printed (bytes, percent, cycles, nanoseconds; a metric it could not collect is left out). ``ncu``
    prints its rows after the program's own output, numbered in launch order: ``--once`` launches every case
    twice in the order of its markers, so launch ``2 i + 1`` is the ``i``-th marker's profiled one."""
    cases = [line[len(MARK) :].strip() for line in text.splitlines() if line.startswith(MARK)]
    rows = [line for line in text.splitlines() if line.startswith('"')]
    out: dict[str, dict[str, float]] = {}
    if not rows:
        return out
    table = list(csv.reader(io.StringIO("\n".join(rows))))
    idx = {h: i for i, h in enumerate(table[0])}
    for r in table[1:]:
        launch = int(r[idx["ID"]])
        if launch % 2 == 0 or launch // 2 >= len(cases):
            continue
        try:
            value = float(r[idx["Metric Value"]].replace(",", ""))
        except ValueError:
            continue
        out.setdefault(cases[launch // 2], {})[r[idx["Metric Name"]]] = value
    return out


def main(
    argv: list[str] | None,
    description: str,
    probes: Callable[[], Sequence[Probe]],
    launch_args: Callable[[Probe], list],
    report: Callable[[Path], int],
    metrics: Sequence[str],
) -> int:
    """The probes' command line: exactly one of ``--predict``, ``--time OUT``, ``--once``, ``--metrics``,
    ``--report FOLDER``."""
    ap = argparse.ArgumentParser(description=description)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--predict", action="store_true", help="the model's figures for both profiles (CPU)")
    g.add_argument("--time", type=Path, metavar="OUT", help="time every case with do_bench (GPU)")
    g.add_argument("--once", action="store_true", help="launch every case twice, for ncu (GPU)")
    g.add_argument("--metrics", action="store_true", help="print ncu's --metrics argument")
    g.add_argument("--report", type=Path, metavar="FOLDER", help="measured against predicted (CPU)")
    a = ap.parse_args(argv)
    if a.predict:
        return predict(probes())
    if a.time:
        return time_cases(probes(), launch_args, a.time)
    if a.once:
        return launch_once(probes(), launch_args)
    if a.metrics:
        print(",".join(metrics))
        return 0
    return report(a.report)

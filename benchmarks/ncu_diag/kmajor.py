#!/usr/bin/env python3
"""Probe: one GEMM with B row-major and with B K-major (``x @ w.T`` with a ``torch.nn.Linear`` weight).

The survey's plain GEMM ran 16% slower with a column-major B than with a row-major one (265.6 against 232.4
us at 4096^3), with the same SASS loop apart from the shared layout of B (Triton's ``nvmma_shared``
``transposed = true``), which the model prices alike. This probe times both layouts at validation 40's first
shape and, under ncu, reads the SM clock, DRAM bytes, the L2 hit rate and sectors, shared-memory wavefronts
and bank conflicts, the tensor pipe and the warps' stalls, to tell a memory-system effect from a clock one.

    python3 benchmarks/ncu_diag/kmajor.py --time > kmajor_timing.jsonl   # do_bench, p50/p20/p80
    KMAJOR_SET=where python3 benchmarks/ncu_diag/kmajor.py --time        # B in L2, B from DRAM, GROUP_M 1
    KMAJOR_SET=bk python3 benchmarks/ncu_diag/kmajor.py --time           # K steps of 128 beside 64
    ncu ... --metrics ... python3 benchmarks/ncu_diag/kmajor.py           # one launch per case, a marker each

(``run_kmajor.sh`` runs both and writes ``$OUT``.) On CPU, ``--report DIR`` rescores a run's committed
files (``benchmarks/data/ncu_kmajor``, ``.../where``): per case, the p50 time and the ncu launch's metrics,
K-major beside row-major with their ratio.
"""

from __future__ import annotations

import csv
import functools
import io
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

SHAPE = (4096, 6144, 4096)
# (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages, GROUP_M)
CONFIGS = (
    (128, 128, 64, 8, 3, 8),
    (128, 128, 32, 4, 4, 8),
    (128, 256, 64, 8, 3, 8),
    (64, 128, 64, 4, 3, 8),
)
# KMAJOR_SET=where: the two configs that lose most, at shapes that keep B in L2 (8192x1024x1024: 2 MB),
# stream it from DRAM (1024x8192x8192: 128 MB, A 16 MB) and the first shape again, with GROUP_M 1 too
WHERE_CONFIGS = ((128, 128, 64, 4, 4, 8), (128, 256, 64, 8, 3, 8), (128, 128, 64, 4, 4, 1))
WHERE_SHAPES = ((4096, 6144, 4096), (8192, 1024, 1024), (1024, 8192, 8192))


# KMAJOR_SET=bk: K steps of 128 (256-byte rows of a K-major B) beside 64 at the first shape
BK_CONFIGS = (
    (128, 128, 128, 8, 3, 8),
    (128, 256, 128, 8, 2, 8),
    (128, 128, 64, 8, 4, 8),
    (128, 128, 128, 4, 3, 8),
)


def cases() -> list[tuple[tuple[int, int, int], tuple[int, ...]]]:
    if os.environ.get("KMAJOR_SET", "") == "where":
        return [(shape, c) for shape in WHERE_SHAPES for c in WHERE_CONFIGS]
    if os.environ.get("KMAJOR_SET", "") == "bk":
        return [(SHAPE, c) for c in BK_CONFIGS]
    return [(SHAPE, c) for c in CONFIGS]


def name(shape: tuple[int, int, int], c: tuple[int, ...], k_major: bool) -> str:
    plain = shape == SHAPE and os.environ.get("KMAJOR_SET", "") not in ("where", "bk")
    prefix = "" if plain else "{}x{}x{}_".format(*shape)
    return prefix + "m{}n{}k{}w{}s{}g{}".format(*c) + ("_kB" if k_major else "_rB")


# What --report shows of each ncu launch (the ncu names, shortened)
REPORT_METRICS = {
    "gpu__time_duration.sum": "ncu time (ns)",
    "sm__cycles_elapsed.avg.per_second": "SM clock (Hz)",
    "dram__bytes_read.sum": "DRAM read (B)",
    "lts__t_sector_hit_rate.pct": "L2 hit (%)",
    "lts__t_sectors_srcunit_tex_op_read.sum": "L2 read sectors",
    "lts__t_requests_srcunit_tex_op_read.sum": "L2 read requests",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum": "shared wavefronts",
    "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio": "barrier stalls / issue",
    "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio": "wait stalls / issue",
}


def time_or_mark(case: str, run: Callable[[], object], timing: bool, **fields: object) -> None:
    """One case of an ncu_diag probe driver. ``timing``: a warm launch of ``run``, then ``do_bench``'s p50 /
    p20 / p80 printed as a JSON row ``{"case": case, **fields, "p50_us", "p20_us", "p80_us"}``. Else, for the
    ncu pass: an ``NCU_DIAG_CASE case`` marker and two launches (:func:`ncu_launches` keeps the second: warm
    instruction cache, compiled)."""
    import torch
    import triton

    if timing:
        run()
        torch.cuda.synchronize()
        p50, p20, p80 = triton.testing.do_bench(run, warmup=25, rep=100, quantiles=[0.5, 0.2, 0.8])
        row = {"case": case, **fields, "p50_us": p50 * 1e3, "p20_us": p20 * 1e3, "p80_us": p80 * 1e3}
        print(json.dumps(row), flush=True)
    else:
        print(f"NCU_DIAG_CASE {case}", flush=True)
        for _ in range(2):
            run()
        torch.cuda.synchronize()


def ncu_metrics_by_id(text: str) -> dict[int, dict[str, float]]:
    """Every profiled launch's metrics (name -> value; NaN for ``n/a`` or empty) from ncu's ``--csv`` page,
    keyed by ncu's launch ID; lines before its ``"ID"`` header (the driver's own output) are skipped. Raises
    ValueError without that header."""
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith('"ID"')), None)
    if start is None:
        raise ValueError("no ncu rows in the file")
    rows = csv.DictReader(io.StringIO("\n".join(ln for ln in lines[start:] if ln.startswith('"'))))
    by_id: dict[int, dict[str, float]] = {}
    for row in rows:
        if row["ID"].strip().isdigit():
            value = row["Metric Value"].replace(",", "").strip()
            number = float(value) if value not in ("", "n/a") else float("nan")
            by_id.setdefault(int(row["ID"]), {})[row["Metric Name"]] = number
    return by_id


def ncu_launches(text: str) -> dict[str, dict[str, float]]:
    """Each case's metrics from an ncu CSV run of this script: the second of its two launches (the driver's
    ``NCU_DIAG_CASE`` lines give the order)."""
    names = [ln.split()[1] for ln in text.splitlines() if ln.startswith("NCU_DIAG_CASE ")]
    by_id = ncu_metrics_by_id(text)
    ids = sorted(by_id)
    if len(ids) != 2 * len(names):
        raise SystemExit(f"{len(ids)} ncu launches for {len(names)} cases (two a case expected)")
    return {name: by_id[i] for name, i in zip(names, ids[1::2], strict=True)}


def report(folder: Path) -> int:
    """Print the run in ``folder`` (kmajor_timing.jsonl, kmajor_ncu.csv), K-major beside row-major."""
    timing = {r["case"]: r["p50_us"] for r in map(json.loads, (folder / "kmajor_timing.jsonl").open())}
    ncu = ncu_launches((folder / "kmajor_ncu.csv").read_text())
    for case in [c for c in timing if c.endswith("_rB")]:
        twin = case[: -len("_rB")] + "_kB"
        slower = timing[twin] / timing[case]
        print(f"{case[:-3]}: p50 {timing[case]:.1f} -> {timing[twin]:.1f} us ({slower:.2f}x)")
        for metric, label in REPORT_METRICS.items():
            row, k = ncu[case].get(metric, float("nan")), ncu[twin].get(metric, float("nan"))
            ratio = f"{k / row:.2f}x" if row else "-"
            print(f"  {label:24s} {row:16.4g} {k:16.4g}  {ratio}")
    return 0


def main() -> int:
    if "--report" in sys.argv:
        return report(Path(sys.argv[sys.argv.index("--report") + 1]))
    import torch

    from kernels.triton.gemm import matmul

    timing = "--time" in sys.argv
    torch.manual_seed(0)
    tensors: dict[tuple[int, int, int], tuple] = {}
    for shape, c in cases():
        M, N, K = shape
        if shape not in tensors:
            tensors.clear()  # one shape's tensors at a time
            a = torch.randn(M, K, device="cuda", dtype=torch.float16)
            b_row = torch.randn(K, N, device="cuda", dtype=torch.float16)
            b_kmajor = torch.randn(N, K, device="cuda", dtype=torch.float16).t()  # (K, N), strides (1, K)
            tensors[shape] = (a, b_row, b_kmajor)
        a, b_row, b_kmajor = tensors[shape]
        bm, bn, bk, w, s, g = c
        cfg = dict(block_m=bm, block_n=bn, block_k=bk, group_m=g, num_warps=w, num_stages=s)
        for k_major, b in ((False, b_row), (True, b_kmajor)):
            run = functools.partial(matmul, a, b, **cfg)
            time_or_mark(name(shape, c, k_major), run, timing, shape=[M, N, K])
    return 0


if __name__ == "__main__":
    sys.exit(main())

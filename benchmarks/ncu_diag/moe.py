#!/usr/bin/env python3
"""Probe: why the fused-MoE GEMMs of the survey set run slower than predicted.

Six of the survey set ``moe``'s eight launches (``survey_triton/k_moe.py``: vLLM-style fused MoE, A's rows
gathered through the sorted token ids, the B block chosen by a loaded expert id) are predicted 13-27% fast on
the H200, while the project's own GEMMs of the same tiles are predicted within about 8%. This probe runs each
MoE launch beside its dense twin (``kernels/triton/gemm.py``'s ``matmul_kernel`` over the same padded row
count, N, K, tile, warps, stages and GROUP_M, with B K-major as the MoE weights are), timed and under
``ncu``'s L2 / DRAM / issue counters, so that the measured gap splits into the memory side (L2 hit rate,
DRAM bytes: the model's cache walk of data-chosen B blocks) and the issue side (instructions executed).

    python3 benchmarks/ncu_diag/moe.py --predict > FOLDER/predicted.json     # CPU, first
    python3 benchmarks/ncu_diag/moe.py --time OUT/moe_time.jsonl              # GPU: do_bench
    ncu --csv --metrics $(python3 benchmarks/ncu_diag/moe.py --metrics) \\
        -k regex:'moe_gemm|matmul_kernel' python3 benchmarks/ncu_diag/moe.py --once > OUT/moe_ncu.csv
    python3 benchmarks/ncu_diag/moe.py --report FOLDER                        # CPU: the table

(``benchmarks/data/ncu_moe_h100/moe_command.txt`` has the commands as run.)

``--once`` launches every case twice (compile, then the profiled launch) and prints a marker line per case;
``--report`` takes each case's second launch from the rows ``ncu`` writes after them.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks" / "survey_triton"))

import harness  # noqa: E402
import probe_cli  # noqa: E402
import triton  # noqa: E402
from probe_cli import MARK, Probe, read_ncu  # noqa: E402,F401  (the probe's names, as its tests and layout.py read them)

from kernels.triton.gemm import matmul_kernel  # noqa: E402

METRICS = (
    "gpu__time_duration.sum",
    "lts__t_sector_hit_rate.pct",
    "lts__t_sector_op_read_hit_rate.pct",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "smsp__inst_executed.sum",
    "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__cycles_elapsed.avg",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
)
GMMA = "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active"


def _dense_twin(c: harness.Case) -> Probe:
    """``matmul_kernel`` over the MoE launch's padded rows (``EM``), N and K, B K-major like the weights."""
    t = harness.T
    n, k, em = c.args[6], c.args[7], c.args[8]
    bf = c.args[0].dtype
    kw = dict(
        BLOCK_M=c.kw["BM"],
        BLOCK_N=c.kw["BN"],
        BLOCK_K=c.kw["BK"],
        GROUP_M=c.kw["GROUP_M"],
        num_warps=c.kw["num_warps"],
        num_stages=c.kw["num_stages"],
    )
    used = int(c.args[5].values[0])  # the padded token count the programs past which return at once
    args = (t((used, k), bf), t((k, n), bf, (1, k)), t((used, n), bf), used, n, k, k, 1, 1, k, n, 1)
    grid = (triton.cdiv(used, kw["BLOCK_M"]) * triton.cdiv(n, kw["BLOCK_N"]),)
    del em
    return Probe("dense_" + c.name.removeprefix("fused_moe_"), matmul_kernel, grid, args, kw, twin_of=c.name)


def probes() -> list[Probe]:
    """The survey's MoE launches, each beside its dense twin; with ``MOE_SET=blind`` the second, blind set of
    MoE launches alone (``k_moe.BLIND_SHAPES``)."""
    if os.environ.get("MOE_SET") == "blind":
        import k_moe

        return [
            Probe(c.name, c.fn, tuple(c.grid), tuple(c.args), dict(c.kw))
            for c in k_moe.moe_cases(k_moe.BLIND_SHAPES, 100)
        ]
    out = []
    for c in harness.cases_of("moe"):
        out.append(Probe(c.name, c.fn, tuple(c.grid), tuple(c.args), dict(c.kw)))
        out.append(_dense_twin(c))
    return out


def _launch_args(p: Probe):
    sys.path.insert(0, str(ROOT / "benchmarks" / "survey_triton"))
    from run_gpu import _tensor

    zeros: list[str] = []
    return [_tensor(a, zeros, i) if isinstance(a, harness.T) else a for i, a in enumerate(p.args)]


def _report(folder: Path) -> int:
    pred = json.loads((folder / "predicted.json").read_text())["cases"]
    hw = "h100" if "h100" in folder.name else "h200"
    timed = {}
    for line in (folder / "moe_time.jsonl").read_text().splitlines():
        r = json.loads(line)
        timed[r["name"]] = r
    ncu = read_ncu((folder / "moe_ncu.csv").read_text())
    print(f"{'case':38s} {'meas us':>9s} {'pred us':>9s} {'err':>7s} | {'L2 hit':>6s} {'pred':>6s} | "
          f"{'DRAM GB':>7s} {'pred':>6s} | {'inst M':>7s} {'gmma%':>6s}")  # fmt: skip
    for name, row in pred.items():
        t = timed.get(name)
        m = ncu.get(name, {})
        p = row[hw]
        meas = t["p50_us"] if t else float("nan")
        err = 100 * (p["us"] / meas - 1) if t else float("nan")
        dram = (m.get("dram__bytes_read.sum", float("nan")) + m.get("dram__bytes_write.sum", 0.0)) / 1e9
        print(
            f"{name:38s} {meas:9.1f} {p['us']:9.1f} {err:+6.1f}% | "
            f"{m.get('lts__t_sector_hit_rate.pct', float('nan')):6.1f} {p['l2_hit_pct']:6.1f} | "
            f"{dram:7.2f} {p['dram_bytes'] / 1e9:6.2f} | "
            f"{m.get('smsp__inst_executed.sum', float('nan')) / 1e6:7.1f} "
            f"{m.get(GMMA, float('nan')):6.1f}"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    return probe_cli.main(argv, __doc__.splitlines()[0], probes, _launch_args, _report, METRICS)


if __name__ == "__main__":
    sys.exit(main())

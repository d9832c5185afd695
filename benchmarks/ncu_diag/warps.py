#!/usr/bin/env python3
"""Probe: the same GEMM tile on one warpgroup (4 warps) and on two (8 warps), with GROUP_M 1 and 8.

The committed sweeps show 128x128 tiles on 8 warps about 8% slower than predicted and the same tiles on 4
warps about 2% faster (``benchmarks/accuracy.py`` rows pooled by tile and warps). This probe times both at
4096^3 fp16 and, under ncu, reads what the tensor pipe, L2 and the warps' stalls do, to tell a tensor-core
effect (two warpgroups per block) from an L2 one (GROUP_M).

    python3 benchmarks/ncu_diag/warps.py --time > warps_timing.jsonl     # do_bench, p50/p20/p80
    ncu ... --metrics ... python3 benchmarks/ncu_diag/warps.py            # two launches a case, a marker each

(``run_warps.sh`` runs both and writes ``$OUT``.) On CPU, ``--report DIR`` rescores a committed run
(``benchmarks/data/ncu_warps``, ``benchmarks/data/ncu_warps/stages``): per case its do_bench p50s, and from
the second of its two ncu launches the time, SM cycles and clock, L2 sector throughput and the stalls.
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

# M = N = K; WARPS_SIZE changes it (the timing pass runs 4096 and 8192)
SIZE = int(os.environ.get("WARPS_SIZE", "4096"))
# (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages, GROUP_M)
CASES = (
    *((128, 128, k, w, s, g) for k, s in ((32, 4), (64, 3)) for w in (4, 8) for g in (1, 8)),
    (128, 128, 64, 4, 4, 8),
    (128, 128, 64, 8, 4, 8),
    (256, 128, 64, 8, 3, 8),
    (128, 256, 64, 8, 3, 8),
    (64, 256, 32, 8, 4, 8),
    (64, 256, 64, 4, 4, 1),
    (64, 256, 32, 4, 4, 8),
    (128, 256, 64, 8, 2, 1),
)


# The stages probe (stop 41, ``WARPS_SET=stages``): the 128x128 tile on 4 warps with GROUP_M 8 at the same
# bytes in flight a block by different means: block_K 64 at 2-4 stages against block_K 32 at 3-6 (block_K 32
# at 6 stages holds the 96 KB of block_K 64 at 3: two blocks an SM either way), to tell what the three-stage
# block_K 64 tile loses cycles to: its stage count, its stage bytes or its K step.
STAGES_CASES = (
    (128, 128, 64, 4, 2, 8),
    (128, 128, 64, 4, 3, 8),
    (128, 128, 64, 4, 4, 8),
    (128, 128, 32, 4, 3, 8),
    (128, 128, 32, 4, 4, 8),
    (128, 128, 32, 4, 5, 8),
    (128, 128, 32, 4, 6, 8),
    (128, 128, 64, 8, 3, 8),
    (128, 128, 32, 8, 6, 8),
)
# The one-block set (stop 42): the 128x128 tile on 4 warps at one block an SM (block_K 32 at 8 stages and 64
# at 4: 128 KB each) beside two (32 at 4, 64 at 3), to test whether block_K 64's loss needs a second block.
ONE_BLOCK_CASES = (
    (128, 128, 32, 4, 8, 8),
    (128, 128, 64, 4, 4, 8),
    (128, 128, 32, 4, 4, 8),
    (128, 128, 64, 4, 3, 8),
)
# The small-tile set (stop 78): warp-level mma (``mma.sync``) tiles the sweeps run 1.14-1.35x their
# prediction at 4096^3 and over, where the model has them bound by the SM's load/store path (ldmatrix operand
# fragments and the 8-byte cp.async copies): 32 x 32 and 32 x 64 tiles on 8 warps beside 4, and 64 x 64 on 2.
SMALL_CASES = (
    (32, 32, 32, 8, 5, 8),
    (32, 32, 32, 4, 5, 8),
    (32, 32, 32, 8, 2, 8),
    (32, 64, 32, 8, 4, 1),
    (32, 64, 32, 4, 4, 1),
    (64, 64, 128, 2, 2, 8),
    (64, 64, 32, 4, 4, 8),
    (64, 64, 32, 8, 4, 8),
)
# WARPS_SET picks a set other than CASES
CASES = {"stages": STAGES_CASES, "onebl": ONE_BLOCK_CASES, "small": SMALL_CASES}.get(
    os.environ.get("WARPS_SET", ""), CASES
)
# WARPS_ONLY=m128n128k64w4s3g8,... keeps those cases of the set (the source-level pass, run_kstep_source.sh)
if os.environ.get("WARPS_ONLY"):
    _only = set(os.environ["WARPS_ONLY"].split(","))
    CASES = tuple(c for c in CASES if "m{}n{}k{}w{}s{}g{}".format(*c) in _only)


def name(c: tuple[int, ...]) -> str:
    return "m{}n{}k{}w{}s{}g{}".format(*c)


# What --report shows of each ncu launch (the ncu names, shortened)
REPORT_METRICS = {
    "gpu__time_duration.sum": "us",
    "sm__cycles_active.avg": "kcycles",
    "lts__t_sectors.avg.pct_of_peak_sustained_elapsed": "L2 %",
    "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio": "barrier",
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio": "long sb",
    "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio": "wait",
    "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio": "math",
    "smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio": "dispatch",
}
_SCALE = {"gpu__time_duration.sum": 1e-3, "sm__cycles_active.avg": 1e-3}


def report(folder: Path) -> int:
    """Print the run in ``folder`` (warps_timing.jsonl, warps_ncu.csv): per case its do_bench p50 at each
    size, then its second ncu launch's metrics (``kmajor.ncu_launches`` reads the two-launch CSV) and the
    SM clock they imply (cycles over time)."""
    from kmajor import ncu_launches

    p50: dict[str, list[str]] = {}
    for row in map(json.loads, (folder / "warps_timing.jsonl").open()):
        p50.setdefault(row["case"], []).append(f"{row['size']}: {row['p50_us']:.1f}")
    ncu = ncu_launches((folder / "warps_ncu.csv").read_text())
    print(
        f"{'case':20s} {'do_bench p50 (us)':28s} "
        + " ".join(f"{v:>8s}" for v in REPORT_METRICS.values())
        + "   GHz"
    )
    for case, metrics in ncu.items():
        shown = [metrics.get(m, float("nan")) * _SCALE.get(m, 1.0) for m in REPORT_METRICS]
        ghz = metrics.get("sm__cycles_active.avg", float("nan")) / metrics.get(
            "gpu__time_duration.sum", float("nan")
        )
        print(
            f"{case:20s} {', '.join(p50.get(case, [])):28s} "
            + " ".join(f"{v:8.2f}" for v in shown)
            + f" {ghz:5.2f}"
        )
    return 0


# The ncu counters the operand table reads: shared-memory data-stage wavefronts (128 B each) and warp-level
# warpgroup-MMA instructions (a warpgroup's m64 x n x k16 instruction counts once for each of its 4 warps)
WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"
GMMA_WARP_INSTRUCTIONS = "sm__inst_executed_pipe_tensor_op_gmma.sum"
WAVEFRONT_BYTES = 128
SM_COUNT = 132  # the H200 the committed passes ran on


def operand_rows(
    ncu: dict[str, dict[str, float]], size: int = SIZE
) -> list[tuple[str, int, float, float, float]]:
    """Per case of an ncu pass at ``size``^3 fp16: (case, the instructions' N, the data stage's wavefronts per
    MFLOP, the wavefronts per MFLOP of its warpgroup MMAs' operands read once per instruction (A 64 x 16 and B
    16 x N, 2 bytes each), and of each tile operand read once). The instructions' N follows from the FLOPs
    over the instruction count. Cases without the two counters are left out."""
    rows = []
    for case, metrics in ncu.items():
        waves, warp_instructions = metrics.get(WAVEFRONTS), metrics.get(GMMA_WARP_INSTRUCTIONS)
        if not waves or not warp_instructions:
            continue
        bm, bn = (int(v) for v in re.match(r"m(\d+)n(\d+)", case).groups())
        mflop = 2.0 * size**3 / 1e6
        instructions = warp_instructions / 4
        n = round(2.0 * size**3 / (instructions * 2 * 64 * 16))
        per_instruction = (64 * 16 + 16 * n) * 2 / WAVEFRONT_BYTES
        once = size**3 * (1 / bn + 1 / bm) * 2 / WAVEFRONT_BYTES  # A read once per N tile, B per M tile
        rows.append((case, n, waves / mflop, instructions * per_instruction / mflop, once / mflop))
    return rows


def operands(folder: Path) -> int:
    """Print, per case of ``folder``'s ncu pass, the shared-memory wavefronts beside the two counts of the
    warpgroup MMAs' operand reads (:func:`operand_rows`): which one the SM's data stage follows; and the
    wavefronts an SM per active cycle, how busy the data stage (one wavefront a cycle) ran."""
    from kmajor import ncu_launches

    print(
        f"{'case':20s} {'N':>4s} {'wavefronts/MFLOP':>17s} {'per instruction':>16s} {'ratio':>6s}"
        f" {'once':>8s} {'ratio':>6s} {'per cycle':>9s}"
    )
    ncu = ncu_launches((folder / "warps_ncu.csv").read_text())
    for case, n, waves, per_instruction, once in operand_rows(ncu):
        metrics = ncu[case]
        # the data stage takes one wavefront a cycle: its busy share of the SMs' active cycles
        busy = metrics[WAVEFRONTS] / SM_COUNT / metrics.get("sm__cycles_active.avg", float("nan"))
        print(
            f"{case:20s} {n:4d} {waves:17.1f} {per_instruction:16.1f} {waves / per_instruction:6.2f}"
            f" {once:8.1f} {waves / once:6.2f} {busy:9.2f}"
        )
    return 0


# The copy-width solve (stop 78, ``--copies``): the shared data stage's wavefronts a block's K step, over the
# step's shared-memory instructions by kind (full SASS opcodes, predicated-off ones not counted)
COPY_COLUMNS = ("LDSM.16.M88.4", "LDSM.16.MT88.4", "LDGSTS.E.64", "LDGSTS.E.BYPASS.128")


def block_steps(bm: int, bn: int, bk: int, size: int = SIZE) -> float:
    """K steps all blocks of a ``size``^3 GEMM on ``bm x bn x bk`` tiles run together (tiles x steps a tile):
    what a pass's launch-wide counters are divided by to give one block's K step."""
    return -(-size // bm) * -(-size // bn) * size / bk


def step_instructions(case: tuple[int, ...], size: int = SIZE) -> dict[str, int]:
    """Per block K step of ``case`` (the project's GEMM kernel at ``size``^3 fp16, built as the sweeps build
    it and compiled on this CPU by the frontend's own compile for ptxas: ``$TILESIGHT_PTXAS`` or the
    profile's), the SASS instructions of its matrix loop by full opcode, times the block's warps;
    predicated-off ones (``@!PT``) left out."""
    from collections import Counter

    here = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(here))
    sys.path.insert(0, str(here / "triton_sweep"))
    import accuracy  # noqa: PLC0415 (benchmarks/accuracy.py)
    import sweep_cases  # noqa: PLC0415
    from spill_frames import _cubin_sass  # noqa: PLC0415
    from tilesight.frontends.triton.sass import mma_loop_bodies

    from tilesight.hardware import load_profile

    bm, bn, bk, w, s, g = case
    config = sweep_cases.GemmConfig(block_m=bm, block_n=bn, block_k=bk, num_warps=w, num_stages=s, group_m=g)
    built = sweep_cases.gemm_case("grouped", ("probe", size, size, size), "float16", config)
    sass, _ = _cubin_sass(accuracy.rebuild(built.to_json(), name(case)), load_profile("h200"))
    bodies = mma_loop_bodies(sass)
    if len(bodies) != 1:
        raise ValueError(f"{name(case)}: {len(bodies)} matrix loops in its SASS, expected one")
    ops = Counter(line.split()[0] for line in bodies[0] if line.strip() and not line.startswith("@!PT"))
    return {op: count * w for op, count in ops.items()}


def solve_copy_wavefronts(rows: list[tuple[dict[str, int], float]]) -> tuple[dict[str, float], list[float]]:
    """Wavefronts a warp instruction of each :data:`COPY_COLUMNS` kind, none negative (``scipy``'s NNLS),
    from ``rows`` of (a step's instructions by opcode, the step's measured wavefronts); and the fitted
    wavefronts of each row."""
    import numpy as np
    from scipy.optimize import nnls

    a = np.array([[counts.get(c, 0) for c in COPY_COLUMNS] for counts, _ in rows], dtype=float)
    y = np.array([waves for _, waves in rows], dtype=float)
    solution, _ = nnls(a, y)
    return dict(zip(COPY_COLUMNS, map(float, solution), strict=True)), list(map(float, a @ solution))


def copies(folder: Path) -> int:
    """Print, per warp-level mma case of ``folder``'s ncu pass (the small set), its K step's shared-memory
    instructions and measured data-stage wavefronts, then the wavefronts each kind takes (the profile's
    ``lsu_async_narrow_wavefronts`` is the 8-byte copy's)."""
    from kmajor import ncu_launches

    path = folder / "warps_ncu.csv"
    if not path.is_file():
        print(f"warps.py --copies: {path}: no such file (run_warps.sh writes it)", file=sys.stderr)
        return 2
    ncu = ncu_launches(path.read_text())
    rows, names = [], []
    for case in dict.fromkeys((*SMALL_CASES, *CASES)):  # whichever set the pass ran
        metrics = ncu.get(name(case))
        if metrics is None or WAVEFRONTS not in metrics:
            continue
        counts = step_instructions(case)
        if not any(op.startswith("HMMA") for op in counts):
            continue  # a warpgroup MMA reads its operands itself: not this solve's
        rows.append((counts, metrics[WAVEFRONTS] / block_steps(*case[:3])))
        names.append(name(case))
    if len(rows) < len(COPY_COLUMNS):
        print(f"{folder}: {len(rows)} warp-level mma cases, fewer than the {len(COPY_COLUMNS)} unknowns")
        return 1
    solution, fitted = solve_copy_wavefronts(rows)
    print(
        f"{'case':20s} "
        + " ".join(f"{c:>20s}" for c in COPY_COLUMNS)
        + f" {'wavefronts':>10s} {'fitted':>7s}"
    )
    for case, (counts, waves), fit in zip(names, rows, fitted, strict=True):
        print(
            f"{case:20s} "
            + " ".join(f"{counts.get(c, 0):20d}" for c in COPY_COLUMNS)
            + f" {waves:10.1f} {fit:7.1f}"
        )
    print("wavefronts a warp instruction: " + ", ".join(f"{c} {v:.2f}" for c, v in solution.items()))
    return 0


# The copy-width pass's counters (run_copy_width.sh): SASS-attributed instructions and shared data-stage
# wavefronts by kind, and the stage's total and its "misc" share (neither a load, a store nor a copy)
_CW = "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_"
COPY_WIDTH_METRICS = {
    "ca": ("sm__sass_inst_executed_op_ldgsts_cache_access.sum", _CW + "ldgsts_cache_access.sum"),
    "cg": ("sm__sass_inst_executed_op_ldgsts_cache_bypass.sum", _CW + "ldgsts_cache_bypass.sum"),
    "ldsm": ("sm__sass_inst_executed_op_ldsm.sum", _CW + "ldsm.sum"),
}
CA_CONFLICTS = "sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts_cache_access.sum"
MISC_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc.sum"


def copy_width_rows(ncu: dict[str, dict[str, float]], size: int = SIZE) -> list[dict[str, float | str]]:
    """Per case of a copy-width pass at ``size``^3: wavefronts a warp instruction of 8-byte (``ca``, through
    L1) and 16-byte (``cg``) copies and of ``LDSM``, the 8-byte copies' bank conflicts an instruction, and
    the stage's total and misc wavefronts a block's K step and a warp's K step (misc / steps / warps); NaN
    where a case has none of a kind."""
    rows = []
    for case, metrics in ncu.items():
        m = re.match(r"m(\d+)n(\d+)k(\d+)w(\d+)s(\d+)g(\d+)$", case)
        if m is None or WAVEFRONTS not in metrics:
            continue
        bm, bn, bk, w, _, _ = map(int, m.groups())
        steps = block_steps(bm, bn, bk, size)
        row: dict[str, float | str] = {"case": case}
        for kind, (instr, waves) in COPY_WIDTH_METRICS.items():
            n = metrics.get(instr) or 0.0
            row[kind] = metrics.get(waves, 0.0) / n if n else float("nan")
        ca = metrics.get(COPY_WIDTH_METRICS["ca"][0]) or 0.0
        row["ca_conflicts"] = metrics.get(CA_CONFLICTS, 0.0) / ca if ca else float("nan")
        row["step"] = metrics[WAVEFRONTS] / steps
        row["misc_per_warp"] = metrics.get(MISC_WAVEFRONTS, float("nan")) / steps / w
        rows.append(row)
    return rows


def copy_width(folder: Path) -> int:
    """Print :func:`copy_width_rows` of ``folder``'s ``copy_width_ncu.csv``."""
    from kmajor import ncu_launches

    path = folder / "copy_width_ncu.csv"
    if not path.is_file():
        print(f"warps.py --copy-width: {path}: no such file (run_copy_width.sh writes it)", file=sys.stderr)
        return 2
    rows = copy_width_rows(ncu_launches(path.read_text()))
    print(
        f"{'case':20s} {'8-byte wf/instr':>15s} {'(conflicts)':>11s} {'16-byte':>8s} {'LDSM':>6s}"
        f" {'stage wf/step':>13s} {'misc wf/warp-step':>17s}"
    )
    for r in rows:
        print(
            f"{r['case']:20s} {r['ca']:15.2f} {r['ca_conflicts']:11.2f} {r['cg']:8.2f} {r['ldsm']:6.2f}"
            f" {r['step']:13.1f} {r['misc_per_warp']:17.2f}"
        )
    return 0


def main() -> int:
    if "--copy-width" in sys.argv:
        return copy_width(Path(sys.argv[sys.argv.index("--copy-width") + 1]))
    if "--copies" in sys.argv:
        return copies(Path(sys.argv[sys.argv.index("--copies") + 1]))
    if "--report" in sys.argv:
        return report(Path(sys.argv[sys.argv.index("--report") + 1]))
    if "--operands" in sys.argv:
        return operands(Path(sys.argv[sys.argv.index("--operands") + 1]))
    import torch
    from kmajor import time_or_mark

    from kernels.triton.gemm import matmul

    timing = "--time" in sys.argv
    torch.manual_seed(0)
    a = torch.randn(SIZE, SIZE, device="cuda", dtype=torch.float16)
    b = torch.randn(SIZE, SIZE, device="cuda", dtype=torch.float16)
    for c in CASES:
        bm, bn, bk, w, s, g = c
        cfg = dict(block_m=bm, block_n=bn, block_k=bk, group_m=g, num_warps=w, num_stages=s)
        time_or_mark(name(c), functools.partial(matmul, a, b, **cfg), timing, size=SIZE)
    return 0


if __name__ == "__main__":
    sys.exit(main())

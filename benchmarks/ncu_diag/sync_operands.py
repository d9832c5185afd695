#!/usr/bin/env python3
"""Probe: GEMMs whose operand loads Triton leaves synchronous (a row stride it cannot prove 16-aligned).

Over the pooled sweeps the GEMM launches whose N or K is no multiple of 16 are predicted at 21.0% MAPE (207
launches, 160 with both operands synchronous at 22.8%; ``python benchmarks/probe_report.py unaligned``),
two-sided: of those that do not spill, 16- and 32-row tiles at three or more blocks an SM run a median 0.87 of
predicted, 64- to 256-row tiles at one or two blocks an SM 1.12. Every such loop issues its
synchronous operand as element-wide (2-byte) global loads, stores them to shared memory, fences and runs the
dot with nothing in flight. This probe times a set of them and, under ncu, counts what each block iteration
issues and where its warps wait: global load instructions, requests and sectors (and the L1 hits among them),
shared-memory store wavefronts and bank conflicts, the shared loads of the MMA operands, and the stall
reasons, so the model's load/store-path rate can be set from what the hardware does per instruction.

    python3 benchmarks/ncu_diag/sync_operands.py --time > sync_timing.jsonl   # do_bench p50/p20/p80
    ncu ... --metrics ... python3 benchmarks/ncu_diag/sync_operands.py        # two launches a case
    python3 benchmarks/ncu_diag/sync_operands.py --report DIR                  # on CPU, per case

(``run_sync_operands.sh`` runs both and writes ``$OUT``.)
"""

from __future__ import annotations

import functools
import json
import math
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

# (M, N, K, BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages, GROUP_M). An odd K leaves A's loads
# synchronous, an odd N B's. The first twelve are launches of the committed sets (unaligned: 4097 x 3001 x
# 2999; validation 51: one operand synchronous); then the same tiles with only A or only B synchronous, and
# an aligned twin.
CASES = (
    (4097, 3001, 2999, 16, 256, 32, 8, 3, 1),
    (4097, 3001, 2999, 32, 32, 64, 2, 5, 1),
    (4097, 3001, 2999, 128, 128, 32, 8, 4, 1),
    (4097, 3001, 2999, 64, 256, 32, 8, 4, 8),
    (4097, 3001, 2999, 32, 128, 32, 4, 2, 8),
    (4097, 3001, 2999, 64, 64, 64, 8, 3, 1),
    (4097, 3001, 2999, 16, 64, 32, 2, 2, 1),
    (4097, 3001, 2999, 64, 32, 32, 2, 5, 1),
    (4097, 3001, 2999, 128, 64, 32, 8, 5, 8),
    (4097, 3001, 2999, 64, 128, 32, 4, 2, 1),
    (2048, 3000, 4096, 128, 128, 64, 8, 3, 8),
    (4096, 2048, 3000, 128, 128, 64, 8, 3, 8),
    (4096, 4096, 4095, 128, 128, 64, 8, 3, 8),
    (4096, 4095, 4096, 128, 128, 64, 8, 3, 8),
    (4096, 4096, 4095, 32, 32, 64, 2, 5, 1),
    (4096, 4095, 4096, 32, 32, 64, 2, 5, 1),
    (4096, 4096, 4095, 64, 64, 64, 8, 3, 1),
    (4096, 4095, 4096, 64, 64, 64, 8, 3, 1),
    (4096, 4096, 4095, 16, 256, 32, 8, 3, 1),
    (4096, 4095, 4096, 16, 256, 32, 8, 3, 1),
    (4096, 4096, 4096, 128, 128, 32, 8, 4, 1),
)


def name(c: tuple[int, ...]) -> str:
    return "M{}_N{}_K{}_m{}n{}k{}w{}s{}g{}".format(*c)


def parse(case: str) -> dict[str, int]:
    """The fields of a case name (inverse of :func:`name`)."""
    shape, cfg = case.split("_m", 1)
    m, n, k = (int(x[1:]) for x in shape.split("_"))
    out = {"M": m, "N": n, "K": k}
    rest = "m" + cfg
    for key in ("m", "n", "k", "w", "s", "g"):
        rest = rest[len(key) :]
        digits = ""
        while rest and rest[0].isdigit():
            digits, rest = digits + rest[0], rest[1:]
        out[key] = int(digits)
    return out


# What --report derives per block iteration from the ncu counters (names as ncu spells them)
LD_INSTR = "smsp__inst_executed_op_global_ld.sum"
ST_SHARED_INSTR = "smsp__inst_executed_op_shared_st.sum"
LD_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
LD_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
LD_SECTOR_HITS = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum"
ST_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
LDS_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
ST_CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
ALL_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts.sum"
INSTRUCTIONS = "smsp__inst_executed.sum"
H200_SMS = 132  # the SMs the L1 wavefronts are summed over
STALLS = ("long_scoreboard", "lg_throttle", "mio_throttle", "barrier", "wait", "math_pipe_throttle",
          "short_scoreboard", "membar", "dispatch_stall", "not_selected", "selected")  # fmt: skip


ALIGNED_TWIN = "M4096_N4096_K4096_m128n128k32w8s4g1"  # both operands asynchronous: the loop's own issue


def sync_elements_per_thread(c: dict[str, int]) -> float:
    """Elements a thread loads synchronously each iteration of a case (:func:`parse`'s fields): A's tile where
    K is no multiple of 16 (its row stride), B's where N is not."""
    a = c["m"] * c["k"] if c["K"] % 16 else 0
    b = c["k"] * c["n"] if c["N"] % 16 else 0
    return (a + b) / (32 * c["w"])


def issue_per_sync_element(folder: Path) -> tuple[float, list[tuple[str, float]]]:
    """The instructions a warp issues per synchronously loaded element a thread, each iteration: per case
    with a synchronous operand, (ncu's instructions a warp an iteration - the aligned twin's) / the case's
    :func:`sync_elements_per_thread`; the median over the cases, and each case's value (the profile's
    ``sync_load_issue_per_element``)."""
    from kmajor import ncu_launches

    ncu = ncu_launches((folder / "sync_ncu.csv").read_text())

    def per_warp_iteration(case: str) -> float:
        c = parse(case)
        iters = math.ceil(c["M"] / c["m"]) * math.ceil(c["N"] / c["n"]) * math.ceil(c["K"] / c["k"])
        return ncu[case][INSTRUCTIONS] / iters / c["w"]

    base = per_warp_iteration(ALIGNED_TWIN)
    values = [
        (case, (per_warp_iteration(case) - base) / e)
        for case in ncu
        if INSTRUCTIONS in ncu[case] and (e := sync_elements_per_thread(parse(case))) > 0
    ]
    return statistics.median(v for _, v in values), values


def report(folder: Path) -> int:
    """Per case: do_bench p50; per block iteration the global load instructions, their sectors per request
    and L1 hit share, the shared stores and their wavefronts per instruction, the shared-load wavefronts
    and the instructions a warp issues; the L1 data pipe's wavefronts a cycle an SM (all of them: loads,
    stores, shared memory), the clock, and the stall reasons (warps stalled per issue)."""
    from kmajor import ncu_launches

    timing = {r["case"]: r for r in map(json.loads, (folder / "sync_timing.jsonl").open())}
    ncu = ncu_launches((folder / "sync_ncu.csv").read_text())
    head = (
        f"{'case':40s} {'p50 us':>8s} {'ld/it':>6s} {'sect/req':>8s} {'L1 hit':>6s} {'sts/it':>6s} "
        f"{'wf/sts':>6s} {'lds wf/it':>9s} {'ins/warp/it':>11s} {'wf/cyc':>6s} {'GHz':>5s}  "
        "stalls (warps per issue)"
    )
    print(head)
    for case, row in timing.items():
        c = parse(case)
        m = ncu.get(case, {})
        tiles = math.ceil(c["M"] / c["m"]) * math.ceil(c["N"] / c["n"])
        block_iters = tiles * math.ceil(c["K"] / c["k"])

        def per_it(metric: str, m=m, block_iters=block_iters) -> float:
            return m.get(metric, float("nan")) / block_iters

        req = m.get(LD_REQUESTS, float("nan"))
        sectors = m.get(LD_SECTORS, float("nan"))
        hits = m.get(LD_SECTOR_HITS, float("nan"))
        sts = m.get(ST_SHARED_INSTR, float("nan"))
        wf_per_sts = m.get(ST_WAVEFRONTS, float("nan")) / sts
        cycles = m.get("sm__cycles_active.avg", float("nan"))
        ghz = cycles / m.get("gpu__time_duration.sum", float("nan"))
        wf_per_cycle = m.get(ALL_WAVEFRONTS, float("nan")) / H200_SMS / cycles
        stalls = " ".join(
            f"{s}={m[k]:.2f}"
            for s in STALLS
            if (k := f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio") in m and m[k] >= 0.05
        )
        print(
            f"{case:40s} {row['p50_us']:8.1f} {per_it(LD_INSTR):6.0f} {sectors / req:8.2f} "
            f"{hits / sectors:6.2f} {per_it(ST_SHARED_INSTR):6.0f} {wf_per_sts:6.2f} "
            f"{per_it(LDS_WAVEFRONTS):9.0f} {per_it(INSTRUCTIONS) / c['w']:11.0f} {wf_per_cycle:6.2f} "
            f"{ghz:5.2f}  {stalls}"
        )
    median, values = issue_per_sync_element(folder)
    spread = ", ".join(f"{v:.1f}" for _, v in values)
    print(f"instructions a warp issues per synchronous element a thread (over {ALIGNED_TWIN}'s): "
          f"median {median:.2f} ({spread})")  # fmt: skip
    return 0


def main() -> int:
    if "--report" in sys.argv:
        return report(Path(sys.argv[sys.argv.index("--report") + 1]))
    import torch
    from kmajor import time_or_mark

    from kernels.triton.gemm import matmul

    timing = "--time" in sys.argv
    torch.manual_seed(0)
    for c in CASES:
        m, n, k, bm, bn, bk, w, s, g = c
        a = torch.randn(m, k, device="cuda", dtype=torch.float16)
        b = torch.randn(k, n, device="cuda", dtype=torch.float16)
        cfg = dict(block_m=bm, block_n=bn, block_k=bk, group_m=g, num_warps=w, num_stages=s)
        time_or_mark(name(c), functools.partial(matmul, a, b, **cfg), timing)
        del a, b
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Probe: where an attention iteration's time goes when its CUDA-core work is heavy.

Pooled over every committed attention launch, measured / predicted rises with the model's CUDA-core
utilisation: 0.93 at 0.2, 1.01 at 0.4, 1.11 at 0.6, 1.21 at 0.7, 1.27 at 0.8 (the model overlaps CUDA-core
work with the tensor cores and the SFU across resident blocks). The SASS of these loops (compiled on CPU)
carries about as many CUDA-core instructions as the model counts, so the question is the overlap. This probe
times twelve configs of the two attention kernels at validation 22's shape (3 x 28 x 1664, fp16) that span
that range and, under ncu, reads the issue slots, the FMA / ALU / XU (SFU) pipes, the tensor pipe's warp
instructions, the SM clock and the warps' stall reasons.

    python3 benchmarks/ncu_diag/attn_issue.py --time > attn_issue_timing.jsonl   # do_bench p50/p20/p80
    ncu ... --metrics ... python3 benchmarks/ncu_diag/attn_issue.py              # one marker per case
    python3 benchmarks/ncu_diag/attn_issue.py --report DIR                         # CPU: the run in DIR

(``run_attn_issue.sh`` runs both and writes ``$OUT``.) ``ATTN_ISSUE_SET=mask`` (stop 70) runs the mask set
instead: the one-loop kernel causal and with its per-element mask skipped (``attention(causal_mask=False)``,
the same loop bounds), at validation 84's fp16 d128 shape, on the tiles whose mask cost most and least there
(``benchmarks/data/h100_validation84``: 1.1-2.1x the model's charge on 128-row tiles, 0.35-1.1x on 64-row
ones, with the same SASS instructions a score element). ``--report`` prints each case's time, issue and pipe
use and its commonest stalls, then each causal launch against its unmasked twin: what the mask adds in time,
cycles, instructions and each stall reason's cycles. ``ATTN_ISSUE_SET=lone`` (stop 72) runs full attention at
b2h32n4096 fp16 where one more stage leaves a block alone on its SM, and ``--report`` puts each lone tile
beside its two-block twin per K/V step an SM, with the installed model's figure (``LONE_PAIRS``).
"""

from __future__ import annotations

import functools
import json
import math
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
# predicted_us builds its launches as the sweeps do (benchmarks/accuracy.py, triton_sweep/sweep_cases.py)
sys.path.append(str(Path(__file__).resolve().parents[1]))
sys.path.append(str(Path(__file__).resolve().parents[1] / "triton_sweep"))

BATCH, HEADS, N_CTX = 3, 28, 1664
# (kernel, causal, head_dim, BLOCK_M, BLOCK_N, num_warps, num_stages); kernel "loop" is
# kernels/triton/attention.py (masks every step), "loop-unmasked" the same with its mask skipped, "staged"
# kernels/triton/attention_staged.py
CASES = (
    ("loop", True, 64, 64, 64, 8, 3),
    ("loop", True, 64, 64, 32, 4, 3),
    ("loop", True, 64, 128, 64, 8, 3),
    ("loop", True, 128, 64, 64, 4, 3),
    ("loop", False, 64, 64, 64, 4, 3),
    ("loop", False, 64, 128, 32, 4, 3),
    ("loop", False, 64, 128, 64, 4, 3),
    ("loop", False, 64, 64, 32, 8, 3),
    ("staged", False, 64, 128, 64, 8, 3),
    ("staged", False, 64, 64, 32, 4, 3),
    ("staged", True, 64, 64, 64, 4, 3),
    ("staged", False, 128, 128, 128, 8, 3),
)


# the mask set (ATTN_ISSUE_SET=mask): validation 84's b3h20n3200d128 in fp16, causal and unmasked
MASK_SHAPE = (3, 20, 3200)
MASK_TILES = ((128, 128, 8), (128, 64, 8), (128, 32, 4), (64, 128, 4), (64, 64, 4), (64, 32, 8))
MASK_CASES = tuple(
    (kernel, True, 128, bm, bn, w, 3) for bm, bn, w in MASK_TILES for kernel in ("loop", "loop-unmasked")
)
# the lone set (ATTN_ISSUE_SET=lone, stop 72): full attention at b2h32n4096 fp16, d128, where one more
# stage leaves a block alone on its SM. The pooled launches put a block of one warpgroup alone on its SM at
# 1.08-1.17x its prediction (64 x 64 on 4 warps at 4 stages, every kernel kind) where the same tile at 3
# stages, two blocks an SM, is 0.94-1.04x, and the staged kernel's fewer CUDA-core operations buy the lone
# block nothing (1571 against 1616 us measured, 1361 against 1509 predicted) where at two blocks they buy
# what the model says.
# Each lone case is read beside its two-block twin (LONE_PAIRS), per tile-iteration an SM.
LONE_SHAPE = (2, 32, 4096)
LONE_CASES = (
    ("loop", False, 128, 64, 64, 4, 3),  # two blocks an SM
    ("loop", False, 128, 64, 64, 4, 4),  # one
    ("loop", False, 128, 64, 128, 4, 3),  # one
    ("staged", False, 128, 64, 64, 4, 3),
    ("staged", False, 128, 64, 64, 4, 4),
    ("loop", False, 128, 64, 64, 8, 3),  # two blocks of two warpgroups
    ("loop", False, 128, 64, 64, 8, 4),  # one
    ("loop", False, 128, 128, 64, 8, 3),  # one, predicted right (0.96-0.99)
    ("loop", False, 64, 128, 128, 4, 3),  # two (d64)
    ("loop", False, 64, 128, 128, 4, 4),  # one
)
LONE_PAIRS = (
    ("full/d128/m64n64w4s4", "full/d128/m64n64w4s3"),
    ("staged-full/d128/m64n64w4s4", "staged-full/d128/m64n64w4s3"),
    ("full/d128/m64n64w8s4", "full/d128/m64n64w8s3"),
    ("full/d64/m128n128w4s4", "full/d64/m128n128w4s3"),
    ("staged-full/d128/m64n64w4s4", "full/d128/m64n64w4s4"),
)
STALLS = ("barrier", "long_scoreboard", "wait", "math_pipe_throttle", "short_scoreboard", "mio_throttle",
          "lg_throttle", "dispatch_stall", "no_instruction", "sleeping", "misc", "selected", "not_selected",
          "branch_resolving")  # fmt: skip
STALL = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"
ISSUE = "smsp__issue_active.avg.pct_of_peak_sustained_active"
CYCLES = "sm__cycles_active.avg"


def case_set(which: str | None) -> tuple[tuple[int, int, int], tuple[tuple, ...]]:
    """(batch, heads, n_ctx) and the cases of the set ``which`` (``$ATTN_ISSUE_SET``: unset, ``mask`` or
    ``lone``)."""
    if not which:
        return (BATCH, HEADS, N_CTX), CASES
    if which == "mask":
        return MASK_SHAPE, MASK_CASES
    if which == "lone":
        return LONE_SHAPE, LONE_CASES
    raise SystemExit(f"attn_issue: ATTN_ISSUE_SET={which!r}: unknown set (unset, 'mask' or 'lone')")


def name(c: tuple) -> str:
    kernel, causal, d, bm, bn, w, s = c
    kind = ("staged-" if kernel == "staged" else "") + ("causal" if causal else "full")
    if kernel == "loop-unmasked":
        kind += "-unmasked"
    return f"{kind}/d{d}/m{bm}n{bn}w{w}s{s}"


def report(folder: Path) -> int:
    """Print the run in ``folder`` (``attn_issue_timing.jsonl``, ``attn_issue_ncu.csv``): per case its p50,
    SM cycles, issue slots used, the ALU / FMA / XU pipes' busy share and its three commonest stalls (warps
    stalled an issue); then each causal launch beside its ``-unmasked`` twin, what the mask adds."""
    from kmajor import ncu_launches

    timing_path, ncu_path = folder / "attn_issue_timing.jsonl", folder / "attn_issue_ncu.csv"
    for path in (timing_path, ncu_path):
        if not path.is_file():
            raise SystemExit(f"attn_issue.py: no file {path} (run benchmarks/ncu_diag/run_attn_issue.sh)")
    p50 = {r["case"]: r["p50_us"] for r in map(json.loads, timing_path.open())}
    ncu = ncu_launches(ncu_path.read_text())

    def get(case: str, metric: str) -> float:
        return ncu.get(case, {}).get(metric, math.nan)

    def stalled(case: str, reason: str) -> float:
        """A stall reason's warp-cycles a scheduler: warps stalled an issue x issues (slots used x cycles)."""
        return get(case, STALL.format(reason)) * get(case, ISSUE) / 100 * get(case, CYCLES)

    pipes = {p: f"sm__pipe_{p}_cycles_active.avg.pct_of_peak_sustained_active" for p in ("alu", "fma", "xu")}
    print(f"{'case':34s} {'p50 us':>8s} {'cycles':>10s} {'issue %':>7s} {'alu %':>6s} {'fma %':>6s} "
          f"{'xu %':>5s}  commonest stalls (warps an issue)")  # fmt: skip
    for case in ncu:
        stalls = [(get(case, STALL.format(s)), s) for s in STALLS if s != "selected"]
        top = ", ".join(
            f"{s} {v:.2f}" for v, s in sorted((x for x in stalls if not math.isnan(x[0])), reverse=True)[:3]
        )
        use = " ".join(f"{get(case, pipes[p]):{w}.1f}" for p, w in (("alu", 6), ("fma", 6), ("xu", 5)))
        print(f"{case:34s} {p50.get(case, math.nan):8.1f} {get(case, CYCLES):10.0f} {get(case, ISSUE):7.1f} "
              f"{use}  {top}")  # fmt: skip
    pairs = [(a, b) for a, b in LONE_PAIRS if a in ncu and b in ncu]
    if pairs:
        lone_report(pairs, p50, get, stalled)
    for case in [c for c in ncu if c.startswith("causal/")]:
        twin = case.replace("causal/", "causal-unmasked/", 1)
        if twin not in ncu:
            continue
        cycles = get(case, CYCLES) - get(twin, CYCLES)
        inst = get(case, "sm__inst_executed.sum") - get(twin, "sm__inst_executed.sum")
        print(f"\n{case}: the mask adds {p50.get(case, math.nan) - p50.get(twin, math.nan):.1f} us, "
              f"{cycles:.0f} cycles an SM, {inst:.4g} warp instructions")  # fmt: skip
        for reason in STALLS:
            masked, unmasked = stalled(case, reason), stalled(twin, reason)
            if not math.isnan(masked - unmasked) and abs(masked - unmasked) >= 0.02 * max(abs(cycles), 1.0):
                print(f"  {reason:20s} {unmasked:12.0f} -> {masked:12.0f} warp-cycles a scheduler")
    return 0


def parse_name(case: str) -> tuple:
    """The case tuple :func:`name` wrote ``case`` from (kernel, causal, head_dim, BLOCK_M, BLOCK_N, warps,
    stages)."""
    kind, d, cfg = case.split("/")
    bm, rest = cfg[1:].split("n", 1)
    bn, rest = rest.split("w", 1)
    w, st = rest.split("s", 1)
    kernel = "staged" if kind.startswith("staged-") else "loop"
    if kind.endswith("-unmasked"):
        kernel = "loop-unmasked"
    return kernel, "causal" in kind, int(d[1:]), int(bm), int(bn), int(w), int(st)


def tile_steps_per_sm(c: tuple, shape: tuple[int, int, int], sms: int = 132) -> float:
    """K/V steps of one full (non-causal) launch of case ``c`` over ``sms`` SMs: blocks x steps a block."""
    _, causal, _, bm, bn, _, _ = c
    if causal:
        raise ValueError("tile_steps_per_sm counts the full launches only")
    batch, heads, n_ctx = shape
    return batch * heads * -(-n_ctx // bm) * -(-n_ctx // bn) / sms


def predicted_us(c: tuple, shape: tuple[int, int, int]) -> float:
    """The installed model's latency in us (h200 profile) of case ``c`` at ``shape``, built as the sweeps
    build it."""
    import accuracy
    import sweep_cases

    import tilesight

    kernel, causal, d, bm, bn, w, st = c
    case = sweep_cases.attention_case(*shape, d, causal, (bm, bn, w, st), staged=kernel == "staged")
    launch = accuracy.rebuild(case.to_json(), case.id)
    report = tilesight.estimate(launch.fn, launch.grid, *launch.args, hw="h200", **launch.options)
    return report.latency_s * 1e6


def lone_report(pairs: list, p50: dict, get, stalled) -> None:
    """The lone set's pairs: per K/V step an SM, each case's measured and predicted time, its SM cycles and
    the stall reasons whose warp-cycles a scheduler differ by 2% of the step's cycles or more."""
    print("\nper K/V step an SM (ns; SM cycles); measured / predicted")
    rows = {}
    for case in dict.fromkeys(x for pair in pairs for x in pair):
        c = parse_name(case)
        steps = tile_steps_per_sm(c, LONE_SHAPE)
        pred = predicted_us(c, LONE_SHAPE)
        rows[case] = steps
        measured = p50.get(case, math.nan)
        print(f"  {case:34s} {measured * 1e3 / steps:7.1f} ns measured, {pred * 1e3 / steps:7.1f} predicted "
              f"({measured / pred:.3f}), {get(case, CYCLES) / steps:7.1f} cycles")  # fmt: skip
    for lone, twin in pairs:
        a, b = get(lone, CYCLES) / rows[lone], get(twin, CYCLES) / rows[twin]
        print(f"\n{lone} against {twin}: {a:.1f} against {b:.1f} SM cycles a step")
        for reason in STALLS:
            x, y = stalled(lone, reason) / rows[lone], stalled(twin, reason) / rows[twin]
            if not math.isnan(x - y) and abs(x - y) >= 0.02 * max(a, 1.0):
                print(f"  {reason:20s} {y:9.1f} -> {x:9.1f} warp-cycles a scheduler a step")


def main() -> int:
    if "--report" in sys.argv:
        return report(Path(sys.argv[sys.argv.index("--report") + 1]))
    import torch
    from kmajor import time_or_mark

    from kernels.triton.attention import attention
    from kernels.triton.attention_staged import attention_staged

    timing = "--time" in sys.argv
    (batch, heads, n_ctx), cases = case_set(os.environ.get("ATTN_ISSUE_SET"))
    torch.manual_seed(0)
    for c in cases:
        kernel, causal, d, bm, bn, w, s = c
        q, k, v = (torch.randn(batch, heads, n_ctx, d, device="cuda", dtype=torch.float16) for _ in range(3))
        fn = {"loop": attention, "staged": attention_staged}.get(kernel)
        fn = fn or functools.partial(attention, causal_mask=False)
        cfg = dict(causal=causal, block_m=bm, block_n=bn, num_warps=w, num_stages=s)
        time_or_mark(name(c), functools.partial(fn, q, k, v, **cfg), timing)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Core evaluation speed: plan evaluations per second on this CPU (a benchmark, not a test).

Two workloads on the H200 profile:

* ``same``: one GEMM plan (a K loop of two loads and a dot, then a store) evaluated repeatedly, the case of
  a decorator or a report re-rendered for one configuration (cache traffic memoised per plan);
* ``latency only``: :func:`tilesight.model.evaluate.latency_s`, the same model without building the Report
  (what a config pruner ranks by), nothing memoised but the order search;
* ``sweep``: distinct GEMM plans (block sizes x stages x warps x group sizes, as an autotune pruner sees
  them), each evaluated once, so every evaluation recomputes its cache traffic and schedules.

Rates are per second of this process's CPU time (``time.process_time``), so other work on a shared machine
does not count against them (the wall-clock rate is printed beside). Goal: >= 5,000 evaluations/s.
Run: ``python benchmarks/bench_core_speed.py [--seconds 2]``.
"""

from __future__ import annotations

import argparse
import itertools
import time

from tilesight.hardware import load_profile
from tilesight.library.gemm import gemm_plan
from tilesight.model.evaluate import clear_caches, evaluate, latency_s

GOAL_PER_S = 5000
# Sweep filter: operand buffers of fp16 tiles within H200's 227 KB per-block shared memory.
FP16_BYTES = 2
SMEM_BUDGET_BYTES = 232448


def _sweep_plans() -> list:
    plans = []
    for bm, bn, bk, stages, warps, group in itertools.product(
        (64, 128, 256), (64, 128, 256), (32, 64), (2, 3, 4), (4, 8), (1, 8)
    ):
        if stages * (bm * bk + bk * bn) * FP16_BYTES > SMEM_BUDGET_BYTES:
            continue
        plans.append(
            gemm_plan(4096, 4096, 4096, bm, bn, bk, group_m=group, num_stages=stages, num_warps=warps)
        )
    return plans


_WALL: dict[str, float] = {}  # wall-clock rate of each workload, printed beside the CPU one


def _rate(fn, seconds: float, name: str) -> float:
    """Calls per second of this process's CPU time (the machine is shared: wall time counts others' work)."""
    n = 0
    t0, w0 = time.process_time(), time.perf_counter()
    while (elapsed := time.process_time() - t0) < seconds:
        fn()
        n += 1
    _WALL[name] = n / (time.perf_counter() - w0)
    return n / elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0)
    args = ap.parse_args()
    hw = load_profile("h200")
    plan = gemm_plan(4096, 4096, 4096, 128, 128, 64, group_m=8, num_stages=3, num_warps=8)
    evaluate(plan, hw)
    same = _rate(lambda: evaluate(plan, hw), args.seconds, "same")

    def uncached():
        clear_caches()
        evaluate(plan, hw)

    cold_same = _rate(uncached, args.seconds, "cold_same")

    def uncached_latency():
        clear_caches()
        latency_s(plan, hw)

    cold_latency = _rate(uncached_latency, args.seconds, "cold_latency")
    plans = _sweep_plans()
    it = itertools.cycle(plans)
    t0, w0 = time.process_time(), time.perf_counter()
    for pl in plans:  # first pass: nothing memoised for these plans
        evaluate(pl, hw)
    cold = len(plans) / (time.process_time() - t0)
    _WALL["cold"] = len(plans) / (time.perf_counter() - w0)
    warm = _rate(lambda: evaluate(next(it), hw), args.seconds, "warm")
    w = {k: f"({v:,.0f}/s wall)" for k, v in _WALL.items()}
    print(f"same GEMM plan:          {same:10,.0f} evaluations/s CPU {w['same']} (memoised report)")
    print(
        f"same GEMM plan, no memo: {cold_same:10,.0f} evaluations/s CPU {w['cold_same']} "
        "(traffic and report recomputed)"
    )
    print(
        f"same plan, latency only: {cold_latency:10,.0f} evaluations/s CPU {w['cold_latency']} "
        "(no memo; no phases/stats/notes)"
    )
    print(
        f"sweep, first evaluation: {cold:10,.0f} evaluations/s CPU {w['cold']} ({len(plans)} distinct plans)"
    )
    print(f"sweep, re-evaluated:     {warm:10,.0f} evaluations/s CPU {w['warm']}")
    print(f"goal {GOAL_PER_S:,}/s memoised: {'met' if min(same, warm) >= GOAL_PER_S else 'NOT met'}")
    print(f"goal {GOAL_PER_S:,}/s without memo: {'met' if min(cold_same, cold) >= GOAL_PER_S else 'NOT met'}")
    print(f"goal {GOAL_PER_S:,}/s latency only: {'met' if cold_latency >= GOAL_PER_S else 'NOT met'}")


if __name__ == "__main__":
    main()

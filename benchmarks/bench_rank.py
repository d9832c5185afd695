"""How long ``tilesight.rank`` takes for 100 GEMM configs on this CPU, split into compile / extract / model.

    python benchmarks/bench_rank.py [--configs 100] [--shape 4096,4096,4096] [--workers 1] [--then M,N,K]

Cold: a fresh process, TileSight's in-process compile cache empty (Triton's on-disk cache is not used: the
frontend runs Triton's stages itself). ``frontend`` = binding + compile to TTGIR + plan extraction;
``compile`` is its compile-to-TTGIR part (timed by wrapping the frontend's compile step); ``model`` = the
engine. CPU seconds are reported next to wall seconds: on a shared machine the wall time mostly measures the
other users. With ``--workers N`` the configs are ranked in N forked processes and merged (phase and CPU
times are then summed over workers). ``--then M,N,K`` ranks the same configs again on a second shape in the
same process(es), after the timed cold ranking: a shape with the same specialisation (every size divisible by
16) reuses the compiled TTGIR, so only extraction and the model run (what a second autotune key costs).
Target (issue): under 20 s for 100 configs.
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import sys
import time
from typing import Any

TARGET_S = 20.0
TILES = ((64, 64), (64, 128), (128, 64), (128, 128), (128, 256), (256, 128), (64, 256), (32, 64), (16, 128))
BLOCK_KS = (32, 64, 128)
WARPS_STAGES = ((4, 3), (8, 3), (4, 4), (8, 4), (4, 2))
GROUPS = (8, 1)


def gemm_configs(count: int) -> list[Any]:
    """``count`` distinct autotune-style configs, every dimension varied (deterministic)."""
    import triton

    out = []
    for (bm, bn), bk, (w, s), g in itertools.product(TILES, BLOCK_KS, WARPS_STAGES, GROUPS):
        out.append(
            triton.Config(
                {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": g}, num_warps=w, num_stages=s
            )
        )
    step = max(1, len(out) // count)
    return out[::step][:count]


_TIMES = {"compile": 0.0}


def _timed_compile(original: Any) -> Any:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            _TIMES["compile"] += time.perf_counter() - start

    return wrapper


def _rank(indices: list[int], shape: tuple[int, int, int], count: int) -> Any:
    import triton
    from tilesight.kernels.triton.gemm import matmul_kernel

    import tilesight
    from tilesight import TensorSpec

    m, n, k = shape
    configs = gemm_configs(count)
    a, b, c = TensorSpec((m, k), "float16"), TensorSpec((k, n), "float16"), TensorSpec((m, n), "float16")

    def grid(meta: dict) -> tuple[int]:
        return (triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"]),)

    chosen = [configs[i] for i in indices]
    ranking = tilesight.rank(matmul_kernel, chosen, grid, a, b, c, m, n, k, k, 1, n, 1, n, 1, hw="h200")
    return chosen, ranking


def rank_chunk(
    job: tuple[list[int], tuple[int, int, int], int, tuple[int, int, int] | None],
) -> tuple[list[tuple[int, float | None]], dict]:
    from tilesight.frontends.triton import compile as compile_mod

    if not hasattr(compile_mod.compile_ir, "__wrapped_by_bench__"):
        compile_mod.compile_ir = _timed_compile(compile_mod.compile_ir)
        compile_mod.compile_ir.__wrapped_by_bench__ = True
    cpu_start = time.process_time()
    indices, shape, count, then = job
    chosen, ranking = _rank(indices, shape, count)
    position = {id(cfg): i for i, cfg in zip(indices, chosen, strict=True)}
    result = [(position[id(r.config)], r.latency_s) for r in ranking.ranked]
    result += [(position[id(r.config)], None) for r in ranking.refused]
    phases = {"frontend": ranking.frontend_s, "model": ranking.model_s, "compile": _TIMES["compile"]}
    phases["cpu"] = time.process_time() - cpu_start
    if then is not None:
        start, compile_before, wall_start = time.process_time(), _TIMES["compile"], time.perf_counter()
        _, again = _rank(indices, then, count)
        phases["then_cpu"] = time.process_time() - start
        phases["then_wall"] = time.perf_counter() - wall_start
        phases["then_compile"] = _TIMES["compile"] - compile_before
        phases["then_model"] = again.model_s
    return result, phases


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--configs", type=int, default=100)
    ap.add_argument("--shape", default="4096,4096,4096")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--then", help="M,N,K: rank the same configs again on this shape, same process(es)")
    args = ap.parse_args()
    shape = tuple(int(x) for x in args.shape.split(","))
    then = tuple(int(x) for x in args.then.split(",")) if args.then else None
    start_cpu, start = time.process_time(), time.perf_counter()
    import tilesight.frontends.triton.frontend  # noqa: F401  (imports triton: counted in the wall time)

    import_s = time.perf_counter() - start
    count = len(gemm_configs(args.configs))
    chunks = [list(range(count))[w :: args.workers] for w in range(args.workers)]
    jobs = [(chunk, shape, args.configs, then) for chunk in chunks if chunk]
    if args.workers == 1:
        results = [rank_chunk(jobs[0])]
    else:
        with multiprocessing.get_context("fork").Pool(args.workers) as pool:
            results = pool.map(rank_chunk, jobs)
    # the cold ranking's wall time: the --then rankings ran after it in the same workers
    wall = time.perf_counter() - start - max(r[1].get("then_wall", 0.0) for r in results)
    phases = {key: sum(r[1][key] for r in results) for key in ("frontend", "compile", "model", "cpu")}
    ranked = sorted((t, i) for r in results for i, t in r[0] if t is not None)
    refused = sum(1 for r in results for _, t in r[0] if t is None)
    print(
        f"ranked {len(ranked)} + refused {refused} of {count} configs, GEMM {shape}, {args.workers} worker(s)"
    )
    print(
        f"wall {wall:.1f} s (target < {TARGET_S:.0f} s; import {import_s:.1f} s); ranking CPU "
        f"{phases['cpu']:.1f} s over all workers, parent CPU {time.process_time() - start_cpu:.1f} s"
    )
    print(
        f"frontend {phases['frontend']:.1f} s, of which compile to TTGIR {phases['compile']:.1f} s "
        f"({phases['compile'] / max(phases['frontend'], 1e-9):.0%}); model {phases['model']:.2f} s"
    )
    print(f"predicted best: config #{ranked[0][1]} at {ranked[0][0] * 1e6:.1f} us")
    if then is not None:
        again = {key: sum(r[1][key] for r in results) for key in ("then_cpu", "then_compile", "then_model")}
        print(
            f"then GEMM {then} (same configs, same process): CPU {again['then_cpu']:.1f} s, of which compile "
            f"{again['then_compile']:.1f} s (compile cache hits), model {again['then_model']:.2f} s"
        )
    return 0 if wall < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())

"""How long ``tilesight.rank`` takes for 100 GEMM configs on this CPU, split into compile / extract / model.

    python benchmarks/bench_rank.py [--configs 100] [--shape 4096,4096,4096] [--workers 1] [--then M,N,K]
    python benchmarks/bench_rank.py --sweep sq4096 [--workers 2]   # the autotune timing's 86 configs

Cold: a fresh process, TileSight's in-process compile cache empty (Triton's on-disk cache is not used: the
frontend runs Triton's stages itself). ``frontend`` = binding + compile to TTGIR + plan extraction;
``compile`` is its compile-to-TTGIR part, itself split into Triton's stages (AST codegen, TTIR passes, TTGIR
passes) and the shared-memory allocation; ``walker`` turns the IR into the TilePlan; ``model`` = cache model +
engine. Each phase is timed in CPU seconds by wrapping its function (:data:`PHASES`).
CPU seconds are reported next to wall seconds: on a shared machine the wall time mostly measures the other
users. With ``--workers N`` the configs are ranked in N forked processes and merged (phase and CPU
times are then summed over workers). ``--then M,N,K`` ranks the same configs again on a second shape in the
same process(es), after the timed cold ranking: a shape with the same specialisation (every size divisible by
16) reuses the compiled TTGIR, so only extraction and the model run (what a second autotune key costs).
Target (issue): under 20 s for 100 configs.
"""

from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing
import sys
import time
from pathlib import Path
from typing import Any

TARGET_S = 20.0
PRUNED_CONFIGS = Path(__file__).resolve().parent / "autotune" / "pruned_configs.json"
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


# CPU seconds per phase, summed over the configs of one process (CPU, not wall: on a shared machine the wall
# time mostly measures the other users). Each phase wraps one function, looked up by module and attribute at
# call time; nested phases (compile's three Triton stages inside "compile") are reported inside their parent.
PHASES = (
    ("frontend", "tilesight.frontends.triton.frontend", "TritonFrontend.plan"),
    ("model", "tilesight.model.evaluate", "evaluate"),
    ("bind", "tilesight.frontends.triton.binding", "bind"),
    ("compile", "tilesight.frontends.triton.compile", "compile_ir"),
    ("make_ir", "triton.compiler.compiler", "ASTSource.make_ir"),
    ("make_ttir", "triton.backends.nvidia.compiler", "CUDABackend.make_ttir"),
    ("make_ttgir", "triton.backends.nvidia.compiler", "CUDABackend.make_ttgir"),
    ("smem_alloc", "tilesight.frontends.triton.compile", "_shared_bytes"),
    ("walker", "tilesight.frontends.triton.assemble", "build_plan"),
    ("cache_model", "tilesight.model.evaluate", "cached_traffic"),
)
_TIMES: dict[str, float] = {name: 0.0 for name, _, _ in PHASES}


def _timed(name: str, original: Any) -> Any:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return original(*args, **kwargs)
        finally:
            _TIMES[name] += time.process_time() - start

    wrapper.__wrapped_by_bench__ = True  # type: ignore[attr-defined]
    return wrapper


def _instrument() -> None:
    """Wrap every phase's function once per process (a forked worker inherits the parent's wrappers)."""
    import importlib

    for name, module, attr in PHASES:
        owner: Any = importlib.import_module(module)
        *path, leaf = attr.split(".")
        for part in path:
            owner = getattr(owner, part)
        raw = owner.__dict__[leaf] if isinstance(owner, type) else getattr(owner, leaf)
        if getattr(getattr(raw, "__func__", raw), "__wrapped_by_bench__", False):
            continue
        if isinstance(raw, staticmethod):
            setattr(owner, leaf, staticmethod(_timed(name, raw.__func__)))
        else:
            setattr(owner, leaf, _timed(name, raw))


def _rank(indices: list[int], shape: tuple[int, int, int], configs: list[Any]) -> Any:
    import triton
    from tilesight.kernels.triton.gemm import matmul_kernel

    import tilesight
    from tilesight import TensorSpec

    m, n, k = shape
    a, b, c = TensorSpec((m, k), "float16"), TensorSpec((k, n), "float16"), TensorSpec((m, n), "float16")

    def grid(meta: dict) -> tuple[int]:
        return (triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"]),)

    chosen = [configs[i] for i in indices]
    ranking = tilesight.rank(matmul_kernel, chosen, grid, a, b, c, m, n, k, k, 1, n, 1, n, 1, hw="h200")
    return chosen, ranking


def sweep_configs(shape_name: str) -> tuple[tuple[int, int, int], list[Any]]:
    """The autotune timing's shape and full config list (benchmarks/autotune/pruned_configs.json)."""
    import triton

    spec = json.loads(PRUNED_CONFIGS.read_text())["shapes"][shape_name]
    configs = [
        triton.Config(e["kwargs"], num_warps=e["num_warps"], num_stages=e["num_stages"]) for e in spec["full"]
    ]
    return (spec["M"], spec["N"], spec["K"]), configs


def rank_chunk(
    job: tuple[list[int], tuple[int, int, int], list[Any], tuple[int, int, int] | None],
) -> tuple[list[tuple[int, float | None]], dict]:
    imports_start = time.process_time()
    _instrument()  # imports the phases' modules: what a fresh process imports on first use
    imports = time.process_time() - imports_start
    before = dict(_TIMES)
    cpu_start = time.process_time()
    indices, shape, configs, then = job
    chosen, ranking = _rank(indices, shape, configs)
    position = {id(cfg): i for i, cfg in zip(indices, chosen, strict=True)}
    result = [(position[id(r.config)], r.latency_s) for r in ranking.ranked]
    result += [(position[id(r.config)], None) for r in ranking.refused]
    phases = {name: _TIMES[name] - before[name] for name in _TIMES}
    phases["cpu"] = time.process_time() - cpu_start
    phases["imports"] = imports
    if then is not None:
        start, compile_before, wall_start = time.process_time(), _TIMES["compile"], time.perf_counter()
        _, again = _rank(indices, then, configs)
        phases["then_cpu"] = time.process_time() - start
        phases["then_wall"] = time.perf_counter() - wall_start
        phases["then_compile"] = _TIMES["compile"] - compile_before
        phases["then_model"] = again.model_s
    return result, phases


def _split_lines(phases: dict[str, float], count: int) -> list[str]:
    """The CPU split, summed over workers, with milliseconds per config."""
    compile_other = phases["compile"] - sum(
        phases[p] for p in ("make_ir", "make_ttir", "make_ttgir", "smem_alloc")
    )
    frontend_other = phases["frontend"] - phases["bind"] - phases["compile"] - phases["walker"]
    rows = [
        ("imports on first use (per process)", phases["imports"]),
        ("frontend (bind + compile + walker)", phases["frontend"]),
        ("  bind (Triton's binder)", phases["bind"]),
        ("  compile to TTGIR", phases["compile"]),
        ("    make_ir (AST -> TTIR codegen)", phases["make_ir"]),
        ("    make_ttir (TTIR passes)", phases["make_ttir"]),
        ("    make_ttgir (TTGIR passes)", phases["make_ttgir"]),
        ("    shared-memory allocation", phases["smem_alloc"]),
        ("    other (IR to text, setup)", compile_other),
        ("  walker (TTIR/TTGIR -> TilePlan)", phases["walker"]),
        ("  other", frontend_other),
        ("model (evaluate)", phases["model"]),
        ("  cache model", phases["cache_model"]),
        ("  engine", phases["model"] - phases["cache_model"]),
    ]
    width = max(len(r[0]) for r in rows)
    return [f"  {name:<{width}} {sec:7.2f} s  {sec / count * 1e3:7.1f} ms/config" for name, sec in rows]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--configs", type=int, default=100)
    ap.add_argument("--shape", default="4096,4096,4096")
    ap.add_argument("--sweep", help="rank the autotune timing's list for this shape (e.g. sq4096) instead")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--then", help="M,N,K: rank the same configs again on this shape, same process(es)")
    args = ap.parse_args()
    then = tuple(int(x) for x in args.then.split(",")) if args.then else None
    start_cpu, start = time.process_time(), time.perf_counter()
    import tilesight.frontends.triton.frontend  # noqa: F401  (imports triton: counted in the wall time)

    import_s = time.perf_counter() - start
    if args.sweep:
        shape, configs = sweep_configs(args.sweep)
    else:
        shape, configs = tuple(int(x) for x in args.shape.split(",")), gemm_configs(args.configs)
    count = len(configs)
    chunks = [list(range(count))[w :: args.workers] for w in range(args.workers)]
    jobs = [(chunk, shape, configs, then) for chunk in chunks if chunk]
    if args.workers == 1:
        results = [rank_chunk(jobs[0])]
    else:
        with multiprocessing.get_context("fork").Pool(args.workers) as pool:
            results = pool.map(rank_chunk, jobs)
    # the cold ranking's wall time: the --then rankings ran after it in the same workers
    wall = time.perf_counter() - start - max(r[1].get("then_wall", 0.0) for r in results)
    phases = {key: sum(r[1][key] for r in results) for key in results[0][1] if not key.startswith("then")}
    ranked = sorted((t, i) for r in results for i, t in r[0] if t is not None)
    refused = sum(1 for r in results for _, t in r[0] if t is None)
    print(
        f"ranked {len(ranked)} + refused {refused} of {count} configs, GEMM {shape}, {args.workers} worker(s)"
    )
    print(
        f"wall {wall:.1f} s (target < {TARGET_S:.0f} s; import {import_s:.1f} s); ranking CPU "
        f"{phases['cpu'] + phases['imports']:.1f} s over all workers, parent CPU "
        f"{time.process_time() - start_cpu:.1f} s"
    )
    print("CPU split (summed over workers):")
    print("\n".join(_split_lines(phases, count)))
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

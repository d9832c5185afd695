"""Rank the sweep's GEMM config list with TileSight on CPU and write the lists the GPU timing script reads.

    python benchmarks/autotune/make_pruned.py [--top 0.05] [--out benchmarks/autotune/pruned_configs.json]

For each timing shape: the full autotune list (``benchmarks/triton_sweep/sweep_cases.gemm_configs``: the 82
configs that fit in shared memory and 4 that do not, as a user's list would have), TileSight's predicted
top-``--top`` (what ``Pruner(top_k=...)`` keeps) and top-1 (``mode="predict"``), every prediction, and the
time a cold ranking took (each shape in a fresh forked process, ``--workers`` shapes at once: wall and CPU
seconds, compile to TTGIR vs model), to add to the pruned autotune's time end to end (the GPU script adds
the CPU seconds: on this shared machine the wall time mostly measures the other users). The GPU script
needs only torch and triton.
To rank with the committed code only (others may have uncommitted work in the checkout), import tilesight
from a ``git archive HEAD`` copy laid out as the installed package (about 40 s on this CPU)::

    eval "$(bash benchmarks/autotune/committed_copy.sh /tmp/tilesight_head)"   # PYTHONPATH, TILESIGHT_COMMIT
    python benchmarks/autotune/make_pruned.py
"""

from __future__ import annotations

import argparse
import datetime
import json
import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

import triton
from tilesight.kernels.triton.gemm import matmul_kernel

import tilesight
from tilesight import TensorSpec
from tilesight.integrations.rank import top_count

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "triton_sweep"))
import sweep_cases  # noqa: E402

# Aligned shapes only: unaligned strides make heavily spilling configs compile for minutes on the GPU host,
# which would time ptxas rather than autotuning (sweep_cases.MAX_ACC_REGS_PER_THREAD_UNALIGNED).
TIMING_SHAPES = ("sq4096", "llm_up", "decode16", "wide_k1024")


def config_json(cfg: sweep_cases.GemmConfig) -> dict:
    kwargs = {"BLOCK_M": cfg.block_m, "BLOCK_N": cfg.block_n, "BLOCK_K": cfg.block_k, "GROUP_M": cfg.group_m}
    return {"kwargs": kwargs, "num_warps": cfg.num_warps, "num_stages": cfg.num_stages, "tag": cfg.tag}


def rank_shape(m: int, n: int, k: int, configs: list[dict], hw: str) -> tilesight.integrations.rank.Ranking:
    a, b, c = TensorSpec((m, k), "float16"), TensorSpec((k, n), "float16"), TensorSpec((m, n), "float16")
    tconfigs = [
        triton.Config(x["kwargs"], num_warps=x["num_warps"], num_stages=x["num_stages"]) for x in configs
    ]

    def grid(meta: dict) -> tuple[int]:
        return (triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"]),)

    return tilesight.rank(matmul_kernel, tconfigs, grid, a, b, c, m, n, k, k, 1, n, 1, n, 1, hw=hw)


def rank_summary(m: int, n: int, k: int, configs: list[dict], hw: str) -> dict:
    """Rank one shape (in a forked child) and return plain data: the order, predictions, refusals, times."""
    start, cpu_start = time.perf_counter(), time.process_time()
    ranking = rank_shape(m, n, k, configs, hw)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    return {
        "order": [tag_of(r.config) for r in ranking.ranked],
        "predicted_us": {tag_of(r.config): r.report.latency_us for r in ranking.ranked},
        "refused": {tag_of(r.config): r.refused for r in ranking.refused},
        "rank_wall_s": round(wall, 2),
        "rank_cpu_s": round(cpu, 2),
        "frontend_s": round(ranking.frontend_s, 2),
        "model_s": round(ranking.model_s, 3),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--top", type=float, default=0.05)
    ap.add_argument("--hw", default="h200")
    ap.add_argument("--shapes", default=",".join(TIMING_SHAPES))
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "pruned_configs.json")
    ap.add_argument("--workers", type=int, default=2, help="shapes ranked at once, each in a fresh process")
    args = ap.parse_args()
    by_name = {s[0]: s for s in sweep_cases.GEMM_SHAPES}
    configs = [config_json(c) for c in sweep_cases.gemm_configs()]
    out: dict = {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "command": " ".join(["python", *sys.argv]),
        "tilesight": {"commit": _git_head(), "imported_from": str(Path(tilesight.__file__).parent)},
        "hw": args.hw,
        "top": args.top,
        "kernel": "kernels.triton.gemm:matmul_kernel",
        "dtype": "float16",
        "shapes": {},
    }
    by_tag = {c["tag"]: c for c in configs}
    names = args.shapes.split(",")
    # a fresh forked process per shape (maxtasksperchild=1): its compile cache starts empty (this process
    # never compiles), so each shape's time is what a user's first autotune of the kernel costs
    with multiprocessing.get_context("fork").Pool(args.workers, maxtasksperchild=1) as pool:
        jobs = {n: pool.apply_async(rank_summary, (*by_name[n][1:], configs, args.hw)) for n in names}
        results = {name: job.get() for name, job in jobs.items()}
    for name in names:
        _, m, n, k = by_name[name]
        ranked = results[name]
        order, wall = ranked["order"], ranked["rank_wall_s"]
        keep = top_count(args.top, len(order))
        out["shapes"][name] = {
            "M": m,
            "N": n,
            "K": k,
            "full": configs,
            "pruned": [by_tag[t] for t in order[:keep]],
            "top1": [by_tag[order[0]]],
            **{key: value for key, value in ranked.items() if key != "order"},
        }
        print(
            f"{name}: {len(order)} ranked, {len(ranked['refused'])} refused, keep {keep}: {order[:keep]} "
            f"({wall:.1f} s cold, CPU {ranked['rank_cpu_s']:.1f} s: frontend {ranked['frontend_s']:.1f} s, "
            f"model {ranked['model_s']:.2f} s)",
            flush=True,
        )
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    return 0


def _git_head() -> str:
    """The commit ranked with: $TILESIGHT_COMMIT (committed_copy.sh sets it), else this checkout's HEAD."""
    if os.environ.get("TILESIGHT_COMMIT"):
        return os.environ["TILESIGHT_COMMIT"]
    out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return out.stdout.strip() or f"unknown: {out.stderr.strip()[:100]}"


def tag_of(cfg: triton.Config) -> str:
    kw = cfg.kwargs
    return sweep_cases.GemmConfig(
        kw["BLOCK_M"], kw["BLOCK_N"], kw["BLOCK_K"], cfg.num_warps, cfg.num_stages, kw["GROUP_M"]
    ).tag


if __name__ == "__main__":
    sys.exit(main())

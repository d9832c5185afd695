"""Time a real ``triton.autotune`` over the full config list against TileSight's pruned list (GPU only).

    python benchmarks/autotune/time_autotune.py --out $OUT [--shapes sq4096,llm_up] [--budget-s 520]

Reads ``pruned_configs.json`` (written on CPU by ``make_pruned.py``: the sweep's 86-config GEMM list, the
predicted top 5% and the predicted top-1). For each shape and each list ("full", "pruned", "top1") a fresh
process with an empty ``TRITON_CACHE_DIR`` runs the first call of ``triton.autotune(configs, key)(matmul)``
and times it end to end (every config compiled and benchmarked by Triton, as a user's first call; with one
config Triton compiles it and benchmarks nothing). Afterwards this process times the config each run chose
with ``triton.testing.do_bench`` in interleaved rounds, so that the chosen configs are compared fairly.
Writes ``$OUT/autotune_timing.jsonl`` (one line per run and per comparison) and ``$OUT/autotune_meta.json``.
Before a shape's autotunes, a fresh interpreter on this host (empty ``TRITON_CACHE_DIR``, imports included,
no torch) ranks the shape's full list with TileSight in :func:`host_workers` forked workers, as the pruner
does at a user's first call; ``rank_host_s`` is that process's wall time, launch to exit. Its predicted
top-k and top-1 are checked against ``pruned_configs.json`` (same model, same top-k): a mismatch is recorded
(``rank_host_pruned_match`` false, both lists written) and printed, never hidden. The summary's
``*_speedup_end_to_end`` = full autotune seconds / (pruned autotune seconds + ranking seconds), with the
ranking on this host (``rank_s_used`` says which figure: ``rank_host_s``, else the CPU-side
``rank_cpu_here_s`` from ``pruned_configs.json``); ``*_speedup_end_to_end_cpu_here`` keeps the CPU-side
figure; ``*_speedup_gpu_only`` leaves the ranking out (issue: >= 10x, ``pruned_runtime_vs_full`` <= 1.02).
The host needs no scipy, rich or libcst (TileSight imports them only where an optional path needs them), and
tilesight need not be installed: the checkout is laid out as the installed package in a temporary folder.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
LISTS = ("top1", "pruned", "full")  # the cheap runs first, so a budget overrun loses only the full one
COMPARE_ROUNDS = 5  # interleaved do_bench rounds per chosen config; the median is reported
CHILD_TIMEOUT_S = 300  # one autotune run (86 configs compiled and benchmarked) must finish within this
US_PER_MS = 1e3
# TileSight's ranking on this host: one forked worker per core, leaving two cores to the parent and the
# system, at most RANK_WORKERS_MAX (86 configs over 14 workers is about 6 compiles each).
RANK_SPARE_CPUS = 2
RANK_WORKERS_MAX = 14
RANK_TIMEOUT_S = 60  # a cold ranking takes seconds on 14 workers; a hung one must leave the autotunes time
# What tilesight's pyproject maps into the installed package (package-dir), laid out the same way here.
PACKAGE_DIRS = ("frontends", "kernels", "hw_profiles")


def _tensors(m: int, n: int, k: int):
    import torch

    torch.manual_seed(0)
    a = torch.randn((m, k), device="cuda", dtype=torch.float16)
    b = torch.randn((k, n), device="cuda", dtype=torch.float16)
    c = torch.empty((m, n), device="cuda", dtype=torch.float16)
    return a, b, c


def _configs(entries: list[dict]):
    import triton

    return [triton.Config(e["kwargs"], num_warps=e["num_warps"], num_stages=e["num_stages"]) for e in entries]


def _launch(kernel, m: int, n: int, k: int, a, b, c, **meta) -> None:
    import triton

    def grid(meta):
        return (triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"]),)

    strides = (a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
    kernel[grid](a, b, c, m, n, k, *strides, **meta)


def child(shape: str, which: str) -> dict:
    """One cold autotune run (in a fresh process): seconds of the first call, and the chosen config."""
    import torch
    import triton

    from kernels.triton.gemm import matmul_kernel

    spec = json.loads((HERE / "pruned_configs.json").read_text())["shapes"][shape]
    m, n, k = spec["M"], spec["N"], spec["K"]
    a, b, c = _tensors(m, n, k)
    torch.cuda.synchronize()
    tuned = triton.autotune(_configs(spec[which]), key=["M", "N", "K"])(matmul_kernel)
    start = time.perf_counter()
    _launch(tuned, m, n, k, a, b, c)
    torch.cuda.synchronize()
    wall = time.perf_counter() - start
    best = tuned.best_config
    chosen = {"kwargs": dict(best.kwargs), "num_warps": best.num_warps, "num_stages": best.num_stages}
    ref = a.float() @ b.float()
    err = float((c.float() - ref).abs().max() / ref.abs().max())
    return {
        "shape": shape,
        "list": which,
        "configs": len(spec[which]),
        "autotune_s": wall,
        "bench_s": getattr(tuned, "bench_time", None),
        "chosen": chosen,
        "rel_err": err,
    }


def run_child(shape: str, which: str, timeout_s: float) -> dict:
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    with tempfile.TemporaryDirectory(prefix="tilesight_autotune_cache_") as cache:
        env["TRITON_CACHE_DIR"] = cache  # cold: every config is compiled in this run
        cmd = [sys.executable, str(Path(__file__).resolve()), "--child", f"{shape}:{which}"]
        try:
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return {"shape": shape, "list": which, "error": f"timed out after {timeout_s:.0f} s"}
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        return {"shape": shape, "list": which, "error": proc.stderr[-1500:]}
    return json.loads(lines[-1])


def host_workers() -> int:
    """Forked ranking workers on this host: ``min(os.cpu_count() - RANK_SPARE_CPUS, RANK_WORKERS_MAX)``."""
    return max(1, min((os.cpu_count() or 1) - RANK_SPARE_CPUS, RANK_WORKERS_MAX))


def rank_child(shape: str, workers: int) -> dict:
    """One cold TileSight ranking of the shape's full list (in a fresh process): what the pruner does."""
    start = time.perf_counter()
    import triton
    from tilesight.kernels.triton.gemm import matmul_kernel

    import tilesight
    from tilesight import TensorSpec
    from tilesight.integrations.rank import top_count

    import_s = time.perf_counter() - start
    plan = json.loads((HERE / "pruned_configs.json").read_text())
    spec = plan["shapes"][shape]
    m, n, k = spec["M"], spec["N"], spec["K"]
    configs = _configs(spec["full"])
    tags = {id(cfg): entry["tag"] for cfg, entry in zip(configs, spec["full"], strict=True)}
    a, b, c = TensorSpec((m, k), "float16"), TensorSpec((k, n), "float16"), TensorSpec((m, n), "float16")

    def grid(meta: dict) -> tuple[int]:
        return (triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"]),)

    ranked_at = time.perf_counter()
    ranking = tilesight.rank(
        matmul_kernel, configs, grid, a, b, c, m, n, k, k, 1, n, 1, n, 1, hw=plan["hw"], workers=workers
    )
    order = [tags[id(r.config)] for r in ranking.ranked]
    workers_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)  # the forked workers, all joined by now
    return {
        "shape": shape,
        "list": "rank_host",
        "configs": len(configs),
        "workers": workers,
        "cpus": os.cpu_count(),
        "import_s": round(import_s, 3),
        "rank_s": round(time.perf_counter() - ranked_at, 3),
        "parent_cpu_s": round(time.process_time(), 3),
        "workers_cpu_s": round(workers_cpu.ru_utime + workers_cpu.ru_stime, 3),
        "frontend_s_summed": round(ranking.frontend_s, 3),
        "model_s_summed": round(ranking.model_s, 3),
        "refused": len(ranking.refused),
        "pruned": order[: top_count(plan["top"], len(order))],
        "top1": order[:1],
        "scipy_rich_libcst_loaded": sorted(
            {"scipy", "rich", "libcst"} & {x.split(".")[0] for x in sys.modules}
        ),
        "torch_loaded": "torch" in sys.modules,
    }


def package_layout(dest: Path) -> Path:
    """``dest/tilesight``: this checkout's tilesight/ with frontends/, kernels/ and hw_profiles/ beside its
    modules, as pyproject's package-dir installs them (links only, nothing copied); returns ``dest``."""
    pkg = dest / "tilesight"
    pkg.mkdir(parents=True)
    for entry in (ROOT / "tilesight").iterdir():
        if entry.name != "__pycache__":
            (pkg / entry.name).symlink_to(entry)
    for sub in PACKAGE_DIRS:
        (pkg / sub).symlink_to(ROOT / sub)
    return dest


def _rank_env(layout: Path, cache: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=f"{layout}{os.pathsep}{ROOT}", TRITON_CACHE_DIR=cache)
    env.pop("PYTHONSTARTUP", None)
    return env


def prime_bytecode(layout: Path) -> None:
    """Import TileSight once, untimed, so that the timed runs do not byte-compile it (an installed package
    ships its .pyc files); nothing of Triton's or TileSight's in-process state survives the process."""
    code = (
        "import tilesight, tilesight.integrations.rank, tilesight.model.evaluate, "
        "tilesight.frontends.triton.frontend, tilesight.frontends.triton.assemble, "
        "tilesight.frontends.triton.compile, tilesight.kernels.triton.gemm"
    )
    with tempfile.TemporaryDirectory(prefix="tilesight_rank_cache_") as cache:
        # cwd = the layout: `python -c` puts the working directory first on sys.path, and the checkout's own
        # tilesight/ (without frontends/ beside it) must not shadow the laid-out package
        subprocess.run(
            [sys.executable, "-c", code], env=_rank_env(layout, cache), check=True, timeout=120, cwd=layout
        )


def run_rank_child(shape: str, layout: Path, expected: dict[str, Any], timeout_s: float) -> dict:
    """Rank ``shape`` cold in a fresh interpreter; ``rank_host_s`` is its wall time, launch to exit. Checks
    its top-k and top-1 against ``expected`` (the shape's entry of pruned_configs.json)."""
    workers = host_workers()
    with tempfile.TemporaryDirectory(prefix="tilesight_rank_cache_") as cache:
        cmd = [sys.executable, str(Path(__file__).resolve()), "--rank-child", f"{shape}:{workers}"]
        start = time.perf_counter()
        try:
            env = _rank_env(layout, cache)
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout_s, cwd=layout)
        except subprocess.TimeoutExpired:
            return {"shape": shape, "list": "rank_host", "error": f"timed out after {timeout_s:.0f} s"}
        wall = time.perf_counter() - start
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        return {"shape": shape, "list": "rank_host", "error": proc.stderr[-1500:]}
    row = json.loads(lines[-1])
    row["rank_host_s"] = round(wall, 3)
    want_pruned = [e["tag"] for e in expected["pruned"]]
    want_top1 = [e["tag"] for e in expected["top1"]]
    row["rank_host_pruned_match"] = row["pruned"] == want_pruned
    row["rank_host_top1_match"] = row["top1"] == want_top1
    if not (row["rank_host_pruned_match"] and row["rank_host_top1_match"]):
        row["expected_pruned"], row["expected_top1"] = want_pruned, want_top1
        print(
            f"{shape}: MISMATCH: the ranking on this host keeps {row['pruned']} (top-1 {row['top1']}), "
            f"pruned_configs.json {want_pruned} (top-1 {want_top1}); the autotunes use the JSON lists",
            flush=True,
        )
    return row


def compare(shape: str, chosen: dict[str, dict]) -> dict:
    """Median do_bench time (us) of each list's chosen config, interleaved over COMPARE_ROUNDS rounds."""
    import triton.testing

    from kernels.triton.gemm import matmul_kernel

    spec = json.loads((HERE / "pruned_configs.json").read_text())["shapes"][shape]
    m, n, k = spec["M"], spec["N"], spec["K"]
    a, b, c = _tensors(m, n, k)
    times: dict[str, list[float]] = {w: [] for w in chosen}
    for _ in range(COMPARE_ROUNDS):
        for which, cfg in chosen.items():
            meta = dict(cfg["kwargs"], num_warps=cfg["num_warps"], num_stages=cfg["num_stages"])
            ms = triton.testing.do_bench(lambda meta=meta: _launch(matmul_kernel, m, n, k, a, b, c, **meta))
            times[which].append(ms * US_PER_MS)
    medians = {w: statistics.median(t) for w, t in times.items()}
    return {"shape": shape, "compare_us": medians, "rounds": times}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--shapes", default="sq4096,llm_up")
    ap.add_argument("--budget-s", type=float, default=520.0, help="stop starting new shapes after this")
    ap.add_argument("--no-rank", action="store_true", help="skip TileSight's ranking on this host")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--rank-child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        shape, which = args.child.split(":")
        print(json.dumps(child(shape, which)), flush=True)
        return 0
    if args.rank_child:
        shape, workers = args.rank_child.split(":")
        print(json.dumps(rank_child(shape, int(workers))), flush=True)
        return 0
    if args.out is None:
        ap.error("--out is required")
    import torch
    import triton

    sys.path.insert(0, str(ROOT))
    args.out.mkdir(parents=True, exist_ok=True)
    plan = json.loads((HERE / "pruned_configs.json").read_text())
    start = time.perf_counter()
    summary = []
    layout_dir = tempfile.TemporaryDirectory(prefix="tilesight_pkg_")
    layout = package_layout(Path(layout_dir.name))
    if not args.no_rank:
        prime_bytecode(layout)
    with open(args.out / "autotune_timing.jsonl", "w") as out:
        for shape in args.shapes.split(","):
            left = args.budget_s - (time.perf_counter() - start)
            if left < 60:
                print(f"{shape}: skipped, {left:.0f} s of budget left", flush=True)
                continue
            host_rank = None
            if not args.no_rank:  # before the autotunes: the GPU is idle and every core is free
                host_rank = run_rank_child(shape, layout, plan["shapes"][shape], RANK_TIMEOUT_S)
                out.write(json.dumps(host_rank) + "\n")
                out.flush()
                print(json.dumps(host_rank), flush=True)
            runs = {}
            for which in LISTS:
                row = run_child(shape, which, min(CHILD_TIMEOUT_S, max(30.0, left)))
                runs[which] = row
                out.write(json.dumps(row) + "\n")
                out.flush()
                print(json.dumps(row), flush=True)
                left = args.budget_s - (time.perf_counter() - start)
            ok = {w: r["chosen"] for w, r in runs.items() if "chosen" in r}
            if ok:
                cmp = compare(shape, ok)
                out.write(json.dumps(cmp) + "\n")
                out.flush()
                full_us = cmp["compare_us"].get("full")
                ranked = plan["shapes"][shape]
                line = {"shape": shape, "rank_cpu_here_s": ranked.get("rank_cpu_s", ranked["rank_wall_s"])}
                if host_rank is not None and "rank_host_s" in host_rank:
                    line["rank_host_s"] = host_rank["rank_host_s"]
                    line["rank_host_workers"] = host_rank["workers"]
                    line["rank_host_pruned_match"] = host_rank["rank_host_pruned_match"]
                    line["rank_host_top1_match"] = host_rank["rank_host_top1_match"]
                line["rank_s_used"] = "rank_host_s" if "rank_host_s" in line else "rank_cpu_here_s"
                for w in LISTS:
                    if w in runs and "autotune_s" in runs[w]:
                        line[f"{w}_autotune_s"] = round(runs[w]["autotune_s"], 2)
                    elif w in runs and runs[w].get("error", "").startswith("timed out"):
                        line[f"{w}_autotune_s_at_least"] = runs[w]["error"]
                    if w in cmp["compare_us"] and full_us:
                        line[f"{w}_runtime_vs_full"] = round(cmp["compare_us"][w] / full_us, 4)
                full_s = line.get("full_autotune_s")
                for w in ("pruned", "top1"):  # end to end: TileSight's cold ranking + the short autotune
                    if full_s and f"{w}_autotune_s" in line:
                        tuned = line[f"{w}_autotune_s"]
                        line[f"{w}_speedup_end_to_end"] = round(
                            full_s / (tuned + line[line["rank_s_used"]]), 2
                        )
                        line[f"{w}_speedup_end_to_end_cpu_here"] = round(
                            full_s / (tuned + line["rank_cpu_here_s"]), 2
                        )
                        line[f"{w}_speedup_gpu_only"] = round(full_s / tuned, 2)
                summary.append(line)
                print(json.dumps(line), flush=True)
    meta = {
        "command": " ".join(sys.argv),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "gpu": torch.cuda.get_device_name(0),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "triton": triton.__version__,
        "pruned_configs": {k: plan[k] for k in ("date", "command", "hw", "top")},
        "cpus": os.cpu_count(),
        "rank_host_workers": None if args.no_rank else host_workers(),
        "summary": summary,
        "total_s": round(time.perf_counter() - start, 1),
    }
    (args.out / "autotune_meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    layout_dir.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())

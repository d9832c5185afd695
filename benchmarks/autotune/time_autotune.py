"""Time a real ``triton.autotune`` over the full config list against TileSight's pruned list (GPU only).

    python benchmarks/autotune/time_autotune.py --out $OUT [--shapes sq4096,llm_up] [--budget-s 520]

Reads ``pruned_configs.json`` (written on CPU by ``make_pruned.py``: the sweep's 86-config GEMM list, the
predicted top 5% and the predicted top-1). For each shape and each list ("full", "pruned", "top1") a fresh
process with an empty ``TRITON_CACHE_DIR`` runs the first call of ``triton.autotune(configs, key)(matmul)``
and times it end to end (every config compiled and benchmarked by Triton, as a user's first call; with one
config Triton compiles it and benchmarks nothing). Afterwards this process times the config each run chose
with ``triton.testing.do_bench`` in interleaved rounds, so that the chosen configs are compared fairly.
Writes ``$OUT/autotune_timing.jsonl`` (one line per run and per comparison) and ``$OUT/autotune_meta.json``.
TileSight's cold ranking time for each shape is in the JSON (``rank_cpu_s``, else ``rank_wall_s``); the
summary's ``*_speedup_end_to_end`` = full autotune seconds / (pruned autotune seconds + ranking seconds)
(issue: >= 10x, with ``pruned_runtime_vs_full`` <= 1.02); ``*_speedup_gpu_only`` leaves the ranking out.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
LISTS = ("top1", "pruned", "full")  # the cheap runs first, so a budget overrun loses only the full one
COMPARE_ROUNDS = 5  # interleaved do_bench rounds per chosen config; the median is reported
CHILD_TIMEOUT_S = 300
US_PER_MS = 1e3  # one autotune run (86 configs compiled and benchmarked) must finish within this


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
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        shape, which = args.child.split(":")
        print(json.dumps(child(shape, which)), flush=True)
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
    with open(args.out / "autotune_timing.jsonl", "w") as out:
        for shape in args.shapes.split(","):
            left = args.budget_s - (time.perf_counter() - start)
            if left < 60:
                print(f"{shape}: skipped, {left:.0f} s of budget left", flush=True)
                continue
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
                line = {"shape": shape, "rank_s": ranked.get("rank_cpu_s", ranked["rank_wall_s"])}
                for w in LISTS:
                    if w in runs and "autotune_s" in runs[w]:
                        line[f"{w}_autotune_s"] = round(runs[w]["autotune_s"], 2)
                    elif w in runs and runs[w].get("error", "").startswith("timed out"):
                        line[f"{w}_autotune_s_at_least"] = runs[w]["error"]
                    if w in cmp["compare_us"] and full_us:
                        line[f"{w}_runtime_vs_full"] = round(cmp["compare_us"][w] / full_us, 4)
                full_s = line.get("full_autotune_s")
                for w in ("pruned", "top1"):  # end to end: TileSight's cold CPU ranking + the short autotune
                    if full_s and f"{w}_autotune_s" in line:
                        total = line[f"{w}_autotune_s"] + line["rank_s"]
                        line[f"{w}_speedup_end_to_end"] = round(full_s / total, 2)
                        line[f"{w}_speedup_gpu_only"] = round(full_s / line[f"{w}_autotune_s"], 2)
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
        "summary": summary,
        "total_s": round(time.perf_counter() - start, 1),
    }
    (args.out / "autotune_meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

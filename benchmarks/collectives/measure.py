"""Measure NCCL collectives and fused compute-communication kernels on N GPUs (torch.distributed).

    torchrun --standalone --nproc_per_node=$NGPU benchmarks/collectives/measure.py --out $OUT

Collectives: all_reduce, all_gather_into_tensor, reduce_scatter_tensor, all_to_all_single, sizes 4 KiB to
1 GiB per rank (``bytes_per_rank`` is each rank's input buffer, the nccl-tests convention). Fused kernels:
all-gather + GEMM (A sharded over rows, gathered, times a local B) and GEMM + reduce-scatter (K sharded,
partial C reduce-scattered over rows), each as comm alone, GEMM alone, sequential, and overlapped (C chunks,
communication on a side stream). Timing: a barrier, then CUDA events around the op; the median over
``--iters`` runs per rank, then the maximum over ranks. Rank 0 writes ``collectives_h200x{N}.json`` with the
command, versions, GPU names, ``nvidia-smi topo -m``, NCCL environment and the date. ``--device cpu`` (gloo,
wall clock) is a dry run only, for checking the script without GPUs.
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
import time
import warnings
from pathlib import Path

import torch
import torch.distributed as dist

KIB = 1024
DEFAULT_SIZES = [4 * KIB * 2**i for i in range(19)]  # 4 KiB, 8 KiB, ..., 1 GiB
# (M, N, K) of the whole problem. all-gather + GEMM: A (M, K) sharded over M, B (K, N) local, C (M, N).
# GEMM + reduce-scatter: A (M, K) sharded over K, B (K, N) sharded over K, C (M, N) partial, reduce-scattered.
AG_GEMM_CASES = [(8192, 1024, 8192), (16384, 1024, 8192), (8192, 4096, 8192), (16384, 8192, 8192)]
GEMM_RS_CASES = [(8192, 8192, 2048), (16384, 4096, 4096), (8192, 8192, 16384), (16384, 8192, 8192)]


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument(
        "--inner",
        type=int,
        default=1,
        help="calls timed back to back between one pair of events, time divided by it (nccl-tests style: "
        "amortises the host launch and the ranks' skew after the barrier); 1 = one call after a barrier",
    )
    ap.add_argument("--sizes", type=int, nargs="*", default=DEFAULT_SIZES, help="bytes per rank")
    ap.add_argument("--ops", nargs="*", default=["all_reduce", "all_gather", "reduce_scatter", "all_to_all"])
    ap.add_argument("--dtype", default="bfloat16")
    ap.add_argument("--chunks", type=int, default=4, help="chunks of the overlapped fused kernels")
    ap.add_argument("--skip-fused", action="store_true")
    ap.add_argument("--fused-scale", type=int, default=1, help="divide fused M, N, K by this (dry runs)")
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--tag", default="", help="suffix of the output file name")
    return ap.parse_args()


class Clock:
    """CUDA events on GPUs; wall clock for the CPU dry run."""

    def __init__(self, device: str) -> None:
        self.cuda = device == "cuda"

    def time(self, fn, inner: int = 1) -> float:
        """Seconds per call of ``fn``, timed over ``inner`` back-to-back calls."""
        if self.cuda:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(inner):
                fn()
            end.record()
            end.synchronize()
            return start.elapsed_time(end) * 1e-3 / inner
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        return (time.perf_counter() - t0) / inner


def sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def timed(fn, args: argparse.Namespace, clock: Clock) -> dict:
    """Median over iterations on this rank, then max over ranks (and the per-rank medians)."""
    for _ in range(args.warmup):
        fn()
    sync(args.device)
    samples = []
    for _ in range(args.iters):
        dist.barrier()
        sync(args.device)
        samples.append(clock.time(fn, args.inner))
    med = statistics.median(samples)
    world = dist.get_world_size()
    gathered = [torch.zeros(1, dtype=torch.float64, device=args.device) for _ in range(world)]
    dist.all_gather(gathered, torch.tensor([med], dtype=torch.float64, device=args.device))
    per_rank = [float(g.item()) for g in gathered]
    return {
        "time_s": max(per_rank),
        "per_rank_median_s": per_rank,
        "min_s": min(samples),
        "max_s": max(samples),
    }


def collective_fn(op: str, nbytes: int, dtype: torch.dtype, device: str, world: int):
    elt = torch.empty((), dtype=dtype).element_size()
    count = nbytes // elt
    x = torch.randn(count, device=device).to(dtype)
    if op == "all_reduce":
        return lambda: dist.all_reduce(x)
    if op == "all_gather":
        out = torch.empty(count * world, dtype=dtype, device=device)
        return lambda: dist.all_gather_into_tensor(out, x)
    if op == "reduce_scatter":
        out = torch.empty(count // world, dtype=dtype, device=device)
        return lambda: dist.reduce_scatter_tensor(out, x)
    if op == "all_to_all":
        out = torch.empty_like(x)
        return lambda: dist.all_to_all_single(out, x)
    raise ValueError(f"unknown op {op!r}")


def ag_gemm_fns(m: int, n: int, k: int, dtype: torch.dtype, device: str, world: int, chunks: int):
    """All-gather A (rows sharded) then C = A @ B. Returns comm, gemm, sequential and overlapped callables."""
    a_local = torch.randn(m // world, k, device=device).to(dtype)
    b = torch.randn(k, n, device=device).to(dtype)
    a_full = torch.empty(m, k, dtype=dtype, device=device)
    c = torch.empty(m, n, dtype=dtype, device=device)
    rows = m // world // chunks
    parts = [a_local[i * rows : (i + 1) * rows] for i in range(chunks)]
    gathered = [torch.empty(rows * world, k, dtype=dtype, device=device) for _ in range(chunks)]
    outs = [c[i * rows * world : (i + 1) * rows * world] for i in range(chunks)]
    side = torch.cuda.Stream() if device == "cuda" else None

    def comm():
        dist.all_gather_into_tensor(a_full, a_local)

    def gemm():
        torch.matmul(a_full, b, out=c)

    def sequential():
        comm()
        gemm()

    def overlapped():
        if side is None:
            for i in range(chunks):
                dist.all_gather_into_tensor(gathered[i], parts[i])
                torch.matmul(gathered[i], b, out=outs[i])
            return
        main = torch.cuda.current_stream()
        side.wait_stream(main)
        events = []
        with torch.cuda.stream(side):
            for i in range(chunks):
                dist.all_gather_into_tensor(gathered[i], parts[i])
                ev = torch.cuda.Event()
                ev.record(side)
                events.append(ev)
        for i in range(chunks):
            main.wait_event(events[i])
            torch.matmul(gathered[i], b, out=outs[i])

    return comm, gemm, sequential, overlapped


def gemm_rs_fns(m: int, n: int, k: int, dtype: torch.dtype, device: str, world: int, chunks: int):
    """C_partial = A[:, K/n] @ B[K/n, :] then reduce-scatter C over rows."""
    a = torch.randn(m, k // world, device=device).to(dtype)
    b = torch.randn(k // world, n, device=device).to(dtype)
    c = torch.empty(m, n, dtype=dtype, device=device)
    out = torch.empty(m // world, n, dtype=dtype, device=device)
    rows = m // chunks
    a_parts = [a[i * rows : (i + 1) * rows] for i in range(chunks)]
    c_parts = [c[i * rows : (i + 1) * rows] for i in range(chunks)]
    out_parts = [torch.empty(rows // world, n, dtype=dtype, device=device) for _ in range(chunks)]
    side = torch.cuda.Stream() if device == "cuda" else None

    def comm():
        dist.reduce_scatter_tensor(out, c)

    def gemm():
        torch.matmul(a, b, out=c)

    def sequential():
        gemm()
        comm()

    def overlapped():
        if side is None:
            for i in range(chunks):
                torch.matmul(a_parts[i], b, out=c_parts[i])
                dist.reduce_scatter_tensor(out_parts[i], c_parts[i])
            return
        main = torch.cuda.current_stream()
        for i in range(chunks):
            torch.matmul(a_parts[i], b, out=c_parts[i])
            ev = torch.cuda.Event()
            ev.record(main)
            side.wait_event(ev)
            with torch.cuda.stream(side):
                dist.reduce_scatter_tensor(out_parts[i], c_parts[i])
        main.wait_stream(side)

    return comm, gemm, sequential, overlapped


def environment(device: str) -> dict:
    def run(cmd: list[str]) -> str:
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout
        except (OSError, subprocess.SubprocessError) as exc:
            return f"unavailable: {exc}"

    env = {
        "date": datetime.datetime.now(datetime.UTC).isoformat(),
        "command": " ".join([os.environ.get("TORCHRUN_COMMAND", "torchrun"), *sys.argv]),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "host": platform.node(),
        "nccl_env": {k: v for k, v in os.environ.items() if k.startswith("NCCL_")},
    }
    if device == "cuda":
        env["cuda"] = torch.version.cuda
        ver = torch.cuda.nccl.version()
        env["nccl"] = ".".join(map(str, ver)) if isinstance(ver, tuple) else str(ver)
        env["gpus"] = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
        env["visible_devices"] = os.environ.get("CUDA_VISIBLE_DEVICES", "")
        env["topo"] = run(["nvidia-smi", "topo", "-m"])
        env["nvidia_smi"] = run(
            ["nvidia-smi", "--query-gpu=index,name,clocks.max.sm,driver_version", "--format=csv"]
        )
    return env


def main() -> None:
    args = parse_args()
    # newer torch renames the *_into_tensor / *_tensor collectives; the measurement GPU's torch 2.11 has both
    warnings.filterwarnings("ignore", category=FutureWarning, module="torch.distributed")
    backend = "nccl" if args.device == "cuda" else "gloo"
    local = int(os.environ.get("LOCAL_RANK", "0"))
    if args.device == "cuda":
        torch.cuda.set_device(local)
    dist.init_process_group(backend, device_id=torch.device("cuda", local) if args.device == "cuda" else None)
    rank, world = dist.get_rank(), dist.get_world_size()
    dtype = getattr(torch, args.dtype)
    clock = Clock(args.device)
    log = print if rank == 0 else (lambda *a, **k: None)
    started = time.time()
    result = {
        "world_size": world,
        "dtype": args.dtype,
        "iters": args.iters,
        "inner": args.inner,
        "chunks": args.chunks,
    }
    result.update(environment(args.device) if rank == 0 else {})
    rows = []
    for op in args.ops:
        for nbytes in args.sizes:
            fn = collective_fn(op, nbytes, dtype, args.device, world)
            t = timed(fn, args, clock)
            rows.append({"op": op, "bytes_per_rank": nbytes, **t})
            log(f"{op:15s} {nbytes:>12d} B/rank  {t['time_s'] * 1e6:10.2f} us", flush=True)
            del fn
            if args.device == "cuda":
                torch.cuda.empty_cache()
    result["collectives"] = rows
    fused = []
    if not args.skip_fused:
        s = args.fused_scale
        for kind, cases, make in (
            ("ag_gemm", AG_GEMM_CASES, ag_gemm_fns),
            ("gemm_rs", GEMM_RS_CASES, gemm_rs_fns),
        ):
            for m, n, k in cases:
                m, n, k = m // s, n // s, k // s
                comm, gemm, seq, ovl = make(m, n, k, dtype, args.device, world, args.chunks)
                row = {"kind": kind, "M": m, "N": n, "K": k, "chunks": args.chunks}
                for name, fn in (("comm", comm), ("gemm", gemm), ("sequential", seq), ("overlapped", ovl)):
                    row[name] = timed(fn, args, clock)
                fused.append(row)
                log(
                    f"{kind} M={m} N={n} K={k}: comm {row['comm']['time_s'] * 1e6:.1f} us, gemm "
                    f"{row['gemm']['time_s'] * 1e6:.1f} us, seq {row['sequential']['time_s'] * 1e6:.1f} us, "
                    f"overlap {row['overlapped']['time_s'] * 1e6:.1f} us",
                    flush=True,
                )
    result["fused"] = fused
    result["elapsed_s"] = time.time() - started
    if rank == 0:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        path = out / f"collectives_h200x{world}{args.tag}.json"
        path.write_text(json.dumps(result, indent=1))
        log(f"wrote {path} after {result['elapsed_s']:.0f} s")
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

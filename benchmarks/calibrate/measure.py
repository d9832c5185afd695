"""GPU measurements for the calibration suite. Each function returns a JSON-ready dict; run.py calls them one
by one and turns an exception into an error entry, so one failing probe never stops the rest.

Timing: ``triton.testing.do_bench`` medians (it clears L2 before every repetition, so streaming figures are
cold-L2), except the pointer chases, which are timed with CUDA events on a warm chain.
"""

from __future__ import annotations

import functools
import itertools
import re
import statistics
from typing import Any

import torch
import triton

from benchmarks.calibrate import analysis
from benchmarks.calibrate import kernels as K

GiB = 1 << 30
MiB = 1 << 20
STREAM_PROGRAMS_PER_SM = 4  # 4 programs x 8 warps = 32 resident warps per SM for the streaming kernels
STREAM_BLOCK = 4096
SWEEP_BLOCK = 1024
SWEEP_MIB = (1, 2, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60, 64, 72, 80, 96, 112, 128, 160,
             192, 256, 384, 512)  # fmt: skip
SWEEP_TARGET_BYTES = 4 * GiB  # bytes read per sweep point (reps = target / size)
GEMM_SIZE = 8192
COMPUTE_PROGRAMS_PER_SM = 8
FMA_ITERS, FMA_CHAINS, FMA_BLOCK = 4096, 8, 1024
SFU_ITERS, SFU_UNROLL, SFU_BLOCK = 1024, 4, 1024
SMEM_T, SMEM_ITERS, SMEM_WARPS = 64, 2048, 8
CHASE_STRIDE_BYTES = 128  # one L2 line per hop
CHASE_STEPS = 1 << 16
CHASE_DDR_BYTES = 1 * GiB  # >> any L2
CHASE_L2_BYTES = 4 * MiB  # >> L1 (256 KB), << L2
BENCH = {"warmup": 25, "rep": 100}


def bench_s(fn) -> float:
    """Median seconds of ``fn`` under do_bench."""
    return triton.testing.do_bench(fn, return_mode="median", **BENCH) * 1e-3


def timed_launch(kernel: Any, grid: tuple[int, ...], args: tuple, meta: dict) -> dict:
    """Launch ``kernel[grid](*args, **meta)`` once (compiling it), then time it: ``{"s", "n_regs", "n_spills",
    "smem_bytes"}``, or ``{"error": ...}`` where it cannot launch (an out-of-resources config is recorded with
    its point, not fatal)."""
    try:
        compiled = kernel[grid](*args, **meta)
        s = bench_s(lambda: kernel[grid](*args, **meta))
    except Exception as e:
        return {"error": f"{type(e).__name__}: {str(e)[:200]}"}
    smem = int(getattr(compiled.metadata, "shared", 0))
    return {"s": s, "n_regs": compiled.n_regs, "n_spills": compiled.n_spills, "smem_bytes": smem}


def n_sm() -> int:
    return torch.cuda.get_device_properties(0).multi_processor_count


def _read(grid: tuple[int], n: int) -> dict:
    x = torch.rand(n, device="cuda")
    out = torch.empty(grid[0], device="cuda")
    t = bench_s(lambda: K.read_reduce[grid](x, out, n, BLOCK=STREAM_BLOCK, num_warps=8))
    ok = abs(out.double().sum().item() - x.double().sum().item()) <= 1e-3 * n
    return {"read_bytes_per_s": n * 4 / t, "read_s": t, "read_sum_matches": ok}


def _copy(grid: tuple[int], n: int) -> dict:
    src = torch.rand(n, device="cuda")
    dst = torch.empty_like(src)
    t = bench_s(lambda: K.copy[grid](src, dst, n, BLOCK=STREAM_BLOCK, num_warps=8))
    return {"copy_bytes_per_s": 2 * n * 4 / t, "copy_s": t, "copy_matches": bool(torch.equal(src, dst))}


def ddr() -> dict:
    """Streaming read of 4 GiB and copy of 2 GiB into 2 GiB (4 GiB of traffic), fp32."""
    grid = (n_sm() * STREAM_PROGRAMS_PER_SM,)
    n = 4 * GiB // 4
    result = {"grid": grid[0], **_read(grid, n)}
    torch.cuda.empty_cache()
    result.update(_copy(grid, n // 2))
    torch.cuda.empty_cache()
    return result


# DRAM streams as element-wise kernels have them (one tile a program, a grid of every tile): the rate of each
# read / write mix (reads, writes per element) over tile sizes and warps, fp16, 2^28 elements a stream (512
# MiB, ten times the L2). The ``ddr`` probe's grid-stride loops keep 4 programs an SM; this one asks whether
# the mixes' own best rates are above them.
DDR_MIX_ELEMS = 1 << 28
DDR_MIX_MIXES = ((1, 0), (0, 1), (1, 1), (2, 1), (2, 2))  # (reads, writes) per element
DDR_MIX_CONFIGS = ((1024, 4), (2048, 4), (4096, 8), (8192, 8))  # (BLOCK, warps)
DDR_MIX_STRIDE_PER_SM = (4, 8, 16)  # the ddr probe's grid-stride read and copy at more programs an SM
# stream lengths (elements a stream, 2 MiB to 512 MiB) for the time-against-bytes line of three mixes, each at
# its best tile size above: the intercept is what a launch pays before its streams run at the slope's rate
DDR_MIX_SIZES = tuple(1 << k for k in range(20, 29))
DDR_MIX_SIZE_MIXES = ((1, 0, 4096, 8), (1, 1, 1024, 4), (2, 1, 1024, 4))  # (reads, writes, BLOCK, warps)


def _streams(n: int) -> tuple:
    """The four fp16 streams of :func:`kernels.stream_mix` (two read, two written), ``n`` elements each."""
    return tuple(torch.rand(n, device="cuda").half() for _ in range(4))


def _stream_mix_launch(streams: tuple, n: int, reads: int, writes: int, block: int, warps: int):
    """A launch of :func:`kernels.stream_mix` over the first ``n`` elements of ``streams``, as a callable."""
    grid = (triton.cdiv(n, block),)
    out = torch.empty(grid[0], device="cuda")
    meta = dict(READS=reads, WRITES=writes, BLOCK=block, num_warps=warps)
    return lambda: K.stream_mix[grid](*streams, out, n, **meta)


def _mix_points() -> list[dict]:
    n = DDR_MIX_ELEMS
    streams = _streams(n)
    points = []
    for (reads, writes), (block, warps) in itertools.product(DDR_MIX_MIXES, DDR_MIX_CONFIGS):
        t = bench_s(_stream_mix_launch(streams, n, reads, writes, block, warps))
        points.append(
            {"kernel": "stream_mix", "reads": reads, "writes": writes, "block": block, "warps": warps,
             "programs": triton.cdiv(n, block), "s": t, "bytes_per_s": (reads + writes) * n * 2 / t}
        )  # fmt: skip
    return points


def _size_points() -> list[dict]:
    streams = _streams(max(DDR_MIX_SIZES))
    points = []
    for (reads, writes, block, warps), n in itertools.product(DDR_MIX_SIZE_MIXES, DDR_MIX_SIZES):
        t = bench_s(_stream_mix_launch(streams, n, reads, writes, block, warps))
        points.append(
            {"kernel": "stream_mix", "reads": reads, "writes": writes, "block": block, "warps": warps,
             "elements": n, "s": t, "bytes_per_s": (reads + writes) * n * 2 / t}
        )  # fmt: skip
    return points


def _stride_points() -> list[dict]:
    m = GiB // 2  # fp32 elements: 2 GiB a stream, as the ddr probe's copy
    src, dst = torch.rand(m, device="cuda"), torch.empty(m, device="cuda")
    points = []
    meta = dict(BLOCK=STREAM_BLOCK, num_warps=8)
    for per_sm in DDR_MIX_STRIDE_PER_SM:
        grid = (n_sm() * per_sm,)
        out = torch.empty(grid[0], device="cuda")
        t_read = bench_s(lambda grid=grid, out=out: K.read_reduce[grid](src, out, m, **meta))
        t_copy = bench_s(lambda grid=grid: K.copy[grid](src, dst, m, **meta))
        for reads, writes, t in ((1, 0, t_read), (1, 1, t_copy)):
            points.append(
                {"kernel": "grid_stride", "reads": reads, "writes": writes, "block": STREAM_BLOCK, "warps": 8,
                 "programs_per_sm": per_sm, "s": t, "bytes_per_s": (reads + writes) * m * 4 / t}
            )  # fmt: skip
    t = bench_s(lambda: dst.copy_(src))  # the framework's device-to-device copy, for reference
    points.append(
        {"kernel": "torch_copy", "reads": 1, "writes": 1, "s": t, "bytes_per_s": 2 * m * 4 / t}
    )  # fmt: skip
    return points


def ddr_mix() -> dict:
    """Bytes a second of each (reads, writes) mix of :func:`kernels.stream_mix`, per tile size and warps, the
    ``ddr`` probe's grid-stride read and copy at more programs an SM, and torch's copy; each mix's best;
    and three mixes over stream lengths of 2-512 MiB (``sizes``)."""
    points = _mix_points()
    torch.cuda.empty_cache()
    points += _stride_points()
    torch.cuda.empty_cache()
    best = {
        f"{r}r{w}w": max(p["bytes_per_s"] for p in points if (p["reads"], p["writes"]) == (r, w))
        for r, w in DDR_MIX_MIXES
    }
    sizes = _size_points()
    torch.cuda.empty_cache()
    return {"points": points, "best_bytes_per_s": best, "sizes": sizes}


# Whether a launch's DRAM time depends on the L2 it finds: do_bench zeroes a 256 MB buffer before every
# timed launch, so each starts with the L2 full of dirty lines, which its own traffic has to write back. The
# same streams timed after that write (dirty) and after a read of the same buffer (clean lines), CUDA events
# around the launch alone, median of DDR_FLUSH_REPS.
DDR_FLUSH_SIZES = tuple(1 << k for k in range(22, 29, 2))  # 8 MiB to 512 MiB a stream
DDR_FLUSH_MIXES = (  # (reads, writes, BLOCK, warps)
    (1, 0, 4096, 8), (1, 1, 1024, 4), (0, 1, 2048, 4), (2, 0, 4096, 8), (2, 1, 1024, 4), (2, 2, 1024, 4),
)  # fmt: skip
DDR_FLUSH_BYTES = 256 * 1000 * 1000  # do_bench's flush buffer
DDR_FLUSH_REPS = 40


def _after_flush(fn, flush) -> float:
    """Median seconds of ``fn`` timed with CUDA events, ``flush`` run (untimed) before each repetition."""
    pairs = []
    for _ in range(DDR_FLUSH_REPS):
        flush()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        pairs.append((start, end))
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in pairs) * 1e-3


def ddr_flush() -> dict:
    """Each stream of :data:`DDR_FLUSH_MIXES` at each length, timed after do_bench's flush (a 256 MB buffer
    zeroed: dirty L2 lines) and after a read of the same buffer (clean lines)."""
    buf = torch.empty(DDR_FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")
    fbuf = buf.view(torch.float32)
    sums = torch.empty(n_sm() * STREAM_PROGRAMS_PER_SM, device="cuda")
    flushes = {
        "dirty": buf.zero_,
        "clean": lambda: K.read_reduce[(sums.numel(),)](
            fbuf, sums, fbuf.numel(), BLOCK=STREAM_BLOCK, num_warps=8
        ),
    }
    streams = _streams(max(DDR_FLUSH_SIZES))
    points = []
    for (reads, writes, block, warps), n in itertools.product(DDR_FLUSH_MIXES, DDR_FLUSH_SIZES):
        launch = _stream_mix_launch(streams, n, reads, writes, block, warps)
        point = {"reads": reads, "writes": writes, "block": block, "warps": warps, "elements": n}
        for name, flush in flushes.items():
            point[f"{name}_s"] = _after_flush(launch, flush)
        points.append(point)
    return {"points": points, "flush_bytes": DDR_FLUSH_BYTES, "reps": DDR_FLUSH_REPS}


def l2_sweep() -> dict:
    grid = (n_sm() * STREAM_PROGRAMS_PER_SM,)
    buf = torch.rand(max(SWEEP_MIB) * MiB // 4, device="cuda")
    out = torch.empty(grid[0], device="cuda")
    sizes, bws, points = [], [], []
    for mib in SWEEP_MIB:
        n = mib * MiB // 4
        reps = max(2, SWEEP_TARGET_BYTES // (mib * MiB))
        t = bench_s(lambda n=n, reps=reps: K.reread[grid](buf, out, n, reps, BLOCK=SWEEP_BLOCK, num_warps=4))
        bw = reps * n * 4 / t
        sizes.append(mib * MiB)
        bws.append(bw)
        points.append({"bytes": mib * MiB, "reps": reps, "s": t, "bytes_per_s": bw})
    props = torch.cuda.get_device_properties(0)
    result = {"points": points, "l2_cache_size_bytes": getattr(props, "L2_cache_size", None)}
    try:
        result["cliff"] = analysis.l2_cliff(sizes, bws)
    except ValueError as exc:  # the sweep itself is still worth keeping
        result["cliff"] = {"error": str(exc)}
    return result


# The L2 peak probe keeps far more bytes in flight per SM than the sweep (which is latency-bound at about
# 16 KB in flight per SM): wide blocks, 8 warps, several programs per SM, working sets well inside the L2.
L2_PEAK_MIB = (8, 16, 24)
L2_PEAK_CONFIGS = ((4096, 8, 4), (8192, 8, 4), (8192, 8, 8), (4096, 4, 16))  # (BLOCK, warps, programs/SM)


def l2_peak() -> dict:
    """Highest L2-resident read bandwidth over a few in-flight configurations (``l2_bw_bytes_per_s``)."""
    buf = torch.rand(max(L2_PEAK_MIB) * MiB // 4, device="cuda")
    points = []
    for block, warps, per_sm in L2_PEAK_CONFIGS:
        grid = (n_sm() * per_sm,)
        out = torch.empty(grid[0], device="cuda")
        for mib in L2_PEAK_MIB:
            n = mib * MiB // 4
            reps = max(2, SWEEP_TARGET_BYTES // (mib * MiB))
            t = bench_s(
                lambda n=n, reps=reps, grid=grid, out=out, block=block, warps=warps: K.reread[grid](
                    buf, out, n, reps, BLOCK=block, num_warps=warps
                )
            )
            points.append(
                {"bytes": mib * MiB, "block": block, "warps": warps, "programs_per_sm": per_sm,
                 "s": t, "bytes_per_s": reps * n * 4 / t}
            )  # fmt: skip
    best = max(points, key=lambda p: p["bytes_per_s"])
    return {"points": points, "bytes_per_s": best["bytes_per_s"], "best": best}


# The async-copy L2 probe: the load path of Triton's pipelined GEMM loops (cp.async into shared memory),
# streaming an L2-resident A (K = 128, 4 to 16 MiB in all) under a few tile / stage / residency settings,
# so the per-iteration synchronisation of a narrow-N dot does not hide the L2's own rate; the fastest is kept.
L2_ASYNC = {"BN": 16, "K": 128, "iters": 256}
L2_ASYNC_CONFIGS = (  # (BM, BK, stages, programs per SM, warps)
    (128, 64, 4, 4, 4),
    (128, 128, 3, 2, 4),
    (64, 128, 4, 3, 4),
    (256, 64, 3, 2, 8),
)


def l2_async() -> dict:
    """L2 -> shared-memory bandwidth through pipelined async copies (``l2_bw_bytes_per_s`` candidate)."""
    c = L2_ASYNC
    points = []
    for bm, bk, stages, per_sm, warps in L2_ASYNC_CONFIGS:
        grid = (n_sm() * per_sm,)
        m = grid[0] * bm
        a = torch.randn(m, c["K"], device="cuda", dtype=torch.float16)
        b = torch.randn(bk, c["BN"], device="cuda", dtype=torch.float16)
        out = torch.empty(m, c["BN"], device="cuda", dtype=torch.float32)
        t = bench_s(
            lambda a=a, b=b, out=out, grid=grid, bm=bm, bk=bk, stages=stages, warps=warps: K.l2_stream_dot[
                grid
            ](a, b, out, c["K"], c["iters"], BM=bm, BK=bk, BN=c["BN"], num_warps=warps, num_stages=stages)
        )
        moved = grid[0] * c["iters"] * bm * bk * 2
        points.append(
            {"BM": bm, "BK": bk, "stages": stages, "programs_per_sm": per_sm, "warps": warps, "s": t,
             "bytes_per_s": moved / t, "working_set_bytes": a.numel() * 2}
        )  # fmt: skip
        del a, b, out
    best = max(points, key=lambda p: p["bytes_per_s"])
    return {
        "points": points,
        "bytes_per_s": best["bytes_per_s"],
        "working_set_bytes": best["working_set_bytes"],
    }


# The shared-read L2 probe: the async-copy stream above, with ``share`` consecutive programs reading one row
# panel in step (GEMM CTAs of one tile row read the same A tiles at about the same time). Working sets stay
# inside the L2; if the L2 serves a line requested by several SMs at once faster than distinct lines, the
# rate rises with ``share``. (BM, BK, stages, programs per SM, warps, K) per setting, shares swept.
L2_SHARED_CONFIGS = ((128, 64, 4, 2, 4, 256), (64, 64, 4, 4, 4, 256), (128, 64, 3, 1, 8, 512))
L2_SHARED_SHARES = (1, 2, 4, 8, 16, 33, 66, 132)
L2_SHARED = {"BN": 16, "iters": 512}


def l2_shared() -> dict:
    """L2 -> shared-memory rate as a function of how many SMs read the same lines at once."""
    c = L2_SHARED
    points = []
    for bm, bk, stages, per_sm, warps, k in L2_SHARED_CONFIGS:
        grid = (n_sm() * per_sm,)
        a = torch.randn(grid[0] * bm, k, device="cuda", dtype=torch.float16)
        b = torch.randn(bk, c["BN"], device="cuda", dtype=torch.float16)
        out = torch.empty(grid[0] * bm, c["BN"], device="cuda", dtype=torch.float32)
        for share in L2_SHARED_SHARES:
            kw = dict(BM=bm, BK=bk, BN=c["BN"], num_warps=warps, num_stages=stages)
            t = bench_s(
                lambda a=a, b=b, out=out, grid=grid, k=k, share=share, kw=kw: K.l2_shared_dot[grid](
                    a, b, out, k, c["iters"], share, **kw
                )
            )
            moved = grid[0] * c["iters"] * bm * bk * 2
            unique = -(-grid[0] // share) * bm * k * 2
            points.append(
                {"BM": bm, "BK": bk, "stages": stages, "programs_per_sm": per_sm, "warps": warps, "K": k,
                 "share": share, "s": t, "bytes_per_s": moved / t, "unique_bytes": unique}
            )  # fmt: skip
        del a, b, out
    return {"points": points}


# L2 -> shared memory by contiguous chunk: the async-copy stream above with a K tile of BK fp16 columns (one
# contiguous run of 2 BK bytes per row, as a GEMM's A tile with BLOCK_K = BK), private and shared lines.
L2_CHUNK_BKS = (16, 32, 64, 128)
L2_CHUNK_SHARES = (1, 4)


def _chunk_points(kernel) -> list[dict]:
    """The shared-panel stream through ``kernel`` (``l2_shared_dot``'s signature) for every A-tile width in
    L2_CHUNK_BKS and sharing degree in L2_CHUNK_SHARES: bytes per second by contiguous run of a row."""
    bm, per_sm, warps, stages, k, bn = 128, 2, 4, 4, 256, 16
    grid = (n_sm() * per_sm,)
    a = torch.randn(grid[0] * bm, k, device="cuda", dtype=torch.float16)
    out = torch.empty(grid[0] * bm, bn, device="cuda", dtype=torch.float32)
    points = []
    for bk in L2_CHUNK_BKS:
        b = torch.randn(bk, bn, device="cuda", dtype=torch.float16)
        iters = L2_SHARED["iters"] * 64 // bk  # the same bytes per program whatever the chunk
        for share in L2_CHUNK_SHARES:
            kw = dict(BM=bm, BK=bk, BN=bn, num_warps=warps, num_stages=stages)
            t = bench_s(
                lambda b=b, iters=iters, share=share, kw=kw: kernel[grid](a, b, out, k, iters, share, **kw)
            )
            moved = grid[0] * iters * bm * bk * 2
            points.append({"chunk_bytes": bk * 2, "share": share, "s": t, "bytes_per_s": moved / t})
    return points


def l2_chunks() -> dict:
    """L2 -> shared-memory rate when each row of a tile is a short contiguous run (BK x 2 bytes)."""
    return {"points": _chunk_points(K.l2_shared_dot)}


# How close in time several SMs' requests for a line must come to be served at the shared rate: the
# shared-panel stream with the programs of a group a fixed number of K steps apart (K = 1024: a 16-step
# cycle, 17 MB in all, inside the L2).
L2_LAGS = (0, 1, 2, 4, 8)


def l2_lag() -> dict:
    """L2 -> shared-memory rate of a 4-program shared panel whose readers trail one another by ``lag``."""
    bm, bk, per_sm, warps, stages, k, bn, share = 128, 64, 2, 4, 4, 1024, 16, 4
    grid = (n_sm() * per_sm,)
    a = torch.randn(-(-grid[0] // share) * bm, k, device="cuda", dtype=torch.float16)
    b = torch.randn(bk, bn, device="cuda", dtype=torch.float16)
    out = torch.empty(grid[0] * bm, bn, device="cuda", dtype=torch.float32)
    iters = L2_SHARED["iters"]
    points = []
    for lag in L2_LAGS:
        kw = dict(BM=bm, BK=bk, BN=bn, num_warps=warps, num_stages=stages)
        t = bench_s(lambda lag=lag, kw=kw: K.l2_lagged_dot[grid](a, b, out, k, iters, share, lag, **kw))
        moved = grid[0] * iters * bm * bk * 2
        points.append({"lag_steps": lag, "share": share, "s": t, "bytes_per_s": moved / t})
    return {"points": points, "working_set_bytes": a.numel() * 2}


# How tensor-core work and L2 traffic overlap when both are near their limits: the shared-panel stream with a
# dot whose N (BN) sets the tensor-core time per K step at fixed bytes, from memory-bound (BN = 16) through
# balanced to tensor-core-bound, with each program's lines private (share 1) or read by 4 SMs in step, and
# the same dot chains without the loads (tensor-core time alone).
OVERLAP_BNS = (16, 32, 64, 128, 256)
OVERLAP_SHARES = (1, 4)
OVERLAP_BM, OVERLAP_BK, OVERLAP_K, OVERLAP_ITERS = 128, 64, 256, 512


def _overlap_point(
    a: torch.Tensor, grid: tuple[int], bn: int, share: int, load: bool, warps: int, stages: int
) -> dict:
    """One timed overlap_dot loop (BM = OVERLAP_BM, BK = OVERLAP_BK, OVERLAP_ITERS steps over A's K), its
    bytes and FLOPs per second."""
    bm, bk, k, iters = OVERLAP_BM, OVERLAP_BK, a.shape[1], OVERLAP_ITERS
    b = torch.randn(bk, bn, device="cuda", dtype=torch.float16)
    out = torch.empty(grid[0] * bm, bn, device="cuda", dtype=torch.float32)
    kw = dict(BM=bm, BK=bk, BN=bn, LOAD=load, num_warps=warps, num_stages=stages)
    t = bench_s(lambda: K.overlap_dot[grid](a, b, out, k, iters, share, **kw))
    moved = grid[0] * iters * bm * bk * 2 if load else 0
    return {"BM": bm, "BK": bk, "BN": bn, "programs_per_sm": grid[0] // n_sm(), "warps": warps,
            "stages": stages, "K": k, "iters": iters, "share": share, "load": load, "s": t,
            "bytes_per_s": moved / t, "flops_per_s": 2 * grid[0] * iters * bm * bn * bk / t}  # fmt: skip


def _overlap_panels(per_sm: int) -> tuple[torch.Tensor, tuple[int]]:
    """The overlap loop's A panels (OVERLAP_K wide, one per program) for ``per_sm`` programs per SM."""
    grid = (n_sm() * per_sm,)
    return torch.randn(grid[0] * OVERLAP_BM, OVERLAP_K, device="cuda", dtype=torch.float16), grid


def overlap() -> dict:
    """Seconds of the overlap_dot loop by BN and sharing degree, with loads and without (2 programs per SM,
    4 warps, 4 stages)."""
    a, grid = _overlap_panels(2)
    points = [
        _overlap_point(a, grid, bn, share, load, 4, 4)
        for bn in OVERLAP_BNS
        for share, load in [(s, True) for s in OVERLAP_SHARES] + [(1, False)]
    ]
    return {"points": points}


# The overlap probe at one and two programs per SM, four and eight warps and two to four stages: how much
# of the L2 time a block alone on its SM exposes under its tensor cores, beside the loop shared with another.
OVERLAP_ALONE_BNS = (16, 64, 128, 256)
OVERLAP_ALONE_PER_SM = (1, 2)
OVERLAP_ALONE_WARPS = (2, 4, 8)
OVERLAP_ALONE_STAGES = (2, 3, 4)


def overlap_alone() -> dict:
    """Seconds of the overlap_dot loop (private lines) by programs per SM, warps, stages and BN, with loads
    and without; BN only up to what keeps the accumulator within 128 registers a thread (no spills)."""
    points = []
    for per_sm in OVERLAP_ALONE_PER_SM:
        a, grid = _overlap_panels(per_sm)
        points += [
            _overlap_point(a, grid, bn, 1, load, warps, stages)
            for bn in OVERLAP_ALONE_BNS
            for warps in OVERLAP_ALONE_WARPS
            if bn * OVERLAP_BM <= warps * 32 * 128  # the fp32 accumulator within 128 registers a thread
            for stages in OVERLAP_ALONE_STAGES
            for load in (True, False)
        ]
        del a
    return {"points": points}


# A 128 x 128 GEMM tile's loop (both operands loaded every step, as kernels/triton/gemm.py does) with private
# lines and with lines 2-8 SMs read at the same steps, at block_K 32 and 64, 4 and 8 warps, one and two
# programs an SM, and twice the tensor-core work a loaded byte: how the L2 time the coalescer's merges save
# and the tensor cores' time combine (the model takes the larger of the tensor cores' and the merged L2's).
TILE_LOOP_BM, TILE_LOOP_BN, TILE_LOOP_K, TILE_LOOP_ITERS = 128, 128, 128, 512
TILE_LOOP_BKS = (32, 64)
TILE_LOOP_WARPS = (4, 8)
TILE_LOOP_PER_SM = (1, 2)
TILE_LOOP_SHARES = (1, 2, 4, 8)
TILE_LOOP_DOTS = (1, 2)


def tile_loop() -> dict:
    """Seconds of :func:`kernels.tile_loop` by block_K, warps, programs per SM, sharing and dots a step, with
    loads and without; stages 4 at block_K 32 or one program an SM, else 3 (two 96 KB blocks an SM)."""
    bm, bn, k, iters = TILE_LOOP_BM, TILE_LOOP_BN, TILE_LOOP_K, TILE_LOOP_ITERS
    points = []
    for per_sm in TILE_LOOP_PER_SM:
        programs = n_sm() * per_sm
        a = torch.randn(programs * bm, k, device="cuda", dtype=torch.float16)
        b = torch.randn(k, programs * bn, device="cuda", dtype=torch.float16)
        out = torch.empty(programs * bm, bn, device="cuda", dtype=torch.float32)
        runs = [(s, True) for s in TILE_LOOP_SHARES] + [(1, False)]
        settings = itertools.product(TILE_LOOP_BKS, TILE_LOOP_WARPS, TILE_LOOP_DOTS, runs)
        for bk, warps, dots, (share, load) in settings:
            stages = 4 if bk == 32 or per_sm == 1 else 3
            meta = dict(BM=bm, BN=bn, BK=bk, DOTS=dots, LOAD=load, num_warps=warps, num_stages=stages)
            r = timed_launch(K.tile_loop, (programs,), (a, b, out, k, programs * bn, iters, share), meta)
            moved = programs * iters * (bm + bn) * bk * 2 if load else 0
            point = {"BM": bm, "BN": bn, "BK": bk, "warps": warps, "stages": stages,
                     "programs_per_sm": per_sm, "share": share, "dots": dots, "load": load,
                     "K": k, "iters": iters, "bytes": moved,
                     "flops": 2 * programs * iters * dots * bm * bn * bk, **r}  # fmt: skip
            points.append(point)
        del a, b, out
    return {"points": points}


# Element-wide tile loads in a loop (an unaligned GEMM operand's pattern), from an L2-resident fp16 matrix
# with an odd row stride: warp instructions per second per SM by tile shape, warps and programs per SM. Each
# SM's programs walk NARROW_TILE_SM_BYTES of panels: more than its L1 holds, and all SMs' within the L2.
NARROW_TILE_SHAPES = ((32, 64), (64, 32), (16, 32))
NARROW_TILE_WARPS = (2, 4)
NARROW_TILE_PER_SM = (1, 4, 8)
NARROW_TILE_SM_BYTES, NARROW_TILE_REPS = 288 * 1024, 256


def narrow_tiles() -> dict:
    """Warp-wide memory instructions per second per SM of :func:`kernels.narrow_tiles` (one 2-byte load per
    element, 32 lanes a warp), with the aligned stride (vectorised) beside each odd-stride point."""
    points = []
    for r, c in NARROW_TILE_SHAPES:
        for per_sm in NARROW_TILE_PER_SM:
            programs = n_sm() * per_sm
            n_rows = max(r, NARROW_TILE_SM_BYTES // (per_sm * c * 2) // r * r)
            for warps in NARROW_TILE_WARPS:
                for stride in (programs * c, programs * c + 1):
                    src = torch.randn(n_rows, stride, device="cuda", dtype=torch.float16)
                    out = torch.empty(programs, device="cuda", dtype=torch.float32)
                    run = K.narrow_tiles[(programs,)]
                    kw = dict(R=r, C=c, num_warps=warps)
                    t = bench_s(
                        lambda run=run, src=src, out=out, stride=stride, n=n_rows, kw=kw: run(
                            src, out, stride, n, NARROW_TILE_REPS, **kw
                        )
                    )
                    instr = programs * NARROW_TILE_REPS * r * c / 32
                    points.append(
                        {"R": r, "C": c, "programs_per_sm": per_sm, "warps": warps, "odd": stride % 2 == 1,
                         "rows": n_rows, "s": t, "warp_instr_per_s_per_sm": instr / t / n_sm()}
                    )  # fmt: skip
                    del src, out
    return {"points": points}


def tma_chunks() -> dict:
    """The l2_chunks probe with A read through TMA descriptors (needs triton.set_allocator on Triton 3.6+)."""
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    return {"points": _chunk_points(K.tma_stream_dot)}


# Block dispatch probe: grids of k blocks per SM for several k and warps per block; the slope of time over
# blocks per SM is what one more block costs an SM when blocks are trivially short.
BLOCKS_PER_SM = (1, 8, 32, 128, 512)
BLOCK_WARPS = (1, 4, 8)


def blocks() -> dict:
    """Per-block dispatch cost (``block_launch_s``): least-squares slope of time over blocks per SM."""
    out = torch.empty(n_sm() * max(BLOCKS_PER_SM), device="cuda", dtype=torch.int32)
    series = {}
    for warps in BLOCK_WARPS:
        pts = []
        for k in BLOCKS_PER_SM:
            grid = (n_sm() * k,)
            t = bench_s(lambda grid=grid, warps=warps: K.touch[grid](out, num_warps=warps))
            pts.append({"blocks_per_sm": k, "s": t})
        xs = [p["blocks_per_sm"] for p in pts]
        ys = [p["s"] for p in pts]
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)
        series[str(warps)] = {"points": pts, "s_per_block_per_sm": slope}
    return {"series": series}


# Narrow-access probe: fp16 rows copied one per program, with an aligned (4096) and an odd (4097) row stride;
# the odd stride makes Triton issue 2-byte accesses. Instruction rate = warp instructions / time / SMs.
NARROW_ROWS, NARROW_COLS, NARROW_BLOCK, NARROW_WARPS = 32768, 4096, 4096, 4


def narrow() -> dict:
    """Warp-wide memory instructions per second per SM when accesses are element-wide (fp16, 2 bytes)."""
    out = {}
    for stride in (NARROW_COLS, NARROW_COLS + 1):
        src = torch.randn(NARROW_ROWS, stride, device="cuda", dtype=torch.float16)
        dst = torch.empty_like(src)
        t = bench_s(
            lambda src=src, dst=dst, stride=stride: K.copy_rows[(NARROW_ROWS,)](
                src, dst, stride, NARROW_COLS, BLOCK=NARROW_BLOCK, num_warps=NARROW_WARPS
            )
        )
        moved = 2 * NARROW_ROWS * NARROW_COLS * 2
        out[str(stride)] = {"s": t, "bytes_per_s": moved / t}
        del src, dst
    t = out[str(NARROW_COLS + 1)]["s"]
    instr = 2 * NARROW_ROWS * NARROW_COLS / 32  # one 2-byte load and one store per element, 32 lanes a warp
    out["warp_instr_per_s_per_sm"] = instr / t / n_sm()
    return out


# the narrow_ept probe: element-wide row copies and reads over 2^26 float16 elements, one row of BLOCK a
# program, at (BLOCK, warps) pairs that give 2 to 64 elements a thread
NARROW_EPT_ELEMENTS = 1 << 26
NARROW_EPT_CONFIGS = ((1024, 16), (1024, 8), (1024, 4), (2048, 8), (2048, 4), (4096, 8), (4096, 4), (4096, 2))


def narrow_ept() -> dict:
    """The narrow probe's element-wide accesses at several elements a thread: for each (BLOCK, warps) of
    :data:`NARROW_EPT_CONFIGS`, a row copy (``kernels.copy_rows``) and a row read (``kernels.read_rows``) of
    2^26 float16 elements in rows of BLOCK, with an aligned row stride (BLOCK) and an odd one (BLOCK + 1):
    seconds and warp memory instructions per second per SM (one an element and 32 lanes, loads and
    stores)."""
    points = []
    for block, warps in NARROW_EPT_CONFIGS:
        rows = NARROW_EPT_ELEMENTS // block
        kw = dict(BLOCK=block, num_warps=warps)
        for stride in (block, block + 1):
            src = torch.randn(rows, stride, device="cuda", dtype=torch.float16)
            dst = torch.empty_like(src)
            sums = torch.empty(rows, device="cuda", dtype=torch.float32)
            runs = {
                "copy": lambda src=src, dst=dst, s=stride, r=rows, b=block, kw=kw: K.copy_rows[(r,)](
                    src, dst, s, b, **kw
                ),
                "read": lambda src=src, o=sums, s=stride, r=rows, b=block, kw=kw: K.read_rows[(r,)](
                    src, o, s, b, **kw
                ),
            }
            for what, run in runs.items():
                t = bench_s(run)
                instr = (2 if what == "copy" else 1) * NARROW_EPT_ELEMENTS / 32
                rate = instr / t / n_sm()
                points.append(
                    {"what": what, "block": block, "warps": warps, "odd": stride != block, "s": t,
                     "elements_per_thread": block // (32 * warps), "warp_instr_per_s_per_sm": rate}
                )  # fmt: skip
            del src, dst, sums
    return {"points": points}


NARROW_PROGRAMS_PER_SM = 8
REREAD_REPS = 64  # rows each program of kernels.reread_rows sums


def _reread_s(rows: int, stride: int) -> float:
    """Seconds of :func:`kernels.reread_rows` over ``rows`` float16 rows ``stride`` apart, NARROW_COLS wide:
    NARROW_PROGRAMS_PER_SM programs an SM, REREAD_REPS rows each, NARROW_BLOCK on NARROW_WARPS warps."""
    programs = n_sm() * NARROW_PROGRAMS_PER_SM
    buf = torch.randn(rows, stride, device="cuda", dtype=torch.float16)
    sums = torch.empty(programs, device="cuda", dtype=torch.float32)
    return bench_s(
        lambda: K.reread_rows[(programs,)](
            buf, sums, stride, NARROW_COLS, rows, REREAD_REPS, BLOCK=NARROW_BLOCK, num_warps=NARROW_WARPS
        )
    )


# the narrow_strided probe: flat lengths (a multiple of 16, and one less), one block size
STRIDED_N, STRIDED_BLOCK, STRIDED_WARPS = 1 << 24, 1024, 4


def narrow_strided() -> dict:
    """Element-wide accesses whose lanes are 16 bytes apart (the layout's 16 bytes a thread split by a mask of
    unknown divisibility), loads and stores apart: a flat read (summed per block), write and copy of
    ``STRIDED_N`` and ``STRIDED_N - 1`` elements in float16 and float32. Seconds, bytes per second and warp
    instructions per second per SM (one instruction per element and 32 lanes)."""
    out: dict = {}
    kw = dict(BLOCK=STRIDED_BLOCK, num_warps=STRIDED_WARPS)
    for dtype in (torch.float16, torch.float32):
        size = torch.tensor([], dtype=dtype).element_size()
        for n in (STRIDED_N, STRIDED_N - 1):
            src = torch.randn(n, device="cuda", dtype=dtype)
            dst = torch.empty_like(src)
            grid = (triton.cdiv(n, STRIDED_BLOCK),)
            sums = torch.empty(grid[0], device="cuda", dtype=torch.float32)
            times = {
                "read": bench_s(lambda src=src, sums=sums, n=n, g=grid: K.flat_read[g](src, sums, n, **kw)),
                "write": bench_s(lambda dst=dst, n=n, g=grid: K.flat_write[g](dst, n, **kw)),
                "copy": bench_s(lambda src=src, dst=dst, n=n, g=grid: K.flat_copy[g](src, dst, n, **kw)),
            }
            row = {}
            for what, t in times.items():
                streams = 2 if what == "copy" else 1
                row[what] = {
                    "s": t,
                    "bytes_per_s": streams * n * size / t,
                    "warp_instr_per_s_per_sm": streams * n / 32 / t / n_sm(),
                }
            out[f"{str(dtype).removeprefix('torch.')}/{n}"] = row
            del src, dst, sums
    return out


STRIDED_PACING_FMAS = (0, 8, 32, 128, 512)


def strided_paced() -> dict:
    """The narrow_strided probe's float16 write (:func:`kernels.flat_write_paced`) with 0-512 dependent fused
    multiply-adds an element in front of the store, at ``STRIDED_N`` (aligned) and ``STRIDED_N - 1`` (split
    two-byte stores 16 bytes apart) elements: whether the L2's merges of partly written sectors keep their
    rate when the stores come at the arithmetic's pace; and the same with the element loaded first
    (:func:`kernels.flat_copy_paced`, ``"loaded": true``). Seconds per point."""
    points = []
    for fmas in STRIDED_PACING_FMAS:
        for n in (STRIDED_N, STRIDED_N - 1):
            dst = torch.empty(n, device="cuda", dtype=torch.float16)
            grid = (triton.cdiv(n, STRIDED_BLOCK),)
            kw = dict(BLOCK=STRIDED_BLOCK, FMAS=fmas, num_warps=STRIDED_WARPS)
            t = bench_s(lambda dst=dst, n=n, g=grid, kw=kw: K.flat_write_paced[g](dst, n, **kw))
            points.append({"fmas": fmas, "n": n, "s": t})
            src = torch.randn(n, device="cuda", dtype=torch.float16)
            t = bench_s(lambda src=src, dst=dst, n=n, g=grid, kw=kw: K.flat_copy_paced[g](src, dst, n, **kw))
            points.append({"fmas": fmas, "n": n, "s": t, "loaded": True})
            del dst, src
    return {"points": points}


# The split_mix probe: element-wise kernels whose stores the mask splits into 2-byte ones 16 bytes apart (a
# length no multiple of 16) beside their aligned twins (the length rounded down to a multiple of 16): the
# stream_mix tiles with 0-2 reads and 1-2 written streams, flat_copy_paced with 0-64 fused multiply-adds an
# element, and the reference element-wise kernels (kernels/triton: the vector add, both GELUs, the seeded
# dropout), at three lengths and two tile shapes. Whether the L2's merges of partly written sectors cost
# every split kernel what they cost a bare write of the same length.
SPLIT_MIX_LENGTHS = ((1 << 24) - 1, (1 << 26) - 1, 111_111_111)
# (BLOCK, warps): 8, 8, 16, 32 and 64 elements a thread, so 8-64 split stores a thread back to back
SPLIT_MIX_CONFIGS = ((1024, 4), (2048, 8), (4096, 8), (4096, 4), (8192, 4))
SPLIT_MIX_STREAM_CONFIGS = SPLIT_MIX_CONFIGS[:2]  # the stream_mix tiles at the first two only
SPLIT_MIX_PACED_CONFIGS = SPLIT_MIX_CONFIGS[:1] + SPLIT_MIX_CONFIGS[2:]  # flat_copy_paced's
SPLIT_MIX_STREAMS = ((0, 1), (1, 1), (2, 1), (1, 2))  # (reads, writes)
SPLIT_MIX_FMAS = (0, 16, 32, 64)


def _split_mix_kernels(n: int, block: int, warps: int, streams: tuple, bf16: tuple) -> list[tuple[dict, Any]]:
    """(point description, launch callable) for every split_mix kernel at length ``n`` and one tile shape:
    ``streams`` the four float16 streams, ``bf16`` the bfloat16 input and output of the tanh GELU."""
    from kernels.triton.dropout import seeded_dropout_kernel
    from kernels.triton.gelu import gelu_kernel
    from kernels.triton.vector_add import add_kernel

    grid = (triton.cdiv(n, block),)
    a, b, y, z = streams
    kw = dict(BLOCK=block, num_warps=warps)
    out: list[tuple[dict, Any]] = []
    for reads, writes in SPLIT_MIX_STREAMS if (block, warps) in SPLIT_MIX_STREAM_CONFIGS else ():
        out.append(({"kernel": "stream_mix", "reads": reads, "writes": writes},
                    _stream_mix_launch(streams, n, reads, writes, block, warps)))  # fmt: skip
    if (block, warps) in SPLIT_MIX_PACED_CONFIGS:
        for fmas in SPLIT_MIX_FMAS:
            out.append(({"kernel": "flat_copy_paced", "reads": 1, "writes": 1, "fmas": fmas},
                        lambda fmas=fmas: K.flat_copy_paced[grid](a, y, n, FMAS=fmas, **kw)))  # fmt: skip
    bf_a, bf_y = (t[:n] for t in bf16)
    out += [
        ({"kernel": "add", "reads": 2, "writes": 1}, lambda: add_kernel[grid](a, b, y, n, **kw)),
        ({"kernel": "gelu", "reads": 1, "writes": 1}, lambda: gelu_kernel[grid](a, y, n, APPROX=False, **kw)),
        ({"kernel": "gelu_tanh", "reads": 1, "writes": 1, "dtype": "bfloat16"},
         lambda: gelu_kernel[grid](bf_a, bf_y, n, APPROX=True, **kw)),
        ({"kernel": "dropout", "reads": 1, "writes": 1},
         lambda: seeded_dropout_kernel[grid](a, y, n, 0.1, 1234, **kw)),
    ]  # fmt: skip
    return out


def split_mix() -> dict:
    """Seconds of each split_mix kernel (``kernel``, its streams, ``fmas`` where paced) at each length of
    :data:`SPLIT_MIX_LENGTHS` (``split``: true) and its aligned twin, per tile shape of
    :data:`SPLIT_MIX_CONFIGS` (the stream_mix tiles at :data:`SPLIT_MIX_STREAM_CONFIGS`, flat_copy_paced at
    :data:`SPLIT_MIX_PACED_CONFIGS`); float16 unless ``dtype`` says otherwise."""
    longest = max(SPLIT_MIX_LENGTHS)
    # normal draws, as the sweeps' inputs: libdevice's tanh and erf take their longer paths on most of them
    streams = tuple(torch.randn(longest, device="cuda", dtype=torch.float16) for _ in range(4))
    bf16 = tuple(torch.randn(longest, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    points = []
    for odd, (block, warps) in itertools.product(SPLIT_MIX_LENGTHS, SPLIT_MIX_CONFIGS):
        for n, split in ((odd, True), (odd - odd % 16, False)):
            for desc, fn in _split_mix_kernels(n, block, warps, streams, bf16):
                point = {**desc, "elements": n, "split": split, "block": block, "warps": warps}
                points.append({**point, "s": bench_s(fn)})
    return {"points": points}


def narrow_split() -> dict:
    """The narrow probe's loads and stores apart: element-wide (fp16, odd row stride) reads of every row
    summed to one value, and element-wide writes of every row; warp instructions per second per SM of each,
    with the aligned (vectorised) stride beside them."""
    out: dict = {}
    for stride in (NARROW_COLS, NARROW_COLS + 1):
        buf = torch.randn(NARROW_ROWS, stride, device="cuda", dtype=torch.float16)
        sums = torch.empty(NARROW_ROWS, device="cuda", dtype=torch.float32)
        kw = dict(BLOCK=NARROW_BLOCK, num_warps=NARROW_WARPS)
        t_read = bench_s(
            lambda buf=buf, sums=sums, stride=stride, kw=kw: K.read_rows[(NARROW_ROWS,)](
                buf, sums, stride, NARROW_COLS, **kw
            )
        )
        t_write = bench_s(
            lambda buf=buf, stride=stride, kw=kw: K.write_rows[(NARROW_ROWS,)](buf, stride, NARROW_COLS, **kw)
        )
        out[str(stride)] = {"read_s": t_read, "write_s": t_write}
        del buf, sums
    # loads from an L2-resident buffer (the DRAM-resident read above is bandwidth-bound, a lower bound)
    rows, reps, programs = 2048, REREAD_REPS, n_sm() * NARROW_PROGRAMS_PER_SM
    for stride in (NARROW_COLS, NARROW_COLS + 1):
        out[str(stride)]["l2_read_s"] = _reread_s(rows, stride)
    l2_instr = programs * reps * NARROW_COLS / 32
    out["l2_load_warp_instr_per_s_per_sm"] = l2_instr / out[str(NARROW_COLS + 1)]["l2_read_s"] / n_sm()
    instr = NARROW_ROWS * NARROW_COLS / 32  # one 2-byte access per element, 32 lanes a warp
    odd = out[str(NARROW_COLS + 1)]
    out["load_warp_instr_per_s_per_sm"] = instr / odd["read_s"] / n_sm()
    out["store_warp_instr_per_s_per_sm"] = instr / odd["write_s"] / n_sm()
    return out


# the narrow_l1 probe: rows re-read by every program, few enough to stay in each SM's L1, or many (L2)
NARROW_L1_ROWS = (8, 16, 2048)


def narrow_l1() -> dict:
    """Element-wide (odd stride) and vectorised (aligned) float16 row re-reads (:func:`kernels.reread_rows`,
    8 programs an SM, 64 rows each, 4096-wide rows on 4 warps) over 8 and 16 rows (65 / 131 KB: every SM
    re-reads the same rows from its L1) and 2048 (L2): warp load instructions per second per SM, one an
    element and 32 lanes for the odd stride."""
    points = []
    instr = n_sm() * NARROW_PROGRAMS_PER_SM * REREAD_REPS * NARROW_COLS / 32
    for rows in NARROW_L1_ROWS:
        for stride in (NARROW_COLS, NARROW_COLS + 1):
            t = _reread_s(rows, stride)
            points.append({"rows": rows, "odd": stride % 2 == 1, "s": t,
                           "warp_instr_per_s_per_sm": instr / t / n_sm()})  # fmt: skip
    return {"points": points}


# the narrow_width probe: element-wide row re-reads at 1-8 elements a thread (lanes 2-16 bytes apart)
NARROW_WIDTH_SPT = {torch.float16: (1, 2, 4, 8), torch.float32: (1, 2, 4)}
NARROW_WIDTH_WARPS = 4
NARROW_WIDTH_INSTR = 8192  # warp load instructions each program issues (the narrow_l1 probe's count)
NARROW_WIDTH_L2_BYTES = 8 << 20  # an L2-resident buffer, far over any SM's L1
NARROW_WIDTH_L1_ROWS = 8
NARROW_WIDTH_UNROLL = 8  # rows an iteration of kernels.reread_rows_unrolled


def narrow_width() -> dict:
    """Element-wide loads whose lanes lie 2-16 bytes apart, re-read (:func:`kernels.reread_rows_unrolled`,
    NARROW_PROGRAMS_PER_SM programs an SM on NARROW_WIDTH_WARPS warps, BLOCK = threads x elements a thread,
    every program issuing NARROW_WIDTH_INSTR warp load instructions) from L1 (NARROW_WIDTH_L1_ROWS rows every
    SM re-reads) and from L2 (an 8 MiB buffer), float16 at 1, 2, 4, 8 elements a thread and float32 at 1, 2,
    4. Three accesses each: ``aligned`` (row stride and row length multiples of 16: vector loads), ``split``
    (the row length one short of BLOCK: Triton keeps the layout's vector of elements a thread, the mask of
    unknown divisibility splits it into element-wide loads whose lanes lie ``elements a thread x element
    size`` apart, as in an RMSNorm over 9000-wide rows) and ``odd_stride`` (row stride BLOCK + 1: the layout
    drops to one element a thread, lanes one element apart, as in the narrow probes). Seconds, and warp load
    instructions per second per SM for the element-wide ones (one an element and 32 lanes)."""
    points = []
    threads = 32 * NARROW_WIDTH_WARPS
    programs = n_sm() * NARROW_PROGRAMS_PER_SM
    sums = torch.empty(programs, device="cuda", dtype=torch.float32)
    for dtype, spts in NARROW_WIDTH_SPT.items():
        size = torch.tensor([], dtype=dtype).element_size()
        for spt in spts:
            block = threads * spt
            reps = NARROW_WIDTH_INSTR * 32 // block  # rows a program sums
            for tier in ("l1", "l2"):
                rows = NARROW_WIDTH_L1_ROWS if tier == "l1" else NARROW_WIDTH_L2_BYTES // (block * size)
                for access, stride, n_cols in (
                    ("aligned", block, block), ("split", block, block - 1), ("odd_stride", block + 1, block)
                ):  # fmt: skip
                    buf = torch.randn(rows + 7 * NARROW_WIDTH_UNROLL, stride, device="cuda", dtype=dtype)
                    args = (buf, sums, stride, n_cols, rows - 1, reps // NARROW_WIDTH_UNROLL)
                    kw = dict(U=NARROW_WIDTH_UNROLL, BLOCK=block, num_warps=NARROW_WIDTH_WARPS)
                    t = bench_s(lambda args=args, kw=kw: K.reread_rows_unrolled[(programs,)](*args, **kw))
                    wide = access != "aligned"
                    rate = programs * reps * block / 32 / t / n_sm() if wide else None
                    points.append(
                        {"dtype": str(dtype).removeprefix("torch."), "elements_per_thread": spt,
                         "access": access, "lane_stride_bytes": (spt if access == "split" else 1) * size,
                         "tier": tier, "rows": rows, "block": block, "n_cols": n_cols, "stride": stride,
                         "reps": reps, "s": t, "warp_instr_per_s_per_sm": rate}
                    )  # fmt: skip
                    del buf
    return {"points": points}


def narrow_private() -> dict:
    """The narrow_width accesses on private lines: each program re-reads its own NARROW_WIDTH_UNROLL rows
    (:func:`kernels.reread_private`, NARROW_PROGRAMS_PER_SM programs an SM on NARROW_WIDTH_WARPS warps,
    NARROW_WIDTH_INSTR warp load instructions a program), float16 at 1, 2, 4, 8 elements a thread, through L1
    (``l1``: 8 rows of at most 2 KiB a program stay in the SM's L1) and past it (``l2``: ``.cg`` loads, L2
    serves every re-read of lines no other SM reads), aligned and mask-split as narrow_width (an odd row
    stride is left out: Triton keeps a program's first row aligned here, so its rows load at mixed widths)."""
    points = []
    threads = 32 * NARROW_WIDTH_WARPS
    programs = n_sm() * NARROW_PROGRAMS_PER_SM
    sums = torch.empty(programs, device="cuda", dtype=torch.float32)
    for spt in NARROW_WIDTH_SPT[torch.float16]:
        block = threads * spt
        iters = NARROW_WIDTH_INSTR * 32 // block // NARROW_WIDTH_UNROLL
        for tier in ("l1", "l2"):
            for access, stride, n_cols in (("aligned", block, block), ("split", block, block - 1)):
                buf = torch.randn(programs * NARROW_WIDTH_UNROLL, stride, device="cuda", dtype=torch.float16)
                args = (buf, sums, stride, n_cols, iters)
                kw = dict(U=NARROW_WIDTH_UNROLL, BLOCK=block, CG=tier == "l2", num_warps=NARROW_WIDTH_WARPS)
                t = bench_s(lambda args=args, kw=kw: K.reread_private[(programs,)](*args, **kw))
                wide = access != "aligned"
                instr = programs * iters * NARROW_WIDTH_UNROLL * block / 32
                points.append(
                    {"dtype": "float16", "elements_per_thread": spt, "access": access,
                     "lane_stride_bytes": spt * 2, "tier": tier, "block": block,
                     "n_cols": n_cols, "stride": stride, "iters": iters, "s": t,
                     "warp_instr_per_s_per_sm": instr / t / n_sm() if wide else None}
                )  # fmt: skip
                del buf
    return {"points": points}


NARROW_DRAM_N = 1 << 27  # float16 elements (256 MiB): DRAM-resident


def narrow_dram() -> dict:
    """Element-wide DRAM traffic without block dispatch in the way (:func:`kernels.flat_loop`: 8 programs an
    SM on NARROW_WIDTH_WARPS warps, each walking its share of the array in BLOCK-wide chunks): a read, a write
    and a copy of NARROW_DRAM_N float16 elements (aligned: vector accesses of 2-16 bytes) and of one fewer
    (split: the mask splits each thread's vector into element-wide accesses whose lanes lie 2-16 bytes apart),
    at 1, 2, 4, 8 elements a thread. Seconds, DRAM bytes per second and warp memory instructions per second
    per SM (an element-wide instruction a lane-element, a vector one a lane-vector)."""
    points = []
    threads = 32 * NARROW_WIDTH_WARPS
    programs = n_sm() * NARROW_PROGRAMS_PER_SM
    src = torch.randn(NARROW_DRAM_N, device="cuda", dtype=torch.float16)
    dst = torch.empty_like(src)
    sums = torch.empty(programs, device="cuda", dtype=torch.float32)
    for spt in NARROW_WIDTH_SPT[torch.float16]:
        block = threads * spt
        for access, n in (("aligned", NARROW_DRAM_N), ("split", NARROW_DRAM_N - 1)):
            chunks = triton.cdiv(n, programs * block)
            for mode, what in enumerate(("read", "write", "copy")):
                kw = dict(BLOCK=block, MODE=mode, num_warps=NARROW_WIDTH_WARPS)
                t = bench_s(lambda n=n, c=chunks, kw=kw: K.flat_loop[(programs,)](src, dst, sums, n, c, **kw))
                streams = 2 if what == "copy" else 1
                per_instr = 2 if access == "split" else 2 * spt  # bytes a lane moves an instruction
                points.append(
                    {"what": what, "access": access, "elements_per_thread": spt, "lane_stride_bytes": 2 * spt,
                     "n": n, "s": t, "bytes_per_s": streams * n * 2 / t,
                     "warp_instr_per_s_per_sm": streams * n * 2 / per_instr / 32 / t / n_sm()}
                )  # fmt: skip
    return {"points": points}


# Per-SM bandwidth probe: few blocks (one per SM) each stream their own DRAM-resident row panel through the
# pipelined async-copy path, so no shared resource is saturated: what one SM can pull by itself.
SM_STREAM = {"BM": 128, "BK": 64, "BN": 16, "K": 65536, "iters": 1024, "warps": 4, "stages": 4}
SM_STREAM_BLOCKS = (8, 16, 32)


def _stream_points(blocks_list: tuple[int, ...], stages_list: tuple[int, ...]) -> list[dict]:
    """Per-SM DRAM rate of ``blocks`` programs (one per SM) each streaming its own panel (SM_STREAM shape),
    for every (blocks, stages) pair; with the bytes in flight and their Little's-law latency."""
    c = SM_STREAM
    b = torch.randn(c["BK"], c["BN"], device="cuda", dtype=torch.float16)
    points = []
    for blocks in blocks_list:
        m = blocks * c["BM"]
        a = torch.randn(m, c["K"], device="cuda", dtype=torch.float16)
        out = torch.empty(m, c["BN"], device="cuda", dtype=torch.float32)
        for stages in stages_list:
            kw = dict(BM=c["BM"], BK=c["BK"], BN=c["BN"], num_warps=c["warps"], num_stages=stages)
            t = bench_s(
                lambda a=a, out=out, blocks=blocks, kw=kw: K.l2_stream_dot[(blocks,)](
                    a, b, out, c["K"], c["iters"], **kw
                )
            )
            per_sm = c["iters"] * c["BM"] * c["BK"] * 2 / t
            in_flight = (stages - 1) * c["BM"] * c["BK"] * 2
            points.append(
                {"blocks": blocks, "stages": stages, "s": t, "bytes_per_s_per_sm": per_sm,
                 "total_bytes_per_s": per_sm * blocks, "latency_s": in_flight / per_sm}
            )  # fmt: skip
        del a, out
    return points


def sm_stream() -> dict:
    """Bytes per second one SM pulls from DRAM on its own (``l2_bw_per_sm_bytes_per_s``)."""
    points = _stream_points(SM_STREAM_BLOCKS, (SM_STREAM["stages"],))
    return {"points": points, "bytes_per_s_per_sm": max(p["bytes_per_s_per_sm"] for p in points), **SM_STREAM}


# Loaded DRAM latency: the same one-block-per-SM stream on 16 to 132 SMs, with 1 to 3 tiles in flight (stages
# 2 to 4); Little's law on bytes in flight over the per-SM rate gives the latency at each total throughput.
LOADED_BLOCKS = (16, 48, 96, 132)
LOADED_STAGES = (2, 3, 4)


def loaded_latency() -> dict:
    """DRAM latency seen by a pipelined stream as the whole GPU's DRAM throughput grows."""
    return {"points": _stream_points(LOADED_BLOCKS, LOADED_STAGES)}


# Dependent-dot probe: (BM, BN, BK, warps) shapes, 1 and 2 blocks per SM, fp16 operands loaded once.
DOT_CHAIN_SHAPES = (
    (128, 128, 16, 4),
    (128, 128, 32, 4),
    (128, 128, 64, 4),
    (128, 256, 32, 8),
    (64, 128, 32, 4),
)
DOT_CHAIN_ITERS = 4096


def dot_chain() -> dict:
    """Time per dependent dot at 1 and 2 blocks per SM against its tensor-core throughput time."""
    points = []
    for bm, bn, bk, warps in DOT_CHAIN_SHAPES:
        a = torch.randn(bm, bk, device="cuda", dtype=torch.float16)
        b = torch.randn(bk, bn, device="cuda", dtype=torch.float16)
        for per_sm in (1, 2):
            grid = (n_sm() * per_sm,)
            out = torch.empty(grid[0] * bm * bn, device="cuda", dtype=torch.float32)
            t = bench_s(
                lambda grid=grid, out=out, a=a, b=b, bm=bm, bn=bn, bk=bk, warps=warps: K.dot_chain[grid](
                    a, b, out, DOT_CHAIN_ITERS, BM=bm, BN=bn, BK=bk, num_warps=warps
                )
            )
            flops = 2 * bm * bn * bk * DOT_CHAIN_ITERS * grid[0]
            points.append(
                {"BM": bm, "BN": bn, "BK": bk, "warps": warps, "blocks_per_sm": per_sm, "s": t,
                 "s_per_dot": t / (DOT_CHAIN_ITERS * per_sm), "flops_per_s": flops / t}
            )  # fmt: skip
    return {"points": points}


# Tensor-core chains of attention-sized dots (N = 64 and 128 per instruction, one or two warpgroups) at up to
# four blocks per SM, and the attention inner loop itself without memory traffic (softmax_dot_chain).
DOT_SHAPES = (
    (64, 64, 64, 4),
    (64, 64, 16, 4),
    (128, 64, 64, 4),
    (128, 64, 64, 8),
    (64, 128, 64, 4),
    (64, 256, 64, 4),
)
SOFTMAX_DOT_SHAPES = (
    (64, 64, 64, 4), (128, 64, 64, 4), (128, 64, 64, 8), (128, 128, 64, 8),
    (64, 64, 128, 4), (128, 64, 128, 8), (128, 128, 128, 8),
)  # fmt: skip
CHAIN_BLOCKS_PER_SM = (1, 2, 4)
SOFTMAX_DOT_ITERS = 1024


# Narrow result tiles: a warpgroup MMA of N = 16 or 32 columns against the 64-256 of the shapes above (a
# decode or small-block attention score tile, a skinny GEMM tile), and K = 256 (a head-dim-256 score dot)
DOT_NARROW_SHAPES = (
    (64, 16, 64, 4), (64, 32, 64, 4), (64, 64, 64, 4), (128, 16, 64, 8), (128, 32, 64, 8),
    (64, 16, 256, 4), (64, 32, 256, 4), (64, 64, 256, 4),
)  # fmt: skip


def dot_narrow() -> dict:
    """:func:`dot_shapes` at :data:`DOT_NARROW_SHAPES`: what narrow wgmma instructions sustain."""
    return dot_shapes(DOT_NARROW_SHAPES)


# The regs_a probe (stop 72): the narrow shapes' chains with A computed in registers (dot_chain's A_REGS, a
# float16 cast of a float32 load) beside the same chains reading A from shared memory. The profile's
# [wgmma_n_efficiency] is of the latter; the former's means over the chain rate are the profile's
# [wgmma_n_efficiency_registers] (`python benchmarks/probe_report.py regs_a` prints them).
REGS_A_SHAPES = ((64, 16, 64, 4), (64, 32, 64, 4), (64, 64, 64, 4), (64, 16, 256, 4), (64, 32, 256, 4))


def regs_a() -> dict:
    """:func:`dot_shapes` at :data:`REGS_A_SHAPES`, A from shared memory and from registers."""
    return {
        "points": [
            {**p, "a_regs": regs}
            for regs in (False, True)
            for p in dot_shapes(REGS_A_SHAPES, a_regs=regs)["points"]
        ]
    }


def dot_shapes(shapes: tuple = DOT_SHAPES, a_regs: bool = False) -> dict:
    """Dependent-dot chains of attention-sized dots (see :func:`dot_chain`) at 1, 2 and 4 blocks per SM;
    ``a_regs``: A computed in registers (dot_chain's ``A_REGS``: a float32 A cast to float16)."""
    points = []
    for bm, bn, bk, warps in shapes:
        a = torch.randn(bm, bk, device="cuda", dtype=torch.float32 if a_regs else torch.float16)
        b = torch.randn(bk, bn, device="cuda", dtype=torch.float16)
        for per_sm in CHAIN_BLOCKS_PER_SM:
            grid = (n_sm() * per_sm,)
            out = torch.empty(grid[0] * bm * bn, device="cuda", dtype=torch.float32)
            kw = dict(BM=bm, BN=bn, BK=bk, num_warps=warps, **({"A_REGS": True} if a_regs else {}))
            t = bench_s(
                lambda grid=grid, out=out, a=a, b=b, kw=kw: K.dot_chain[grid](
                    a, b, out, DOT_CHAIN_ITERS, **kw
                )
            )
            flops = 2 * bm * bn * bk * DOT_CHAIN_ITERS * grid[0]
            points.append(
                {"BM": bm, "BN": bn, "BK": bk, "warps": warps, "blocks_per_sm": per_sm, "s": t,
                 "s_per_dot": t / (DOT_CHAIN_ITERS * per_sm), "flops_per_s": flops / t}
            )  # fmt: skip
    return {"points": points}


def _softmax_chain_s(bm: int, bn: int, d: int, warps: int, per_sm: int, **consts) -> float:
    """Seconds of SOFTMAX_DOT_ITERS iterations of softmax_dot_chain at ``per_sm`` blocks per SM (``consts``:
    its ``MASK`` and ``SOFTMAX``)."""
    q = torch.randn(bm, d, device="cuda", dtype=torch.float16)
    k = torch.randn(d, bn, device="cuda", dtype=torch.float16)
    v = torch.randn(bn, d, device="cuda", dtype=torch.float16)
    grid = (n_sm() * per_sm,)
    out = torch.empty(grid[0] * bm * d, device="cuda", dtype=torch.float32)
    kw = dict(BM=bm, BN=bn, D=d, num_warps=warps, **consts)
    return bench_s(lambda: K.softmax_dot_chain[grid](q, k, v, out, SOFTMAX_DOT_ITERS, **kw))


def _softmax_chain_points(shapes: tuple, softmax: bool) -> list[dict]:
    """Points of :func:`_softmax_chain_s` at ``shapes`` (BM, BN, D, warps) and 1, 2 and 4 blocks per SM, with
    the loop's softmax or (``softmax=False``) its two dots alone: seconds, per iteration an SM, the two dots'
    FLOP/s (each element of S once) and, with the softmax, its exponentials a second; a point that cannot
    launch keeps its error."""
    points = []
    for bm, bn, d, warps in shapes:
        for per_sm in CHAIN_BLOCKS_PER_SM:
            try:
                t = _softmax_chain_s(bm, bn, d, warps, per_sm, MASK=False, SOFTMAX=softmax)
            except Exception as exc:  # e.g. out of resources at 4 blocks per SM: record and go on
                points.append({"BM": bm, "BN": bn, "D": d, "warps": warps, "blocks_per_sm": per_sm,
                               "error": f"{type(exc).__name__}: {exc}"[:200]})  # fmt: skip
                continue
            blocks = n_sm() * per_sm
            flops = 4 * bm * bn * d * SOFTMAX_DOT_ITERS * blocks
            point = {"BM": bm, "BN": bn, "D": d, "warps": warps, "blocks_per_sm": per_sm, "s": t,
                     "s_per_iter_per_sm": t / SOFTMAX_DOT_ITERS, "dot_flops_per_s": flops / t}  # fmt: skip
            if softmax:
                point["exp2_per_s"] = bm * bn * SOFTMAX_DOT_ITERS * blocks / t
            points.append(point)
    return points


# The replicated probe: 64-row tiles on 8 warps, whose MMA layout (warpsPerCTA [8, 1]) has both warpgroups
# compute the same rows, beside the same tiles on 4 warps: dot chains, then the attention loop.
REPLICATED_DOT_SHAPES = ((64, 16, 64, 8), (64, 32, 64, 8), (64, 64, 64, 8), (64, 32, 64, 4))
REPLICATED_SOFTMAX_SHAPES = (
    (64, 32, 64, 8), (64, 64, 64, 8), (64, 32, 128, 8), (64, 32, 64, 4), (64, 32, 128, 4),
)  # fmt: skip


def replicated() -> dict:
    """:func:`dot_shapes` and :func:`softmax_dot` at the replicated shapes (:data:`REPLICATED_DOT_SHAPES`,
    :data:`REPLICATED_SOFTMAX_SHAPES`) and 1, 2 and 4 blocks per SM."""
    return {"dot": dot_shapes(REPLICATED_DOT_SHAPES)["points"],
            "softmax": softmax_dot(REPLICATED_SOFTMAX_SHAPES)["points"]}  # fmt: skip


# The wrapped probe (stop 71): the replicated probe's dot chains are accumulator chains, whose layout splits a
# 64-row tile's columns between the two warpgroups of 8 warps (warpsPerCTA [4, 2]); the attention score dot's
# is the chained-dot layout [8, 1], which wraps a 64-row tile. These are that dot and its P V dot alone.
WRAPPED_SHAPES = (
    (64, 32, 64, 8), (64, 64, 64, 8), (64, 128, 64, 8), (64, 32, 64, 4), (64, 64, 64, 4), (64, 128, 64, 4),
    (64, 32, 128, 8), (64, 32, 128, 4), (128, 64, 64, 8),
)  # fmt: skip


def wrapped() -> dict:
    """:func:`~kernels.softmax_dot_chain`'s two dots alone (``SOFTMAX=False``) at :data:`WRAPPED_SHAPES` and
    1, 2 and 4 blocks per SM (:func:`_softmax_chain_points`: seconds of SOFTMAX_DOT_ITERS iterations, and the
    two dots' FLOP/s counting each element of S once)."""
    return {"points": _softmax_chain_points(WRAPPED_SHAPES, softmax=False)}


def softmax_dot(shapes: tuple = SOFTMAX_DOT_SHAPES) -> dict:
    """The attention inner loop on register/shared-resident operands: seconds per iteration per block."""
    return {"points": _softmax_chain_points(shapes, softmax=True)}


# What a causal mask costs inside the attention loop: the on-chip loop with and without a per-iteration
# compare-and-select of the score tile, at the shapes of the measured attention configs.
MASK_SHAPES = ((128, 64, 64, 8), (128, 64, 128, 8), (64, 64, 128, 4), (64, 64, 64, 4), (128, 128, 64, 8))
MASK_BLOCKS_PER_SM = (1, 2)


def masked_softmax() -> dict:
    """Seconds per iteration per SM of the attention inner loop with and without the causal mask."""
    points = []
    for bm, bn, d, warps in MASK_SHAPES:
        for per_sm in MASK_BLOCKS_PER_SM:
            for mask in (False, True):
                t = _softmax_chain_s(bm, bn, d, warps, per_sm, MASK=mask)
                points.append(
                    {"BM": bm, "BN": bn, "D": d, "warps": warps, "blocks_per_sm": per_sm, "mask": mask,
                     "s": t, "s_per_iter_per_sm": t / SOFTMAX_DOT_ITERS}
                )  # fmt: skip
    return {"points": points}


# The issue rate of one block's CUDA-core work: independent FMA chains with 4 warps per block (one warp per
# scheduler) at 1, 2, 4 and 8 blocks per SM.
ISSUE_BLOCKS_PER_SM = (1, 2, 4, 8)


def issue() -> dict:
    points = []
    for per_sm in ISSUE_BLOCKS_PER_SM:
        grid = (n_sm() * per_sm,)
        x = torch.rand(grid[0] * FMA_BLOCK, device="cuda") * 0.5 + 0.5
        out = torch.empty_like(x)
        t = bench_s(
            lambda grid=grid, x=x, out=out: K.fma_chain[grid](
                x, out, FMA_ITERS, BLOCK=FMA_BLOCK, CHAINS=FMA_CHAINS, num_warps=4
            )
        )
        points.append(
            {"blocks_per_sm": per_sm, "s": t, "flops_per_s": 2 * FMA_CHAINS * FMA_ITERS * x.numel() / t}
        )
    return {"points": points}


# Block-wide reductions: dependent tl.max over a row held 4 elements per thread, one block per SM, for 1 to 16
# warps; a warp's own reduction is shuffles, more warps add a shared-memory exchange and a barrier.
REDUCE_WARPS = (1, 2, 4, 8, 16)
REDUCE_ITERS = 4096


def reductions() -> dict:
    """Seconds per dependent row reduction at one block per SM, by warps per block."""
    points = []
    for warps in REDUCE_WARPS:
        block = 4 * 32 * warps
        x = torch.rand(block, device="cuda")
        grid = (n_sm(),)
        out = torch.empty(grid[0] * block, device="cuda")
        t = bench_s(
            lambda x=x, out=out, block=block, warps=warps, grid=grid: K.reduce_chain[grid](
                x, out, REDUCE_ITERS, BLOCK=block, num_warps=warps
            )
        )
        points.append({"warps": warps, "block": block, "s": t, "s_per_reduction": t / REDUCE_ITERS})
    return {"points": points}


# barrier probe: the cost of one meeting of a block's warps at a CTA barrier (kernels.barrier_chain), by warps
# a block, blocks an SM and the work each warp runs between meetings; BARRIER_COUNTS = 0: the loop without any
BARRIER_WARPS = (4, 8, 16)
BARRIER_PER_SM = (1, 2, 4, 8)  # 8 an SM only where its warps fit (64 an SM): the small GEMM tiles' residency
BARRIER_WORK = (8, 64)
BARRIER_COUNTS = (0, 1, 4)
BARRIER_ITERS = 4096


def barrier() -> dict:
    """Seconds a step of ``barrier_chain`` takes by warps, blocks an SM, FMAs a step and barriers a step; the
    difference to the same loop without barriers over the barriers is one meeting's cost."""
    points = []
    for warps in BARRIER_WARPS:
        block = 32 * warps
        x = torch.rand(block, device="cuda")
        for per_sm in BARRIER_PER_SM:
            if per_sm * warps > 64:
                continue
            grid = (n_sm() * per_sm,)
            out = torch.empty(grid[0] * block, device="cuda")
            for work in BARRIER_WORK:
                for count in BARRIER_COUNTS:
                    t = bench_s(
                        lambda x=x, out=out, grid=grid, work=work, count=count, block=block, warps=warps: (
                            K.barrier_chain[grid](
                                x, out, BARRIER_ITERS, WORK=work, BARRIERS=count, BLOCK=block, num_warps=warps
                            )
                        )
                    )
                    points.append(
                        {
                            "warps": warps,
                            "blocks_per_sm": per_sm,
                            "work": work,
                            "barriers": count,
                            "s": t,
                            "s_per_step": t / BARRIER_ITERS,
                        }
                    )
    return {"points": points}


# scan_chain probe: dependent scans of an on-chip tile along an axis spread over warps (kernels.scan_chain)
SCAN_POINTS = (  # (L, D, warps, operands, input dtype): the warps along L, the lanes across D
    (256, 32, 4, 1, "float32"),
    (512, 32, 4, 1, "float32"),
    (1024, 32, 8, 1, "float32"),
    (512, 32, 8, 1, "float32"),
    (256, 32, 8, 1, "float32"),
    (512, 16, 4, 1, "float32"),
    (256, 32, 4, 2, "float32"),
    (512, 32, 4, 2, "float32"),
    (512, 32, 8, 2, "float32"),
    (256, 32, 8, 2, "float32"),
    (512, 16, 8, 2, "float32"),
    # 16-bit inputs: Triton's layout gives each thread 8 columns (scan lines) instead of 4
    (256, 32, 4, 1, "bfloat16"),
    (512, 32, 4, 1, "bfloat16"),
    (1024, 32, 8, 1, "bfloat16"),
    (512, 32, 8, 1, "bfloat16"),
    (256, 32, 4, 2, "bfloat16"),
    (512, 32, 8, 2, "bfloat16"),
)
SCAN_ITERS = 64
SCAN_PER_SM = (1, 2)


def scan_carry_steps(compiled: Any) -> tuple[int, int]:
    """``(steps, lines)`` of the one scan of ``compiled``, its TTGIR read as the frontend reads it
    (:func:`frontends.triton.layouts.scan_carries`: the chunk totals along the axis and the scan lines a
    thread holds); ``(0, 0)`` where its carries do not cross warps."""
    from frontends.triton.layouts import scan_carries

    found = set(scan_carries(compiled.asm["ttgir"]).values())
    return max(((steps, lines) for steps, lines, _ in found), default=(0, 0))


def scan_chain() -> dict:
    """Seconds per dependent scan of :func:`kernels.scan_chain` at one and two blocks an SM, by tile, warps
    and operands (1: ``tl.cumsum``, 2: the tuple linear recurrence), ``SCAN_ITERS`` scans a launch, with the
    carry steps and lines of the layout Triton gave the scan (``carry_steps``, ``carry_lines``,
    :func:`scan_carry_steps`)."""
    points = []
    for (length, dim, warps, operands, dtype), per_sm in itertools.product(SCAN_POINTS, SCAN_PER_SM):
        grid = (n_sm() * per_sm,)
        x = torch.rand(length * dim, device="cuda").to(getattr(torch, dtype))
        out = torch.empty(grid[0] * length * dim, device="cuda")
        meta = dict(L=length, D=dim, OPERANDS=operands, num_warps=warps)
        point = timed_launch(K.scan_chain, grid, (x, out, SCAN_ITERS), meta)
        point.update(length=length, dim=dim, warps=warps, operands=operands, per_sm=per_sm, iters=SCAN_ITERS)
        point["dtype"] = dtype
        compiled = K.scan_chain.warmup(x, out, SCAN_ITERS, grid=grid, **meta)
        point["carry_steps"], point["carry_lines"] = scan_carry_steps(compiled)
        if "s" in point:
            point["s_per_scan"] = point["s"] / SCAN_ITERS
        points.append(point)
    return {"points": points}


# scan_rounds probe: a loaded and stored tile scanned 0-2 times (kernels.scan_rounds), validation 66's shapes
SCAN_ROUND_POINTS = (  # (batch, seq_len, dim, BLOCK_D, warps, operands)
    (16, 1024, 2048, 32, 8, 1),
    (32, 512, 2048, 32, 8, 1),
    (64, 512, 1024, 32, 4, 1),
    (64, 512, 2048, 16, 4, 1),
    (16, 1024, 2048, 32, 8, 2),
    (32, 512, 2048, 32, 8, 2),
    (64, 512, 2048, 16, 4, 2),
)
SCAN_ROUND_COUNTS = (0, 1, 2)


def scan_rounds() -> dict:
    """Seconds of :func:`kernels.scan_rounds` (bfloat16 tiles, one program a ``[seq_len, BLOCK_D]`` tile) at
    0, 1 and 2 scans a tile: the launch's copy alone, and what each scan adds at the layout and blocks an SM
    the real launch gets, with the carry steps and lines of that layout (:func:`scan_carry_steps`)."""
    points = []
    for (batch, length, dim, block_d, warps, operands), scans in itertools.product(
        SCAN_ROUND_POINTS, SCAN_ROUND_COUNTS
    ):
        x = torch.randn(batch, length, dim, device="cuda", dtype=torch.bfloat16)
        y = torch.empty_like(x)
        grid = (batch, dim // block_d)
        meta = dict(BLOCK_L=length, BLOCK_D=block_d, SCANS=scans, OPERANDS=operands, num_warps=warps)
        point = timed_launch(K.scan_rounds, grid, (x, y, length, dim), meta)
        point.update(batch=batch, length=length, dim=dim, block_d=block_d, warps=warps, operands=operands)
        point["scans"] = scans
        if scans:
            compiled = K.scan_rounds.warmup(x, y, length, dim, grid=grid, **meta)
            point["carry_steps"], point["carry_lines"] = scan_carry_steps(compiled)
        points.append(point)
    return {"points": points}


# scan_code probe: the same scans unrolled (kernels.scan_rounds) and in a loop (kernels.scan_loop)
SCAN_CODE_POINTS = ((16, 1024, 2048, 32, 8), (32, 512, 2048, 32, 8))  # (batch, seq_len, dim, BLOCK_D, warps)
SCAN_CODE_COUNTS = (1, 2, 3, 4)


def scan_code() -> dict:
    """Seconds of bfloat16 sequence tiles cumsummed 1-4 times, the scans unrolled (``kernels.scan_rounds``:
    that many copies of a scan's straight-line code, 70 KB of SASS each for the 1024-row tile on 8 warps) and
    in a loop (``kernels.scan_loop``: one copy run that many times), with the cubin's size: whether a
    kernel's time grows with its code beyond what its instructions take (the SM's instruction cache)."""
    points = []
    for (batch, length, dim, block_d, warps), scans in itertools.product(SCAN_CODE_POINTS, SCAN_CODE_COUNTS):
        x = torch.randn(batch, length, dim, device="cuda", dtype=torch.bfloat16)
        y = torch.empty_like(x)
        grid = (batch, dim // block_d)
        for form in ("unrolled", "loop"):
            if form == "unrolled":
                kernel, args = K.scan_rounds, (x, y, length, dim)
                meta = dict(BLOCK_L=length, BLOCK_D=block_d, SCANS=scans, OPERANDS=1, num_warps=warps)
            else:
                kernel, args = K.scan_loop, (x, y, length, dim, scans)
                meta = dict(BLOCK_L=length, BLOCK_D=block_d, num_warps=warps)
            point = timed_launch(kernel, grid, args, meta)
            point.update(batch=batch, length=length, dim=dim, block_d=block_d, warps=warps, scans=scans)
            point["form"] = form
            try:
                point["cubin_bytes"] = len(kernel.warmup(*args, grid=grid, **meta).asm["cubin"])
            except Exception as e:  # the size is a detail; the timing stands without it
                point["cubin_error"] = f"{type(e).__name__}: {str(e)[:120]}"
            points.append(point)
    return {"points": points}


# code_size probe: one amount of arithmetic in loop bodies of 1-384 KB of SASS (kernels.code_size)
CODE_SIZE_STEPS = 49152  # unrolled steps a launch runs in all (iters x UNROLL)
CODE_SIZE_UNROLLS = (256, 1024, 2048, 3072, 4096, 6144)
CODE_SIZE_WARPS = (4, 8)
CODE_SIZE_PER_SM = (1, 2)


def code_size() -> dict:
    """Seconds of :func:`kernels.code_size` (4 fp32 values a thread, ``CODE_SIZE_STEPS`` dependent
    fused-multiply-add steps in all) with ``UNROLL`` steps unrolled in its loop body, on 4 and 8 warps, one
    and two blocks an SM, with the cubin's size: how a kernel's time grows once its loop body outgrows what
    the SM keeps of its instructions, against the same arithmetic in a small body."""
    points = []
    for unroll, warps, per_sm in itertools.product(CODE_SIZE_UNROLLS, CODE_SIZE_WARPS, CODE_SIZE_PER_SM):
        block = 4 * 32 * warps
        grid = (n_sm() * per_sm,)
        x = torch.rand(block, device="cuda")
        y = torch.empty(grid[0] * block, device="cuda")
        iters = CODE_SIZE_STEPS // unroll
        meta = dict(BLOCK=block, UNROLL=unroll, num_warps=warps)
        point = timed_launch(K.code_size, grid, (x, y, iters), meta)
        point.update(unroll=unroll, warps=warps, per_sm=per_sm, iters=iters, values_per_thread=4)
        try:
            point["cubin_bytes"] = len(K.code_size.warmup(x, y, iters, grid=grid, **meta).asm["cubin"])
        except Exception as e:  # the size is a detail; the timing stands without it
            point["cubin_error"] = f"{type(e).__name__}: {str(e)[:120]}"
        if "s" in point:
            point["s_per_step"] = point["s"] / (iters * unroll)
        points.append(point)
    return {"points": points}


# row_ring probe: the row-striding softmax's pipelined row loop with bodies of known size (kernels.row_ring)
ROW_RING_BODIES = (0, 1, 2)  # copy, one reduction, softmax
ROW_RING_WIDTHS = (1024, 4096)
ROW_RING_WARPS = (4, 8, 16)
ROW_RING_STAGES = (1, 2, 3, 5)
ROW_RING_PER_SM = (1, 2)
ROW_RING_BYTES = 64 << 20  # float16 rows of each width read (and as many written) per launch


def row_ring() -> dict:
    """Seconds of :func:`kernels.row_ring` (float16 rows, 64 MiB read and written, from DRAM: do_bench clears
    the L2) by body (0 copy, 1 one reduction, 2 softmax), row width, warps, row stages (``tl.range``
    ``num_stages``; 1 is no pipelining) and programs an SM (1 or 2): what a row costs a program beyond its
    compute chain once its loads run ``stages - 1`` rows ahead, ``s / (rows / programs)`` a point."""
    return _row_ring_points(
        ROW_RING_BODIES, ROW_RING_WIDTHS, ROW_RING_WARPS, ROW_RING_STAGES, ROW_RING_PER_SM
    )


# row_ring_wide: the same loop over wide rows, many elements a thread (16-128 on 4 warps)
ROW_RING_WIDE_WIDTHS = (8192, 16384)
ROW_RING_WIDE_BODIES = (0, 2)
ROW_RING_WIDE_STAGES = (3, 5)


def row_ring_wide() -> dict:
    """:func:`row_ring` over 8192- and 16384-wide rows (16-128 elements a thread), copy and softmax bodies,
    3 and 5 row stages: how a row's serial time grows with the elements a thread computes on few warps."""
    return _row_ring_points(
        ROW_RING_WIDE_BODIES, ROW_RING_WIDE_WIDTHS, ROW_RING_WARPS, ROW_RING_WIDE_STAGES, ROW_RING_PER_SM
    )


def _row_ring_points(bodies, widths, warps_list, stages_list, per_sm_list) -> dict:
    points = []
    for width in widths:
        rows = ROW_RING_BYTES // (2 * width)
        x = torch.randn(rows, width, device="cuda", dtype=torch.float16)
        y = torch.empty_like(x)
        for body, warps, stages, per_sm in itertools.product(bodies, warps_list, stages_list, per_sm_list):
            grid = (n_sm() * per_sm,)
            meta = dict(BLOCK=width, ROW_STAGES=stages, BODY=body, num_warps=warps)
            point = timed_launch(K.row_ring, grid, (x, y, rows, width, width), meta)
            point.update(body=body, width=width, warps=warps, stages=stages, per_sm=per_sm, rows=rows)
            if "s" in point:
                point["s_per_row_per_program"] = point["s"] / (rows / grid[0])
            points.append(point)
        del x, y
    return {"points": points}


# reduction throughput probe: the same dependent reductions at many blocks an SM (up to 64 warps an SM), so
# the SM's rate of cross-warp reductions shows, not one block's latency
REDUCE_TP_WARPS = (1, 2, 4, 8, 16)
REDUCE_TP_ELEMS = (2, 8)  # elements a thread
REDUCE_TP_PER_SM = (1, 2, 4, 8, 16, 32)
REDUCE_TP_ITERS = 2048


def reduce_throughput() -> dict:
    """Seconds an SM spends per row reduction (``tl.max`` over a [BLOCK] vector spread over the block's warps)
    when ``per_sm`` blocks share it, by warps and elements a thread: the reductions of one block are dependent
    (``reduce_chain``), so at one block an SM the time is the latency and with enough blocks the SM's rate of
    the warps' shuffles, shared-memory exchanges and barriers."""
    points = []
    for warps in REDUCE_TP_WARPS:
        for elems in REDUCE_TP_ELEMS:
            block = elems * 32 * warps
            x = torch.rand(block, device="cuda")
            for per_sm in REDUCE_TP_PER_SM:
                if per_sm * warps > 64:
                    continue
                grid = (n_sm() * per_sm,)
                out = torch.empty(grid[0] * block, device="cuda")
                t = bench_s(
                    lambda x=x, out=out, block=block, warps=warps, grid=grid: K.reduce_chain[grid](
                        x, out, REDUCE_TP_ITERS, BLOCK=block, num_warps=warps
                    )
                )
                per = t / (REDUCE_TP_ITERS * per_sm)
                points.append({
                    "warps": warps, "elems_per_thread": elems, "block": block, "blocks_per_sm": per_sm,
                    "iters": REDUCE_TP_ITERS, "s": t, "s_per_reduction_per_sm": per,
                })  # fmt: skip
    return {"points": points}


# The reduce_mix probe: rows of widths whose element-wide loads (odd) or vector loads (their aligned twins)
# run beside 1-5 dependent cross-warp reductions a row, with no store traffic: whether the reductions'
# exchanges and the narrow loads add on the SM.
REDUCE_MIX_WIDTHS = ((700, 704, 1024), (2900, 2912, 4096), (4100, 4112, 8192))  # (odd, aligned, BLOCK)
REDUCE_MIX_WARPS = (4, 8, 16)
REDUCE_MIX_REDS = (0, 1, 2, 4)
REDUCE_MIX_ROW_ELEMENTS = 1 << 25  # rows x width: 64 MiB of fp16 a launch


def reduce_mix() -> dict:
    """Seconds of :func:`kernels.row_reduce_mix` per width (odd, and its aligned twin at the same BLOCK),
    warps and extra reductions ``reds`` (the row is reduced ``reds + 1`` times), one row a program."""
    points = []
    for odd, aligned, block in REDUCE_MIX_WIDTHS:
        rows = REDUCE_MIX_ROW_ELEMENTS // aligned
        x = torch.randn(rows * aligned, device="cuda", dtype=torch.float16)
        out = torch.empty(rows, device="cuda")
        for warps, reds, width in itertools.product(REDUCE_MIX_WARPS, REDUCE_MIX_REDS, (odd, aligned)):
            meta = dict(REDS=reds, BLOCK=block, num_warps=warps)
            t = bench_s(
                lambda x=x, out=out, rows=rows, w=width, m=meta: K.row_reduce_mix[(rows,)](x, out, w, w, **m)
            )
            points.append(
                {"width": width, "block": block, "warps": warps, "reds": reds, "rows": rows, "s": t}
            )  # fmt: skip
        del x, out
    return {"points": points}


# DRAM efficiency by contiguous chunk: fp16 rows 2 KiB apart, the first W elements of each read (32-512 B).
CHUNK_WIDTHS = (16, 32, 64, 128, 256, 1024)
CHUNK_ROW_STRIDE = 1024
CHUNK_READ_BYTES = 128 * MiB
CHUNK_TILE_ELEMENTS = 8192


# atomics probe: a 128 x 128 fp32 tile per program-group; programs per SM, programs sharing each tile
ATOMIC_BLOCK = 128 * 128
ATOMIC_REPS = 8
ATOMIC_PER_SM = (1, 2, 4)
ATOMIC_SHARING = (1, 2, 4, 8, 16)


def atomics() -> dict:
    """fp32 ``tl.atomic_add`` of whole tiles (the split-K epilogue) against plain stores of the same tiles:
    seconds and element rates by programs per SM and by how many programs add to each tile."""
    points = []
    for per_sm in ATOMIC_PER_SM:
        programs = n_sm() * per_sm
        for sharing in ATOMIC_SHARING:
            n_tiles = max(1, programs // sharing)
            c = torch.zeros(n_tiles * ATOMIC_BLOCK, device="cuda", dtype=torch.float32)
            point = {"programs_per_sm": per_sm, "sharing": sharing, "tiles": n_tiles, "reps": ATOMIC_REPS}
            for atomic in (True, False):
                launch = functools.partial(
                    K.atomic_tiles[(programs,)], c, n_tiles, BLOCK=ATOMIC_BLOCK, ATOMIC=atomic, num_warps=8
                )
                if atomic:  # one pass: tile 0 receives one add from every program p with p % n_tiles == 0
                    c.zero_()
                    launch(1)
                    want = -(-programs // n_tiles)
                    point["sum_ok"] = bool(torch.all(c[:ATOMIC_BLOCK] == want).item())
                t = bench_s(functools.partial(launch, ATOMIC_REPS))
                key = "atomic" if atomic else "store"
                point[f"{key}_s"] = t
                point[f"{key}_elements_per_s"] = programs * ATOMIC_REPS * ATOMIC_BLOCK / t
            points.append(point)
    return {"points": points}


# The hot-atomics probe: 16M adds scattered at random over 1 .. 64M bins (int32 and fp32), 1,024 a program;
# past 1M bins (4 MB) the bins outgrow the L2 (64M: 256 MB), and most adds land on a line DRAM must bring.
HOT_ELEMENTS = 1 << 24
HOT_BINS = (1, 8, 32, 128, 1024, 8192, 65536, 1 << 20, 1 << 24, 1 << 26)
HOT_BLOCK = 1024
# ... and the same adds with sem="relaxed" at these bin counts (Triton's default is acq_rel)
HOT_RELAXED_BINS = (1, 32, 1024, 1 << 20)


def atomics_hot() -> dict:
    """``tl.atomic_add`` of ones at random bins (a bincount): the element rate as the bins thin out, from one
    word every add lands on to 64M the adds spread over (more than the L2 holds); what contention for the same
    words costs at the L2 beside the ``atomics`` probe's private tiles, and what adds to lines not in the L2
    cost (an embedding backward's scattered rows). Each point is checked: the bins sum to the adds."""
    points = []
    gen = torch.Generator(device="cuda").manual_seed(79)
    grid = (-(-HOT_ELEMENTS // HOT_BLOCK),)
    runs = [(d, b, False) for d in (torch.int32, torch.float32) for b in HOT_BINS]
    runs += [(d, b, True) for d in (torch.int32, torch.float32) for b in HOT_RELAXED_BINS]
    for dtype, bins, relaxed in runs:
        idx = torch.randint(0, bins, (HOT_ELEMENTS,), device="cuda", dtype=torch.int32, generator=gen)
        out = torch.zeros(bins, device="cuda", dtype=dtype)
        launch = functools.partial(
            K.atomic_scatter[grid], idx, out, HOT_ELEMENTS, BLOCK=HOT_BLOCK, RELAXED=relaxed, num_warps=4
        )
        launch()
        ok = bool(out.sum().item() == HOT_ELEMENTS)
        t = bench_s(launch)
        points.append(
            {
                "dtype": str(dtype).removeprefix("torch."),
                "bins": bins,
                "sem": "relaxed" if relaxed else "acq_rel",
                "elements": HOT_ELEMENTS,
                "s": t,
                "elements_per_s": HOT_ELEMENTS / t,
                "sum_ok": ok,
            }
        )
        del idx, out
    return {"points": points}


def chunks() -> dict:
    """Read bandwidth from DRAM when the data comes in contiguous chunks of W x 2 bytes."""
    rows_max = CHUNK_READ_BYTES // (CHUNK_WIDTHS[0] * 2)
    buf = torch.randn(rows_max, CHUNK_ROW_STRIDE, device="cuda", dtype=torch.float16)
    points = []
    for w in CHUNK_WIDTHS:
        rows_per_prog = max(1, CHUNK_TILE_ELEMENTS // w)
        rows = min(rows_max, CHUNK_READ_BYTES // (w * 2)) // rows_per_prog * rows_per_prog
        grid = (rows // rows_per_prog,)
        out = torch.empty(grid[0], device="cuda", dtype=torch.float32)
        t = bench_s(
            lambda grid=grid, out=out, w=w, r=rows_per_prog, buf=buf: K.chunk_read[grid](
                buf, out, CHUNK_ROW_STRIDE, ROWS=r, W=w, num_warps=4
            )
        )
        points.append({"chunk_bytes": w * 2, "bytes_per_s": rows * w * 2 / t, "s": t})
    del buf
    return {"points": points}


_TORCH_DTYPES = {
    "float16": (torch.float16, torch.float32, "tf32", 1),
    "bfloat16": (torch.bfloat16, torch.float32, "tf32", 1),
    "float8_e4m3fn": (torch.float8_e4m3fn, torch.float32, "tf32", 2),
    "tfloat32": (torch.float32, torch.float32, "tf32", 0.5),
    "int8": (torch.int8, torch.int32, "tf32", 2),
}
WGMMA_DTYPES = tuple(_TORCH_DTYPES)
LEGACY_DTYPES = ("float16", "bfloat16", "tfloat32", "int8")


def _operands(dtype: str, m: int, n: int, k: int):
    tdt, acc, _, _ = _TORCH_DTYPES[dtype]
    if tdt == torch.int8:
        a = torch.randint(-8, 8, (m, k), device="cuda", dtype=torch.int8)
        bt = torch.randint(-8, 8, (n, k), device="cuda", dtype=torch.int8)
    else:
        a = torch.randn(m, k, device="cuda").to(tdt)
        bt = torch.randn(n, k, device="cuda").to(tdt)
    return a, bt, torch.empty(m, n, device="cuda", dtype=acc)


def mma_family(ptx: str) -> str:
    if "wgmma" in ptx:
        return "wgmma"
    if "tcgen05.mma" in ptx:
        return "tcgen05"
    if re.search(r"\bmma\.sync", ptx):
        return "mma.sync"
    return "none"


def triton_gemm(dtype: str, cfg: tuple, size: int = GEMM_SIZE) -> dict:
    bm, bn, bk16, nw, ns = cfg
    _, _, precision, scale = _TORCH_DTYPES[dtype]
    bk = int(bk16 * scale)
    a, bt, c = _operands(dtype, size, size, size)
    grid = ((size // bm) * (size // bn),)

    def launch():
        return K.gemm[grid](a, bt, c, size, size, size, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP=K.GROUP_M,
                            PRECISION=precision, num_warps=nw, num_stages=ns)  # fmt: skip

    compiled = launch()
    torch.cuda.synchronize()
    ref = a[:64].float() @ bt[:64].float().T
    got = c[:64, :64].float()
    rel = ((got - ref).abs().max() / ref.abs().max().clamp_min(1e-6)).item()
    t = bench_s(launch)
    ptx = compiled.asm["ptx"]
    return {
        "flops_per_s": 2 * size**3 / t,
        "s": t,
        "config": {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "num_warps": nw, "num_stages": ns},
        "family": mma_family(ptx),
        "max_rel_err_64x64": rel,
        "n_regs": getattr(compiled, "n_regs", None),
        "n_spills": getattr(compiled, "n_spills", None),
        "shared_bytes": compiled.metadata.shared,
        "note": f"Triton GEMM {size}^3, {dtype}, {bm}x{bn}x{bk}, {nw} warps, {ns} stages",
    }


def torch_gemm(dtype: str, size: int = GEMM_SIZE) -> dict:
    a, bt, _ = _operands(dtype, size, size, size)
    b = bt.T  # column-major (K, N), what _scaled_mm / _int_mm want
    if dtype == "float8_e4m3fn":
        one = torch.ones((), device="cuda", dtype=torch.float32)
        fn = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)  # noqa: E731
    elif dtype == "int8":
        fn = lambda: torch._int_mm(a, b)  # noqa: E731
    else:
        torch.backends.cuda.matmul.allow_tf32 = dtype == "tfloat32"
        fn = lambda: torch.matmul(a, b)  # noqa: E731
    fn()
    t = bench_s(fn)
    return {"flops_per_s": 2 * size**3 / t, "s": t, "note": f"torch {size}^3 {dtype}"}


def cuda_core() -> dict:
    grid = (n_sm() * COMPUTE_PROGRAMS_PER_SM,)
    x = torch.rand(grid[0] * FMA_BLOCK, device="cuda") * 0.5 + 0.5
    out = torch.empty_like(x)
    fn = lambda: K.fma_chain[grid](x, out, FMA_ITERS, BLOCK=FMA_BLOCK, CHAINS=FMA_CHAINS, num_warps=4)  # noqa: E731
    compiled = fn()
    t = bench_s(fn)
    flops = 2 * FMA_CHAINS * FMA_ITERS * x.numel()
    n_fma = len(re.findall(r"\bfma\.rn\.f32", compiled.asm["ptx"]))
    return {"flops_per_s": flops / t, "s": t, "fma_in_ptx": n_fma, "finite": bool(torch.isfinite(out).all())}


# alu_forms: 8 programs of 4 warps an SM (fma_chain's shape), 8 elements a thread, 4 steps an iteration; the
# log routine's steps are ~25 instructions, so it runs fewer iterations for a similar time
ALU_BLOCK, ALU_UNROLL, ALU_ITERS, ALU_LOG_ITERS = 1024, 4, 4096, 512


def _cubin_sass(cubin: bytes) -> str:
    """``cubin``'s SASS as Triton's own cuobjdump prints it (``-sass``)."""
    import subprocess
    import tempfile
    from pathlib import Path

    cuobjdump = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    with tempfile.NamedTemporaryFile(suffix=".cubin") as fh:
        fh.write(cubin)
        fh.flush()
        sass = subprocess.run([str(cuobjdump), "-sass", fh.name], capture_output=True, text=True, check=True)
    return sass.stdout


def _loop_sass(cubin: bytes) -> dict[str, int]:
    """Opcode counts of the largest loop of ``cubin``'s SASS (Triton's own cuobjdump)."""
    from benchmarks.ncu_diag.kmajor_sass import loop_ops

    return dict(loop_ops(_cubin_sass(cubin)))


def alu_forms() -> dict:
    """Seconds of :func:`kernels.alu_forms` in each instruction form, with the SASS its loop issues: each
    point's ``warp_instructions`` is the loop's instruction count times its iterations times the grid's warps,
    so ``warp_instructions / s / SMs`` is what an SM issued a second (4 schedulers, one a clock at most)."""
    warps = 4
    grid = (n_sm() * COMPUTE_PROGRAMS_PER_SM,)
    x = torch.rand(grid[0] * ALU_BLOCK, device="cuda") * 0.5 + 0.5
    out = torch.empty_like(x)
    points = []
    for form, name in enumerate(K.ALU_FORMS):
        iters = ALU_LOG_ITERS if name == "log_routine" else ALU_ITERS
        fn = functools.partial(
            K.alu_forms[grid], x, out, iters, BLOCK=ALU_BLOCK, UNROLL=ALU_UNROLL, FORM=form, num_warps=warps
        )
        compiled = fn()
        t = bench_s(fn)
        ops = _loop_sass(compiled.asm["cubin"])
        loop = sum(ops.values())
        points.append(
            {
                "form": name,
                "s": t,
                "iters": iters,
                "steps": 4 * ALU_UNROLL * iters * x.numel(),  # chain steps, all elements
                "loop_instructions": loop,
                "warp_instructions": loop * iters * grid[0] * warps,
                "loop_ops": ops,
                "finite": bool(torch.isfinite(out).all()),
            }
        )
    return {"points": points, "warps": warps, "programs_per_sm": COMPUTE_PROGRAMS_PER_SM, "sms": n_sm()}


# stream_fma: 64M bf16 elements (128 MB read and 128 MB written: DRAM-bound with no steps), the steps swept
# across the point where the CUDA cores' time meets the DRAM's (about 24 three-register or 35 constant FMAs an
# element at the profile's rates), at the sweeps' two commonest element-wise launch shapes
STREAM_FMA_ELEMENTS = 1 << 26
STREAM_FMA_STEPS = (0, 8, 16, 20, 24, 28, 32, 36, 40, 48, 56, 64, 80, 96, 128)
STREAM_FMA_SHAPES = ((1024, 4), (4096, 8))


def _sass_ops(cubin: bytes) -> dict[str, int]:
    """Opcode counts of every instruction of ``cubin``'s SASS (Triton's own cuobjdump), predicates dropped."""
    from collections import Counter

    ops = Counter()
    for m in re.finditer(r"/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", _cubin_sass(cubin)):
        ops[m.group(2).split(".")[0]] += 1
    return dict(ops)


def stream_fma() -> dict:
    """Seconds of :func:`kernels.stream_fma` over its steps, both operand forms and two launch shapes, with
    each build's SASS opcode counts (straight-line: the instructions a thread issues for its elements)."""
    x = (torch.rand(STREAM_FMA_ELEMENTS, device="cuda") * 0.5 + 0.5).to(torch.bfloat16)
    y = torch.empty_like(x)
    points = []
    forms = itertools.product(STREAM_FMA_SHAPES, (True, False), STREAM_FMA_STEPS)
    for (block, warps), constants, steps in forms:
        grid = (STREAM_FMA_ELEMENTS // block,)
        fn = functools.partial(
            K.stream_fma[grid], x, y, STEPS=steps, BLOCK=block, CONSTANTS=constants, num_warps=warps
        )
        compiled = fn()
        t = bench_s(fn)
        points.append(
            {
                "block": block, "warps": warps, "constants": constants, "steps": steps, "s": t,
                "elements": STREAM_FMA_ELEMENTS, "bytes": 4 * STREAM_FMA_ELEMENTS,
                "sass_ops": _sass_ops(compiled.asm["cubin"]), "finite": bool(torch.isfinite(y.float()).all()),
            }
        )  # fmt: skip
    return {"points": points, "sms": n_sm()}


def sfu() -> dict:
    grid = (n_sm() * COMPUTE_PROGRAMS_PER_SM,)
    x = torch.rand(grid[0] * SFU_BLOCK, device="cuda") * 0.5 + 0.5
    out = torch.empty_like(x)
    result = {}
    for op, name in ((0, "exp2"), (1, "rsqrt")):
        fn = lambda op=op: K.sfu_chain[grid](x, out, SFU_ITERS, BLOCK=SFU_BLOCK, UNROLL=SFU_UNROLL, OP=op,  # noqa: E731
                                             num_warps=4)  # fmt: skip
        compiled = fn()
        t = bench_s(fn)
        result[f"{name}_ops_per_s"] = 4 * SFU_UNROLL * SFU_ITERS * x.numel() / t
        result[f"{name}_s"] = t
        result[f"{name}_ptx_ops"] = len(re.findall(r"ex2\.approx|rsqrt\.approx", compiled.asm["ptx"]))
    return result


# sfu_mix probe: exp2 beside FMAs in one loop (kernels.sfu_fma_mix), FMAs per exp2 0 to 12, at the sfu probe's
# programs and block; whether a special-function op's issue slot counts against the CUDA cores' issue
# (``python benchmarks/probe_report.py sfu_mix``).
SFU_MIX_FMAS = (0, 4, 8, 12, 16, 20, 24, 28, 32, 48)
# (warps a program, programs an SM): the sfu probe's 8 programs of 4 warps (8 warps a scheduler), then 2 and 1
# warps a scheduler, and one 8-warp program
SFU_MIX_SHAPES = ((4, 8), (4, 2), (4, 1), (8, 1))


def sfu_mix() -> dict:
    """Seconds of exp2 chains beside FMA chains by FMAs per exp2, at each of :data:`SFU_MIX_SHAPES`."""
    points = []
    for warps, per_sm in SFU_MIX_SHAPES:
        block = 32 * warps * (SFU_BLOCK // 128)  # the sfu probe's elements a thread
        grid = (n_sm() * per_sm,)
        x = torch.rand(grid[0] * block, device="cuda") * 0.5 + 0.5
        out = torch.empty_like(x)
        for fmas in SFU_MIX_FMAS:
            fn = functools.partial(
                K.sfu_fma_mix[grid], x, out, SFU_ITERS, BLOCK=block, UNROLL=SFU_UNROLL, FMAS=fmas,
                num_warps=warps,
            )  # fmt: skip
            compiled = fn()
            t = bench_s(fn)
            points.append(
                {
                    "warps": warps,
                    "programs_per_sm": per_sm,
                    "fmas_per_exp2": fmas / 4,
                    "s": t,
                    "exp2_ops": 4 * SFU_UNROLL * SFU_ITERS * x.numel(),
                    "fma_ops": fmas * SFU_UNROLL * SFU_ITERS * x.numel(),
                    "ptx_ex2": len(re.findall(r"ex2\.approx", compiled.asm["ptx"])),
                    "ptx_fma": len(re.findall(r"fma\.rn\.f32", compiled.asm["ptx"])),
                }
            )
    return {"points": points, "elements_per_thread": SFU_BLOCK // 128}


def smem() -> dict:
    sms = n_sm()
    grid = (sms * COMPUTE_PROGRAMS_PER_SM,)
    x = torch.rand(grid[0] * SMEM_T * SMEM_T, device="cuda")
    out = torch.empty_like(x)
    fn = lambda: K.smem_transpose[grid](x, out, SMEM_ITERS, T=SMEM_T, num_warps=SMEM_WARPS)  # noqa: E731
    compiled = fn()
    ptx = compiled.asm["ptx"]
    st, ld = len(re.findall(r"st\.shared", ptx)), len(re.findall(r"ld\.shared", ptx))
    if not (st and ld):
        raise RuntimeError(f"smem_transpose compiled without shared-memory traffic (st={st}, ld={ld})")
    t = bench_s(fn)
    moved = 2 * SMEM_T * SMEM_T * 4 * SMEM_ITERS * grid[0]  # written + read per iteration
    return {
        "bytes_per_s_per_sm": moved / t / sms,
        "s": t,
        "st_shared_in_ptx": st,
        "ld_shared_in_ptx": ld,
        "note": "lower bound: Triton's layout conversion, scalar 4-byte accesses",
    }


def launch() -> dict:
    K.empty[(1,)](num_warps=1)
    return {"empty_kernel_s": bench_s(lambda: K.empty[(1,)](num_warps=1))}


def _chain(n_bytes: int) -> tuple[torch.Tensor, int]:
    step = CHASE_STRIDE_BYTES // 8
    lines = n_bytes // CHASE_STRIDE_BYTES
    idx = torch.randperm(lines, device="cuda", dtype=torch.int64) * step
    nxt = torch.zeros(n_bytes // 8, device="cuda", dtype=torch.int64)
    nxt[idx] = torch.roll(idx, -1)
    return nxt, int(idx[0].item())


def _chase_s(n_bytes: int, reps: int = 3) -> float:
    nxt, start = _chain(n_bytes)
    out = torch.full((1,), start, device="cuda", dtype=torch.int64)  # start index in, end index out
    K.pointer_chase[(1,)](nxt, out, CHASE_STEPS, num_warps=1)  # compile + warm the chain
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        t0, t1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        t0.record()
        K.pointer_chase[(1,)](nxt, out, CHASE_STEPS, num_warps=1)
        t1.record()
        torch.cuda.synchronize()
        times.append(t0.elapsed_time(t1) * 1e-3)
    return statistics.median(times) / CHASE_STEPS


def latency() -> dict:
    return {
        "ddr_s": _chase_s(CHASE_DDR_BYTES),
        "ddr_buffer_bytes": CHASE_DDR_BYTES,
        "l2_s": _chase_s(CHASE_L2_BYTES),
        "l2_buffer_bytes": CHASE_L2_BYTES,
        "steps": CHASE_STEPS,
        "stride_bytes": CHASE_STRIDE_BYTES,
    }


# Block placement: (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages) of fp16 GEMMs with 1, 2 and 4+ resident
# blocks per SM, each at grids of these tile counts (M = N multiples of the tile; K = PLACEMENT_K).
PLACEMENT_CONFIGS = ((128, 256, 64, 8, 3), (128, 128, 64, 4, 3), (64, 64, 32, 4, 4))
PLACEMENT_TILES = (32, 64, 66, 128, 132, 264, 512, 1024)
PLACEMENT_K = 1024


def _tile_grid(tiles: int, bm: int, bn: int) -> tuple[int, int]:
    """M, N with ``tiles`` tiles: the most square factorisation."""
    best = min((abs(a - tiles // a), a) for a in range(1, tiles + 1) if tiles % a == 0)[1]
    return best * bm, (tiles // best) * bn


def sm_dispatch() -> dict:
    """Where the block scheduler puts each program of a GEMM grid: its SM and its start/end on the global
    timer, for resident counts 1, 2 and 4+ and grids from a quarter wave to several waves."""
    runs = []
    for bm, bn, bk, nw, ns in PLACEMENT_CONFIGS:
        for tiles in PLACEMENT_TILES:
            m, n = _tile_grid(tiles, bm, bn)
            a = torch.randn(m, PLACEMENT_K, device="cuda", dtype=torch.float16)
            bt = torch.randn(n, PLACEMENT_K, device="cuda", dtype=torch.float16)
            c = torch.empty(m, n, device="cuda", dtype=torch.float32)
            place = torch.full((tiles, 3), -1, device="cuda", dtype=torch.int64)
            for rep in range(3):  # the first launch compiles; the placement of the last two is kept
                k = K.placed_gemm[(tiles,)](a, bt, c, place, m, n, PLACEMENT_K, BLOCK_M=bm, BLOCK_N=bn,
                                            BLOCK_K=bk, num_warps=nw, num_stages=ns)  # fmt: skip
                torch.cuda.synchronize()
                if rep == 0:
                    continue
                p = place.cpu()
                t0 = int(p[:, 1].min())
                runs.append({
                    "config": [bm, bn, bk, nw, ns], "tiles": tiles, "rep": rep,
                    "n_regs": getattr(k, "n_regs", None), "shared_bytes": k.metadata.shared,
                    "sm": p[:, 0].tolist(),
                    "start_ns": (p[:, 1] - t0).tolist(), "end_ns": (p[:, 2] - t0).tolist(),
                })  # fmt: skip
    return {"runs": runs, "k": PLACEMENT_K}


PARTITION_LINES = 512  # lines chased per SM
PARTITION_BUFFER = 64 * MiB  # the chain's lines are spread over this much memory
PARTITION_FLUSH = 512 * MiB  # written before every warm-up: evicts the chain from L2


def l2_partition() -> dict:
    """L2 hit latency of every SM to the same lines: which SMs share an L2 partition.

    Per target SM: flush L2, warm the chain from one program (on whatever SM it lands, recorded), then chase
    it from a program on the target SM, timing each hop. A line cached only in the other partition costs a
    fabric crossing, so SMs of one partition see the same per-line latency pattern. Done twice per SM.
    """
    sms = n_sm()
    g = torch.Generator().manual_seed(7)
    lines = torch.randperm(PARTITION_BUFFER // CHASE_STRIDE_BYTES, generator=g)[:PARTITION_LINES]
    buf = torch.zeros(PARTITION_BUFFER // 8, device="cuda", dtype=torch.int64)
    base = buf.data_ptr()
    offs = lines * CHASE_STRIDE_BYTES
    nxt = torch.roll(offs, -1)
    buf[(offs // 8).to("cuda")] = (nxt + base).to("cuda")
    start = base + int(offs[0])
    flush = torch.empty(PARTITION_FLUSH // 4, device="cuda", dtype=torch.float32)
    flag = torch.zeros(1, device="cuda", dtype=torch.int32)
    lat = torch.zeros(PARTITION_LINES, device="cuda", dtype=torch.int64)
    who = torch.full((1,), -1, device="cuda", dtype=torch.int32)

    def chase(target: int, grid: int) -> tuple[int, list[int]]:
        flag.zero_()
        who.fill_(-1)
        K.timed_chase[(grid,)](start, PARTITION_LINES, target, flag, lat, who, num_warps=1)
        torch.cuda.synchronize()
        return int(who.item()), lat.cpu().tolist()

    chase(-1, 1)  # compile
    rows = []
    for rep in range(2):
        for target in range(sms):
            flush.fill_(rep + target)
            warm_sm, cold = chase(-1, 1)  # from DRAM: the warming program's own latencies
            sm, lats = chase(target, 4 * sms)
            row = {"target": target, "rep": rep, "sm": sm, "warm_sm": warm_sm}
            rows.append({**row, "cycles": lats, "warm_cycles": cold})
    return {"rows": rows, "lines": PARTITION_LINES, "line_offsets": offs.tolist(), "sm_count": sms}


# Register-spill (local memory) traffic: per-thread frames of these sizes, at these warps per block, one and
# two blocks per SM, 2 or 8 independent loads per step; each pass loads and stores every word of the frame
# (LOCAL_TARGET_BYTES moved per point).
LOCAL_FRAME_BYTES = (256, 1024, 2048, 4096, 8192)
LOCAL_UNROLLS = (2, 8)
LOCAL_WARPS = (2, 4, 8)
LOCAL_BLOCKS_PER_SM = (1, 2)
LOCAL_TARGET_BYTES = 2 * GiB


def _local_point(
    sms: int, frame: int, unroll: int, warps: int, per_sm: int, pad: int = 0, dependent: bool = False
) -> dict:
    """One point of the local-memory probes: :func:`kernels.local_stream` over ``frame``-byte frames with
    ``unroll`` loads a step (a run the next step waits for where ``dependent``), ``per_sm`` blocks of
    ``warps`` warps an SM, each reserving ``pad`` bytes of shared memory, moving about
    ``LOCAL_TARGET_BYTES``; its result checked."""
    asm = K.local_frame_asm(frame, unroll, shared_pad_bytes=pad, dependent=dependent)
    block = 32 * warps
    grid = (sms * per_sm,)
    per_pass = 2 * frame * block * grid[0]
    iters = max(4, LOCAL_TARGET_BYTES // per_pass)
    out = torch.empty(grid[0] * block, device="cuda", dtype=torch.int32)

    def fn():
        return K.local_stream[grid](out, iters, BLOCK=block, ASM=asm, num_warps=warps)

    k = fn()
    torch.cuda.synchronize()
    expect = torch.arange(out.numel(), device="cuda", dtype=torch.int32) + iters
    if not torch.equal(out, expect):
        raise RuntimeError(f"local_stream frame={frame} warps={warps} pad={pad}: wrong result")
    t = bench_s(fn)
    return {
        "frame_bytes": frame, "unroll": unroll, "warps": warps, "blocks_per_sm": per_sm,
        "shared_pad_bytes": pad, "dependent": dependent, "iters": iters, "s": t,
        "s_per_step": t / (iters * frame // (4 * unroll)),
        "bytes": per_pass * iters, "bytes_per_s": per_pass * iters / t,
        "footprint_per_sm_bytes": frame * block * per_sm,
        "footprint_bytes": frame * block * grid[0],
        "n_regs": getattr(k, "n_regs", None), "n_spills": getattr(k, "n_spills", None),
    }  # fmt: skip


def local_memory() -> dict:
    """Throughput of spill-like local-memory traffic (scalar ``ld.local``/``st.local`` of every word of a
    per-thread frame, :func:`kernels.local_stream`) by frame size, warps per block and blocks per SM: whether
    the frames of the resident blocks fit in L1 (per SM) or in L2 (all SMs) decides where it is served."""
    sms = n_sm()
    points = [
        _local_point(sms, frame, unroll, warps, per_sm)
        for frame, unroll, warps, per_sm in itertools.product(
            LOCAL_FRAME_BYTES, LOCAL_UNROLLS, LOCAL_WARPS, LOCAL_BLOCKS_PER_SM
        )
    ]
    return {"points": points, "sm_count": sms}


# Register-spill traffic whose frames L1 cannot hold beside the block's shared memory (as a GEMM's operand
# buffers take most of the unified array): blocks of these warps each reserve LOCAL_L2_SHARED_PAD_BYTES of
# shared memory, LOCAL_L2_BLOCKS_PER_SM of them to an SM (the array's L1 left at most 256 KB less their
# shared memory), frames of these sizes, 8 independent loads per step; every point also runs without the
# reserve (the frames then in L1 where they fit).
LOCAL_L2_FRAME_BYTES = (256, 512, 1024, 2048)
LOCAL_L2_WARPS = (1, 2, 4)
LOCAL_L2_BLOCKS_PER_SM = (2, 4)
LOCAL_L2_SHARED_PAD_BYTES = 48 * 1024


def local_l2() -> dict:
    """Throughput of spill-like local-memory traffic (:func:`kernels.local_stream`, 8 loads per step) with and
    without each block reserving ``LOCAL_L2_SHARED_PAD_BYTES`` of shared memory: with the reserve at 4 blocks
    an SM, L1 keeps at most about 60 KB, so frames of 128-512 KB an SM (17-69 MB over the chip) are served by
    L2, at 4-16 warps an SM, where the ``local_memory`` probe's frames either fit L1 or spill past the L2."""
    sms = n_sm()
    points = [
        _local_point(sms, frame, 8, warps, per_sm, pad)
        for frame, warps, per_sm, pad in itertools.product(
            LOCAL_L2_FRAME_BYTES, LOCAL_L2_WARPS, LOCAL_L2_BLOCKS_PER_SM, (LOCAL_L2_SHARED_PAD_BYTES, 0)
        )
    ]
    return {"points": points, "sm_count": sms}


# Spill reloads come in runs that an instruction waits for (the SASS of the spilling GEMMs: runs of 2-74 LDL
# before a use): runs of these lengths, each step waiting for the previous one's loads, with the frames in L1
# (LOCAL_RUNS_L1_FRAME_BYTES, no shared memory reserved, one block an SM) and in L2 (the local_l2 reserve at
# 4 blocks an SM, frames of LOCAL_RUNS_L2_FOOTPRINT_PER_SM an SM), at these warps per block.
LOCAL_RUNS = (1, 2, 4, 8, 16, 32)
LOCAL_RUNS_WARPS = (1, 4)
LOCAL_RUNS_L1_FRAME_BYTES = 512
LOCAL_RUNS_L2_FOOTPRINT_PER_SM = 256 * 1024  # 34 MB over the chip: inside L2, four times what L1 keeps


def local_runs() -> dict:
    """Time per run of dependent spill-like reloads (:func:`kernels.local_frame_asm` with ``dependent``):
    ``s_per_step`` is one run's latency plus its issue, from L1 and from L2, for the runs the spilling GEMMs'
    K loops issue (docs/known-gaps.md, what a spilled byte costs)."""
    sms = n_sm()
    points = []
    for run, warps in itertools.product(LOCAL_RUNS, LOCAL_RUNS_WARPS):
        points.append(_local_point(sms, LOCAL_RUNS_L1_FRAME_BYTES, run, warps, 1, dependent=True))
        frame = LOCAL_RUNS_L2_FOOTPRINT_PER_SM // (32 * warps * 4)
        points.append(_local_point(sms, frame, run, warps, 4, LOCAL_L2_SHARED_PAD_BYTES, dependent=True))
    return {"points": points, "sm_count": sms}

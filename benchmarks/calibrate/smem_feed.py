#!/usr/bin/env python3
"""Probe (GPU): what a step costs when the warps write a tensor-core operand into shared memory themselves.

    PYTHONPATH=/tmp/tilelang_site python3 benchmarks/calibrate/smem_feed.py \\
        --out $OUT/calibration_smem_feed.json

A dequantising GEMM's step unpacks packed weights into a shared buffer (a ``T.Parallel`` loop, generic-proxy
stores) and then runs ``T.gemm`` (``wgmma``, which reads shared memory through the async proxy) on it, so the
lowered step also fences the proxies and synchronises the consumer warps in between. Per step, one program per
SM, ``ITERS`` steps on operands loaded into shared memory once (no memory traffic in the loop):

* ``gemm``: ``T.gemm`` alone on the unpacked buffer (filled once before the loop);
* ``unpack``: the unpacking loop alone (what ``smem_transform`` measures: its serial chain);
* ``unpack_gemm``: both, in series, in one serial loop (what a step of the kernel runs);
* ``pipelined``: the reference kernel's own loop (``T.Pipelined``, warp-specialised, TMA copies) over packed
  panels ``PANEL_STEPS`` steps long, re-read cyclically (L2-resident).

* ``unpack_regs`` / ``unpack_regs_gemm``: the register-path unpacking (``unpack="registers"``) alone and
  followed by the ``T.gemm`` in one serial step.

``unpack_gemm - unpack - gemm`` is what putting the two in one step adds (fence, barrier, the dot's start);
``pipelined - unpack_gemm`` what the pipeline's handshakes add. Printed by ``python benchmarks/probe_report.py
feed``. Needs TileLang (the carried wheels: ``benchmarks/device/install_wheels.sh``).
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

ITERS = 512
PANEL_STEPS = 4
TARGET = {"kind": "cuda", "arch": "sm_90a"}
# (block_M, block_N, block_K, threads): the dequantising GEMM's consumer tiles in both sweeps
TILES = (
    (128, 128, 32, 128),
    (128, 128, 64, 128),
    (64, 128, 64, 128),
    (128, 128, 64, 256),
    (128, 256, 64, 256),
    (256, 128, 64, 256),
)
VARIANTS = ("gemm", "unpack", "unpack_gemm", "pipelined", "unpack_regs", "unpack_regs_gemm")
NIBBLE_OFFSET = 8


def _unpacker(T, bn: int, bk: int):
    """The reference dequantiser's unpacking (kernels/tilelang/dequant_gemm.py, int4), as a ``T.macro``."""

    @T.macro
    def unpack(b_packed, b_shared):
        for i, j in T.Parallel(bn, bk):
            b_shared[i, j] = T.Cast("float16", ((b_packed[i, j // 2] >> ((j % 2) * 4)) & 15) - NIBBLE_OFFSET)

    return unpack


def _register_unpacker(T, bn: int, bk: int):
    """The register-path unpacking (``dequant_gemm(..., unpack="registers")``): packed tile to fragments,
    decoded there, copied to the shared buffer, as a ``T.macro``."""

    @T.macro
    def unpack(b_packed, b_packed_local, b_local, b_shared):
        T.copy(b_packed, b_packed_local)
        for i, j in T.Parallel(bn, bk):
            b_local[i, j] = T.Cast(
                "float16", ((b_packed_local[i, j // 2] >> ((j % 2) * 4)) & 15) - NIBBLE_OFFSET
            )
        T.copy(b_local, b_shared)

    return unpack


def build(variant: str, programs: int, bm: int, bn: int, bk: int, threads: int, iters: int):
    """The ``T.prim_func`` of one variant: inputs A [bm, PANEL_STEPS bk] fp16, B [bn, PANEL_STEPS bk / 2]
    int8, output C [programs bm, bn] fp32."""
    import tilelang.language as T

    unpack = _unpacker(T, bn, bk)
    if variant == "pipelined":

        @T.prim_func
        def pipelined(
            A: T.Tensor((bm, PANEL_STEPS * bk), "float16"),
            B: T.Tensor((bn, PANEL_STEPS * bk // 2), "int8"),
            C: T.Tensor((programs * bm, bn), "float32"),
        ):
            with T.Kernel(programs, threads=threads) as bx:
                a_s = T.alloc_shared((bm, bk), "float16")
                bp_s = T.alloc_shared((bn, bk // 2), "int8")
                b_s = T.alloc_shared((bn, bk), "float16")
                c_l = T.alloc_fragment((bm, bn), "float32")
                T.clear(c_l)
                for k in T.Pipelined(iters, num_stages=2):
                    T.copy(A[0, (k % PANEL_STEPS) * bk], a_s)
                    T.copy(B[0, (k % PANEL_STEPS) * (bk // 2)], bp_s)
                    unpack(bp_s, b_s)
                    T.gemm(a_s, b_s, c_l, transpose_B=True)
                T.copy(c_l, C[bx * bm, 0])

        return pipelined

    if variant in ("unpack_regs", "unpack_regs_gemm"):
        return _build_registers(variant == "unpack_regs_gemm", programs, bm, bn, bk, threads, iters)
    with_unpack = variant in ("unpack", "unpack_gemm")
    with_gemm = variant in ("gemm", "unpack_gemm")

    @T.prim_func
    def serial(
        A: T.Tensor((bm, PANEL_STEPS * bk), "float16"),
        B: T.Tensor((bn, PANEL_STEPS * bk // 2), "int8"),
        C: T.Tensor((programs * bm, bn), "float32"),
    ):
        with T.Kernel(programs, threads=threads) as bx:
            a_s = T.alloc_shared((bm, bk), "float16")
            bp_s = T.alloc_shared((bn, bk // 2), "int8")
            b_s = T.alloc_shared((bn, bk), "float16")
            c_l = T.alloc_fragment((bm, bn), "float32")
            T.copy(A[0, 0], a_s)
            T.copy(B[0, 0], bp_s)
            T.clear(c_l)
            unpack(bp_s, b_s)
            for _it in T.serial(iters):
                if with_unpack:
                    unpack(bp_s, b_s)
                if with_gemm:
                    T.gemm(a_s, b_s, c_l, transpose_B=True)
            T.copy(c_l, C[bx * bm, 0])

    return serial


def _build_registers(with_gemm: bool, programs: int, bm: int, bn: int, bk: int, threads: int, iters: int):
    """The serial loop with the register-path unpacking, with or without the ``T.gemm`` after it."""
    import tilelang.language as T

    unpack = _register_unpacker(T, bn, bk)

    @T.prim_func
    def serial_regs(
        A: T.Tensor((bm, PANEL_STEPS * bk), "float16"),
        B: T.Tensor((bn, PANEL_STEPS * bk // 2), "int8"),
        C: T.Tensor((programs * bm, bn), "float32"),
    ):
        with T.Kernel(programs, threads=threads) as bx:
            a_s = T.alloc_shared((bm, bk), "float16")
            bp_s = T.alloc_shared((bn, bk // 2), "int8")
            bp_l = T.alloc_fragment((bn, bk // 2), "int8")
            bd_l = T.alloc_fragment((bn, bk), "float16")
            b_s = T.alloc_shared((bn, bk), "float16")
            c_l = T.alloc_fragment((bm, bn), "float32")
            T.copy(A[0, 0], a_s)
            T.copy(B[0, 0], bp_s)
            T.clear(c_l)
            for _it in T.serial(iters):
                unpack(bp_s, bp_l, bd_l, b_s)
                if with_gemm:
                    T.gemm(a_s, b_s, c_l, transpose_B=True)
            T.copy(c_l, C[bx * bm, 0])

    return serial_regs


def points(variants: tuple[str, ...] = VARIANTS) -> list[dict]:
    import tilelang
    import torch

    from benchmarks.calibrate.measure import bench_s, n_sm

    out = []
    programs = n_sm()
    for bm, bn, bk, threads in TILES:
        a = torch.randn(bm, PANEL_STEPS * bk, device="cuda", dtype=torch.float16)
        b = torch.randint(-128, 127, (bn, PANEL_STEPS * bk // 2), device="cuda", dtype=torch.int8)
        c = torch.empty(programs * bm, bn, device="cuda", dtype=torch.float32)
        for variant in variants:
            point = {"variant": variant, "BM": bm, "BN": bn, "BK": bk, "threads": threads, "iters": ITERS}
            try:
                kernel = tilelang.compile(build(variant, programs, bm, bn, bk, threads, ITERS), target=TARGET)
                source = kernel.get_kernel_source()
                point["warp_specialised"] = "warpgroup_reg_alloc" in source
                point["fences"] = source.count("fence_proxy_async")
                s = bench_s(functools.partial(kernel, a, b, c))
                point["s"] = s
                point["s_per_step"] = s / ITERS
            except Exception as exc:  # recorded per point, never swallowed
                point["error"] = f"{type(exc).__name__}: {exc}"[:1500]
            out.append(point)
            print(json.dumps(point), flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    from benchmarks.calibrate import tilelang_probe

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated variants to measure")
    args = ap.parse_args(argv)
    if not tilelang_probe.gpu_ready():
        return 2
    t0 = time.time()
    pts = points(tuple(filter(None, args.variants.split(","))))
    tilelang_probe.write(args.out, {"smem_feed": {"points": pts, "elapsed_s": round(time.time() - t0, 2)}})
    return 0


if __name__ == "__main__":
    sys.exit(main())

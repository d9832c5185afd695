"""GEMMs whose B tile the threads store into shared memory themselves (``ttg.local_alloc`` of a register
tile), measured after their predictions were recorded: an out-of-sample check of the shared-memory
wavefront rule (``tilesight.frontends.triton.banks``) read from the survey's int8 GEMM and w4a16 kernel.

* 8-bit operands with a row-major B (int8, fp8): ``wgmma`` reads them K-major only and ``cp.async`` cannot
  move single bytes, so B is loaded into registers and stored transposed, byte by byte.
* int8 with a K-major B: the control, copied asynchronously (no staging).
* Weight-only quantised GEMMs (w4a16 with nibble unpacking, w8a16 with a per-column scale): the dequantised
  fp16 B tile is computed in registers and stored into shared memory for the dot.

Names end in ``_s``; families by prefix as in the survey (``gemm_``, ``w4a16``).
"""

import triton
import triton.language as tl
from harness import Case, T
from k_variants import w4a16_gemm


@triton.jit
def gemm_8bit(
    a_ptr, b_ptr, c_ptr, M, N, K, sbk, sbn, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
    INT: tl.constexpr,
):  # fmt: skip
    # A (M, K) row-major; B (K, N) with strides (sbk, sbn): (N, 1) row-major or (1, K) K-major
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    if INT:
        acc = tl.zeros((BM, BN), dtype=tl.int32)
    else:
        acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * sbk + rn[None, :] * sbn)
        if INT:
            acc = tl.dot(a, b, acc, out_dtype=tl.int32)
        else:
            acc = tl.dot(a, b, acc)
    if INT:
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
    else:
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


@triton.jit
def w8a16_gemm(a_ptr, w_ptr, scale_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # weight-only int8: W (K, N) int8 row-major, one fp16 scale per output column
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        w = tl.load(w_ptr + (k + rk)[:, None] * N + rn[None, :]).to(tl.float16)
        acc = tl.dot(a, w, acc)
    s = tl.load(scale_ptr + rn).to(tl.float32)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], (acc * s[None, :]).to(tl.float16))


def _cd(a, b):
    return (a + b - 1) // b


def _gemm_8bit(name, dtype, M, N, K, bm, bn, bk, warps, stages, k_major=False):
    integer = dtype == "int8"
    out = "int32" if integer else "float16"
    b = T((N, K), dtype, (1, K)) if k_major else T((K, N), dtype)
    sb = (1, K) if k_major else (N, 1)
    layout = "K-major B (control: async copy)" if k_major else "row-major B (staged through registers)"
    return Case(
        name,
        f"{dtype} GEMM, {layout}",
        gemm_8bit,
        (_cd(M, bm), _cd(N, bn)),
        (T((M, K), dtype), b, T((M, N), out), M, N, K, *sb),
        dict(BM=bm, BN=bn, BK=bk, INT=integer, num_warps=warps, num_stages=stages),
        M * K + K * N + M * N * (4 if integer else 2),
        2.0 * M * N * K,
        peak=1979e12,
    )


def _w4a16(name, M, N, K, bm, bn, bk, warps, constructs):
    """A w4a16 GEMM (``w4a16_gemm``: int4 weights in uint8 pairs, a scale per 128-row group) at 3 stages."""
    f16 = "float16"
    return Case(
        name,
        constructs,
        w4a16_gemm,
        (_cd(M, bm), _cd(N, bn)),
        (T((M, K), f16), T((K // 2, N), "uint8"), T((K // 128, N), f16), T((M, N), f16), M, N, K),
        dict(GROUP_SIZE=128, BM=bm, BN=bn, BK=bk, num_warps=warps, num_stages=3),
        M * K * 2 + K * N // 2 + M * N * 2,
        2.0 * M * N * K,
    )


def _w8a16(name, M, N, K, bm, bn, bk, warps, constructs):
    """A w8a16 GEMM (``w8a16_gemm``: int8 weights, a scale per output column) at 3 stages."""
    f16 = "float16"
    return Case(
        name,
        constructs,
        w8a16_gemm,
        (_cd(M, bm), _cd(N, bn)),
        (T((M, K), f16), T((K, N), "int8"), T((N,), f16), T((M, N), f16), M, N, K),
        dict(BM=bm, BN=bn, BK=bk, num_warps=warps, num_stages=3),
        M * K * 2 + K * N + M * N * 2,
        2.0 * M * N * K,
    )


W4A16_NOTE = "int4 unpack, tl.join + permute + reshape, group scales (new shape / config)"
W8A16_NOTE = "int8 weights converted to fp16 in registers, per-column scale"


def staged_cases():
    i8, f8 = "int8", "float8_e4m3fn"
    out = [
        _gemm_8bit("gemm_int8_rowB_128x128x64w4_s", i8, 4096, 4096, 4096, 128, 128, 64, 4, 3),
        _gemm_8bit("gemm_int8_rowB_128x256x128w8_s", i8, 4096, 4096, 4096, 128, 256, 128, 8, 3),
        _gemm_8bit("gemm_int8_rowB_64x128x128w4_s", i8, 8192, 4096, 4096, 64, 128, 128, 4, 4),
        _gemm_8bit("gemm_int8_rowB_2k8k8k_s", i8, 2048, 8192, 8192, 128, 128, 128, 8, 3),
        _gemm_8bit("gemm_int8_kmajorB_control_s", i8, 4096, 4096, 4096, 128, 128, 128, 8, 3, k_major=True),
        _gemm_8bit("gemm_fp8_rowB_128x128x128w8_s", f8, 4096, 4096, 4096, 128, 128, 128, 8, 3),
        _gemm_8bit("gemm_fp8_rowB_128x256x64w8_s", f8, 4096, 8192, 4096, 128, 256, 64, 8, 3),
        _gemm_8bit("gemm_fp8_kmajorB_control_s", f8, 4096, 4096, 4096, 128, 128, 128, 8, 3, k_major=True),
    ]
    out += [
        _w4a16("w4a16_64x128x64w4_s", 4096, 4096, 4096, 64, 128, 64, 4, W4A16_NOTE),
        _w4a16("w4a16_2k8k4k_128x128x128w8_s", 2048, 8192, 4096, 128, 128, 128, 8, W4A16_NOTE),
        _w8a16("w8a16_128x128x64w4_s", 4096, 4096, 4096, 128, 128, 64, 4, W8A16_NOTE),
        _w8a16("w8a16_1k8k8k_128x128x64w8_s", 1024, 8192, 8192, 128, 128, 64, 8, W8A16_NOTE),
    ]
    return out


def dequant_cases():
    """The blind check of stop 37's conversion rule (an int-to-float conversion is SFU-pipe work): the
    weight-only quantised GEMMs of :func:`staged_cases` at shapes and configs that set did not time (LLM
    projection and decode-sized M, 4 and 8 warps, K steps of 64 and 128)."""
    w8 = W8A16_NOTE + " (new shape / config)"
    return [
        _w8a16("w8a16_2k4k8k_128x128x64w4_q", 2048, 4096, 8192, 128, 128, 64, 4, w8),
        _w8a16("w8a16_4k11k4k_128x128x64w8_q", 4096, 11008, 4096, 128, 128, 64, 8, w8),
        _w8a16("w8a16_512x8k8k_64x128x64w4_q", 512, 8192, 8192, 64, 128, 64, 4, w8),
        _w8a16("w8a16_8k4k2k_128x64x64w4_q", 8192, 4096, 2048, 128, 64, 64, 4, w8),
        _w8a16("w8a16_4k4k4k_128x128x128w8_q", 4096, 4096, 4096, 128, 128, 128, 8, w8),
        _w4a16("w4a16_4k4k8k_128x128x128w8_q", 4096, 4096, 8192, 128, 128, 128, 8, W4A16_NOTE),
        _w4a16("w4a16_1k14k4k_64x128x64w4_q", 1024, 14336, 4096, 64, 128, 64, 4, W4A16_NOTE),
        _w4a16("w4a16_4k8k4k_128x128x64w4_q", 4096, 8192, 4096, 128, 128, 64, 4, W4A16_NOTE),
    ]

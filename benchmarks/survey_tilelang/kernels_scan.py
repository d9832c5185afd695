"""Prefix sums (``T.cumsum``) at shapes, thread counts, directions and layouts no earlier set has: rows
scanned in shared memory (along dim 1, forward and reverse), columns (dim 0), a 1-D buffer per block,
chunked scans of fragments (TileLang's macro copies them through shared memory) and a chunked cumulative
max: the blind check of stop 38's scan pricing (one warp a line, segments of 32 lanes, nvcc interleaving
four at a time), predicted before they were timed. Names end in ``_c``; ``run_gpu.py --set scan`` runs
them.
"""

import tilelang.language as T
from common import Case, case, nbytes


def rows_case(m: int, n: int, bm: int, threads: int, dtype: str, reverse: bool) -> Case:
    """Blocks of ``bm`` rows of ``n``, each row scanned along dim 1 in shared memory."""

    @T.prim_func
    def main(X: T.Tensor((m, n), dtype), Y: T.Tensor((m, n), dtype)):
        with T.Kernel(T.ceildiv(m, bm), threads=threads) as bx:
            s = T.alloc_shared((bm, n), dtype)
            T.copy(X[bx * bm, 0], s)
            T.cumsum(s, dim=1, reverse=reverse)
            T.copy(s, Y[bx * bm, 0])

    return Case(main, bytes=2 * m * n * nbytes(dtype), flops=m * n, peak="fp32")


def cols_case(m: int, n: int, bn: int, threads: int) -> Case:
    """Blocks of ``bn`` columns of an ``m x n`` fp32 tensor, each column scanned along dim 0."""

    @T.prim_func
    def main(X: T.Tensor((m, n), "float32"), Y: T.Tensor((m, n), "float32")):
        with T.Kernel(T.ceildiv(n, bn), threads=threads) as bx:
            s = T.alloc_shared((m, bn), "float32")
            T.copy(X[0, bx * bn], s)
            T.cumsum(s, dim=0)
            T.copy(s, Y[0, bx * bn])

    return Case(main, bytes=2 * m * n * 4, flops=m * n, peak="fp32")


def line_case(rows: int, n: int, threads: int) -> Case:
    """One row of ``n`` fp32 per block in a 1-D shared buffer (the scan runs on the first warp alone)."""

    @T.prim_func
    def main(X: T.Tensor((rows, n), "float32"), Y: T.Tensor((rows, n), "float32")):
        with T.Kernel(rows, threads=threads) as bx:
            s = T.alloc_shared((n,), "float32")
            T.copy(X[bx, 0], s)
            T.cumsum(s, dim=0)
            T.copy(s, Y[bx, 0])

    return Case(main, bytes=2 * rows * n * 4, flops=rows * n, peak="fp32")


def chunk_case(b: int, h: int, s_len: int, bs: int, threads: int, cummax: bool) -> Case:
    """A chunked gate cumsum (a linear-attention chunk's): each block scans one ``bs`` chunk of a head's
    fp32 sequence in a fragment (``T.cummax`` instead where ``cummax``)."""

    @T.prim_func
    def main(G: T.Tensor((b, h, s_len), "float32"), Gn: T.Tensor((b, h, s_len), "float32")):
        with T.Kernel(T.ceildiv(s_len, bs), b * h, threads=threads) as (bx, bbh):
            bb, bh = bbh // h, bbh % h
            g_s = T.alloc_shared((1, bs), "float32")
            g_f = T.alloc_fragment((1, bs), "float32")
            T.copy(G[bb, bh, bx * bs : (bx + 1) * bs], g_s)
            T.copy(g_s, g_f)
            if cummax:
                T.cummax(g_f, dim=1)
            else:
                T.cumsum(g_f, dim=1)
            T.copy(g_f, Gn[bb, bh, bx * bs : (bx + 1) * bs])

    return Case(main, bytes=2 * b * h * s_len * 4, flops=b * h * s_len, peak="fp32")


@case("cumsum_rows_f32_8192x2048_bm4_t128_c", "T.cumsum of 4 fp32 rows of 2048 in shared memory, 128 threads")
def rows_a():
    return rows_case(8192, 2048, 4, 128, "float32", False)


@case("cumsum_rows_f32_16384x512_bm16_t256_rev_c", "T.cumsum reverse of 16 fp32 rows of 512, 256 threads")
def rows_b():
    return rows_case(16384, 512, 16, 256, "float32", True)


@case("cumsum_rows_f32_2048x8192_bm2_t64_c", "T.cumsum of 2 fp32 rows of 8192 on 64 threads")
def rows_c():
    return rows_case(2048, 8192, 2, 64, "float32", False)


@case("cumsum_cols_f32_256x16384_bn32_t128_c", "T.cumsum along dim 0: 32 columns of 256 fp32, 128 threads")
def cols_a():
    return cols_case(256, 16384, 32, 128)


@case("cumsum_line_f32_8192x1024_t128_c", "T.cumsum of a 1-D shared buffer of 1024 fp32 (first warp only)")
def line_a():
    return line_case(8192, 1024, 128)


@case("cumsum_chunk_4x16x16384_bs128_t128_c", "chunked gate cumsum of fragments, 128-wide chunks, 128 thr.")
def chunk_a():
    return chunk_case(4, 16, 16384, 128, 128, False)


@case("cummax_chunk_8x8x8192_bs256_t128_c", "chunked T.cummax of fragments, 256-wide chunks, 128 threads")
def chunk_b():
    return chunk_case(8, 8, 8192, 256, 128, True)

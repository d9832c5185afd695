"""GEMMs whose operand copies into shared memory are guarded ``T.Parallel`` nests, and two-pass RMSNorms
walking their rows forwards and backwards: a check of stop 24's synchronous-copy rule (a copy guarded by a
condition that can fail is plain loads; a loop of only such copies is not pipelined) and of its backward
second passes, predicted before they were timed. Names end in ``_u``; ``run_gpu.py --set guards`` runs
them.
"""

import tilelang.language as T
from common import Case, case, nbytes


def guarded_gemm_case(
    m: int, n: int, k: int, bm: int, bn: int, bk: int, threads: int, dtype: str, guard_a: str, guard_b: str
) -> Case:
    """``guard_*``: "both" (rows and columns, Python ``&``), "rows", "cols" or "none"."""

    def pick(kind, row, col, rows, cols, load):
        if kind == "both":
            return T.if_then_else((row < rows) & (col < cols), load, 0)
        if kind == "rows":
            return T.if_then_else(row < rows, load, 0)
        if kind == "cols":
            return T.if_then_else(col < cols, load, 0)
        return load

    @T.prim_func
    def main(A: T.Tensor((m, k), dtype), B: T.Tensor((k, n), dtype), C: T.Tensor((m, n), dtype)):
        with T.Kernel(T.ceildiv(n, bn), T.ceildiv(m, bm), threads=threads) as (bx, by):
            a_s = T.alloc_shared((bm, bk), dtype)
            b_s = T.alloc_shared((bk, bn), dtype)
            acc = T.alloc_fragment((bm, bn), "float32")
            T.clear(acc)
            for ko in T.Pipelined(T.ceildiv(k, bk), num_stages=3):
                for i, j in T.Parallel(bm, bk):
                    a_s[i, j] = pick(guard_a, by * bm + i, ko * bk + j, m, k, A[by * bm + i, ko * bk + j])
                for i, j in T.Parallel(bk, bn):
                    b_s[i, j] = pick(guard_b, ko * bk + i, bx * bn + j, k, n, B[ko * bk + i, bx * bn + j])
                T.gemm(a_s, b_s, acc)
            for i, j in T.Parallel(bm, bn):
                if by * bm + i < m and bx * bn + j < n:
                    C[by * bm + i, bx * bn + j] = acc[i, j]

    eb = nbytes(dtype)
    return Case(main, bytes=(m * k + k * n + m * n) * eb, flops=2 * m * n * k, peak="tc16")


def two_pass_rmsnorm_case(m: int, n: int, bk: int, threads: int, backward: bool) -> Case:
    """RMSNorm over fp32 rows in chunks of ``bk``: a sum of squares, then a second pass scaling each chunk,
    walking the row backwards (``backward``) or forwards."""
    nk = n // bk

    @T.prim_func
    def main(A: T.Tensor((m, n), "float32"), B: T.Tensor((m, n), "float32")):
        with T.Kernel(m, threads=threads) as bx:
            a_s = T.alloc_shared((1, bk), "float32")
            acc = T.alloc_fragment((1, bk), "float32")
            ss = T.alloc_fragment((1,), "float32")
            T.clear(acc)
            for kk in T.Serial(nk):
                T.copy(A[bx, kk * bk], a_s)
                for i, j in T.Parallel(1, bk):
                    acc[i, j] += a_s[i, j] * a_s[i, j]
            T.reduce_sum(acc, ss, dim=1)
            for i in T.Parallel(1):
                ss[i] = T.rsqrt(ss[i] / n + 1e-12)
            for kk in T.Serial(nk):
                c = (nk - 1 - kk) if backward else kk
                T.copy(A[bx, c * bk], a_s)
                for i, j in T.Parallel(1, bk):
                    a_s[i, j] *= ss[i]
                T.copy(a_s, B[bx, c * bk])

    return Case(main, bytes=2 * m * n * 4, flops=3 * m * n, peak="fp32")


@case("gemm_guard_both_3000_128x128x32_u", "fp16 3000^3, both operands guarded (rows & cols), 128 threads")
def _u1():
    return guarded_gemm_case(3000, 3000, 3000, 128, 128, 32, 128, "float16", "both", "both")


@case("gemm_guard_both_5000x4000x2000_64x128x64_u", "fp16 5000 x 4000 x 2000, both guarded, 64x128x64")
def _u2():
    return guarded_gemm_case(5000, 4000, 2000, 64, 128, 64, 128, "float16", "both", "both")


@case("gemm_guard_rows_a_4000_128x128x32_u", "fp16 4000 x 4096 x 4096, A guarded on rows, B plain")
def _u3():
    return guarded_gemm_case(4000, 4096, 4096, 128, 128, 32, 128, "float16", "rows", "none")


@case("gemm_guard_proven_4096_128x128x32_u", "fp16 4096^3, guards that always hold (dropped), 128 threads")
def _u4():
    return guarded_gemm_case(4096, 4096, 4096, 128, 128, 32, 128, "float16", "both", "both")


@case("gemm_guard_both_bf16_2000x6000x3000_128x256x32_u", "bf16 2000 x 6000 x 3000, both guarded, 256 thr")
def _u5():
    return guarded_gemm_case(2000, 6000, 3000, 128, 256, 32, 256, "bfloat16", "both", "both")


@case("gemm_guard_cols_b_6000x5000x4096_128x128x64_u", "fp16 6000 x 5000 x 4096, B guarded on cols, A rows")
def _u6():
    return guarded_gemm_case(6000, 5000, 4096, 128, 128, 64, 128, "float16", "rows", "cols")


@case("rmsnorm_two_pass_backward_4096x16384_u", "fp32 4096 x 16384, 1024-wide chunks, second pass backwards")
def _u7():
    return two_pass_rmsnorm_case(4096, 16384, 1024, 128, backward=True)


@case("rmsnorm_two_pass_forward_4096x16384_u", "fp32 4096 x 16384, 1024-wide chunks, second pass forwards")
def _u8():
    return two_pass_rmsnorm_case(4096, 16384, 1024, 128, backward=False)


@case("rmsnorm_two_pass_backward_16384x4096_u", "fp32 16384 x 4096, 512-wide chunks, 256 threads, backwards")
def _u9():
    return two_pass_rmsnorm_case(16384, 4096, 512, 256, backward=True)

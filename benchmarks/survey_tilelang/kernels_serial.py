"""Serial loops of plain global loads that nvcc unrolls: row-chunked RMSNorms (two passes), sums of squares
over row chunks, split-K reductions of fp32 partial tiles and FlashAttention's backward preprocess, at shapes,
chunk sizes and thread counts no earlier set has, with one online softmax (an ``exp`` in its chunk loop,
which the rule leaves alone) as a control: a check of stop 25's ``SERIAL_COPY_UNROLL`` rule, predicted
before they were timed. Names end in ``_n``; ``run_gpu.py --set serial`` runs them.
"""

import tilelang.language as T
from common import Case, case, nbytes
from kernels_elem import online_softmax_case
from kernels_guards import two_pass_rmsnorm_case


def row_sum_of_squares_case(m: int, n: int, bk: int, threads: int, dtype: str) -> Case:
    """One pass over each row in chunks of ``bk`` through shared memory: the row's sum of squares."""
    nk = n // bk

    @T.prim_func
    def main(A: T.Tensor((m, n), dtype), S: T.Tensor((m,), "float32")):
        with T.Kernel(m, threads=threads) as bx:
            a_s = T.alloc_shared((1, bk), dtype)
            acc = T.alloc_fragment((1, bk), "float32")
            ss = T.alloc_fragment((1,), "float32")
            T.clear(acc)
            for kk in T.serial(nk):
                T.copy(A[bx, kk * bk], a_s)
                for i, j in T.Parallel(1, bk):
                    acc[i, j] += T.Cast("float32", a_s[i, j]) * T.Cast("float32", a_s[i, j])
            T.reduce_sum(acc, ss, dim=1)
            S[bx] = ss[0]

    return Case(main, bytes=m * n * nbytes(dtype) + m * 4, flops=2 * m * n, peak="fp32")


def split_reduce_case(m: int, n: int, splits: int, rb: int, threads: int) -> Case:
    """The second kernel of a split-K GEMM: each block sums its ``rb x rb`` tile of the ``splits`` fp32
    partials into fp16."""

    @T.prim_func
    def main(W: T.Tensor((splits, m, n), "float32"), C: T.Tensor((m, n), "float16")):
        with T.Kernel(T.ceildiv(n, rb), T.ceildiv(m, rb), threads=threads) as (bx, by):
            acc = T.alloc_fragment((rb, rb), "float32")
            T.clear(acc)
            for s in T.serial(splits):
                for i, j in T.Parallel(rb, rb):
                    acc[i, j] += W[s, by * rb + i, bx * rb + j]
            for i, j in T.Parallel(rb, rb):
                C[by * rb + i, bx * rb + j] = acc[i, j]

    return Case(main, bytes=splits * m * n * 4 + m * n * 2, flops=splits * m * n, peak="fp32")


def attention_delta_case(batch: int, heads: int, seq: int, dim: int, blk: int) -> Case:
    """FlashAttention backward's preprocess, Delta = rowsum(O * dO), over head-dim chunks of ``blk``."""
    shape = (batch, seq, heads, dim)

    @T.prim_func
    def main(
        O: T.Tensor(shape, "float16"),
        dO: T.Tensor(shape, "float16"),
        Delta: T.Tensor((batch, heads, seq), "float32"),
    ):
        with T.Kernel(heads, T.ceildiv(seq, blk), batch, threads=128) as (bx, by, bz):
            o = T.alloc_fragment((blk, blk), "float16")
            do = T.alloc_fragment((blk, blk), "float16")
            acc = T.alloc_fragment((blk, blk), "float32")
            delta = T.alloc_fragment((blk,), "float32")
            T.clear(acc)
            for k in T.serial(T.ceildiv(dim, blk)):
                T.copy(O[bz, by * blk : (by + 1) * blk, bx, k * blk : (k + 1) * blk], o)
                T.copy(dO[bz, by * blk : (by + 1) * blk, bx, k * blk : (k + 1) * blk], do)
                for i, j in T.Parallel(blk, blk):
                    acc[i, j] += o[i, j] * do[i, j]
            T.reduce_sum(acc, delta, 1)
            T.copy(delta, Delta[bz, bx, by * blk : (by + 1) * blk])

    return Case(
        main,
        bytes=2 * batch * seq * heads * dim * 2 + batch * heads * seq * 4,
        flops=2 * batch * seq * heads * dim,
        peak="fp32",
    )


@case("rmsnorm_two_pass_forward_8192x8192_bk1024_t128_n", "fp32, 8 chunks of 1024 on 128 threads")
def _n1():
    return two_pass_rmsnorm_case(8192, 8192, 1024, 128, backward=False)


@case("rmsnorm_two_pass_backward_2048x32768_bk2048_t256_n", "fp32, 16 chunks of 2048 on 256 threads")
def _n2():
    return two_pass_rmsnorm_case(2048, 32768, 2048, 256, backward=True)


@case("rmsnorm_two_pass_forward_32768x2048_bk256_t64_n", "fp32, 8 chunks of 256 on 64 threads")
def _n3():
    return two_pass_rmsnorm_case(32768, 2048, 256, 64, backward=False)


@case("rmsnorm_two_pass_backward_4096x8192_bk512_t128_n", "fp32, 16 chunks of 512 on 128 threads")
def _n4():
    return two_pass_rmsnorm_case(4096, 8192, 512, 128, backward=True)


@case("row_sumsq_f32_8192x16384_bk512_t128_n", "one pass, 32 chunks of 512 fp32 on 128 threads")
def _n5():
    return row_sum_of_squares_case(8192, 16384, 512, 128, "float32")


@case("row_sumsq_bf16_16384x8192_bk1024_t128_n", "one pass, 8 chunks of 1024 bf16 on 128 threads")
def _n6():
    return row_sum_of_squares_case(16384, 8192, 1024, 128, "bfloat16")


@case("row_sumsq_f32_2048x65536_bk512_t128_n", "one pass, 128 chunks of 512 fp32 on 128 threads")
def _n7():
    return row_sum_of_squares_case(2048, 65536, 512, 128, "float32")


@case("split_reduce_4096x4096_s4_rb64_t128_n", "4 fp32 partials, 64x64 tiles, 128 threads")
def _n8():
    return split_reduce_case(4096, 4096, 4, 64, 128)


@case("split_reduce_4096x4096_s16_rb64_t128_n", "16 fp32 partials, 64x64 tiles, 128 threads")
def _n9():
    return split_reduce_case(4096, 4096, 16, 64, 128)


@case("split_reduce_8192x8192_s2_rb128_t256_n", "2 fp32 partials, 128x128 tiles, 256 threads")
def _n10():
    return split_reduce_case(8192, 8192, 2, 128, 256)


@case("attention_delta_b8h16s4096d128_blk32_n", "FA backward preprocess, 4 head-dim chunks")
def _n11():
    return attention_delta_case(8, 16, 4096, 128, 32)


@case("attention_delta_b4h32s2048d64_blk32_n", "FA backward preprocess, 2 head-dim chunks")
def _n12():
    return attention_delta_case(4, 32, 2048, 64, 32)


@case("online_softmax_8192x16384_bn2048_t256_n", "control: an exp in the chunk loop (not unrolled that way)")
def _n13():
    return online_softmax_case(8192, 16384, 2048, 256)

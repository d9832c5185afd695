"""Row kernels whose register count decides their residency: a check of the transient-fragment rule of stop
24 (a fragment one ``T.Parallel`` nest writes and only the next reduce reads is not held whole), predicted
before they were timed. Shapes, row blocks, thread counts and dtypes the survey's ``layernorm`` and
``logsumexp_ce`` do not have. Names end in ``_g``; ``run_gpu.py --set regs`` runs them.
"""

import tilelang.language as T
from common import Case, case, nbytes
from kernels_elem import cross_entropy_case, layernorm_case


def rmsnorm_case(m: int, n: int, bm: int, threads: int, dtype: str) -> Case:
    """RMSNorm: the squares feed the sum of squares only."""
    eps = 1e-6

    @T.prim_func
    def main(X: T.Tensor((m, n), dtype), G: T.Tensor((n,), dtype), Y: T.Tensor((m, n), dtype)):
        with T.Kernel(T.ceildiv(m, bm), threads=threads) as bx:
            x = T.alloc_fragment((bm, n), "float32")
            sq = T.alloc_fragment((bm, n), "float32")
            ss = T.alloc_fragment((bm,), "float32")
            g = T.alloc_fragment((n,), "float32")
            T.copy(G, g)
            T.copy(X[bx * bm, 0], x)
            for i, j in T.Parallel(bm, n):
                sq[i, j] = x[i, j] * x[i, j]
            T.reduce_sum(sq, ss, dim=1)
            for i in T.Parallel(bm):
                ss[i] = T.rsqrt(ss[i] / n + eps)
            for i, j in T.Parallel(bm, n):
                x[i, j] = x[i, j] * ss[i] * g[j]
            T.copy(x, Y[bx * bm, 0])

    eb = nbytes(dtype)
    return Case(main, bytes=2 * m * n * eb + n * eb, flops=4 * m * n, peak="fp32")


@case("layernorm_f16_16384x2048_bm8_t256_g", "LayerNorm fp16 16384 x 2048, 8 rows a block, 256 threads")
def _g1():
    return layernorm_case(16384, 2048, 8, 256, "float16")


@case("layernorm_bf16_4096x8192_bm2_t256_g", "LayerNorm bf16 4096 x 8192, 2 rows a block, 256 threads")
def _g2():
    return layernorm_case(4096, 8192, 2, 256, "bfloat16")


@case("layernorm_bf16_8192x4096_bm4_t512_g", "LayerNorm bf16 8192 x 4096, 4 rows a block, 512 threads")
def _g3():
    return layernorm_case(8192, 4096, 4, 512, "bfloat16")


@case("rmsnorm_f16_8192x4096_bm4_t256_g", "RMSNorm fp16 8192 x 4096, 4 rows a block, 256 threads")
def _g4():
    return rmsnorm_case(8192, 4096, 4, 256, "float16")


@case("rmsnorm_bf16_16384x2048_bm4_t128_g", "RMSNorm bf16 16384 x 2048, 4 rows a block, 128 threads")
def _g5():
    return rmsnorm_case(16384, 2048, 4, 128, "bfloat16")


@case("cross_entropy_8192x65536_bv8192_t256_g", "log-sum-exp CE, 8192 x 65536 bf16, 8192-wide chunks")
def _g6():
    return cross_entropy_case(8192, 65536, 8192, 256)


@case("cross_entropy_4096x32768_bv4096_t128_g", "log-sum-exp CE, 4096 x 32768 bf16, 128 threads")
def _g7():
    return cross_entropy_case(4096, 32768, 4096, 128)


@case("cross_entropy_8192x16384_bv2048_t256_g", "log-sum-exp CE, 8192 x 16384 bf16, 2048-wide chunks")
def _g8():
    return cross_entropy_case(8192, 16384, 2048, 256)

"""Row kernels whose register count decides their residency: a check of the transient-fragment rule of stop
24 (a fragment one ``T.Parallel`` nest writes and only the next reduce reads is not held whole), predicted
before they were timed. Shapes, row blocks, thread counts and dtypes the survey's ``layernorm`` and
``logsumexp_ce`` do not have. Names end in ``_g``; ``run_gpu.py --set regs`` runs them.
"""

import tilelang.language as T
from common import Case, case

# element bytes (the GPU machine runs these without tilesight installed)
_BYTES = {"float16": 2, "bfloat16": 2, "float32": 4, "int8": 1}


def dtype_bytes(dtype: str) -> int:
    return _BYTES[dtype]


def layernorm_case(m: int, n: int, bm: int, threads: int, dtype: str) -> Case:
    """LayerNorm with weight and bias staged in shared memory; ``xc`` (the squared deviations) feeds the
    variance's reduce only."""
    eps = 1e-5

    @T.prim_func
    def main(
        X: T.Tensor((m, n), dtype),
        G: T.Tensor((n,), dtype),
        Bt: T.Tensor((n,), dtype),
        Y: T.Tensor((m, n), dtype),
    ):
        with T.Kernel(T.ceildiv(m, bm), threads=threads) as bx:
            x = T.alloc_fragment((bm, n), "float32")
            xc = T.alloc_fragment((bm, n), "float32")
            mean = T.alloc_fragment((bm,), "float32")
            var = T.alloc_fragment((bm,), "float32")
            g_s = T.alloc_shared((n,), dtype)
            b_s = T.alloc_shared((n,), dtype)
            T.copy(G, g_s)
            T.copy(Bt, b_s)
            T.copy(X[bx * bm, 0], x)
            T.reduce_sum(x, mean, dim=1)
            for i in T.Parallel(bm):
                mean[i] = mean[i] / n
            for i, j in T.Parallel(bm, n):
                xc[i, j] = (x[i, j] - mean[i]) * (x[i, j] - mean[i])
            T.reduce_sum(xc, var, dim=1)
            for i in T.Parallel(bm):
                var[i] = T.rsqrt(var[i] / n + eps)
            for i, j in T.Parallel(bm, n):
                x[i, j] = (x[i, j] - mean[i]) * var[i] * T.Cast("float32", g_s[j]) + T.Cast("float32", b_s[j])
            T.copy(x, Y[bx * bm, 0])

    eb = dtype_bytes(dtype)
    return Case(main, bytes=2 * m * n * eb + 2 * n * eb, flops=8 * m * n, peak="fp32")


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

    eb = dtype_bytes(dtype)
    return Case(main, bytes=2 * m * n * eb + n * eb, flops=4 * m * n, peak="fp32")


def cross_entropy_case(m: int, v: int, bv: int, threads: int) -> Case:
    """Online log-sum-exp over vocabulary chunks with the label's logit picked out (``pick`` feeds its sum
    only)."""
    nt = v // bv
    log2e = 1.44269504

    @T.prim_func
    def main(
        L: T.Tensor((m, v), "bfloat16"), labels: T.Tensor((m,), "int32"), loss: T.Tensor((m,), "float32")
    ):
        with T.Kernel(m, threads=threads) as bx:
            x = T.alloc_fragment((bv,), "float32")
            pick = T.alloc_fragment((bv,), "float32")
            mx = T.alloc_fragment((1,), "float32")
            mprev = T.alloc_fragment((1,), "float32")
            s = T.alloc_fragment((1,), "float32")
            st = T.alloc_fragment((1,), "float32")
            tgt = T.alloc_fragment((1,), "float32")
            tt = T.alloc_fragment((1,), "float32")
            lab = T.alloc_var("int32")
            lab = labels[bx]
            T.fill(mx, -T.infinity("float32"))
            T.fill(s, 0)
            T.fill(tgt, 0)
            for t in T.serial(nt):
                T.copy(L[bx, t * bv], x)
                for i in T.Parallel(bv):
                    pick[i] = T.if_then_else(t * bv + i == lab, x[i], 0.0)
                T.reduce_sum(pick, tt, dim=0)
                tgt[0] += tt[0]
                T.copy(mx, mprev)
                T.reduce_max(x, mx, dim=0, clear=False)
                for i in T.Parallel(bv):
                    x[i] = T.exp2((x[i] - mx[0]) * log2e)
                T.reduce_sum(x, st, dim=0)
                s[0] = s[0] * T.exp2((mprev[0] - mx[0]) * log2e) + st[0]
            loss[bx] = T.log(s[0]) + mx[0] - tgt[0]

    return Case(main, bytes=m * v * 2 + m * 8, flops=6 * m * v, peak="fp32")


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

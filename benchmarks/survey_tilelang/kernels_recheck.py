"""New shapes of the survey kernels the stop-20 TileLang fixes were read from (a GEMV indexed by the thread
index, a split-KV combine): an out-of-sample check, measured after their predictions were recorded. Names end
in ``_r``; ``run_gpu.py --set recheck`` runs them."""

import tilelang.language as T
from common import Case, case


def _gemv(N, K, BN, RT, TILE_K, dtype):
    BK = RT * TILE_K

    @T.prim_func
    def main(A: T.Tensor((K,), dtype), B: T.Tensor((N, K), dtype), C: T.Tensor((N,), dtype)):
        with T.Kernel(T.ceildiv(N, BN), threads=(BN, RT)) as bn:
            tn = T.get_thread_binding(0)
            tk = T.get_thread_binding(1)
            A_l = T.alloc_local((TILE_K,), dtype)
            B_l = T.alloc_local((TILE_K,), dtype)
            C_s = T.alloc_shared((BN,), "float32")
            C_acc = T.alloc_local((1,), "float32")
            if tk == 0:
                C_s[tn] = 0
            T.clear(C_acc)
            for bk in T.serial(T.ceildiv(K, BK)):
                for k in T.vectorized(TILE_K):
                    A_l[k] = A[bk * BK + tk * TILE_K + k]
                    B_l[k] = B[bn * BN + tn, bk * BK + tk * TILE_K + k]
                for k in T.serial(TILE_K):
                    C_acc[0] += A_l[k].astype("float32") * B_l[k].astype("float32")
            T.atomic_add(C_s[tn], C_acc[0])
            C[bn * BN + tn] = C_s[tn]

    size = 2 if dtype in ("float16", "bfloat16") else 4
    return Case(main, bytes=(N * K + K + N) * size, flops=2 * N * K, peak="fp32")


@case("gemv_n8192_k28672_r", "GEMV recheck: 8192 x 28672 fp16, 64 x 4 threads, 8-wide vectors")
def gemv_a():
    return _gemv(8192, 28672, 64, 4, 8, "float16")


@case("gemv_n28672_k8192_r", "GEMV recheck: 28672 x 8192 bf16, 32 x 8 threads, 8-wide vectors")
def gemv_b():
    return _gemv(28672, 8192, 32, 8, 8, "bfloat16")


def _combine(batch, heads, ns, dim):
    @T.prim_func
    def main(
        glse: T.Tensor((batch, heads, ns), "float32"),
        Opart: T.Tensor((batch, heads, ns, dim), "float32"),
        Output: T.Tensor((batch, heads, dim), "float16"),
    ):
        with T.Kernel(heads, batch, threads=dim) as (hy, bb):
            lse_l = T.alloc_fragment((ns,), "float32")
            lse_max = T.alloc_fragment((1,), "float32")
            o_acc = T.alloc_fragment((dim,), "float32")
            lse_sum = T.alloc_var("float32")
            scale_v = T.alloc_var("float32")
            T.clear(o_acc)
            T.copy(glse[bb, hy, :], lse_l)
            T.reduce_max(lse_l, lse_max, dim=0, clear=True)
            lse_sum = 0.0
            for s in T.serial(ns):
                lse_sum += T.exp2(lse_l[s] - lse_max[0])
            lse_sum = T.log2(lse_sum) + lse_max[0]
            for s in T.serial(ns):
                scale_v = T.exp2(lse_l[s] - lse_sum)
                for d in T.Parallel(dim):
                    o_acc[d] += Opart[bb, hy, s, d] * scale_v
            for d in T.Parallel(dim):
                Output[bb, hy, d] = o_acc[d]

    return Case(
        main,
        bytes=batch * heads * ns * (dim + 1) * 4 + batch * heads * dim * 2,
        flops=2 * batch * heads * ns * dim,
    )


@case("flash_decode_combine_s16_r", "split-KV combine recheck: 16 splits, 64 x 32 heads, dim 128")
def combine_a():
    return _combine(64, 32, 16, 128)


@case("flash_decode_combine_s4_d256_r", "split-KV combine recheck: 4 splits, 16 x 16 heads, dim 256")
def combine_b():
    return _combine(16, 16, 4, 256)

"""TileLang's vectorised GEMV (split-K inside the block), shared by the thread-index and scalar-atomic tests.

Import after ``pytest.importorskip("tilelang")``.
"""

import tilelang.language as T


def gemv(N=1024, K=1024, BN=32, RT=8, TILE_K=8, row=lambda bn, tn, BN: bn * BN + tn):
    """Threads (BN, RT); thread (tn, tk) loads 8 fp16 of row ``row(bn, tn, BN)`` per K step and adds its
    partial sum into one shared element per row."""
    BK = RT * TILE_K

    @T.prim_func
    def main(A: T.Tensor((K,), "float16"), B: T.Tensor((N, K), "float16"), C: T.Tensor((N,), "float16")):
        with T.Kernel(T.ceildiv(N, BN), threads=(BN, RT)) as bn:
            tn = T.get_thread_binding(0)
            tk = T.get_thread_binding(1)
            a = T.alloc_local((TILE_K,), "float16")
            b = T.alloc_local((TILE_K,), "float16")
            c_s = T.alloc_shared((BN,), "float32")
            acc = T.alloc_local((1,), "float32")
            T.clear(acc)
            for bk in T.serial(T.ceildiv(K, BK)):
                for k in T.vectorized(TILE_K):
                    a[k] = A[bk * BK + tk * TILE_K + k]
                    b[k] = B[row(bn, tn, BN), bk * BK + tk * TILE_K + k]
                for k in T.serial(TILE_K):
                    acc[0] += a[k].astype("float32") * b[k].astype("float32")
            T.atomic_add(c_s[tn], acc[0])
            C[bn * BN + tn] = c_s[tn]

    return main

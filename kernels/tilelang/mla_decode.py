"""MLA-style decode attention (DeepSeek multi-head latent attention, one query token) written in TileLang.

Every query head of a batch attends to one shared latent KV cache: ``KV`` [batch, seqlen_kv, dim] is both the
keys (with the rotary part ``K_pe`` [batch, seqlen_kv, pe_dim] appended) and the values. One block owns
``block_H`` heads of one batch row and streams the cache in ``block_N`` rows through ``num_stages`` buffers:
scores = Q @ KV^T + Q_pe @ K_pe^T, online softmax, P staged in shared memory, acc += P @ KV.
Builds a ``T.prim_func`` without compiling.
"""

import math

import tilelang.language as T

LOG2E = 1.44269504  # log2(e): the kernel uses exp2


def mla_decode(
    batch: int,
    heads: int,
    seqlen_kv: int,
    dim: int = 512,
    pe_dim: int = 64,
    block_H: int = 64,
    block_N: int = 32,
    num_stages: int = 2,
    threads: int = 256,
    dtype: str = "float16",
    accum_dtype: str = "float32",
):
    """Return the ``T.prim_func`` of one MLA decode configuration (inputs Q, Q_pe, KV, K_pe; output O)."""
    scale = LOG2E / math.sqrt(dim + pe_dim)

    @T.prim_func
    def main(
        Q: T.Tensor((batch, heads, dim), dtype),
        Q_pe: T.Tensor((batch, heads, pe_dim), dtype),
        KV: T.Tensor((batch, seqlen_kv, dim), dtype),
        K_pe: T.Tensor((batch, seqlen_kv, pe_dim), dtype),
        Output: T.Tensor((batch, heads, dim), dtype),
    ):
        with T.Kernel(T.ceildiv(heads, block_H), batch, threads=threads) as (bx, by):
            Q_shared = T.alloc_shared((block_H, dim), dtype)
            Q_pe_shared = T.alloc_shared((block_H, pe_dim), dtype)
            KV_shared = T.alloc_shared((block_N, dim), dtype)
            K_pe_shared = T.alloc_shared((block_N, pe_dim), dtype)
            acc_s = T.alloc_fragment((block_H, block_N), accum_dtype)
            S_shared = T.alloc_shared((block_H, block_N), dtype)
            acc_o = T.alloc_fragment((block_H, dim), accum_dtype)
            m_i = T.alloc_fragment((block_H,), accum_dtype)
            m_prev = T.alloc_fragment((block_H,), accum_dtype)
            alpha = T.alloc_fragment((block_H,), accum_dtype)
            row_sum = T.alloc_fragment((block_H,), accum_dtype)
            l_i = T.alloc_fragment((block_H,), accum_dtype)

            T.copy(Q[by, bx * block_H : (bx + 1) * block_H, :], Q_shared)
            T.copy(Q_pe[by, bx * block_H : (bx + 1) * block_H, :], Q_pe_shared)
            T.fill(acc_o, 0)
            T.fill(l_i, 0)
            T.fill(m_i, -T.infinity(accum_dtype))
            for k in T.Pipelined(T.ceildiv(seqlen_kv, block_N), num_stages=num_stages):
                T.copy(KV[by, k * block_N : (k + 1) * block_N, :], KV_shared)
                T.copy(K_pe[by, k * block_N : (k + 1) * block_N, :], K_pe_shared)
                T.clear(acc_s)
                T.gemm(Q_shared, KV_shared, acc_s, transpose_B=True, policy=T.GemmWarpPolicy.FullCol)
                T.gemm(Q_pe_shared, K_pe_shared, acc_s, transpose_B=True, policy=T.GemmWarpPolicy.FullCol)
                T.copy(m_i, m_prev)
                T.reduce_max(acc_s, m_i, dim=1, clear=False)
                for i in T.Parallel(block_H):
                    alpha[i] = T.exp2(m_prev[i] * scale - m_i[i] * scale)
                for i, j in T.Parallel(block_H, dim):
                    acc_o[i, j] *= alpha[i]
                for i, j in T.Parallel(block_H, block_N):
                    acc_s[i, j] = T.exp2(acc_s[i, j] * scale - m_i[i] * scale)
                T.reduce_sum(acc_s, row_sum, dim=1)
                for i in T.Parallel(block_H):
                    l_i[i] = l_i[i] * alpha[i] + row_sum[i]
                T.copy(acc_s, S_shared)
                T.gemm(S_shared, KV_shared, acc_o, policy=T.GemmWarpPolicy.FullCol)
            for i, j in T.Parallel(block_H, dim):
                acc_o[i, j] /= l_i[i]
            T.copy(acc_o, Output[by, bx * block_H : (bx + 1) * block_H, :])

    return main

"""FlashAttention forward (online softmax) written in TileLang, layout ``[batch, seq, heads, dim]``.

One block owns ``block_M`` query rows of one (batch, head); it streams K and V in ``block_N`` rows through a
software pipeline of ``num_stages`` buffers. ``causal`` masks keys after each query and stops the key loop
at the block's diagonal. Builds a ``T.prim_func`` without compiling it.
"""

import math

import tilelang.language as T

LOG2E = 1.44269504  # log2(e): the kernel uses exp2, so scores are pre-scaled by log2(e) / sqrt(dim)


def flash_attention_fwd(
    batch: int,
    heads: int,
    seq_len: int,
    dim: int,
    causal: bool = False,
    block_M: int = 64,
    block_N: int = 64,
    num_stages: int = 1,
    threads: int = 128,
    dtype: str = "float16",
    accum_dtype: str = "float32",
):
    """Return the ``T.prim_func`` of one FlashAttention forward configuration (inputs Q, K, V; output O)."""
    scale = LOG2E / math.sqrt(dim)
    shape = (batch, seq_len, heads, dim)

    @T.prim_func
    def main(
        Q: T.Tensor(shape, dtype),
        K: T.Tensor(shape, dtype),
        V: T.Tensor(shape, dtype),
        Output: T.Tensor(shape, dtype),
    ):
        with T.Kernel(T.ceildiv(seq_len, block_M), heads, batch, threads=threads) as (bx, by, bz):
            Q_shared = T.alloc_shared((block_M, dim), dtype)
            K_shared = T.alloc_shared((block_N, dim), dtype)
            V_shared = T.alloc_shared((block_N, dim), dtype)
            O_shared = T.alloc_shared((block_M, dim), dtype)
            acc_s = T.alloc_fragment((block_M, block_N), accum_dtype)
            acc_s_cast = T.alloc_fragment((block_M, block_N), dtype)
            acc_o = T.alloc_fragment((block_M, dim), accum_dtype)
            m_i = T.alloc_fragment((block_M,), accum_dtype)
            m_prev = T.alloc_fragment((block_M,), accum_dtype)
            alpha = T.alloc_fragment((block_M,), accum_dtype)
            row_sum = T.alloc_fragment((block_M,), accum_dtype)
            l_i = T.alloc_fragment((block_M,), accum_dtype)

            T.copy(Q[bz, bx * block_M : (bx + 1) * block_M, by, :], Q_shared)
            T.fill(acc_o, 0)
            T.fill(l_i, 0)
            T.fill(m_i, -T.infinity(accum_dtype))
            if causal:
                trips = T.min(T.ceildiv(seq_len, block_N), T.ceildiv((bx + 1) * block_M, block_N))
            else:
                trips = T.ceildiv(seq_len, block_N)
            for k in T.Pipelined(trips, num_stages=num_stages):
                T.copy(K[bz, k * block_N : (k + 1) * block_N, by, :], K_shared)
                if causal:
                    for i, j in T.Parallel(block_M, block_N):
                        acc_s[i, j] = T.if_then_else(
                            bx * block_M + i >= k * block_N + j, 0, -T.infinity(accum_dtype)
                        )
                else:
                    T.clear(acc_s)
                T.gemm(Q_shared, K_shared, acc_s, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)
                T.copy(V[bz, k * block_N : (k + 1) * block_N, by, :], V_shared)
                T.copy(m_i, m_prev)
                T.reduce_max(acc_s, m_i, dim=1, clear=False)
                for i in T.Parallel(block_M):
                    alpha[i] = T.exp2(m_prev[i] * scale - m_i[i] * scale)
                for i, j in T.Parallel(block_M, dim):
                    acc_o[i, j] *= alpha[i]
                for i, j in T.Parallel(block_M, block_N):
                    acc_s[i, j] = T.exp2(acc_s[i, j] * scale - m_i[i] * scale)
                T.reduce_sum(acc_s, row_sum, dim=1)
                for i in T.Parallel(block_M):
                    l_i[i] = l_i[i] * alpha[i] + row_sum[i]
                T.copy(acc_s, acc_s_cast)
                T.gemm(acc_s_cast, V_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)
            for i, j in T.Parallel(block_M, dim):
                acc_o[i, j] /= l_i[i]
            T.copy(acc_o, O_shared)
            T.copy(O_shared, Output[bz, bx * block_M : (bx + 1) * block_M, by, :])

    return main

"""FlashAttention forward (online softmax) written in TileLang, layout ``[batch, seq, heads, dim]``.

One block owns ``block_M`` query rows of one (batch, head); it streams K and V in ``block_N`` rows through a
software pipeline of ``num_stages`` buffers. ``causal`` masks keys after each query and stops the key loop
at the block's diagonal. Builds a ``T.prim_func`` without compiling it.
"""

import math

import tilelang.language as T

LOG2E = 1.44269504  # log2(e): the kernel uses exp2, so scores are pre-scaled by log2(e) / sqrt(dim)


@T.macro
def _softmax_pv(
    acc_s, acc_s_cast, V_shared, acc_o, m_i, m_prev, alpha, row_sum, l_i, block_M, block_N, dim, scale,
):  # fmt: skip
    """One key block of the online softmax, the scores ``acc_s`` computed and the V rows in shared memory:
    the running max and sum, the rescaled output, and P @ V into ``acc_o``."""
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
                _softmax_pv(
                    acc_s, acc_s_cast, V_shared, acc_o, m_i, m_prev, alpha, row_sum, l_i,
                    block_M, block_N, dim, scale,
                )  # fmt: skip
            for i, j in T.Parallel(block_M, dim):
                acc_o[i, j] /= l_i[i]
            T.copy(acc_o, O_shared)
            T.copy(O_shared, Output[bz, bx * block_M : (bx + 1) * block_M, by, :])

    return main


def flash_attention_varlen_fwd(
    batch: int,
    total_q: int,
    total_kv: int,
    heads: int,
    dim: int,
    causal: bool = False,
    block_M: int = 64,
    block_N: int = 64,
    num_stages: int = 1,
    threads: int = 128,
    dtype: str = "float16",
    accum_dtype: str = "float32",
):
    """FlashAttention forward over a packed variable-length batch, layout ``[tokens, heads, dim]``.

    Sequence ``b`` owns query rows ``cu_seqlens_q[b] .. cu_seqlens_q[b + 1]`` and key rows
    ``cu_seqlens_k[b] ..``; the grid is sized for the longest query sequence (the scalar ``max_seqlen_q``), so
    the blocks past a shorter sequence's end find no rows to write. A block streams its sequence's keys (up to
    its diagonal when ``causal``, queries aligned to the end of the keys). Returns the ``T.prim_func``
    (inputs Q, K, V, cu_seqlens_q, cu_seqlens_k, max_seqlen_q; output O)."""
    scale = LOG2E / math.sqrt(dim)

    @T.prim_func
    def main(
        Q: T.Tensor((total_q, heads, dim), dtype),
        K: T.Tensor((total_kv, heads, dim), dtype),
        V: T.Tensor((total_kv, heads, dim), dtype),
        cu_seqlens_q: T.Tensor((batch + 1,), "int32"),
        cu_seqlens_k: T.Tensor((batch + 1,), "int32"),
        max_seqlen_q: T.int32,
        Output: T.Tensor((total_q, heads, dim), dtype),
    ):
        with T.Kernel(T.ceildiv(max_seqlen_q, block_M), heads, batch, threads=threads) as (bx, by, bz):
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

            q_start = cu_seqlens_q[bz]
            k_start = cu_seqlens_k[bz]
            q_len = cu_seqlens_q[bz + 1] - q_start
            k_len = cu_seqlens_k[bz + 1] - k_start
            shift = k_len - q_len  # queries aligned to the end of the keys

            T.copy(Q[q_start + bx * block_M : q_start + (bx + 1) * block_M, by, :], Q_shared)
            T.fill(acc_o, 0)
            T.fill(l_i, 0)
            T.fill(m_i, -T.infinity(accum_dtype))
            if causal:
                trips = T.max(
                    T.min(T.ceildiv(k_len, block_N), T.ceildiv(shift + (bx + 1) * block_M, block_N)), 0
                )
            else:
                trips = T.ceildiv(k_len, block_N)
            for k in T.Pipelined(trips, num_stages=num_stages):
                T.copy(K[k_start + k * block_N : k_start + (k + 1) * block_N, by, :], K_shared)
                for i, j in T.Parallel(block_M, block_N):
                    keep = (bx * block_M + i < q_len) and (k * block_N + j < k_len)
                    if causal:
                        keep = keep and (bx * block_M + i + shift >= k * block_N + j)
                    acc_s[i, j] = T.if_then_else(keep, 0, -T.infinity(accum_dtype))
                T.gemm(Q_shared, K_shared, acc_s, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)
                T.copy(V[k_start + k * block_N : k_start + (k + 1) * block_N, by, :], V_shared)
                _softmax_pv(
                    acc_s, acc_s_cast, V_shared, acc_o, m_i, m_prev, alpha, row_sum, l_i,
                    block_M, block_N, dim, scale,
                )  # fmt: skip
            for i, j in T.Parallel(block_M, dim):
                acc_o[i, j] /= l_i[i]
            T.copy(acc_o, O_shared)
            for i, d in T.Parallel(block_M, dim):
                if bx * block_M + i < q_len:
                    Output[q_start + bx * block_M + i, by, d] = O_shared[i, d]

    return main


def flash_attention_blocksparse_fwd(
    batch: int,
    heads: int,
    seq_len: int,
    dim: int,
    block_M: int = 64,
    block_N: int = 64,
    num_stages: int = 1,
    threads: int = 128,
    dtype: str = "float16",
    accum_dtype: str = "float32",
):
    """Block-sparse FlashAttention forward, layout ``[batch, heads, seq, dim]``: query block ``bx`` of (batch,
    head) attends only to the key blocks its row of ``BlockMask`` (``[batch, heads, seq / block_M, seq /
    block_N]``, int32, nonzero = keep) keeps; the row is copied to a fragment and tested at each step of the
    key loop (int32: TileLang 0.1.15 cannot vectorise a copy of a bool row for CUDA).
    Returns the ``T.prim_func`` (inputs Q, K, V, BlockMask; output O)."""
    scale = LOG2E / math.sqrt(dim)
    shape = (batch, heads, seq_len, dim)
    q_blocks, k_blocks = seq_len // block_M, seq_len // block_N

    @T.prim_func
    def main(
        Q: T.Tensor(shape, dtype),
        K: T.Tensor(shape, dtype),
        V: T.Tensor(shape, dtype),
        BlockMask: T.Tensor((batch, heads, q_blocks, k_blocks), "int32"),
        Output: T.Tensor(shape, dtype),
    ):
        with T.Kernel(q_blocks, heads, batch, threads=threads) as (bx, by, bz):
            Q_shared = T.alloc_shared((block_M, dim), dtype)
            K_shared = T.alloc_shared((block_N, dim), dtype)
            V_shared = T.alloc_shared((block_N, dim), dtype)
            O_shared = T.alloc_shared((block_M, dim), dtype)
            keep = T.alloc_fragment((k_blocks,), "int32")
            acc_s = T.alloc_fragment((block_M, block_N), accum_dtype)
            acc_s_cast = T.alloc_fragment((block_M, block_N), dtype)
            acc_o = T.alloc_fragment((block_M, dim), accum_dtype)
            m_i = T.alloc_fragment((block_M,), accum_dtype)
            m_prev = T.alloc_fragment((block_M,), accum_dtype)
            alpha = T.alloc_fragment((block_M,), accum_dtype)
            row_sum = T.alloc_fragment((block_M,), accum_dtype)
            l_i = T.alloc_fragment((block_M,), accum_dtype)

            T.copy(BlockMask[bz, by, bx, :], keep)
            T.copy(Q[bz, by, bx * block_M : (bx + 1) * block_M, :], Q_shared)
            T.fill(acc_o, 0)
            T.fill(l_i, 0)
            T.fill(m_i, -T.infinity(accum_dtype))
            for k in T.Pipelined(k_blocks, num_stages=num_stages):
                if keep[k] != 0:
                    T.copy(K[bz, by, k * block_N : (k + 1) * block_N, :], K_shared)
                    T.clear(acc_s)
                    T.gemm(Q_shared, K_shared, acc_s, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)
                    T.copy(V[bz, by, k * block_N : (k + 1) * block_N, :], V_shared)
                    _softmax_pv(
                        acc_s, acc_s_cast, V_shared, acc_o, m_i, m_prev, alpha, row_sum, l_i,
                        block_M, block_N, dim, scale,
                    )  # fmt: skip
            for i, j in T.Parallel(block_M, dim):
                acc_o[i, j] /= l_i[i]
            T.copy(acc_o, O_shared)
            T.copy(O_shared, Output[bz, by, bx * block_M : (bx + 1) * block_M, :])

    return main

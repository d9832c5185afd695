"""MLA-style decode attention (DeepSeek multi-head latent attention, one query token) written in TileLang.

Every query head of a batch attends to one shared latent KV cache: ``KV`` [batch, seqlen_kv, dim] is both the
keys (with the rotary part ``K_pe`` [batch, seqlen_kv, pe_dim] appended) and the values. One block owns
``block_H`` heads of one batch row and streams the cache in ``block_N`` rows through ``num_stages`` buffers:
scores = Q @ KV^T + Q_pe @ K_pe^T, online softmax, P staged in shared memory, acc += P @ KV.

With ``num_split`` > 1 the cache is split into ``num_split`` slices (split-KV, as decode kernels do when a
batch is too small to fill the GPU): a first kernel gives each slice its own blocks, writing the slice's
normalised fp32 output and its log2-sum-exp per head to global scratch buffers, and a second kernel merges
the slices of each (batch, head) row, weighting each by ``exp2(lse_s - lse)``. Both live in one
``T.prim_func``.
Builds a ``T.prim_func`` without compiling.
"""

import math

import tilelang.language as T

LOG2E = 1.44269504  # log2(e): the kernel uses exp2


@T.macro
def _attend(
    Q_shared, Q_pe_shared, KV_shared, K_pe_shared, acc_s, S_shared, acc_o, m_i, m_prev, alpha, row_sum, l_i,
    block_H, dim, block_N, scale,
):  # fmt: skip
    """One cache block of the decode loop, its K/V rows in shared memory: scores, online softmax, P @ V."""
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
    num_split: int = 1,
    combine_threads: int = 128,
):
    """Return the ``T.prim_func`` of one MLA decode configuration (inputs Q, Q_pe, KV, K_pe; output O)."""
    scale = LOG2E / math.sqrt(dim + pe_dim)
    if num_split > 1:
        return _split_kv(
            batch, heads, seqlen_kv, dim, pe_dim, block_H, block_N, num_stages, threads, dtype, accum_dtype,
            num_split, combine_threads, scale,
        )  # fmt: skip
    if num_split != 1:
        raise ValueError(f"mla_decode: num_split={num_split} must be >= 1")

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
                _attend(
                    Q_shared, Q_pe_shared, KV_shared, K_pe_shared, acc_s, S_shared, acc_o, m_i, m_prev, alpha,
                    row_sum, l_i, block_H, dim, block_N, scale,
                )  # fmt: skip
            for i, j in T.Parallel(block_H, dim):
                acc_o[i, j] /= l_i[i]
            T.copy(acc_o, Output[by, bx * block_H : (bx + 1) * block_H, :])

    return main


def _split_kv(
    batch, heads, seqlen_kv, dim, pe_dim, block_H, block_N, num_stages, threads, dtype, accum_dtype,
    num_split, combine_threads, scale,
):  # fmt: skip
    """The split-KV program: per-slice attention into scratch buffers, then the merge (module docstring)."""
    if seqlen_kv % (num_split * block_N):
        raise ValueError(
            f"mla_decode: seqlen_kv={seqlen_kv} must be a multiple of num_split x block_N"
            f" = {num_split * block_N}"
        )
    part = seqlen_kv // num_split
    if dim % combine_threads:
        raise ValueError(f"mla_decode: dim={dim} must be a multiple of combine_threads={combine_threads}")

    @T.prim_func
    def main(
        Q: T.Tensor((batch, heads, dim), dtype),
        Q_pe: T.Tensor((batch, heads, pe_dim), dtype),
        KV: T.Tensor((batch, seqlen_kv, dim), dtype),
        K_pe: T.Tensor((batch, seqlen_kv, pe_dim), dtype),
        Output: T.Tensor((batch, heads, dim), dtype),
    ):
        partial = T.alloc_global((batch, heads, num_split, dim), accum_dtype)
        lse = T.alloc_global((batch, heads, num_split), accum_dtype)
        with T.Kernel(T.ceildiv(heads, block_H), batch, num_split, threads=threads) as (bx, by, bz):
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
            for k in T.Pipelined(part // block_N, num_stages=num_stages):
                start = bz * part + k * block_N
                T.copy(KV[by, start : start + block_N, :], KV_shared)
                T.copy(K_pe[by, start : start + block_N, :], K_pe_shared)
                _attend(
                    Q_shared, Q_pe_shared, KV_shared, K_pe_shared, acc_s, S_shared, acc_o, m_i, m_prev, alpha,
                    row_sum, l_i, block_H, dim, block_N, scale,
                )  # fmt: skip
            for i, j in T.Parallel(block_H, dim):
                acc_o[i, j] /= l_i[i]
            for i in T.Parallel(block_H):
                lse[by, bx * block_H + i, bz] = T.log2(l_i[i]) + m_i[i] * scale
            T.copy(acc_o, partial[by, bx * block_H : (bx + 1) * block_H, bz, :])

        with T.Kernel(heads, batch, threads=combine_threads) as (hx, bb):
            o = T.alloc_fragment((dim,), accum_dtype)
            top = T.alloc_var(accum_dtype)
            total = T.alloc_var(accum_dtype)
            weight = T.alloc_var(accum_dtype)
            top = -T.infinity(accum_dtype)
            for s in T.serial(num_split):
                top = T.max(top, lse[bb, hx, s])
            total = 0.0
            for s in T.serial(num_split):
                total += T.exp2(lse[bb, hx, s] - top)
            T.clear(o)
            for s in T.serial(num_split):
                weight = T.exp2(lse[bb, hx, s] - top) / total
                for j in T.Parallel(dim):
                    o[j] += partial[bb, hx, s, j] * weight
            for j in T.Parallel(dim):
                Output[bb, hx, j] = o[j]

    return main

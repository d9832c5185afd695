"""Tiled GEMM ``C = A @ B`` (A: M x K, B: K x N, row-major) written in TileLang.

One block computes a ``block_M x block_N`` tile of C, walking K in ``block_K`` steps through a software
pipeline of ``num_stages`` shared-memory buffers; ``use_swizzle`` turns on TileLang's row rasterisation
with panels of ``panel_size`` block rows. Builds a ``T.prim_func`` without compiling it.
"""

import tilelang.language as T


def gemm(
    M: int,
    N: int,
    K: int,
    block_M: int = 128,
    block_N: int = 128,
    block_K: int = 32,
    num_stages: int = 3,
    threads: int = 128,
    dtype: str = "float16",
    accum_dtype: str = "float32",
    use_swizzle: bool = False,
    panel_size: int = 10,
):
    """Return the ``T.prim_func`` of one GEMM configuration."""

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.use_swizzle(panel_size=panel_size, enable=use_swizzle)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


def gemm_fp8(
    M: int,
    N: int,
    K: int,
    block_M: int = 128,
    block_N: int = 128,
    block_K: int = 128,
    num_stages: int = 3,
    threads: int = 128,
    dtype: str = "float8_e4m3",
    out_dtype: str = "float16",
    promote_every: int = 0,
):
    """FP8 GEMM ``C = A @ B^T`` (A: M x K, B: N x K, both K-major, as fp8 tensor-core dots take them), fp32
    accumulation, C in ``out_dtype``. ``promote_every`` > 0 adds the tile's accumulator into a second fp32
    one every that many K steps and clears it (DeepSeek's "2xAcc": fp8 dots accumulate in reduced precision
    on Hopper, so long K sums are promoted in pieces); 0 keeps one accumulator."""

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((N, K), dtype),
        C: T.Tensor((M, N), out_dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_N, block_K), dtype)
            C_local = T.alloc_fragment((block_M, block_N), "float32")
            C_total = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_local)
            T.clear(C_total)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[bx * block_N, k * block_K], B_shared)
                T.gemm(A_shared, B_shared, C_local, transpose_B=True)
                if promote_every > 0:
                    if (k + 1) % promote_every == 0:
                        for i, j in T.Parallel(block_M, block_N):
                            C_total[i, j] += C_local[i, j]
                        T.clear(C_local)
            for i, j in T.Parallel(block_M, block_N):
                C_total[i, j] += C_local[i, j]
            T.copy(C_total, C[by * block_M, bx * block_N])

    return main


def gemm_splitk(
    M: int,
    N: int,
    K: int,
    block_M: int = 128,
    block_N: int = 128,
    block_K: int = 64,
    split_k: int = 4,
    num_stages: int = 3,
    threads: int = 128,
    dtype: str = "float16",
    accum_dtype: str = "float32",
):
    """Split-K GEMM ``C += A @ B``: a third grid dimension cuts K into ``split_k`` slices, each block computes
    its slice's ``block_M x block_N`` partial product and adds it into the fp32 C element by element with
    atomics (the caller zeroes C). For problems with few output tiles and a long K. ``K`` must be a multiple
    of ``split_k * block_K``."""
    if K % (split_k * block_K):
        raise ValueError(f"gemm_splitk: K={K} is not a multiple of split_k * block_K = {split_k * block_K}")
    part = K // split_k

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), accum_dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), split_k, threads=threads) as (bx, by, bz):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(part // block_K, num_stages=num_stages):
                T.copy(A[by * block_M, bz * part + k * block_K], A_shared)
                T.copy(B[bz * part + k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            for i, j in T.Parallel(block_M, block_N):
                T.atomic_add(C[by * block_M + i, bx * block_N + j], C_local[i, j])

    return main


def gemm_splitk_reduce(
    M: int,
    N: int,
    K: int,
    block_M: int = 128,
    block_N: int = 128,
    block_K: int = 64,
    split_k: int = 4,
    num_stages: int = 3,
    threads: int = 128,
    reduce_block: int = 64,
    dtype: str = "float16",
    accum_dtype: str = "float32",
):
    """Split-K GEMM ``C = A @ B`` in two kernels of one program: the first cuts K into ``split_k`` slices and
    writes each slice's fp32 partial tile to a global workspace (``T.alloc_global``, ``split_k x M x N``); the
    second adds a ``reduce_block`` square of the partials over the slices and writes it to C in ``dtype``.
    No atomics, so C needs no zeroing. ``K`` must be a multiple of ``split_k * block_K``."""
    if K % (split_k * block_K):
        raise ValueError(
            f"gemm_splitk_reduce: K={K} is not a multiple of split_k * block_K = {split_k * block_K}"
        )
    part = K // split_k
    rb = reduce_block

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        W = T.alloc_global((split_k, M, N), accum_dtype)
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), split_k, threads=threads) as (bx, by, bz):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(part // block_K, num_stages=num_stages):
                T.copy(A[by * block_M, bz * part + k * block_K], A_shared)
                T.copy(B[bz * part + k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, W[bz, by * block_M, bx * block_N])
        with T.Kernel(T.ceildiv(N, rb), T.ceildiv(M, rb), threads=128) as (bx, by):
            acc = T.alloc_fragment((rb, rb), accum_dtype)
            T.clear(acc)
            for s in T.serial(split_k):
                for i, j in T.Parallel(rb, rb):
                    acc[i, j] += W[s, by * rb + i, bx * rb + j]
            for i, j in T.Parallel(rb, rb):
                C[by * rb + i, bx * rb + j] = acc[i, j]

    return main


def gemm_persistent(
    M: int,
    N: int,
    K: int,
    block_M: int = 128,
    block_N: int = 256,
    block_K: int = 64,
    num_stages: int = 3,
    threads: int = 256,
    programs: int = 132,
    form: str = "primitive",
    dtype: str = "float16",
    accum_dtype: str = "float32",
):
    """A persistent GEMM: ``programs`` blocks (one per SM by default) loop over the ``block_M x block_N``
    tiles of C. ``form="primitive"`` walks them with ``T.Persistent``; ``form="manual"`` writes the wave loop
    out (tile ``w * programs + block`` in row-major tile order, a guard for the last wave)."""
    if form not in ("primitive", "manual"):
        raise ValueError(f"gemm_persistent: form={form!r}: one of 'primitive', 'manual'")
    m_blocks, n_blocks = -(-M // block_M), -(-N // block_N)
    waves = -(-(m_blocks * n_blocks) // programs)

    @T.prim_func
    def primitive(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(programs, threads=threads) as block_id:
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            for bm, bn in T.Persistent([m_blocks, n_blocks], programs, block_id):
                T.clear(C_local)
                for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                    T.copy(A[bm * block_M, k * block_K], A_shared)
                    T.copy(B[k * block_K, bn * block_N], B_shared)
                    T.gemm(A_shared, B_shared, C_local)
                T.copy(C_local, C[bm * block_M, bn * block_N])

    @T.prim_func
    def manual(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(programs, threads=threads) as block_id:
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            for w in T.serial(waves):
                tile = w * programs + block_id
                bm = tile // n_blocks
                bn = tile % n_blocks
                if bm < m_blocks:
                    T.clear(C_local)
                    for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                        T.copy(A[bm * block_M, k * block_K], A_shared)
                        T.copy(B[k * block_K, bn * block_N], B_shared)
                        T.gemm(A_shared, B_shared, C_local)
                    T.copy(C_local, C[bm * block_M, bn * block_N])

    return primitive if form == "primitive" else manual

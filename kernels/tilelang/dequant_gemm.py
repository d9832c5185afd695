"""Weight-only-quantised GEMM ``C = A @ dequant(B)^T`` written in TileLang (4-bit weights -> fp16).

``B`` holds an N x K matrix of 4-bit weights packed two per byte along K (``[N, K // 2]`` int8; element j of a
row sits in byte j // 2, low nibble first). Signed weights (``int4``) are stored with an offset of 8; unsigned
ones (``uint4``) are used as they are. Each block loads its A tile and packed B tile through a
``num_stages`` pipeline, unpacks B into shared memory in a ``T.Parallel`` loop, and multiplies with ``T.gemm``
(B transposed). ``unpack="registers"`` unpacks through fragments instead (packed tile copied to registers, the
nibbles decoded there, the half tile copied back to shared memory), as TileLang's own dequantisation
examples do. ``weight="int8"`` or ``"float8_e4m3"`` takes unpacked 8-bit weights (``B`` is ``[N, K]``) and
converts each tile with a ``T.copy`` into the fp16 buffer (weights used as they are, no scale). Builds a
``T.prim_func`` without compiling it.
"""

import tilelang.language as T

NIBBLE_BITS = 4  # bits per packed weight
NIBBLE_MASK = 0xF
INT4_OFFSET = 8  # signed 4-bit weights are stored as value + 8
EIGHT_BIT_WEIGHTS = ("int8", "float8_e4m3")  # unpacked weights, converted by a T.copy


def _nibble(packed, i, j, offset: int, dtype: str):
    """Weight ``[i, j]`` of a packed tile as ``dtype``: nibble ``j % 2`` of byte ``[i, j // 2]``, less
    ``offset`` (evaluated while TileLang builds the kernel, inside its ``T.Parallel`` loop)."""
    return T.Cast(dtype, ((packed[i, j // 2] >> ((j % 2) * NIBBLE_BITS)) & NIBBLE_MASK) - offset)


def dequant_gemm(
    M: int,
    N: int,
    K: int,
    block_M: int = 128,
    block_N: int = 128,
    block_K: int = 64,
    num_stages: int = 2,
    threads: int = 128,
    weight: str = "int4",
    dtype: str = "float16",
    accum_dtype: str = "float32",
    unpack: str = "shared",
):
    """Return the ``T.prim_func`` of one dequantising GEMM configuration (inputs A, B packed; output C)."""
    if weight in EIGHT_BIT_WEIGHTS:
        return _dequant_gemm_copy(
            M, N, K, block_M, block_N, block_K, num_stages, threads, weight, dtype, accum_dtype
        )
    if weight not in ("int4", "uint4"):
        raise ValueError(
            f"weight={weight!r}: one of 'int4', 'uint4', {', '.join(map(repr, EIGHT_BIT_WEIGHTS))}"
        )
    if unpack not in ("shared", "registers"):
        raise ValueError(f"unpack={unpack!r}: one of 'shared', 'registers'")
    if unpack == "registers":
        return _dequant_gemm_registers(
            M, N, K, block_M, block_N, block_K, num_stages, threads, weight, dtype, accum_dtype
        )
    offset = INT4_OFFSET if weight == "int4" else 0
    packed = block_K // 2

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((N, K // 2), "int8"),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_packed = T.alloc_shared((block_N, packed), "int8")
            B_shared = T.alloc_shared((block_N, block_K), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[bx * block_N, k * packed], B_packed)
                for i, j in T.Parallel(block_N, block_K):
                    B_shared[i, j] = _nibble(B_packed, i, j, offset, dtype)
                T.gemm(A_shared, B_shared, C_local, transpose_B=True)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


def _dequant_gemm_registers(
    M, N, K, block_M, block_N, block_K, num_stages, threads, weight, dtype, accum_dtype
):
    """The same GEMM with the unpacking done in registers (fragments) between two tile copies."""
    offset = INT4_OFFSET if weight == "int4" else 0
    packed = block_K // 2

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((N, K // 2), "int8"),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_packed = T.alloc_shared((block_N, packed), "int8")
            B_packed_local = T.alloc_fragment((block_N, packed), "int8")
            B_local = T.alloc_fragment((block_N, block_K), dtype)
            B_shared = T.alloc_shared((block_N, block_K), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[bx * block_N, k * packed], B_packed)
                T.copy(B_packed, B_packed_local)
                for i, j in T.Parallel(block_N, block_K):
                    B_local[i, j] = _nibble(B_packed_local, i, j, offset, dtype)
                T.copy(B_local, B_shared)
                T.gemm(A_shared, B_shared, C_local, transpose_B=True)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


def _dequant_gemm_copy(M, N, K, block_M, block_N, block_K, num_stages, threads, weight, dtype, accum_dtype):
    """8-bit weights: each loaded tile converted to ``dtype`` by a shared-to-shared ``T.copy``."""

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((N, K), weight),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_q = T.alloc_shared((block_N, block_K), weight)
            B_shared = T.alloc_shared((block_N, block_K), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[bx * block_N, k * block_K], B_q)
                T.copy(B_q, B_shared)
                T.gemm(A_shared, B_shared, C_local, transpose_B=True)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main

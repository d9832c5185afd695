"""Which tensor-core instruction family TileLang 0.1.15 lowers a ``T.gemm`` to, and its warp partition.

TileLang picks Hopper's warpgroup MMA (``wgmma``) when the target is sm_90, the block's warp count is a
multiple of a warpgroup, the tile has at least one warpgroup's rows, B sits in shared memory, and the
operand/accumulator dtypes are a wgmma combination (fp16/bf16 need K a multiple of 16; tf32, fp8 and int8
need A not transposed, B transposed ("K-major") and K a multiple of 8/32/32). Otherwise it uses warp-level
``mma``. This module restates that rule; it never calls TileLang's compiler.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tilesight.errors import FrontendError
from tilesight.hardware import HardwareProfile

# Architectures with warpgroup MMA (Hopper).
WGMMA_ARCHS = frozenset({"sm_90", "sm_90a"})
WARPS_PER_WARPGROUP = 4  # a warpgroup is four consecutive warps (PTX ISA, wgmma)
WGMMA_MIN_M = 64  # one warpgroup's wgmma covers 64 rows of the output tile
# K granularity per operand dtype for wgmma (PTX ISA: K = 32 bytes of operand per instruction)
_WGMMA_K_STEP = {"float16": 16, "bfloat16": 16, "tfloat32": 8, "float32": 8}
_WGMMA_K_MAJOR_ONLY_K_STEP = {"float8_e4m3fn": 32, "float8_e5m2": 32, "int8": 32, "uint8": 32}
# GemmWarpPolicy enum values as TileLang encodes them in the gemm call
POLICY_SQUARE, POLICY_FULL_ROW, POLICY_FULL_COL = 0, 1, 2
# The smallest per-warp share of the output tile TileLang's partition allows: 16 rows (one mma / one warp's
# slice of a wgmma) and 8 columns (the narrowest mma / wgmma N).
ROWS_PER_WARP = 16
COLS_PER_WARP = 8
WGMMA_MAX_N = 256  # widest wgmma instruction (PTX ISA: N in 8..256)
REGISTER_BYTES = 4  # one 32-bit register


@dataclass(frozen=True)
class GemmChoice:
    """The instruction family and how the block's warps split the (M, N) output tile.

    ``m_warps x n_warps`` is the block's warp count. Under wgmma a warpgroup is four consecutive warps
    stacked along M, so ``m_warps`` is a multiple of four and ``m_warps // 4`` warpgroups share M.
    """

    variant: str  # "wgmma" | "mma"
    m_warps: int
    n_warps: int


def select_variant(
    hw: HardwareProfile,
    *,
    a_dtype: str,
    b_dtype: str,
    b_shared: bool,
    m: int,
    k: int,
    trans_a: bool,
    trans_b: bool,
    threads: int,
) -> str:
    warps = threads // hw.warp_size
    if hw.arch not in WGMMA_ARCHS or m < WGMMA_MIN_M or warps % WARPS_PER_WARPGROUP or not b_shared:
        return "mma"
    if a_dtype != b_dtype and {a_dtype, b_dtype} - {"int8", "uint8"}:
        return "mma"
    if a_dtype in _WGMMA_K_STEP and a_dtype not in ("tfloat32", "float32"):
        return "wgmma" if k % _WGMMA_K_STEP[a_dtype] == 0 else "mma"
    step = _WGMMA_K_STEP.get(a_dtype) or _WGMMA_K_MAJOR_ONLY_K_STEP.get(a_dtype)
    if step is None:
        return "mma"
    return "wgmma" if (not trans_a and trans_b and k % step == 0) else "mma"


def warp_partition(variant: str, policy: int, m: int, n: int, threads: int, warp_size: int) -> GemmChoice:
    """Split the block's warps over M and N the way TileLang 0.1.15 does (``ComputeWarpPartition``).

    A split ``(mw, nw)`` is valid when ``mw * nw`` is the warp count, every warp gets a whole multiple of
    16 rows and 8 columns, and (wgmma) ``mw`` is a multiple of a warpgroup. FullRow takes the valid split
    with the most warps along M, FullCol the one with the most along N; Square the first (fewest warps
    along M) minimising ``|(M / 16mw) / (N / 8nw) - M / N|``. No valid split raises FrontendError.
    """
    warps = threads // warp_size
    group = WARPS_PER_WARPGROUP if variant == "wgmma" else 1
    valid = [
        (mw, warps // mw)
        for mw in range(group, warps + 1, group)
        if warps % mw == 0 and m % (mw * ROWS_PER_WARP) == 0 and n % (warps // mw * COLS_PER_WARP) == 0
    ]
    if not valid:
        raise FrontendError(
            f"T.gemm {m}x{n} cannot be split over {warps} warps ({variant}): each warp needs a multiple of "
            f"{ROWS_PER_WARP} rows and {COLS_PER_WARP} columns",
            construct="T.gemm",
        )
    if policy == POLICY_FULL_ROW:
        mw, nw = max(valid)
    elif policy == POLICY_FULL_COL:
        mw, nw = min(valid)
    else:
        ideal = m / n
        mw, nw = min(
            valid, key=lambda c: abs((m / (c[0] * ROWS_PER_WARP)) / (n / (c[1] * COLS_PER_WARP)) - ideal)
        )
    return GemmChoice(variant, mw, nw)


def wgmma_instructions_along_n(choice: GemmChoice, n: int) -> int:
    """wgmma instructions a warpgroup issues side by side to cover its columns of an ``n``-column tile (each
    at most :data:`WGMMA_MAX_N` wide)."""
    return -(-(n // choice.n_warps) // WGMMA_MAX_N)


def wgmma_accumulator_registers(choice: GemmChoice, n: int, acc_bytes: float, warp_size: int) -> int:
    """Registers of a thread one wgmma instruction's accumulator takes: its 64 rows by the warpgroup's
    columns (in :func:`wgmma_instructions_along_n` pieces) of ``acc_bytes``-byte values, over the
    warpgroup's threads (an m64n256k16 with fp32 accumulation: 64 x 256 x 4 B / 128 threads = 128)."""
    width = n // choice.n_warps // wgmma_instructions_along_n(choice, n)
    return math.ceil(WGMMA_MIN_M * width * acc_bytes / (WARPS_PER_WARPGROUP * warp_size * REGISTER_BYTES))


def operand_smem_reads(choice: GemmChoice, m: int, n: int, a_bytes: float, b_bytes: float) -> float:
    """Shared-memory bytes one ``T.gemm`` reads for its operands (pass 0 for an operand in registers).

    mma: every warp loads its own rows of A and columns of B once per K step, so A is read once per warp
    column and B once per warp row. wgmma: each instruction covers 64 rows and the warpgroup's columns (in
    pieces of at most 256) and reads its A and B slices itself, so B is read once per 64 rows of the tile
    and A once per warpgroup column and instruction along N.
    """
    if choice.variant == "wgmma":
        return a_bytes * choice.n_warps * wgmma_instructions_along_n(choice, n) + b_bytes * (m // WGMMA_MIN_M)
    return a_bytes * choice.n_warps + b_bytes * choice.m_warps

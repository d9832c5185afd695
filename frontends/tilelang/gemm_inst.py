"""Which tensor-core instruction family TileLang 0.1.15 lowers a ``T.gemm`` to, and its warp partition.

TileLang picks Hopper's warpgroup MMA (``wgmma``) when the target is sm_90, the block's warp count is a
multiple of a warpgroup, the tile has at least one warpgroup's rows, B sits in shared memory, and the
operand/accumulator dtypes are a wgmma combination (fp16/bf16 need K a multiple of 16; tf32, fp8 and int8
need A not transposed, B transposed ("K-major") and K a multiple of 8/32/32). Otherwise it uses warp-level
``mma``. This module restates that rule; it never calls TileLang's compiler.
"""

from __future__ import annotations

from dataclasses import dataclass

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


@dataclass(frozen=True)
class GemmChoice:
    """The instruction family and how the block's warps split the (M, N) tile."""

    variant: str  # "wgmma" | "mma"
    m_parts: int  # warps (mma) or warpgroups (wgmma) along M
    n_parts: int  # along N


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
    """Split the warps (or warpgroups) over M and N the way the policy asks.

    FullRow puts every unit along M, FullCol along N; Square picks the factorisation whose per-unit tile
    is closest to square. Units along M never exceed the rows available (M / 16 rows per mma warp,
    M / 64 per warpgroup); the rest go along N.
    """
    unit_warps = WARPS_PER_WARPGROUP if variant == "wgmma" else 1
    unit_rows = WGMMA_MIN_M if variant == "wgmma" else 16
    units = max(1, threads // warp_size // unit_warps)
    max_m = max(1, m // unit_rows)
    candidates = [(mp, units // mp) for mp in range(1, units + 1) if units % mp == 0 and mp <= max_m]
    if policy == POLICY_FULL_ROW:
        mp, np_ = max(candidates)
    elif policy == POLICY_FULL_COL:
        mp, np_ = min(candidates)
    else:
        mp, np_ = min(candidates, key=lambda c: (abs(m / c[0] - n / c[1]), -c[0]))
    return GemmChoice(variant, mp, np_)

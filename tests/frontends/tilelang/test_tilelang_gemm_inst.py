"""TileLang 0.1.15's wgmma-or-mma choice and warp partition, restated (no TileLang needed)."""

import pytest
from tilesight.frontends.tilelang.gemm_inst import (
    POLICY_FULL_COL,
    POLICY_FULL_ROW,
    POLICY_SQUARE,
    GemmChoice,
    operand_smem_reads,
    select_variant,
    warp_partition,
    wgmma_accumulator_registers,
    wgmma_instructions_along_n,
)

from tilesight.errors import FrontendError
from tilesight.hardware import load_profile


def _pick(hw="h200", **kw):
    args = dict(
        a_dtype="float16", b_dtype="float16", b_shared=True, m=128, k=32, trans_a=False, trans_b=False
    )
    args["threads"] = 128
    args.update(kw)
    return select_variant(load_profile(hw), **args)


def test_hopper_fp16_block_gets_wgmma():
    assert _pick() == "wgmma"
    assert _pick(a_dtype="bfloat16", b_dtype="bfloat16") == "wgmma"


@pytest.mark.parametrize(
    "kw",
    [
        {"threads": 96},  # 3 warps: not a whole warpgroup
        {"m": 32},  # fewer rows than one warpgroup's 64
        {"k": 24},  # fp16 wgmma steps K by 16
        {"b_shared": False},  # B must sit in shared memory
        {"a_dtype": "float8_e4m3fn", "b_dtype": "float8_e4m3fn", "k": 64},  # fp8 needs B transposed (K-major)
    ],
)
def test_fallbacks_to_mma(kw):
    assert _pick(**kw) == "mma"


def test_fp8_k_major_gets_wgmma():
    assert _pick(a_dtype="float8_e4m3fn", b_dtype="float8_e4m3fn", k=64, trans_b=True) == "wgmma"


def test_non_hopper_gets_mma():
    assert _pick(hw="a100") == "mma"


def _warps(*args):
    choice = warp_partition(*args)
    return choice.m_warps, choice.n_warps


def test_warp_partition_policies():
    """Splits in warps (m_warps, n_warps), each checked against TileLang 0.1.15's lowered CUDA for sm_90a."""
    # Square, 8 warps on 128 x 128: m_warps must be 4 or 8 (whole warpgroups along M);
    # (4, 2): |(128/64) / (128/16) - 1| = 0.75; (8, 1): |(128/128) / (128/8) - 1| = 0.9375 -> (4, 2): both
    # warpgroups take all 128 rows and 64 columns each (lowered: m64n64 wgmma twice along M).
    assert _warps("wgmma", POLICY_SQUARE, 128, 128, 256, 32) == (4, 2)
    # 256 x 128: (4, 2) scores |4/8 - 2| = 1.5, (8, 1) |2/16 - 2| = 1.875 (lowered: m64n64 four times).
    assert _warps("wgmma", POLICY_SQUARE, 256, 128, 256, 32) == (4, 2)
    # 128 x 256: (4, 2) scores |2/16 - 0.5| = 0.375, (8, 1) |1/32 - 0.5| = 0.47 (lowered: m64n128 twice).
    assert _warps("wgmma", POLICY_SQUARE, 128, 256, 256, 32) == (4, 2)
    # One warpgroup: the only split.
    assert _warps("wgmma", POLICY_SQUARE, 128, 128, 128, 32) == (4, 1)
    # FullRow (FlashAttention's Q K^T): both warpgroups along M (lowered: m64n128, A offset per warpgroup).
    assert _warps("wgmma", POLICY_FULL_ROW, 128, 128, 256, 32) == (8, 1)
    # FullCol (MLA's 64 x 32 scores): warpgroups along N (lowered: m64n16 per warpgroup).
    assert _warps("wgmma", POLICY_FULL_COL, 64, 32, 256, 32) == (4, 2)
    # M = 64 holds one warpgroup of rows only: FullRow cannot put two along M.
    assert _warps("wgmma", POLICY_FULL_ROW, 64, 128, 256, 32) == (4, 2)
    # mma, 4 warps on 128 x 128: (1,4) scores |8/4 - 1| = 1, (2,2) |4/8 - 1| = 0.5, (4,1) |2/16 - 1| = 0.875.
    assert _warps("mma", POLICY_SQUARE, 128, 128, 128, 32) == (2, 2)


def test_no_valid_partition_is_an_error():
    # 8 warps cannot cover 64 x 8 under wgmma: (4, 2) leaves 4 columns per warp, (8, 1) 8 rows per warp.
    with pytest.raises(FrontendError, match="T.gemm 64x8"):
        warp_partition("wgmma", POLICY_SQUARE, 64, 8, 256, 32)


def test_operand_smem_reads():
    a, b = 16384.0, 16384.0  # 128 x 64 and 64 x 128 fp16 tiles
    # wgmma (4, 2) on 128 x 128: B read once per 64 rows (2x), A once per warpgroup column (2x) -> 64 KiB.
    assert operand_smem_reads(GemmChoice("wgmma", 4, 2), 128, 128, a, b) == 2 * a + 2 * b
    # wgmma, one warpgroup on 128 x 128: A once, B twice (two m64 instructions) -> 48 KiB.
    assert operand_smem_reads(GemmChoice("wgmma", 4, 1), 128, 128, a, b) == a + 2 * b
    # wgmma with A in registers (FlashAttention's P V, 64 rows): only B, once.
    assert operand_smem_reads(GemmChoice("wgmma", 4, 2), 64, 512, 0.0, b) == b
    # a 512-wide warpgroup tile needs two N=256 instructions, each re-reading A.
    assert operand_smem_reads(GemmChoice("wgmma", 4, 1), 64, 512, a, 0.0) == 2 * a
    # mma (2, 2): A once per warp column, B once per warp row.
    assert operand_smem_reads(GemmChoice("mma", 2, 2), 128, 128, a, b) == 2 * a + 2 * b


@pytest.mark.parametrize(
    ("choice", "n", "acc_bytes", "instructions", "registers"),
    [
        # one warpgroup over 256 columns: one m64n256 instruction, 64 x 256 x 4 B / 128 threads / 4 B = 128
        (GemmChoice("wgmma", 4, 1), 256, 4, 1, 128),
        # ... over 128 columns: m64n128, 64 x 128 x 4 / 128 / 4 = 64
        (GemmChoice("wgmma", 4, 1), 128, 4, 1, 64),
        # 256 columns split over two warp columns: each warpgroup's m64n128, 64 registers
        (GemmChoice("wgmma", 4, 2), 256, 4, 1, 64),
        # 512 columns on one warpgroup: two m64n256 side by side, 128 each
        (GemmChoice("wgmma", 4, 1), 512, 4, 2, 128),
        # fp16 accumulation halves it: 64 x 256 x 2 / 128 / 4 = 64
        (GemmChoice("wgmma", 4, 1), 256, 2, 1, 64),
    ],
)
def test_wgmma_accumulator_registers(choice, n, acc_bytes, instructions, registers):
    assert wgmma_instructions_along_n(choice, n) == instructions
    assert wgmma_accumulator_registers(choice, n, acc_bytes, 32) == registers

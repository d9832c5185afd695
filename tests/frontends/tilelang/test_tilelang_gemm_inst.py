"""TileLang 0.1.15's wgmma-or-mma choice and warp partition, restated (no TileLang needed)."""

import pytest
from tilesight.frontends.tilelang.gemm_inst import (
    POLICY_FULL_COL,
    POLICY_FULL_ROW,
    POLICY_SQUARE,
    select_variant,
    warp_partition,
)

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


def _parts(*args):
    choice = warp_partition(*args)
    return choice.m_parts, choice.n_parts


def test_warp_partition_policies():
    # wgmma, 256 threads = 2 warpgroups: FullRow puts both along M, FullCol along N.
    assert _parts("wgmma", POLICY_FULL_ROW, 128, 128, 256, 32) == (2, 1)
    assert _parts("wgmma", POLICY_FULL_COL, 128, 128, 256, 32) == (1, 2)
    # Square for 128 x 256: (1, 2) gives 128 x 128 per warpgroup, exactly square.
    assert _parts("wgmma", POLICY_SQUARE, 128, 256, 256, 32) == (1, 2)
    # mma, 4 warps on 128 x 128: (2, 2) gives 64 x 64 per warp.
    assert _parts("mma", POLICY_SQUARE, 128, 128, 128, 32) == (2, 2)
    # M = 64 holds one warpgroup of rows only: FullRow cannot put two along M.
    assert _parts("wgmma", POLICY_FULL_ROW, 64, 128, 256, 32) == (1, 2)

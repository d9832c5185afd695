"""tilesight.library.gemm: the hand-written GEMM plan."""

from __future__ import annotations

import numpy as np
import pytest

from tilesight.errors import PlanError
from tilesight.library.gemm import gemm_plan
from tilesight.plan import AccessMode, ActionKind, LaunchOrder, Loop


def test_square_gemm_shape_and_tensors():
    plan = gemm_plan(1024, 2048, 512, 128, 64, 32)
    # 1024/128 = 8 M tiles, 2048/64 = 32 N tiles, 512/32 = 16 K steps
    assert plan.grid.shape == (8, 32)
    assert plan.grid.dims == ("m", "n")
    assert plan.grid.order is LaunchOrder.ROW_MAJOR
    assert not plan.grid.persistent
    a, b, c = plan.tensor("a"), plan.tensor("b"), plan.tensor("c")
    assert a.reuse_dims == {"n"} and b.reuse_dims == {"m"} and c.reuse_dims == frozenset()
    assert c.mode is AccessMode.WRITE
    assert a.tile == (128, 32) and b.tile == (32, 64) and c.tile == (128, 64)
    assert not (a.masked or b.masked or c.masked)
    # each tile loads A and B once per K step and stores C once
    assert plan.access_count("a") == 16 and plan.access_count("b") == 16 and plan.access_count("c") == 1
    loop = plan.body[0]
    assert isinstance(loop, Loop) and loop.reduction and loop.stages == 3 and loop.trips == 16
    dot = [act for act, _ in plan.actions() if act.kind is ActionKind.DOT][0]
    # 2 * 128 * 64 * 32 = 524288 flops per K step
    assert dot.shape == (128, 64, 32) and dot.flops == 524288
    # 3 stages x (128*32 + 32*64) fp16 elements x 2 bytes = 3 * 6144 * 2 = 36864
    assert plan.resources.smem_bytes == 36864
    assert plan.resources.threads == 128


def test_masked_when_not_divisible():
    plan = gemm_plan(1000, 1024, 100, 128, 128, 64)
    # ceil(1000/128) = 8, 1024/128 = 8, ceil(100/64) = 2
    assert plan.grid.shape == (8, 8)
    assert plan.tensor("a").masked and plan.tensor("b").masked and plan.tensor("c").masked
    assert plan.access_count("a") == 2


def test_tile_larger_than_tensor_is_masked():
    plan = gemm_plan(16, 16, 16, 64, 64, 32)
    assert plan.grid.shape == (1, 1)
    assert plan.tensor("a").masked


def test_grouped_and_persistent():
    plan = gemm_plan(4096, 4096, 4096, 128, 128, 64, group_m=8, programs=132)
    assert plan.grid.order is LaunchOrder.GROUPED and plan.grid.group_size == 8
    assert plan.grid.persistent and plan.grid.blocks == 132 and plan.grid.tiles == 1024
    # GROUP_M=8: first 8 launches walk down m in column n=0
    coords = plan.grid.coordinates()
    np.testing.assert_array_equal(
        coords[:9], [[0, 0], [1, 0], [2, 0], [3, 0], [4, 0], [5, 0], [6, 0], [7, 0], [0, 1]]
    )


def test_programs_at_least_tiles_is_not_persistent():
    plan = gemm_plan(256, 256, 256, 128, 128, 64, programs=132)
    assert not plan.grid.persistent and plan.grid.blocks == 4


def test_options_pass_through():
    plan = gemm_plan(
        512,
        512,
        512,
        64,
        64,
        64,
        num_warps=8,
        dtype="bf16",
        out_dtype="fp32",
        smem_bytes=1000,
        regs_per_thread=168,
        variant="wgmma",
        num_stages=4,
    )
    assert plan.tensor("a").dtype == "bfloat16" and plan.tensor("c").dtype == "float32"
    assert plan.resources.threads == 256 and plan.resources.smem_bytes == 1000
    assert plan.resources.regs_per_thread == 168
    dot = [act for act, _ in plan.actions() if act.kind is ActionKind.DOT][0]
    assert dot.variant == "wgmma" and dot.dtype == "bfloat16"


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"M": 0}, "gemm.M"),
        ({"block_k": -1}, "gemm.block_k"),
        ({"group_m": 0}, "gemm.group_m"),
        ({"programs": 0}, "gemm.programs"),
        ({"num_stages": 1.5}, "gemm.num_stages"),
    ],
)
def test_bad_input_names_field(kwargs, field):
    args = {"M": 64, "N": 64, "K": 64, "block_m": 64, "block_n": 64, "block_k": 32}
    args.update(kwargs)
    with pytest.raises(PlanError) as info:
        gemm_plan(**args)
    assert info.value.field == field


def test_unknown_dtype():
    with pytest.raises(PlanError):
        gemm_plan(64, 64, 64, 64, 64, 32, dtype="float7")

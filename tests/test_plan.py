"""Plan validation: an inconsistent plan raises a typed error naming the field and the value."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tilesight as ts
from tilesight.errors import LaunchError, PlanError
from tilesight.library.gemm import gemm_plan
from tilesight.plan import (
    ActionKind,
    BlockResources,
    Loop,
    TensorAccess,
    TileAction,
    TileGrid,
    TilePlan,
    walked_trips,
)


def _tensor(**kw):
    return TensorAccess("x", "float16", (64, 64), (32, 32), **kw)


def test_dependency_cycle():
    body = (
        TileAction("a", ActionKind.ELEMENTWISE, flops=1, deps=("b",)),
        TileAction("b", ActionKind.ELEMENTWISE, flops=1, deps=("a",)),
    )
    with pytest.raises(PlanError, match="body.deps") as err:
        TilePlan("cyc", TileGrid((1,)), (), body, BlockResources(32))
    assert set(err.value.value) == {"a", "b"} and "cycle" in err.value.problem


def test_tile_larger_than_tensor_without_mask():
    with pytest.raises(PlanError, match=r"tensor\[x\].tile\[0\]=128"):
        TensorAccess("x", "float16", (64, 64), (128, 32))
    assert TensorAccess("x", "float16", (64, 64), (128, 32), masked=True).tile == (128, 32)


def test_block_keys_are_integers_compared_by_their_equalities():
    with pytest.raises(PlanError, match=r"tensor\[x\].block_keys"):
        _tensor(block_keys=np.array([0, -1]))
    with pytest.raises(PlanError, match="one non-negative integer key per tile"):
        _tensor(block_keys=np.array([0.5, 1.0]))
    a = _tensor(block_keys=np.array([30, 10, 30, 20]))
    np.testing.assert_array_equal(a.block_keys, [2, 0, 2, 1])  # ranks: the same equalities
    assert a == _tensor(block_keys=np.array([3, 1, 3, 2])) and hash(a) == hash(
        _tensor(block_keys=[5, 0, 5, 1])
    )
    assert a != _tensor(block_keys=np.array([0, 0, 1, 1])) and a != _tensor()


def test_negative_trip_count():
    body = (TileAction("a", ActionKind.ELEMENTWISE, flops=1),)
    with pytest.raises(PlanError, match=r"loop\[k\].trips=-1"):
        Loop("k", -1, body)


def test_reload_waits_are_counts():
    body = (TileAction("a", ActionKind.ELEMENTWISE, flops=1),)
    with pytest.raises(PlanError, match=r"loop\[k\].reload_waits=-1"):
        Loop("k", 4, body, reload_waits=-1)
    with pytest.raises(PlanError, match=r"loop\[k\].stored_reload_waits=1.5"):
        Loop("k", 4, body, stored_reload_waits=1.5)
    assert Loop("k", 4, body, reload_waits=np.int64(3)).reload_waits == 3


def test_unknown_dependency_and_duplicate_names():
    with pytest.raises(PlanError, match="is not a sibling"):
        TilePlan(
            "p",
            TileGrid((1,)),
            (),
            (TileAction("a", ActionKind.ELEMENTWISE, flops=1, deps=("zz",)),),
            BlockResources(32),
        )
    body = (TileAction("a", ActionKind.ELEMENTWISE, flops=1), TileAction("a", ActionKind.SFU, flops=1))
    with pytest.raises(PlanError, match="unique"):
        TilePlan("p", TileGrid((1,)), (), body, BlockResources(32))


def test_shared_memory_beyond_the_gpu_limit():
    plan = gemm_plan(4096, 4096, 4096, 256, 256, 128, num_stages=4)  # 4 x (256x128 + 128x256) x 2 B = 512 KiB
    with pytest.raises(LaunchError, match="resources.smem_bytes=524288 exceeds h200's limit of 232448"):
        ts.estimate(plan, hw="h200")


def test_unknown_profile():
    with pytest.raises(ts.UnknownProfileError, match="unknown hardware profile 'gpu9000'"):
        ts.estimate(gemm_plan(256, 256, 256, 64, 64, 32), hw="gpu9000")


def test_bad_action_kind_and_dot_shape():
    with pytest.raises(PlanError, match=r"action\[a\].kind='fma'"):
        TileAction("a", "fma")
    with pytest.raises(PlanError, match=r"action\[d\].shape"):
        TileAction("d", ActionKind.DOT, dtype="float16", shape=(1, 2))
    assert _tensor().tile_bytes == 32 * 32 * 2


def test_group_split_names_rows_or_columns():
    from tilesight.plan import BlockResources

    assert BlockResources(256, compute_groups=2).group_split == "rows"
    assert BlockResources(256, compute_groups=2, group_split="columns").group_split == "columns"
    with pytest.raises(PlanError, match=r"resources.group_split='diagonal'.*rows, columns"):
        BlockResources(256, compute_groups=2, group_split="diagonal")


def test_loop_mean_trips_is_validated_and_used_for_work():
    from tilesight.plan import Loop

    assert Loop("l", 3, ()).work_trips == 3
    assert Loop("l", 3, (), mean_trips=2.5).work_trips == 2.5
    for bad in (-1.0, float("nan"), float("inf"), True, "2"):
        with pytest.raises(PlanError, match="mean_trips"):
            Loop("l", 3, (), mean_trips=bad)


def test_serial_chain_validation():
    from tilesight.plan import SerialChain

    with pytest.raises(PlanError, match="chain.alu"):
        SerialChain(iterations=1, lanes=2, alu=-1, cvt=0)
    with pytest.raises(PlanError, match="chain.iterations"):
        SerialChain(iterations=0, lanes=2, alu=1, cvt=0)
    chain = SerialChain(iterations=4, lanes=2, alu=1, cvt=1)
    with pytest.raises(PlanError, match=r"action\[mm\].chain"):
        TileAction("mm", ActionKind.DOT, dtype="float16", shape=(16, 16, 16), chain=chain)
    assert TileAction("ew", ActionKind.ELEMENTWISE, flops=1.0, chain=chain).chain is chain


def test_scan_carry_validation():
    from tilesight.plan import ScanCarry

    with pytest.raises(PlanError, match="scan.steps"):
        ScanCarry(steps=0)
    with pytest.raises(PlanError, match="scan.lines"):
        ScanCarry(steps=4, lines=0)
    with pytest.raises(PlanError, match="scan.operands"):
        ScanCarry(steps=4, operands=-1)
    scan = ScanCarry(steps=128, lines=8, operands=2)
    with pytest.raises(PlanError, match=r"action\[ew\].scan"):
        TileAction("ew", ActionKind.ELEMENTWISE, flops=1.0, scan=scan)
    with pytest.raises(PlanError, match=r"action\[r\].scan"):
        TileAction("r", ActionKind.REDUCE, flops=1.0, scan=(128, 8, 2))
    assert TileAction("r", ActionKind.REDUCE, flops=1.0, scan=scan).scan is scan


def test_kernel_sequence_validation():
    import dataclasses

    from tilesight.plan import KernelSequence

    plan = TilePlan(
        "p", TileGrid((1,)), (), (TileAction("a", ActionKind.ELEMENTWISE, flops=1),), BlockResources(32)
    )
    with pytest.raises(PlanError, match="at least one kernel"):
        KernelSequence("p", ())
    with pytest.raises(PlanError, match="must be a TilePlan"):
        KernelSequence("p", (plan, "kernel"))
    with pytest.raises(PlanError, match="unique"):
        KernelSequence("p", (plan, plan))
    seq = KernelSequence("p", [plan, dataclasses.replace(plan, name="other")])
    assert isinstance(seq.plans, tuple) and len(seq.plans) == 2


def test_l2_warm_validation():
    body = (TileAction("a", ActionKind.LOAD, tensor="x"),)
    with pytest.raises(PlanError, match="is not a tensor of the plan"):
        TilePlan("p", TileGrid((1,)), (_tensor(),), body, BlockResources(32), l2_warm=(("y", 0.5),))
    with pytest.raises(PlanError, match=r"l2_warm\[x\]"):
        TilePlan("p", TileGrid((1,)), (_tensor(),), body, BlockResources(32), l2_warm=(("x", 1.5),))
    plan = TilePlan("p", TileGrid((1,)), (_tensor(),), body, BlockResources(32), l2_warm=[("x", 1)])
    assert plan.l2_warm == (("x", 1.0),)


def test_dot_instruction_width_must_be_positive():
    from tilesight.errors import PlanError
    from tilesight.plan import ActionKind, TileAction

    assert TileAction("d", ActionKind.DOT, dtype="float16", shape=(64, 16, 64), mma_n=16).mma_n == 16
    with pytest.raises(PlanError, match="mma_n"):
        TileAction("d", ActionKind.DOT, dtype="float16", shape=(64, 16, 64), mma_n=0)
    with pytest.raises(PlanError, match="mma_a_registers"):
        TileAction("e", ActionKind.ELEMENTWISE, dtype="float32", shape=(64, 64), mma_a_registers=True)


def test_loops_lists_every_loop_outer_first():
    x = TensorAccess("x", "float16", (64, 64), (16, 16))
    load = TileAction("load", ActionKind.LOAD, tensor="x")
    inner = Loop("inner", 2, (load,))
    outer = Loop("outer", 3, (inner, TileAction("ew", ActionKind.ELEMENTWISE, flops=1.0)))
    other = Loop("other", 4, (TileAction("ew2", ActionKind.ELEMENTWISE, flops=1.0),))
    plan = TilePlan("p", TileGrid((4,)), (x,), (outer, other), BlockResources(128))
    assert [lp.name for lp in plan.loops()] == ["outer", "inner", "other"]


def test_tiles_in_flight_must_be_a_positive_count():
    assert TileGrid((8,), programs=4, tiles_in_flight=3).tiles_in_flight == 3
    with pytest.raises(PlanError, match=r"grid.tiles_in_flight=0"):
        TileGrid((8,), programs=4, tiles_in_flight=0)


def test_load_rereads_checked():
    ok = TileAction("l", ActionKind.LOAD, tensor="x", rereads=[(3, 0.5), (1, 0.25)], fresh_steps=0.5)
    assert ok.rereads == ((1, 0.25), (3, 0.5))  # sorted by gap, a tuple
    bad = [
        (dict(rereads=((0, 0.5),)), r"rereads\[0\].gap=0"),
        (dict(rereads=((1, 1.5),)), r"rereads\[0\].share=1.5"),
        (dict(rereads=((1, 0.6), (2, 0.6))), "sum to more than 1"),
        (dict(rereads=((1, 0.1), (1, 0.1))), "each gap at most once"),
        (dict(rereads=5), "sequence of \\(gap, share\\) pairs"),
        (dict(fresh_steps=0.5), "below 1 only for a load with rereads"),
        (dict(rereads=((1, 0.5),), fresh_steps=0.0), r"fresh_steps=0.0: must be a number in \(0, 1\]"),
    ]
    for kwargs, match in bad:
        with pytest.raises(PlanError, match=match):
            TileAction("l", ActionKind.LOAD, tensor="x", **kwargs)
    with pytest.raises(PlanError, match="only a load re-reads its own blocks"):
        TileAction("s", ActionKind.STORE, tensor="x", rereads=((1, 0.5),))


def test_reduce_outputs_validated():
    # a reduction's outputs: a positive integer (default 1); other kinds keep 1
    red = TileAction("r", ActionKind.REDUCE, flops=1024.0, warps=4, outputs=8)
    assert red.outputs == 8 and TileAction("e", ActionKind.ELEMENTWISE, flops=1.0).outputs == 1
    with pytest.raises(PlanError, match="outputs"):
        TileAction("r", ActionKind.REDUCE, flops=1024.0, outputs=0)
    with pytest.raises(PlanError, match="only a reduction"):
        TileAction("e", ActionKind.ELEMENTWISE, flops=1.0, outputs=2)


@pytest.mark.parametrize(
    "mean, walked", [(0.0, 0), (0.2, 1), (0.5, 1), (1.49, 1), (1.5, 2), (7.0, 7), (7.5, 8)]
)
def test_walked_trips_rounds_the_mean_and_keeps_a_loop_some_programs_enter(mean, walked):
    assert walked_trips(mean) == walked


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=0.0, max_value=1e6, allow_nan=False))
def test_walked_trips_is_the_nearest_count_and_none_only_for_no_trips(mean):
    walked = walked_trips(mean)
    assert (walked == 0) == (mean == 0.0)
    assert abs(walked - mean) <= 0.5 or (walked == 1 and mean < 0.5)


def test_lane_stride_only_on_a_split_memory_access():
    from tilesight.plan import ActionKind, TileAction

    ok = TileAction("st", ActionKind.STORE, tensor="y", vector_bytes=2, lane_stride_bytes=16)
    assert ok.lane_stride_bytes == 16
    for kwargs, match in (
        (dict(kind=ActionKind.STORE, tensor="y", vector_bytes=2, lane_stride_bytes=2), "must exceed"),
        (dict(kind=ActionKind.STORE, tensor="y", lane_stride_bytes=16), "with vector_bytes"),
        (dict(kind=ActionKind.ELEMENTWISE, vector_bytes=2, lane_stride_bytes=16), "load or store"),
        (dict(kind=ActionKind.LOAD, tensor="y", vector_bytes=2, lane_stride_bytes=0), "lane_stride_bytes"),
    ):
        with pytest.raises(PlanError, match=match):
            TileAction("a", **kwargs)

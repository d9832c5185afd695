"""Per-action resource vectors on the round-number GPU (tests/model/conftest.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesight.cache.base import CacheTraffic, TensorTraffic
from tilesight.errors import PlanError
from tilesight.model.resources import CUDA, DDR, L2, SFU, SMEM, TC, TMEM, action_demand, region_scale
from tilesight.plan import (
    AccessMode,
    ActionKind,
    BlockResources,
    Loop,
    MemLevel,
    TensorAccess,
    TileAction,
    TileGrid,
    TilePlan,
)

US = 1e-6


def _plan(*actions: TileAction) -> TilePlan:
    a = TensorAccess("a", "float16", (1000, 1000), (100, 500))  # 100 x 500 x 2 B = 100,000 B per tile
    return TilePlan("p", TileGrid((4,)), (a,), actions, BlockResources(128))


def _traffic(l2_hit: float, ddr_fraction: float) -> CacheTraffic:
    t = TensorTraffic("a", 10, 1e6, 0.0, l2_hit, 1e6 * ddr_fraction)
    return CacheTraffic({"a": t}, l2_hit, None, 1e6 * ddr_fraction, 0.0, "test")


def test_load_splits_bytes_by_cache_traffic(round_hw):
    act = TileAction("ld", ActionKind.LOAD, tensor="a", dst=MemLevel.SMEM)
    d = action_demand(act, _plan(act), round_hw, _traffic(0.75, 0.25))
    # L2 1e5 / 2e11 = 0.5 us; DDR 0.25 x 1e5 / 1e11 = 0.25 us; SMEM 1e5 / 1e12 = 0.1 us
    assert d.busy_s[L2] == pytest.approx(0.5 * US)
    assert d.busy_s[DDR] == pytest.approx(0.25 * US)
    assert d.busy_s[SMEM] == pytest.approx(0.1 * US)
    # latency: 75% L2 hits at 0.5 us, 25% DRAM at 1 us -> 0.625 us
    assert d.latency_s == pytest.approx(0.625 * US)
    assert d.memory and d.bytes == 100_000


def test_alu_ops_take_the_profiles_alu_op_cost(round_hw):
    import dataclasses

    # 2e6 element ops, 1e6 of them compares / selects: at alu_op_cost 2 those take two FMA slots each, 3e6
    # slots x 2 FLOP over the 2e12 FLOP/s one SM of the round GPU has: 3 us; not given (0), 2 us as before
    ew = TileAction("ew", ActionKind.ELEMENTWISE, flops=2e6, alu_ops=1e6)
    plan, tr = _plan(ew), _traffic(0.0, 1.0)
    assert action_demand(ew, plan, round_hw, tr).busy_s[CUDA] == pytest.approx(2 * US)
    alu2 = dataclasses.replace(round_hw, alu_op_cost=2.0)
    assert action_demand(ew, plan, alu2, tr).busy_s[CUDA] == pytest.approx(3 * US)
    assert action_demand(ew, plan, alu2, tr).flops == 2e6  # the op count reported is unchanged


@settings(max_examples=60, deadline=None)
@given(
    flops=st.floats(1.0, 1e7),
    share=st.floats(0.0, 1.0),
    cost=st.floats(1.0, 4.0),
)
def test_alu_ops_never_cost_less_than_fma_slots_and_grow_with_their_share(round_hw, flops, share, cost):
    import dataclasses

    hw = dataclasses.replace(round_hw, alu_op_cost=cost)
    tr = _traffic(0.0, 1.0)

    def busy(alu):
        ew = TileAction("ew", ActionKind.ELEMENTWISE, flops=flops, alu_ops=alu)
        return action_demand(ew, _plan(ew), hw, tr).busy_s[CUDA]

    plain, some, every = busy(0.0), busy(share * flops), busy(flops)
    assert plain <= some * (1 + 1e-12) <= every * (1 + 1e-12)
    assert every == pytest.approx(plain * cost)


def test_routine_instructions_take_the_routine_rate(round_hw):
    import dataclasses

    # 4e6 element ops: 1e6 compares (alu_op_cost 2: 2e6 slots), 2e6 routine instructions and 1e6 plain
    # operations; at a routine rate of twice the chain's the routine's take half a slot each (1e6): 4e6 slots
    # x 2 FLOP over the round GPU's 2e12 FLOP/s an SM is 4 us; without the routine rate 5 us
    ew = TileAction("ew", ActionKind.ELEMENTWISE, flops=4e6, alu_ops=1e6, routine_ops=2e6)
    plan, tr = _plan(ew), _traffic(0.0, 1.0)
    hw = dataclasses.replace(round_hw, alu_op_cost=2.0)
    assert action_demand(ew, plan, hw, tr).busy_s[CUDA] == pytest.approx(5 * US)
    fast = dataclasses.replace(hw, cuda_routine_flops_per_s=2 * hw.cuda_flops_per_s)
    assert action_demand(ew, plan, fast, tr).busy_s[CUDA] == pytest.approx(4 * US)
    # an action with no routine in it keeps the chain rate
    plain = TileAction("plain", ActionKind.ELEMENTWISE, flops=4e6)
    assert action_demand(plain, _plan(plain), fast, tr).busy_s[CUDA] == pytest.approx(4 * US)


def test_routine_ops_are_some_of_the_non_alu_ops():
    with pytest.raises(PlanError, match="routine_ops"):
        TileAction("ew", ActionKind.ELEMENTWISE, flops=10.0, alu_ops=4.0, routine_ops=7.0)
    TileAction("ew", ActionKind.ELEMENTWISE, flops=10.0, alu_ops=4.0, routine_ops=6.0)


def test_alu_ops_are_some_of_the_actions_ops():
    with pytest.raises(PlanError, match="alu_ops"):
        TileAction("ew", ActionKind.ELEMENTWISE, flops=10.0, alu_ops=11.0)
    with pytest.raises(PlanError, match="alu_ops"):
        TileAction("ew", ActionKind.ELEMENTWISE, flops=10.0, alu_ops=-1.0)


def test_dot_compute_ops(round_hw):
    dot = TileAction("mm", ActionKind.DOT, dtype="float16", shape=(128, 128, 64), src=MemLevel.SMEM)
    ew = TileAction("ew", ActionKind.ELEMENTWISE, flops=2e6)
    ex = TileAction("ex", ActionKind.SFU, flops=1e5)
    red = TileAction("rd", ActionKind.REDUCE, flops=1e6, smem_bytes=2e5)
    plan = _plan(dot, ew, ex, red)
    tr = _traffic(0.0, 1.0)
    d = action_demand(dot, plan, round_hw, tr)
    # 2*128*128*64 = 2,097,152 FLOP / 1e13 = 0.2097 us; SMEM (128*64 + 64*128) * 2 B = 32,768 B / 1e12
    assert d.busy_s[TC] == pytest.approx(2_097_152 / 1e13)
    assert d.busy_s[SMEM] == pytest.approx(32_768 / 1e12)
    assert action_demand(ew, plan, round_hw, tr).busy_s[CUDA] == pytest.approx(2 * US)
    assert action_demand(ex, plan, round_hw, tr).busy_s[SFU] == pytest.approx(1 * US)
    r = action_demand(red, plan, round_hw, tr)
    assert r.busy_s[CUDA] == pytest.approx(1 * US) and r.busy_s[SMEM] == pytest.approx(0.2 * US)


def test_region_scale(round_hw):
    # 1 active SM, 2 resident: compute x2; DDR share 4e11/1/2 = 2e11 vs 1e11 -> x0.5;
    # L2 min(8e11, 2e11)/2 = 1e11 vs 2e11 -> x2
    s = region_scale(round_hw, 1, 2)
    assert s[CUDA] == 2.0 and s[DDR] == pytest.approx(0.5) and s[L2] == pytest.approx(2.0)
    with pytest.raises(PlanError, match="active_sms"):
        region_scale(round_hw, 5, 1)


def test_tmem_on_a_gpu_without_it_is_an_error(round_hw):
    act = TileAction("ld", ActionKind.LOAD, tensor="a", dst=MemLevel.TMEM)
    with pytest.raises(PlanError, match=r"action\[ld\].dst"):
        action_demand(act, _plan(act), round_hw, _traffic(0.0, 1.0))
    assert TMEM == 3


def test_staged_smem_bytes_do_not_hide_a_tmem_destination(round_hw):
    # a load that states staging bytes is still checked for its TMEM destination (the staging bytes add to
    # the shared-memory amount, whatever the destination)
    act = TileAction("ld", ActionKind.LOAD, tensor="a", dst=MemLevel.TMEM, smem_bytes=128.0)
    with pytest.raises(PlanError, match=r"action\[ld\].dst"):
        action_demand(act, _plan(act), round_hw, _traffic(0.0, 1.0))


def test_missing_traffic_is_an_error(round_hw):
    act = TileAction("ld", ActionKind.LOAD, tensor="a")
    empty = CacheTraffic({}, 0.0, None, 0.0, 0.0, "empty")
    with pytest.raises(PlanError, match="gave no traffic"):
        action_demand(act, _plan(act), round_hw, empty)


def test_contiguous_bytes_of_a_tile():
    from tilesight.model.resources import contiguous_bytes
    from tilesight.plan import TensorAccess

    # a 64 x 32 fp16 tile of a 4096 x 12288 row-major B: runs of 32 x 2 = 64 bytes
    assert contiguous_bytes(TensorAccess("b", "float16", (4096, 12288), (64, 32))) == 64
    # a tile spanning whole rows is contiguous over its rows: 8 x 1024 x 4 bytes
    assert contiguous_bytes(TensorAccess("x", "float32", (4096, 1024), (8, 1024))) == 8 * 1024 * 4


def test_a_store_reaches_dram_in_whole_rows_whatever_its_tile():
    from tilesight.cache import CompulsoryCacheModel
    from tilesight.hardware import load_profile
    from tilesight.model import resources as R
    from tilesight.model.resources import store_run_bytes

    # a transpose's 128 x 32 fp16 tile of a 12288 x 4096 output: its own runs are 64 bytes, but the tiles
    # beside it along the rows fill in the rest of each line in the write-back L2, which writes whole rows
    y = TensorAccess("y", "float16", (12288, 4096), (128, 32))
    assert R.contiguous_bytes(y) == 64 and store_run_bytes(y) == 4096 * 2
    assert store_run_bytes(TensorAccess("c", "float32", (64, 256), (8, 256))) == 64 * 256 * 4
    h200 = load_profile("h200")
    plan = TilePlan(
        name="copy",
        grid=TileGrid(shape=(96, 128), dims=("m", "n")),
        tensors=(TensorAccess("x", "float16", (12288, 4096), (128, 32)), y),
        body=(
            TileAction("load_x", ActionKind.LOAD, tensor="x", dst=MemLevel.REG),
            TileAction("store_y", ActionKind.STORE, tensor="y", src=MemLevel.REG, deps=("load_x",)),
        ),
        resources=BlockResources(threads=128),
    )
    traffic = CompulsoryCacheModel().traffic(plan, h200)
    acts = {a.name: a for a, _ in plan.actions()}
    load = R.action_demand(acts["load_x"], plan, h200, traffic)
    store = R.action_demand(acts["store_y"], plan, h200, traffic)
    share = R.ddr_read_bw(h200) / h200.sm_count
    # the load's 64-byte runs stream at the profile's 64-byte DRAM efficiency; the store at the full rate
    # (times the write slowdown of a DRAM byte written rather than read)
    assert load.busy_s[DDR] == pytest.approx(128 * 32 * 2 / share / h200.ddr_efficiency(64))
    assert store.busy_s[DDR] == pytest.approx(128 * 32 * 2 / share * R.ddr_write_slowdown(h200))
    assert h200.ddr_efficiency(64) < 0.75


def test_store_latency_is_off_the_critical_path():
    """A warp issues its stores and goes on: a store's duration is its busy time, a load's adds latency."""
    from tilesight.cache import CompulsoryCacheModel
    from tilesight.hardware import load_profile
    from tilesight.library.gemm import gemm_plan
    from tilesight.model import resources as R

    H200 = load_profile("h200")
    plan = gemm_plan(512, 512, 512, 128, 128, 64)
    traffic = CompulsoryCacheModel().traffic(plan, H200)
    acts = {a.name: a for a, _ in plan.actions()}
    store = R.action_demand(acts["store_c"], plan, H200, traffic)
    load = R.action_demand(acts["load_a"], plan, H200, traffic)
    assert store.latency_s == 0.0
    assert load.latency_s > 0.0


def test_sfu_work_holds_the_tensor_cores_where_the_profile_says_so():
    import dataclasses

    from tilesight.cache import CompulsoryCacheModel
    from tilesight.hardware import load_profile
    from tilesight.model import resources as R

    h200 = load_profile("h200")
    plan = TilePlan(
        name="exp",
        grid=TileGrid(shape=(132,), dims=("x",)),
        tensors=(TensorAccess("a", "fp16", (132 * 64, 64), (64, 64)),),
        body=(
            TileAction("load_a", ActionKind.LOAD, tensor="a", dst=MemLevel.REG),
            TileAction("exp", ActionKind.SFU, flops=4096.0, deps=("load_a",)),
        ),
        resources=BlockResources(threads=128),
    )
    traffic = CompulsoryCacheModel().traffic(plan, h200)
    (exp,) = [a for a, _ in plan.actions() if a.name == "exp"]
    # without a dot in the kernel the tensor cores stay idle: the exponentials are SFU time only
    alone = R.action_demand(exp, plan, h200, traffic)
    assert alone.busy_s[SFU] == pytest.approx(4096 / (h200.sfu_ops_per_s / h200.sm_count))
    assert alone.busy_s[TC] == 0.0
    # beside a dot (an attention loop), 4096 exponentials also take their SFU seconds on the TC pipeline
    dot = TileAction("qk", ActionKind.DOT, dtype="float16", shape=(64, 64, 64), deps=("load_a",))
    plan = dataclasses.replace(plan, body=(*plan.body, dot))
    on = R.action_demand(exp, plan, h200, traffic)
    assert on.busy_s[TC] == on.busy_s[SFU] == alone.busy_s[SFU] and h200.sfu_tc_serialised == 1
    off = R.action_demand(exp, plan, dataclasses.replace(h200, sfu_tc_serialised=0), traffic)
    assert off.busy_s[TC] == 0.0 and off.busy_s[SFU] == on.busy_s[SFU]
    # consumer warpgroups sharing a loop run one's exponentials beside another's dots: SFU time only
    beside = R.action_demand(exp, plan, h200, traffic, sfu_holds_tc=False)
    assert beside.busy_s[TC] == 0.0 and beside.busy_s[SFU] == on.busy_s[SFU]


def test_cross_warp_reduction_adds_latency_and_exchange_time():
    import dataclasses

    from tilesight.cache import CompulsoryCacheModel
    from tilesight.hardware import load_profile
    from tilesight.model import resources as R

    h200 = load_profile("h200")
    plan = TilePlan(
        name="rows",
        grid=TileGrid(shape=(132,), dims=("x",)),
        tensors=(TensorAccess("a", "fp32", (132, 1024), (1, 1024)),),
        body=(
            TileAction("load_a", ActionKind.LOAD, tensor="a", dst=MemLevel.REG),
            TileAction("row_max", ActionKind.REDUCE, flops=1024.0, deps=("load_a",), warps=8),
        ),
        resources=BlockResources(threads=256),
    )
    traffic = CompulsoryCacheModel().traffic(plan, h200)
    (red,) = [a for a, _ in plan.actions() if a.name == "row_max"]
    d8 = R.action_demand(red, plan, h200, traffic)
    d1 = R.action_demand(dataclasses.replace(red, warps=1), plan, h200, traffic)
    # a row reduced to one value also keeps the SM's load/store path busy: 58.3 ns at 8 warps (the
    # profile's [cross_warp_reduction_sm]), which the 102.9 ns measured at one block an SM holds: the
    # latency left is 44.6 ns. One warp exchanges nothing; a reduction to four values (a 2D tile's rows,
    # which the probe does not measure) is not charged and keeps the whole latency; other pipes the same
    s8 = h200.cross_warp_reduction_sm[8]
    assert s8 == pytest.approx(5.8301e-08)
    assert d8.busy_s[SMEM] - d1.busy_s[SMEM] == pytest.approx(s8)
    assert d8.latency_s == pytest.approx(102.9e-9 - 58.301e-9) and d1.latency_s == 0.0
    d8x4 = R.action_demand(dataclasses.replace(red, outputs=4), plan, h200, traffic)
    assert d8x4.busy_s[SMEM] == d1.busy_s[SMEM] and d8x4.latency_s == pytest.approx(102.9e-9)
    others = [r for r in range(len(d8.busy_s)) if r != SMEM]
    assert [d8.busy_s[r] for r in others] == [d1.busy_s[r] for r in others]


# The round GPU with a local-memory calibration: 32 KiB of L1 per SM, 1e11 B/s of local traffic per SM, 1000 B
# in flight per warp, 2e11 B/s of local traffic from DRAM over the chip (5e10 per SM with all 4 SMs active).
LOCAL = {
    "l1_smem_per_sm_bytes": 32768,
    "local_bw_per_sm_bytes_per_s": 1e11,
    "local_inflight_bytes_per_warp": 1000.0,
    "local_ddr_bw_bytes_per_s": 2e11,
}


def _spilling(spill: int, variant: str = "wgmma"):
    from dataclasses import replace

    dot = TileAction("mm", ActionKind.DOT, dtype="float16", shape=(128, 128, 64), variant=variant)
    plan = _plan(dot)  # 4 blocks of 128 threads (4 warps) on the 4 SMs, no shared memory
    plan = replace(plan, resources=replace(plan.resources, regs_per_thread=255, spill_bytes_per_thread=spill))
    return dot, plan


@pytest.mark.parametrize(
    ("spill", "resident", "seconds"),
    [
        # 100 B of loop-invariant state (<= 160 B): reloaded, never stored; 100 x 128 = 12,800 B per SM fit in
        # L1: 12,800 B / 1e11 B/s
        (100, 1, 12_800 / 1e11),
        # 400 B: reload 400 + store back 400 - 160 = 240, x 128 threads = 81,920 B; frames 51,200 B per SM
        # overflow L1, 204,800 B over the chip are 1600 L2 lines of 7812 (hit ~ 1): L2 at
        # min(1e11, 4 warps x 1000 B / 0.5 us = 8e9) B/s
        (400, 1, 81_920 / 8e9),
        # 8000 B: (8000 + 7840) x 128 = 2,027,520 B; 4 MB of frames over the chip miss L2 (32000 lines of
        # 7812, 16 ways): DRAM at min(2e11 / 4, 4 warps x 1000 B / 1 us = 4e9) B/s
        (8000, 1, 2_027_520 / 4e9),
        # 200 B at two resident blocks: 51,200 B per SM overflow L1, 8 warps in flight: 2 x 1000 / 0.5 us
        # x 4 warps = 1.6e10 B/s for (200 + 40) x 128 = 30,720 B
        (200, 2, 30_720 / 1.6e10),
    ],
)
def test_spilled_frame_moves_at_the_local_memory_rate_of_where_it_lives(round_hw, spill, resident, seconds):
    from dataclasses import replace

    hw = replace(round_hw, **LOCAL)
    dot, plan = _spilling(spill)
    d = action_demand(dot, plan, hw, _traffic(0.0, 1.0), resident=resident)
    assert d.busy_s[SMEM] == pytest.approx(seconds, rel=1e-6)
    assert d.busy_s[L2] == 0.0  # the spill is not charged to the global-memory pipelines


def test_spill_without_local_calibration_moves_at_the_l2_share(round_hw):
    # no [local] fields: no L1 tier, no latency bound; 100 x 128 B at min(8e11 / 4, 2e11) = 2e11 B/s
    dot, plan = _spilling(100, variant="mma")
    d = action_demand(dot, plan, round_hw, _traffic(0.0, 1.0))
    assert d.busy_s[SMEM] == pytest.approx(12_800 / 2e11)
    assert d.amounts[SMEM] == pytest.approx(12_800)


def test_spill_seconds_grow_with_the_frame(round_hw):
    from dataclasses import replace

    from tilesight.model.resources import spill_seconds

    hw = replace(round_hw, **LOCAL)
    kw = {"warps_per_sm": 4, "smem_per_sm": 0, "active_sms": 4}
    times = [
        spill_seconds(hw, 1e6, frame_per_sm=f * 128, frame_chip=f * 512, **kw) for f in (64, 512, 4096, 65536)
    ]
    assert times == sorted(times) and times[0] < times[-1]


def test_l2_work_scales_with_the_lookups_per_byte(round_hw):
    # the load of test_load_splits_bytes_by_cache_traffic with 0.6 L2 lookups per byte (coalesced requests
    # skip the slices): L2 0.6 x 1e5 / 2e11 = 0.3 us; with 1.5 (fabric lookups) 0.75 us; DDR unchanged
    act = TileAction("ld", ActionKind.LOAD, tensor="a", dst=MemLevel.SMEM)
    for lookups, us in ((0.6, 0.3), (1.5, 0.75)):
        t = TensorTraffic("a", 10, 1e6, 0.0, 0.75, 2.5e5, l2_lookups=lookups)
        traffic = CacheTraffic({"a": t}, 0.75, None, 2.5e5, 0.0, "test")
        d = action_demand(act, _plan(act), round_hw, traffic)
        assert d.busy_s[L2] == pytest.approx(us * US)
        assert d.busy_s[DDR] == pytest.approx(0.25 * US)
    with pytest.raises(ValueError, match="l2_lookups"):
        TensorTraffic("a", 10, 1e6, 0.0, 0.75, 2.5e5, l2_lookups=-0.1)


def test_rows_shorter_than_a_line_keep_the_profiles_share_of_merges(round_hw):
    # 0.6 lookups per byte after 0.4 of coalescer merges: a 100 x 500 fp16 tile of a 1000-wide tensor has
    # 1000-byte rows (>= the 128-byte line) and is charged 0.6; a 100 x 32 one has 64-byte rows. Without an
    # [l2_chunk_merge] table (the test profile) the merges come back: 1.0; with 64 B -> 0.25, 128 B -> 1 it
    # keeps a quarter of them: 0.6 + 0.4 x 0.75 = 0.9; 16-byte rows (below the smallest point) that point's
    # value. L2 = lookups x bytes / 2e11
    from dataclasses import replace
    from types import MappingProxyType

    from tilesight.plan import TileGrid, TilePlan

    def l2_us(tile, hw):
        a = TensorAccess("a", "float16", (1000, 1000), tile)
        act = TileAction("ld", ActionKind.LOAD, tensor="a", dst=MemLevel.SMEM)
        plan = TilePlan("p", TileGrid((4,)), (a,), (act,), BlockResources(128))
        t = TensorTraffic("a", 10, 1e6, 0.0, 0.75, 2.5e5, l2_lookups=0.6, l2_merged=0.4)
        d = action_demand(act, plan, hw, CacheTraffic({"a": t}, 0.75, None, 2.5e5, 0.0, "test"))
        return d.busy_s[L2] / US / (a.tile_bytes / 2e11 / US)

    assert l2_us((100, 500), round_hw) == pytest.approx(0.6)
    assert l2_us((100, 32), round_hw) == pytest.approx(1.0)
    merge = replace(round_hw, l2_chunk_merge=MappingProxyType({64: 0.25, 128: 1.0}))
    assert l2_us((100, 500), merge) == pytest.approx(0.6)
    assert l2_us((100, 32), merge) == pytest.approx(0.9)
    assert l2_us((100, 8), merge) == pytest.approx(0.9)


@settings(max_examples=60, deadline=None)
@given(
    frames=st.lists(st.floats(1.0, 2e8), min_size=2, max_size=2),
    warps=st.lists(st.integers(1, 64), min_size=2, max_size=2),
)
def test_spill_seconds_grow_with_the_footprint_and_shrink_with_warps(round_hw, frames, warps):
    from dataclasses import replace

    from tilesight.model.resources import spill_seconds

    hw = replace(round_hw, **LOCAL)
    lo, hi = sorted(frames)
    few, many = sorted(warps)

    def t(chip, w):
        return spill_seconds(
            hw, 1e6, warps_per_sm=w, frame_per_sm=chip / 4, frame_chip=chip, smem_per_sm=0, active_sms=4
        )

    assert t(lo, few) <= t(hi, few) * (1 + 1e-9)  # a larger footprint is served from no nearer a level
    assert t(hi, many) <= t(hi, few) * (1 + 1e-9)  # more warps keep more reloads in flight
    assert t(lo, few) >= 1e6 / LOCAL["local_bw_per_sm_bytes_per_s"] * (1 - 1e-9)  # never beyond the SM's rate


def test_load_staged_into_shared_memory_adds_its_wavefront_bytes(round_hw):
    # a register load whose tile the threads then store into shared memory (smem_bytes: 4096 wavefronts of
    # 128 bytes = 524,288 bytes) occupies the shared-memory path for them: 524,288 / 1e12 = 0.524288 us; a
    # load into shared memory (dst SMEM) adds them to its own 100,000 bytes
    reg = TileAction("ld", ActionKind.LOAD, tensor="a", smem_bytes=524288.0)
    smem = TileAction("ld", ActionKind.LOAD, tensor="a", dst=MemLevel.SMEM, smem_bytes=524288.0)
    traffic = _traffic(0.75, 0.25)
    assert action_demand(reg, _plan(reg), round_hw, traffic).busy_s[SMEM] == pytest.approx(0.524288 * US)
    assert action_demand(smem, _plan(smem), round_hw, traffic).busy_s[SMEM] == pytest.approx(0.624288 * US)


def test_narrow_loads_issue_faster_where_l2_serves_them(round_hw):
    # 2-byte accesses of the 100,000-byte tile: 100,000 / (2 B x 32 lanes) = 1562.5 warp instructions. At 1e9
    # a second (copy probe) they take 1.5625 us; with 4e9 for L2-served lines and 75% L2 hits:
    # 1562.5 x (0.75 / 4e9 + 0.25 / 1e9) = 0.68359375 us. A store issues at the copy rate whatever it hits.
    import dataclasses

    ld = TileAction("ld", ActionKind.LOAD, tensor="a", dst=MemLevel.SMEM, vector_bytes=2)
    st_ = TileAction("st", ActionKind.STORE, tensor="a", src=MemLevel.SMEM, vector_bytes=2)
    base = dataclasses.replace(round_hw, lsu_warp_instr_per_s_per_sm=1e9)
    fast = dataclasses.replace(base, lsu_l2_warp_instr_per_s_per_sm=4e9)
    traffic = _traffic(0.75, 0.25)
    assert action_demand(ld, _plan(ld), base, traffic).busy_s[SMEM] == pytest.approx(1.5625 * US)
    assert action_demand(ld, _plan(ld), fast, traffic).busy_s[SMEM] == pytest.approx(0.68359375 * US)
    assert action_demand(st_, _plan(st_), fast, traffic).busy_s[SMEM] == pytest.approx(1.5625 * US)


def test_row_loads_issue_at_the_row_rate_and_wide_spans_at_its_share(round_hw):
    # 2-byte register loads of the 100,000-byte tile: 1562.5 warp instructions, 75% L2 hits. In a kernel
    # without dots they issue at the row rate, 5e9, wherever their lines come from: 1562.5 / 5e9 = 0.3125 us.
    # Lanes 8 bytes apart span 256 bytes: the same. Lanes 16 bytes apart span 512 bytes (over
    # LSU_FULL_RATE_SPAN_BYTES): 5e9 x 0.5 = 2.5e9, 0.625 us. Beside a dot the loads keep
    # lsu_l2_warp_instr_per_s_per_sm (4e9) for L2's share and the copy rate (1e9) for DRAM's:
    # 1562.5 x (0.75 / 4e9 + 0.25 / 1e9) = 0.68359375 us; a load into shared memory too.
    import dataclasses

    hw = dataclasses.replace(
        round_hw,
        lsu_warp_instr_per_s_per_sm=1e9,
        lsu_l2_warp_instr_per_s_per_sm=4e9,
        lsu_l2_row_warp_instr_per_s_per_sm=5e9,
        lsu_wide_span_share=0.5,
    )
    traffic = _traffic(0.75, 0.25)

    def smem_us(act: TileAction, *others: TileAction) -> float:
        return action_demand(act, _plan(act, *others), hw, traffic).busy_s[SMEM] / US

    ld = TileAction("ld", ActionKind.LOAD, tensor="a", vector_bytes=2)
    assert smem_us(ld) == pytest.approx(0.3125)
    assert smem_us(dataclasses.replace(ld, lane_stride_bytes=8)) == pytest.approx(0.3125)
    assert smem_us(dataclasses.replace(ld, lane_stride_bytes=16)) == pytest.approx(0.625)
    # a row store still issues at the copy rate: 1562.5 / 1e9; an 8-byte row load (390.625 instructions)
    # keeps it for its DRAM share: 390.625 x (0.75 / 5e9 + 0.25 / 1e9) = 0.15625 us
    st_ = TileAction("st", ActionKind.STORE, tensor="a", vector_bytes=2)
    assert smem_us(st_) == pytest.approx(1.5625)
    assert smem_us(dataclasses.replace(ld, vector_bytes=8)) == pytest.approx(0.15625)
    dot = TileAction("mm", ActionKind.DOT, dtype="float16", shape=(128, 128, 64))
    assert smem_us(ld, dot) == pytest.approx(0.68359375)
    assert smem_us(dataclasses.replace(ld, dst=MemLevel.SMEM)) == pytest.approx(0.68359375)
    # without the row fields every element-wide load issues at lsu_l2_warp_instr_per_s_per_sm
    plain = dataclasses.replace(hw, lsu_l2_row_warp_instr_per_s_per_sm=0.0, lsu_wide_span_share=0.0)
    assert action_demand(ld, _plan(ld), plain, traffic).busy_s[SMEM] / US == pytest.approx(0.68359375)


def test_lane_span_bytes_by_hand(round_hw):
    from tilesight.model.resources import lane_span_bytes

    ld = TileAction("ld", ActionKind.LOAD, tensor="a", vector_bytes=2, lane_stride_bytes=16)
    assert lane_span_bytes(ld, round_hw) == 32 * 16
    wide = TileAction("ld", ActionKind.LOAD, tensor="a", vector_bytes=16)
    assert lane_span_bytes(wide, round_hw) == 0  # contiguous lanes: no lane stride


def test_narrow_accesses_issue_only_for_the_lanes_their_mask_keeps(round_hw):
    # the same 2-byte loads and stores, but the cache model says the tile's 10 accesses asked for 7e5 bytes,
    # not 1e6 (a row of 700 valid elements in a 1,000-wide block: the masked-off lanes move nothing): 70,000 B
    # per access, 70,000 / 64 = 1093.75 warp instructions at 1e9 a second = 1.09375 us (whole tile: 1.5625)
    import dataclasses

    ld = TileAction("ld", ActionKind.LOAD, tensor="a", dst=MemLevel.SMEM, vector_bytes=2)
    st_ = TileAction("st", ActionKind.STORE, tensor="a", src=MemLevel.SMEM, vector_bytes=2)
    base = dataclasses.replace(round_hw, lsu_warp_instr_per_s_per_sm=1e9)
    t = TensorTraffic("a", 10, 7e5, 0.0, 0.75, 7e5 * 0.25)
    masked = CacheTraffic({"a": t}, 0.75, None, 7e5 * 0.25, 0.0, "test")
    assert action_demand(ld, _plan(ld), base, masked).busy_s[SMEM] == pytest.approx(1.09375 * US)
    assert action_demand(st_, _plan(st_), base, masked).busy_s[SMEM] == pytest.approx(1.09375 * US)
    assert action_demand(ld, _plan(ld), base, _traffic(0.75, 0.25)).busy_s[SMEM] == pytest.approx(1.5625 * US)


def test_element_wide_async_copies_issue_at_their_own_rate(round_hw):
    # a 4-byte cp.async per lane: 100,000 B / (4 B x 32 lanes) = 781.25 warp instructions at 2.5e8 a second
    # = 3.125 us, whatever L2 serves; without the profile's rate they issue as element-wide global loads
    # (1e9 a second: 0.78125 us)
    import dataclasses

    from tilesight.plan import ELEMENT_ASYNC_COPY

    ld = TileAction(
        "ld", ActionKind.LOAD, tensor="a", dst=MemLevel.SMEM, vector_bytes=4, variant=ELEMENT_ASYNC_COPY
    )
    base = dataclasses.replace(round_hw, lsu_warp_instr_per_s_per_sm=1e9)
    rated = dataclasses.replace(base, lsu_async_elem_warp_instr_per_s_per_sm=2.5e8)
    traffic = _traffic(0.75, 0.25)
    assert action_demand(ld, _plan(ld), rated, traffic).busy_s[SMEM] == pytest.approx(3.125 * US)
    assert action_demand(ld, _plan(ld), base, traffic).busy_s[SMEM] == pytest.approx(0.78125 * US)


def test_narrow_async_copies_take_their_wavefronts_in_the_data_stage(round_hw):
    # an 8-byte cp.async (through L1): 100,000 B / (8 B x 32 lanes) = 390.625 warp instructions; at 5
    # wavefronts of 128 B each over a 1e11 B/s shared-memory data stage: 390.625 x 640 / 1e11 = 2.5 us; their
    # issue at 1e9 warp instructions a second takes 0.390625 us; a 16-byte copy (no variant) and a profile
    # without the wavefront count keep the issue time
    import dataclasses

    from tilesight.plan import NARROW_ASYNC_COPY

    narrow = TileAction("ld", ActionKind.LOAD, tensor="a", vector_bytes=8, variant=NARROW_ASYNC_COPY)
    wide = TileAction("ld", ActionKind.LOAD, tensor="a", vector_bytes=16)
    base = dataclasses.replace(round_hw, lsu_warp_instr_per_s_per_sm=1e9, smem_bw_per_sm_bytes_per_s=1e11)
    rated = dataclasses.replace(base, lsu_async_narrow_wavefronts=5.0)
    traffic = _traffic(0.75, 0.25)
    assert action_demand(narrow, _plan(narrow), rated, traffic).busy_s[SMEM] == pytest.approx(2.5 * US)
    assert action_demand(narrow, _plan(narrow), base, traffic).busy_s[SMEM] == pytest.approx(0.390625 * US)
    assert action_demand(wide, _plan(wide), rated, traffic).busy_s[SMEM] == pytest.approx(
        action_demand(wide, _plan(wide), base, traffic).busy_s[SMEM]
    )


def test_serial_chain_seconds_by_hand(round_hw):
    import dataclasses

    from tilesight.model.resources import serial_chain_s
    from tilesight.plan import SerialChain

    hw = dataclasses.replace(
        round_hw, schedulers_per_sm=4, smem_chain_latency_s=20e-9, alu_latency_s=2e-9, cvt_latency_s=8e-9
    )
    # 16 schedulers; an FP32 lane issues in 2 x 16 / 8e12 = 4 ps, an integer lane in 8 ps (32 lanes:
    # 0.256 ns), a conversion lane in 16 / 4e11 = 40 ps (32 lanes: 1.28 ns).
    # 2 integer lanes, 3 ops and a conversion: 20 + 3 x 2 + 8 ns latency, + 3 x 1 x 0.256 + 1 x 1 x 1.28 ns
    # issue = 36.048 ns per iteration, 10 iterations
    ints = SerialChain(iterations=10, lanes=2, alu=3, cvt=1)
    assert serial_chain_s(ints, hw) == pytest.approx(360.48e-9)
    # 8 half lanes packed two per instruction: 4 instructions per op; 2 ops: 20 + 4 ns, + 2 x 3 x 32 x 4 ps
    halves = SerialChain(iterations=10, lanes=8, alu=2, cvt=0, packed_alu=True)
    assert serial_chain_s(halves, hw) == pytest.approx(247.68e-9)
    # a profile without the chain latencies has no floor
    assert serial_chain_s(ints, round_hw) == 0.0
    # conversions of 8 lanes, no ops: 20 + 8 ns latency; from a narrow integer 16 instructions (15 extra x
    # 1.28 ns = 19.2 ns), fp8 pairs 4 instructions at the integer rate (3 x 0.256 ns = 0.768 ns)
    narrow = SerialChain(iterations=1, lanes=8, alu=0, cvt=1, narrow_cvt=True)
    assert serial_chain_s(narrow, hw) == pytest.approx(47.2e-9)
    pairs = SerialChain(iterations=1, lanes=8, alu=0, cvt=1, packed_cvt=True)
    assert serial_chain_s(pairs, hw) == pytest.approx(28.768e-9)
    # feeding a dot adds the profile's per-step cost once (not per iteration)
    fed = dataclasses.replace(ints, feeds_dot=True)
    assert serial_chain_s(fed, dataclasses.replace(hw, smem_feed_step_s=100e-9)) == pytest.approx(460.48e-9)
    # shuffle steps: a warp reduction of 100 ns is log2(32) = 5 steps of 20 ns; a scan group of four
    # segments (5 tree steps and 4 carries: 9 shuffles, 4 adds, one lane): 20 + 9 x 20 + 4 x 2 = 208 ns,
    # 3 times
    scan = SerialChain(iterations=3, lanes=1, alu=4, cvt=0, shuffles=9)
    shuffling = dataclasses.replace(hw, warp_reduction_latency_s=100e-9)
    assert serial_chain_s(scan, shuffling) == pytest.approx(624e-9)
    # a profile without the warp reduction's latency prices the shuffles at nothing
    assert serial_chain_s(scan, hw) == pytest.approx(3 * 28e-9)


def test_elementwise_chain_is_a_floor_not_busy_time(round_hw):
    import dataclasses

    from tilesight.cache import CompulsoryCacheModel
    from tilesight.plan import SerialChain

    hw = dataclasses.replace(
        round_hw, schedulers_per_sm=4, smem_chain_latency_s=20e-9, alu_latency_s=2e-9, cvt_latency_s=8e-9
    )
    chain = SerialChain(iterations=10, lanes=2, alu=3, cvt=1)
    ew = TileAction("ew", ActionKind.ELEMENTWISE, flops=1000.0, chain=chain)
    plan = _plan(ew)
    traffic = CompulsoryCacheModel().traffic(plan, hw)
    d = action_demand(ew, plan, hw, traffic)
    plain = action_demand(dataclasses.replace(ew, chain=None), plan, hw, traffic)
    assert d.floor_s == pytest.approx(360.48e-9) and plain.floor_s == 0.0
    assert d.busy_s == plain.busy_s


def _atomic_tile_plan() -> TilePlan:
    """Four blocks, each adding a 64 x 64 fp32 tile into C atomically."""
    from tilesight.plan import AccessMode

    return TilePlan(
        name="acc",
        grid=TileGrid(shape=(4,), dims=("x",)),
        tensors=(TensorAccess("c", "float32", (256, 64), (64, 64), mode=AccessMode.ATOMIC),),
        body=(TileAction("st", ActionKind.STORE, tensor="c", src=MemLevel.REG),),
        resources=BlockResources(threads=128),
    )


def test_atomic_store_costs_the_l2_atomic_rate(round_hw):
    import dataclasses

    from tilesight.cache import CompulsoryCacheModel

    # a 64 x 64 fp32 tile added atomically: 4096 elements; the round GPU's 4 SMs share 4e9 atomics/s, 1e9
    # each, so 4.096 us of L2 time at the full-chip share; a block issues 5e8/s on its own: one resident block
    # takes 8.192 us, two 4.096 again (the chip's share); a plain store of the tile keeps its L2 time
    plan = _atomic_tile_plan()
    traffic = CompulsoryCacheModel().traffic(plan, round_hw)
    (st,) = [a for a, _ in plan.actions()]
    plain = action_demand(st, plan, round_hw, traffic).busy_s[L2]
    hw = dataclasses.replace(round_hw, l2_atomic_elements_per_s=4e9)
    assert action_demand(st, plan, hw, traffic).busy_s[L2] == pytest.approx(max(plain, 4.096e-6))
    hw = dataclasses.replace(hw, atomic_elements_per_s_per_block=5e8)
    assert action_demand(st, plan, hw, traffic, resident=1).busy_s[L2] == pytest.approx(max(plain, 8.192e-6))
    assert action_demand(st, plan, hw, traffic, resident=2).busy_s[L2] == pytest.approx(max(plain, 4.096e-6))


def test_vector_reduction_issues_its_width_per_instruction(round_hw):
    import dataclasses

    from tilesight.cache import CompulsoryCacheModel
    from tilesight.plan import VECTOR_REDUCTION

    # the 64 x 64 fp32 tile of the test above, added by one resident block at 5e8 atomic instructions/s: as
    # returning atomics 4096 / 5e8 = 8.192 us; as AtomicAddx2 (8 bytes an instruction) 4.096 us; as x4 the
    # chip's share (1e9 elements/s per SM) bounds it at 4.096 us too
    plan = _atomic_tile_plan()
    hw = dataclasses.replace(round_hw, l2_atomic_elements_per_s=4e9, atomic_elements_per_s_per_block=5e8)
    traffic = CompulsoryCacheModel().traffic(plan, hw)
    (st,) = [a for a, _ in plan.actions()]
    # (the tile's 16 KiB through L2 take 0.08 us, below every atomic time)
    for vector, want in ((None, 8.192e-6), (8, 4.096e-6), (16, 4.096e-6)):
        act = dataclasses.replace(st, variant=VECTOR_REDUCTION if vector else None, vector_bytes=vector)
        assert action_demand(act, plan, hw, traffic, resident=1).busy_s[L2] == pytest.approx(want)


def _scatter_plan(words: int, lanes: int = 1024, blocks: int = 4) -> TilePlan:
    """``blocks`` blocks, each adding ``lanes`` ones at gathered addresses into a target of ``words`` int32s
    (a bincount): the frontend clips the target's tile to its size and keeps the lanes on the action."""
    from tilesight.plan import SCATTER_ATOMIC, AccessMode

    tile = (min(lanes, words),)
    return TilePlan(
        name="bincount",
        grid=TileGrid(shape=(blocks,), dims=("x",)),
        tensors=(TensorAccess("bins", "int32", (words,), tile, mode=AccessMode.ATOMIC, indirect=True),),
        body=(
            TileAction(
                "st",
                ActionKind.STORE,
                tensor="bins",
                src=MemLevel.REG,
                variant=SCATTER_ATOMIC,
                shape=(lanes,),
            ),
        ),
        resources=BlockResources(threads=128),
    )


def test_scattered_lanes_start_a_transaction_per_distinct_sector():
    from tilesight.model.resources import scatter_transactions_per_element as per

    # 8 int32 words: one 32-byte sector, a warp's 32 lanes one transaction; 32 words: 4 sectors, all four
    # touched but for (3/4)^32 = 1.0e-4 of them each; a target of many sectors: one a lane
    assert per(8, 4, 32) == pytest.approx(1 / 32)
    assert per(32, 4, 32) == pytest.approx(4 * (1 - 0.75**32) / 32)
    assert per(1 << 24, 4, 32) == pytest.approx(1.0, rel=1e-5)


@given(st.integers(1, 1 << 20), st.integers(1, 1 << 20))
@settings(max_examples=60, deadline=None)
def test_scatter_transactions_are_a_share_of_the_lanes_growing_with_the_target(a, b):
    from tilesight.model.resources import scatter_transactions_per_element as per

    small, large = sorted((a, b))
    assert 1 / 32 <= per(small, 4, 32) <= per(large, 4, 32) <= 1.0


@given(st.integers(1, 1 << 16), st.integers(1, 200))
@settings(max_examples=40, deadline=None)
def test_the_busiest_slice_takes_at_least_its_even_share_and_at_most_all(lines, slices):
    from tilesight.model.resources import busiest_slice_factor

    f = busiest_slice_factor(lines, slices)
    assert 1.0 <= f <= slices
    if lines == 1:
        assert f == slices  # one line: one slice does all the work


def test_a_scattered_atomic_costs_a_transaction_per_lane_on_the_slices_of_its_lines(round_hw):
    import dataclasses
    import math

    from tilesight.cache import CompulsoryCacheModel
    from tilesight.model.resources import busiest_slice_factor

    # 1024 lanes into 1M int32 words (32,768 lines): a transaction per lane, 4e9 / 8 = 5e8 sectors/s over the
    # round GPU's 4 SMs, 1.25e8 each: 1024 x (1 - tiny) / 1.25e8 = 8.19 us, times the busiest of 16 slices'
    # share of 32,768 lines (the normal approximation: 1 + sqrt(2 ln 16 / 2048) = 1.0736)
    hw = dataclasses.replace(round_hw, l2_atomic_elements_per_s=4e9, l2_atomic_slices=16)
    plan = _scatter_plan(1 << 20)
    (st_,) = [a for a, _ in plan.actions()]
    traffic = CompulsoryCacheModel().traffic(plan, hw)
    spread = 1 + math.sqrt(2 * math.log(16) / 2048)
    assert busiest_slice_factor(32768, 16) == pytest.approx(spread)
    want = 1024 * 131072 * (1 - (1 - 1 / 131072) ** 32) / 32 / 1.25e8 * spread
    assert action_demand(st_, plan, hw, traffic).busy_s[L2] == pytest.approx(want)
    # the same lanes into 32 words (one line): a transaction per distinct sector of each instruction (4 of
    # 4 sectors, 32 instructions), all on one slice: 128 x (1 - 0.75^32) / 1.25e8 x 16 = 16.38 us
    plan = _scatter_plan(32)
    (st_,) = [a for a, _ in plan.actions()]
    traffic = CompulsoryCacheModel().traffic(plan, hw)
    want = 32 * 4 * (1 - 0.75**32) / 1.25e8 * 16
    assert action_demand(st_, plan, hw, traffic).busy_s[L2] == pytest.approx(want)


def test_atomics_on_one_word_wait_for_each_other_beyond_the_schedule(round_hw):
    import dataclasses

    from tilesight.cache import CompulsoryCacheModel
    from tilesight.model.evaluate import evaluate

    # 4 blocks x 1024 lanes into 32 int32 words: 128 atomics a word, each 1e-8 s after the one before it: a
    # chain of 1.28 us a word; each occurrence adds 1024 / 32 of them (0.32 us) to it
    hw = dataclasses.replace(
        round_hw, l2_atomic_elements_per_s=4e9, l2_atomic_slices=16, atomic_same_address_int_s=1e-8
    )
    plan = _scatter_plan(32)
    (st_,) = [a for a, _ in plan.actions()]
    d = action_demand(st_, plan, hw, CompulsoryCacheModel().traffic(plan, hw))
    assert d.same_word_s == pytest.approx(1024 / 32 * 1e-8)
    # a chain far longer than the schedule: the launch takes it, its atomics' own L2 time and the launch
    long = dataclasses.replace(hw, atomic_same_address_int_s=1e-6)
    report = evaluate(plan, long, cache_model=CompulsoryCacheModel())
    own = 4 * d.busy_s[L2] / long.sm_count
    assert report.latency_s == pytest.approx(4 * 1024 / 32 * 1e-6 + own + long.launch_overhead_s)
    assert [p.phase for p in report.phases][-1] == "atomic chain"
    # a float target waits the float time (atomic_same_address_s), not given here: no chain
    fplan = dataclasses.replace(plan, tensors=(dataclasses.replace(plan.tensors[0], dtype="float32"),))
    assert action_demand(st_, fplan, hw, CompulsoryCacheModel().traffic(fplan, hw)).same_word_s == 0.0


def test_waited_load_latency_by_hand(round_hw):
    from tilesight.model.resources import waited_load_latency

    act = TileAction("ld", ActionKind.LOAD, tensor="a", dst=MemLevel.SMEM)
    d = action_demand(act, _plan(act), round_hw, _traffic(0.75, 0.25))
    # mean 0.625 us (test above); a 256-byte tile of 128-byte lines: both hit with 0.75^2 = 0.5625, so
    # 0.5625 x 0.5 + 0.4375 x 1 = 0.71875 us; a 100 kB tile (782 lines) waits for DRAM: 1 us
    lat = round_hw.l2_latency_s, round_hw.ddr_latency_s, round_hw.l2_line_bytes
    assert lat == pytest.approx((0.5 * US, 1.0 * US, 128))
    assert waited_load_latency(round_hw, d, 256) == pytest.approx(0.71875 * US)
    assert waited_load_latency(round_hw, d, 100_000) == pytest.approx(1.0 * US)
    # never below the mean: one line's tile keeps it
    assert waited_load_latency(round_hw, d, 64) == pytest.approx(0.625 * US)


@settings(max_examples=60, deadline=None)
@given(
    iterations=st.integers(1, 256),
    lanes=st.sampled_from([1, 2, 4, 8, 16]),
    alu=st.integers(0, 12),
    cvt=st.integers(0, 3),
    packed_alu=st.booleans(),
    form=st.sampled_from(["plain", "packed", "narrow"]),
)
def test_serial_chain_is_linear_in_iterations_and_grows_with_work(
    iterations, lanes, alu, cvt, packed_alu, form
):
    import dataclasses

    from tilesight.hardware import load_profile
    from tilesight.model.resources import serial_chain_s
    from tilesight.plan import SerialChain

    hw = load_profile("h200")
    ch = SerialChain(
        iterations=iterations,
        lanes=lanes,
        alu=alu,
        cvt=cvt,
        packed_alu=packed_alu,
        packed_cvt=form == "packed",
        narrow_cvt=form == "narrow",
    )
    t = serial_chain_s(ch, hw)
    assert t > 0
    assert serial_chain_s(dataclasses.replace(ch, iterations=2 * iterations), hw) == pytest.approx(2 * t)
    assert serial_chain_s(dataclasses.replace(ch, alu=alu + 1), hw) > t
    assert serial_chain_s(dataclasses.replace(ch, cvt=cvt + 1), hw) > t
    assert serial_chain_s(dataclasses.replace(ch, lanes=2 * lanes), hw) >= t
    assert serial_chain_s(dataclasses.replace(ch, feeds_dot=True), hw) == pytest.approx(
        t + hw.smem_feed_step_s
    )


def test_run_bytes_override_the_tiles_contiguous_run():
    import dataclasses

    from tilesight.model.resources import contiguous_bytes

    t = TensorAccess("x", "float16", (1024, 32, 128), (1, 8, 64))
    assert contiguous_bytes(t) == 64 * 2  # half a head row
    assert contiguous_bytes(dataclasses.replace(t, run_bytes=2048)) == 2048


def test_narrow_wgmma_instructions_run_below_the_tensor_core_rate(round_hw):
    # 2e7 FLOPs at the round GPU's 1e13 FLOP/s per SM: 2 us; with [wgmma_n_efficiency] {16: 0.5, 64: 1.0}
    # and no dot-chain rate in the profile (the efficiency then scales the calibrated rate), an m64n16
    # instruction stream takes 4 us, m64n32 (log2 halfway: 0.75) 2.667 us, m64n128 2 us; a
    # warp-level mma or an unstated width keeps the calibrated rate
    import dataclasses
    from types import MappingProxyType

    hw = dataclasses.replace(round_hw, wgmma_n_efficiency=MappingProxyType({16: 0.5, 64: 1.0}))
    x = TensorAccess("a", "float16", (1000, 1000), (100, 500))

    def tc(**kw):
        dot = TileAction("d", ActionKind.DOT, dtype="float16", shape=(100, 100, 1000), **kw)
        plan = TilePlan("p", TileGrid((4,)), (x,), (dot,), BlockResources(128))
        return action_demand(dot, plan, hw, _traffic(0.5, 0.5)).busy_s[TC]

    assert tc(variant="wgmma", mma_n=16) == pytest.approx(4 * US)
    assert tc(variant="wgmma", mma_n=32) == pytest.approx(2 / 0.75 * US)
    assert tc(variant="wgmma", mma_n=128) == pytest.approx(2 * US)
    assert tc(variant="mma", mma_n=16) == tc(variant="wgmma") == pytest.approx(2 * US)


def test_narrow_wgmma_rate_is_a_cap_below_the_dot_chain_rate(round_hw):
    # with a dot-chain rate of 2e13 FLOP/s over the chip, an m64n16 stream sustains min(calibrated 4e13,
    # 0.5 x 2e13) = 1e13 FLOP/s, 2.5e12 an SM: 2e7 FLOPs take 8 us. At n = 32 (0.75 x 2e13 = 1.5e13) 5.333
    # us; a wide instruction keeps the calibrated 4e13 (2 us), even though the chain rate is lower: the cap
    # only binds narrow instructions
    import dataclasses
    from types import MappingProxyType

    hw = dataclasses.replace(
        round_hw, wgmma_n_efficiency=MappingProxyType({16: 0.5, 64: 1.0}), wgmma_chain_flops_per_s=2e13
    )
    x = TensorAccess("a", "float16", (1000, 1000), (100, 500))

    def tc(n):
        dot = TileAction(
            "d", ActionKind.DOT, dtype="float16", shape=(100, 100, 1000), variant="wgmma", mma_n=n
        )
        plan = TilePlan("p", TileGrid((4,)), (x,), (dot,), BlockResources(128))
        return action_demand(dot, plan, hw, _traffic(0.5, 0.5)).busy_s[TC]

    assert tc(16) == pytest.approx(8 * US)
    assert tc(32) == pytest.approx(2e7 / (0.75 * 2e13 / 4))
    assert tc(128) == pytest.approx(2 * US)


def test_narrow_wgmma_with_a_from_registers_keeps_the_full_rate(round_hw):
    # the efficiency table is of instructions that read their A rows from shared memory for every N-wide
    # instruction; with A in registers (attention's P) the m64n16 stream keeps the rate: 2 us waited (the
    # dot-chain rate, 8e13 over 4 SMs, 2e7 FLOPs) where the same dot with A in shared memory takes 4 us
    # (efficiency 0.5), and 2 us not waited (the calibrated rate) against 4 us under the narrow cap
    import dataclasses
    from types import MappingProxyType

    hw = dataclasses.replace(
        round_hw, wgmma_n_efficiency=MappingProxyType({16: 0.5, 64: 1.0}), wgmma_chain_flops_per_s=4e13
    )
    x = TensorAccess("a", "float16", (1000, 1000), (100, 500))

    def tc(regs, waited):
        dot = TileAction(
            "d", ActionKind.DOT, dtype="float16", shape=(100, 100, 1000), variant="wgmma", mma_n=16,
            mma_a_registers=regs,
        )  # fmt: skip
        plan = TilePlan("p", TileGrid((4,)), (x,), (dot,), BlockResources(128))
        return action_demand(dot, plan, hw, _traffic(0.5, 0.5), waited=waited).busy_s[TC]

    assert tc(False, True) == pytest.approx(4 * US)
    assert tc(True, True) == pytest.approx(2 * US)
    assert tc(False, False) == pytest.approx(2e7 / (0.5 * 4e13 / 4))
    assert tc(True, False) == pytest.approx(2 * US)
    # with a register-A table ({16: 0.8, 32: 1.0}, the regs_a probe's kind) the m64n16 stream keeps 0.8 of
    # the chain rate waited (2.5 us) and min(calibrated 4e13, 0.8 x 4e13) not waited (2.5 us); the
    # shared-memory-A dot is unchanged
    hw = dataclasses.replace(hw, wgmma_n_efficiency_registers=MappingProxyType({16: 0.8, 32: 1.0}))
    assert tc(True, True) == pytest.approx(2.5 * US)
    assert tc(True, False) == pytest.approx(2.5 * US)
    assert tc(False, True) == pytest.approx(4 * US)


def test_a_waited_wgmma_runs_at_the_dot_chain_rate(round_hw):
    # a dot whose warps wait for its result (attention's) holds the dot-chain rate, 8e13 FLOP/s over the
    # round GPU's 4 SMs: 2e7 FLOPs take 1 us at a wide instruction and 2 us at m64n16 (efficiency 0.5); the
    # same dot not waited for keeps the calibrated 4e13 (2 us); without a chain rate in the profile the
    # waited dot falls back to the narrow cap (the calibrated rate, 2 us wide)
    import dataclasses
    from types import MappingProxyType

    from tilesight.model.resources import waited_mma_rate

    eff = MappingProxyType({16: 0.5, 64: 1.0})
    hw = dataclasses.replace(round_hw, wgmma_n_efficiency=eff, wgmma_chain_flops_per_s=8e13)
    x = TensorAccess("a", "float16", (1000, 1000), (100, 500))

    def tc(profile, n, waited, variant="wgmma"):
        dot = TileAction(
            "d", ActionKind.DOT, dtype="float16", shape=(100, 100, 1000), variant=variant, mma_n=n
        )
        plan = TilePlan("p", TileGrid((4,)), (x,), (dot,), BlockResources(128))
        return action_demand(dot, plan, profile, _traffic(0.5, 0.5), waited=waited).busy_s[TC]

    assert waited_mma_rate(hw, "float16", 128) == pytest.approx(8e13)
    assert waited_mma_rate(hw, "float16", 16) == pytest.approx(4e13)
    assert tc(hw, 128, True) == pytest.approx(1 * US)
    assert tc(hw, 16, True) == pytest.approx(2 * US)
    assert tc(hw, 128, False) == pytest.approx(2 * US)
    assert tc(hw, 128, True, variant="mma") == pytest.approx(2 * US)  # warp-level mma: calibrated
    plain = dataclasses.replace(round_hw, wgmma_n_efficiency=eff)
    assert tc(plain, 128, True) == pytest.approx(2 * US)


def test_the_h200_charges_attention_dots_the_dot_chain_rate():
    # the H200 profile: wgmma_chain_flops_per_s 8.054e14 (fp16); bf16 in proportion to the calibrated
    # rates (6.7167e14 / 6.5628e14); m64n32 at [wgmma_n_efficiency] 0.761
    from tilesight.hardware import load_profile
    from tilesight.model.resources import waited_mma_rate

    h200 = load_profile("h200")
    assert waited_mma_rate(h200, "float16", 64) == pytest.approx(8.054e14)
    assert waited_mma_rate(h200, "bfloat16", 128) == pytest.approx(8.054e14 * 6.7167 / 6.5628)
    assert waited_mma_rate(h200, "float16", 32) == pytest.approx(0.761 * 8.054e14)


def _broadcast_plan(
    *actions: TileAction, smem: int = 0, reuse: frozenset[str] = frozenset({"x"})
) -> TilePlan:
    # a 4096-element fp32 weight row (16 KiB) every one of the 4 row tiles reads whole
    w = TensorAccess("a", "float32", (4096,), (4096,), reuse_dims=reuse)
    return TilePlan("p", TileGrid((4,)), (w,), actions, BlockResources(128, smem_bytes=smem))


def test_a_row_every_tile_reads_is_served_by_l1(round_hw):
    import dataclasses

    hw = dataclasses.replace(round_hw, l1_smem_per_sm_bytes=64 * 1024)
    ld = TileAction("ld", ActionKind.LOAD, tensor="a")
    traffic = _traffic(1.0, 0.0)
    # 16 KiB fits in 64 KiB of L1 beside 2 blocks x 16 KiB of shared memory: no L2 time
    assert action_demand(ld, _broadcast_plan(ld, smem=16384), hw, traffic, resident=2).busy_s[L2] == 0.0
    # 16,384 B through L2 at 2e11 B/s per SM = 0.08192 us where it does not apply:
    l2 = 16384 / 2e11
    # three blocks' 16 KiB of shared memory leave 16,384 B of L1: still fits; four leave none
    assert action_demand(ld, _broadcast_plan(ld, smem=16384), hw, traffic, resident=3).busy_s[L2] == 0.0
    d = action_demand(ld, _broadcast_plan(ld, smem=16384), hw, traffic, resident=4)
    assert d.busy_s[L2] == pytest.approx(l2)
    # each tile reading its own part (not reused across the grid)
    own = _broadcast_plan(ld, reuse=frozenset())
    assert action_demand(ld, own, hw, traffic).busy_s[L2] == pytest.approx(l2)
    # a copy into shared memory bypasses L1, and so do the loads of a kernel with dots (asynchronous copies)
    cp = TileAction("cp", ActionKind.LOAD, tensor="a", dst=MemLevel.SMEM)
    assert action_demand(cp, _broadcast_plan(cp), hw, traffic).busy_s[L2] == pytest.approx(l2)
    mm = TileAction("mm", ActionKind.DOT, dtype="float16", shape=(64, 64, 64), deps=("ld",))
    assert action_demand(ld, _broadcast_plan(ld, mm), hw, traffic).busy_s[L2] == pytest.approx(l2)
    # a profile without the L1 size never applies it
    assert action_demand(ld, _broadcast_plan(ld), round_hw, traffic).busy_s[L2] == pytest.approx(l2)


def test_producer_load_waits_for_its_slowest_line_by_hand(round_hw):
    import dataclasses

    from tilesight.model.resources import producer_load_demand

    hw = dataclasses.replace(round_hw, tma_ddr_latency_s=0.8 * US, tma_l2_latency_s=0.2 * US)
    act = TileAction("ld", ActionKind.LOAD, tensor="a", dst=MemLevel.SMEM)
    plan = _plan(act)
    # a 256-byte tile (2 lines of 128 B) at a DRAM-wait share of 0.1: both lines served 0.9^2 = 0.81, so
    # 0.19 x 0.8 + 0.81 x 0.2 = 0.314 us; its transfer at the SM's port (2e11 B/s)
    small = dataclasses.replace(plan.tensors[0], tile=(1, 128))
    plan = dataclasses.replace(plan, tensors=(small,))
    tt = TensorTraffic("a", 10, 1e6, 0.0, 0.95, 5e4, ddr_wait=0.1)
    base = action_demand(act, plan, hw, CacheTraffic({"a": tt}, 0.95, None, 5e4, 0.0, "test"))
    d = producer_load_demand(hw, base, tt)
    assert d.latency_s == pytest.approx(0.314 * US)
    assert d.burst_bytes_per_s == hw.l2_bw_per_sm_bytes_per_s == 2e11
    assert d.busy_s == base.busy_s  # the pipelines' shares are unchanged
    # nothing waits for DRAM: the L2 figure; everything does: the DRAM one
    assert producer_load_demand(hw, base, dataclasses.replace(tt, ddr_wait=0.0)).latency_s == pytest.approx(
        0.2 * US
    )
    assert producer_load_demand(hw, base, dataclasses.replace(tt, ddr_wait=1.0)).latency_s == pytest.approx(
        0.8 * US
    )
    # a profile without the probe's figures leaves the demand as it is
    assert producer_load_demand(round_hw, base, tt) is base


def test_traffic_ddr_wait_defaults_to_the_miss_share():
    t = TensorTraffic("a", 10, 1e6, 0.1, 0.6, 3e5)
    assert t.ddr_wait == pytest.approx(0.3)
    with pytest.raises(ValueError, match="ddr_wait"):
        TensorTraffic("a", 10, 1e6, 0.0, 0.6, 4e5, ddr_wait=1.5)


def test_pipelined_load_waits_for_its_slowest_line_by_hand(round_hw):
    import dataclasses

    from tilesight.model.resources import pipelined_load_latency

    act = TileAction("ld", ActionKind.LOAD, tensor="a", dst=MemLevel.SMEM)
    plan = _plan(act)
    small = dataclasses.replace(plan.tensors[0], tile=(1, 128))  # 256 bytes: two 128-byte lines
    plan = dataclasses.replace(plan, tensors=(small,))
    tt = TensorTraffic("a", 10, 1e6, 0.0, 0.95, 5e4, ddr_wait=0.1)
    d = action_demand(act, plan, round_hw, CacheTraffic({"a": tt}, 0.95, None, 5e4, 0.0, "test"))
    # mean latency 0.95 x 0.5 + 0.05 x 1 = 0.525 us, kept where the profile has no unloaded DRAM figure
    assert d.latency_s == pytest.approx(0.525 * US)
    assert pipelined_load_latency(round_hw, d, tt) == d.latency_s
    # both lines served without DRAM 0.9^2 = 0.81; with the probe's unloaded 0.8 us: 0.19 x 0.8 + 0.81 x 0.5
    # = 0.557 us
    hw = dataclasses.replace(round_hw, tma_ddr_latency_s=0.8 * US, tma_l2_latency_s=0.2 * US)
    assert pipelined_load_latency(hw, d, tt) == pytest.approx(0.557 * US)
    # nothing waits for DRAM: both lines at L2's 0.5 us, not the mean's 0.525 (which mixes in the loaded
    # DRAM figure: a stream's tiles in flight over its rate, their transfer the duration charges again)
    assert pipelined_load_latency(hw, d, dataclasses.replace(tt, ddr_wait=0.0)) == pytest.approx(0.5 * US)
    # every line waits for DRAM: the unloaded 0.8 us, below the loaded 1 us the mean would approach
    assert pipelined_load_latency(hw, d, dataclasses.replace(tt, ddr_wait=1.0)) == pytest.approx(0.8 * US)
    assert pipelined_load_latency(hw, d, None) == d.latency_s
    # 0.2 us of DRAM queueing on the slow lines: 0.19 x 1.0 + 0.81 x 0.5 = 0.595 us
    assert pipelined_load_latency(hw, d, tt, queue_s=0.2 * US) == pytest.approx(0.595 * US)


def test_a_pipelined_refill_waits_the_mean_of_its_lines_by_hand(round_hw):
    import dataclasses

    from tilesight.model.resources import pipelined_refill_latency

    # 80% of the bytes from L2 (0.5 us on the round GPU), 20% from DRAM at the unloaded 0.8 us (no queueing):
    # 0.8 x 0.5 + 0.2 x 0.8 = 0.56 us, whatever the share waiting for another SM's fetch; an L1.5 hit counts
    # as served
    hw = dataclasses.replace(round_hw, tma_ddr_latency_s=0.8 * US, tma_l2_latency_s=0.2 * US)
    tt = TensorTraffic("a", 10, 1e6, 0.0, 0.8, 2e5, ddr_wait=0.9)
    assert pipelined_refill_latency(hw, tt) == pytest.approx(0.56 * US)
    assert pipelined_refill_latency(hw, dataclasses.replace(tt, l15_hit=0.1, l2_hit=0.7)) == pytest.approx(
        0.8 * 0.5 * US + 0.2 * 0.8 * US
    )
    assert pipelined_refill_latency(hw, None) == 0.0
    assert pipelined_refill_latency(round_hw, tt) == 0.0  # no unloaded DRAM figure in the profile


def test_ddr_queue_grows_as_u_over_one_minus_u(round_hw):
    import dataclasses

    from tilesight.model.resources import DDR_QUEUE_MAX_UTILISATION, ddr_queue_s

    hw = dataclasses.replace(round_hw, ddr_queue_latency_s=0.1 * US, ddr_queue_bw_bytes_per_s=4e11)
    assert ddr_queue_s(hw, 0.0) == 0.0
    assert ddr_queue_s(hw, 2e11) == pytest.approx(0.1 * US)  # U 0.5: 0.1 x 0.5 / 0.5
    assert ddr_queue_s(hw, 3e11) == pytest.approx(0.3 * US)  # U 0.75: 0.1 x 3
    u = DDR_QUEUE_MAX_UTILISATION
    assert ddr_queue_s(hw, 1e13) == pytest.approx(0.1 * US * u / (1 - u))  # held at the cap, finite
    assert ddr_queue_s(round_hw, 3e11) == 0.0  # a profile without the queue


def test_a_store_leaves_its_block_at_the_sm_port(round_hw):
    import dataclasses

    # a 100,000-byte store (the round GPU's port: 2e11 B/s per SM): it holds the block for its port time, at
    # any residency, its DRAM share staying in the busy sums; in a persistent program, for an atomic store or
    # in a program with dots, no burst (their time is covered elsewhere, or the rule is not applied)
    st = TileAction("st", ActionKind.STORE, tensor="a", src=MemLevel.REG)
    plan = _plan(st)
    alone = action_demand(st, plan, round_hw, _traffic(1.0, 0.0), resident=1)
    shared = action_demand(st, plan, round_hw, _traffic(1.0, 0.0), resident=2)
    assert alone.burst_bytes_per_s == shared.burst_bytes_per_s == round_hw.l2_bw_per_sm_bytes_per_s == 2e11
    assert alone.bytes / alone.burst_bytes_per_s == pytest.approx(0.5 * US)
    assert alone.busy_s == shared.busy_s and alone.busy_s[DDR] > 0  # STORES_DRAIN_TO_DRAM: all bytes
    persistent = dataclasses.replace(plan, grid=TileGrid((4,), programs=2))
    assert action_demand(st, persistent, round_hw, _traffic(1.0, 0.0), resident=1).burst_bytes_per_s == 0.0
    atomic = dataclasses.replace(
        plan, tensors=(dataclasses.replace(plan.tensors[0], mode=AccessMode.ATOMIC),)
    )
    assert action_demand(st, atomic, round_hw, _traffic(1.0, 0.0), resident=1).burst_bytes_per_s == 0.0
    # a tile program with dots keeps its store's DRAM share in the chain (the rule is not applied there)
    dot = TileAction("mm", ActionKind.DOT, dtype="float16", shape=(64, 64, 64), variant="mma")
    with_dot = dataclasses.replace(plan, body=(dot, st))
    assert action_demand(st, with_dot, round_hw, _traffic(1.0, 0.0), resident=1).burst_bytes_per_s == 0.0


def test_a_lone_blocks_waited_load_bursts_at_the_sm_port(round_hw):
    import dataclasses

    from tilesight.model.resources import lone_load_burst

    # a load the block waits for (top level, or in an unpipelined loop) of a block alone on its SM: the SM's
    # port rate (2e11 B/s on the round GPU); none with two resident blocks, ahead of a pipelined loop or by a
    # producer warpgroup, in a program with dots, in a persistent program of flat rows (the row rule's), or
    # for a store
    ld = TileAction("ld", ActionKind.LOAD, tensor="a", dst=MemLevel.REG)
    plan = _plan(ld)
    port = round_hw.l2_bw_per_sm_bytes_per_s
    assert lone_load_burst(ld, (), plan, round_hw, 1) == port == 2e11
    assert lone_load_burst(ld, (Loop("l", 4, (ld,), stages=1),), plan, round_hw, 1) == port
    assert lone_load_burst(ld, (), plan, round_hw, 2) == 0.0
    assert lone_load_burst(ld, (Loop("l", 4, (ld,), stages=3),), plan, round_hw, 1) == 0.0
    producer = Loop("l", 4, (ld,), stages=1, producer_loads=True)
    assert lone_load_burst(ld, (producer,), plan, round_hw, 1) == 0.0
    dot = TileAction("mm", ActionKind.DOT, dtype="float16", shape=(64, 64, 64), variant="mma")
    assert lone_load_burst(ld, (), dataclasses.replace(plan, body=(ld, dot)), round_hw, 1) == 0.0
    persistent = dataclasses.replace(plan, grid=TileGrid((4,), programs=2))
    assert lone_load_burst(ld, (), persistent, round_hw, 1) == 0.0
    # a persistent program whose tile is more than a flat row (the work before its rows, once a program, is a
    # loop node) waits for its loads like any lone block: the port rate; with two rows in flight it does not
    w = TileAction("w", ActionKind.LOAD, tensor="a")
    before = Loop("per_program_before_loop", 1, (w,), mean_trips=0.5)
    wrapped = dataclasses.replace(persistent, body=(before, ld))
    assert lone_load_burst(ld, (), wrapped, round_hw, 1) == port
    ahead = dataclasses.replace(wrapped, grid=TileGrid((4,), programs=2, tiles_in_flight=2))
    assert lone_load_burst(ld, (), ahead, round_hw, 1) == 0.0
    st = TileAction("st", ActionKind.STORE, tensor="a", src=MemLevel.REG)
    assert lone_load_burst(st, (), _plan(st), round_hw, 1) == 0.0
    # nor for a load from shared memory, which does not come through the L2 port
    staged = dataclasses.replace(plan, tensors=(dataclasses.replace(plan.tensors[0], level=MemLevel.SMEM),))
    assert lone_load_burst(ld, (), staged, round_hw, 1) == 0.0


def test_a_row_program_is_persistent_one_row_in_flight_and_flat():
    import dataclasses

    from tilesight.model.resources import row_program

    ld = TileAction("ld", ActionKind.LOAD, tensor="a", dst=MemLevel.REG)
    rows = dataclasses.replace(_plan(ld), grid=TileGrid((4,), programs=2))
    assert row_program(rows)
    assert not row_program(_plan(ld))  # one tile a program
    assert not row_program(dataclasses.replace(rows, grid=TileGrid((4,), programs=2, tiles_in_flight=2)))
    st = TileAction("st", ActionKind.STORE, tensor="a")
    once = Loop("per_program_after_loop", 1, (st,), mean_trips=0.5)
    assert not row_program(dataclasses.replace(rows, body=(ld, once)))  # work once a program: a loop node


def test_a_lone_blocks_pipelined_dot_loop_streams_its_copies_at_the_sms_own_rates(round_hw):
    import dataclasses

    from tilesight.model.resources import lone_load_burst

    # the round GPU's port 2e11 B/s a SM; a one-block DRAM stream of 5e10 B/s. A pipelined (3-stage) loop
    # with a dot, its threads' own copies (dst registers): at a DRAM share of 0.25 the harmonic mix
    # 1 / (0.75 / 2e11 + 0.25 / 5e10) = 1 / (3.75e-12 + 5e-12) = 1.142857e11 B/s
    hw = dataclasses.replace(round_hw, ddr_stream_per_sm_bytes_per_s=5e10)
    ld = TileAction("ld", ActionKind.LOAD, tensor="a", dst=MemLevel.REG)
    dot = TileAction("mm", ActionKind.DOT, dtype="float16", shape=(64, 64, 64), variant="wgmma")
    loop = Loop("k", 8, (ld, dot), stages=3)
    plan = dataclasses.replace(_plan(ld), body=(loop,))
    assert lone_load_burst(ld, (loop,), plan, hw, 1, 0.25) == pytest.approx(1.142857e11, rel=1e-6)
    assert lone_load_burst(ld, (loop,), plan, hw, 1, 0.0) == pytest.approx(2e11)  # all from L2: the port
    assert lone_load_burst(ld, (loop,), plan, hw, 1, 1.0) == pytest.approx(5e10)  # all from DRAM
    # a persistent program's loop too (one program an SM)
    persistent = dataclasses.replace(plan, grid=TileGrid((4,), programs=2))
    assert lone_load_burst(ld, (loop,), persistent, hw, 1, 1.0) == pytest.approx(5e10)
    # a TMA copy (lands in shared memory without the threads) at the port rate whatever its DRAM share
    tma = dataclasses.replace(ld, dst=MemLevel.SMEM)
    assert lone_load_burst(tma, (loop,), plan, hw, 1, 1.0) == pytest.approx(2e11)
    # not with a second resident block, a producer warpgroup's loads, an unpipelined loop's (the waited-load
    # rule: a program with dots holds its DRAM share), a loop without dots, or without the profile's rate
    assert lone_load_burst(ld, (loop,), plan, hw, 2, 1.0) == 0.0
    producer = dataclasses.replace(loop, producer_loads=True)
    assert lone_load_burst(ld, (producer,), dataclasses.replace(plan, body=(producer,)), hw, 1, 1.0) == 0.0
    flat = dataclasses.replace(loop, stages=1)
    assert lone_load_burst(ld, (flat,), dataclasses.replace(plan, body=(flat,)), hw, 1, 1.0) == 0.0
    no_dot = Loop("k", 8, (ld,), stages=3)
    assert lone_load_burst(ld, (no_dot,), dataclasses.replace(plan, body=(no_dot,)), hw, 1, 1.0) == 0.0
    assert lone_load_burst(ld, (loop,), plan, round_hw, 1, 1.0) == 0.0


@given(
    stream=st.floats(1e9, 1e12),
    shares=st.lists(st.floats(0.0, 1.0), min_size=2, max_size=6),
)
@settings(max_examples=60, deadline=None)
def test_a_lone_pipelined_copys_rate_lies_between_its_two_rates_and_falls_with_its_dram_share(
    round_hw, stream, shares
):
    import dataclasses

    from tilesight.model.resources import lone_load_burst

    # whatever the stream rate against the port (2e11 B/s), the mixed rate lies between the two, is the port's
    # with nothing from DRAM and the stream's with everything, and moves towards the stream's as the DRAM
    # share grows
    hw = dataclasses.replace(round_hw, ddr_stream_per_sm_bytes_per_s=stream)
    ld = TileAction("ld", ActionKind.LOAD, tensor="a", dst=MemLevel.REG)
    dot = TileAction("mm", ActionKind.DOT, dtype="float16", shape=(64, 64, 64), variant="wgmma")
    loop = Loop("k", 8, (ld, dot), stages=2)
    plan = dataclasses.replace(_plan(ld), body=(loop,))
    port = hw.l2_bw_per_sm_bytes_per_s
    rates = [lone_load_burst(ld, (loop,), plan, hw, 1, share) for share in sorted(shares)]
    low, high = min(port, stream), max(port, stream)
    assert all(low * (1 - 1e-9) <= r <= high * (1 + 1e-9) for r in rates)
    toward = [abs(r - stream) for r in rates]
    assert all(b <= a * (1 + 1e-9) + 1e-3 for a, b in zip(toward[:-1], toward[1:], strict=True))
    assert lone_load_burst(ld, (loop,), plan, hw, 1, 0.0) == pytest.approx(port)
    assert lone_load_burst(ld, (loop,), plan, hw, 1, 1.0) == pytest.approx(stream)


def test_a_spilling_kernel_without_dots_reloads_its_frame_once_a_pass(round_hw):
    import dataclasses

    hw = dataclasses.replace(round_hw, **LOCAL)
    # two passes: the top level (ew1 opens it, ew2 follows) and a loop's body (ew3): the openers each move a
    # reload of the 400 B frame and a store of its 240 B beyond the loop-invariant state, (400 + 240) x 128
    # threads = 81,920 B at the L2 rate of the spill test above (8e9 B/s); ew2 moves none
    ew1, ew2, ew3 = (TileAction(n, ActionKind.ELEMENTWISE, flops=1e3) for n in ("ew1", "ew2", "ew3"))
    plan = TilePlan("p", TileGrid((4,)), (), (ew1, ew2, Loop("l", 3, (ew3,))), BlockResources(128))
    plan = dataclasses.replace(
        plan, resources=dataclasses.replace(plan.resources, regs_per_thread=255, spill_bytes_per_thread=400)
    )
    base = action_demand(ew2, plan, hw, _traffic(0.0, 1.0)).busy_s[SMEM]
    for opener in (ew1, ew3):
        extra = action_demand(opener, plan, hw, _traffic(0.0, 1.0)).busy_s[SMEM] - base
        assert extra == pytest.approx(81_920 / 8e9, rel=1e-6)


def test_a_frame_the_plan_places_moves_at_its_openers_only(round_hw):
    import dataclasses

    hw = dataclasses.replace(round_hw, **LOCAL)
    # a dot loop whose promotion (ew, in an if-like one-trip loop) is the only user of the spilled 100 B:
    # the plan names ew as the frame's opener and keeps no invariant state, so ew moves a reload and a store
    # of the whole frame, (100 + 100) x 128 threads = 25,600 B; the frames (12,800 B an SM) fit in L1:
    # 25,600 / 1e11 s; the dot moves none (by default it would reload 100 B and store nothing)
    dot = TileAction("mm", ActionKind.DOT, dtype="float16", shape=(128, 128, 64), variant="wgmma")
    ew = TileAction("ew", ActionKind.ELEMENTWISE, flops=1e3)
    plan = TilePlan(
        "p", TileGrid((4,)), (), (Loop("k", 8, (dot, Loop("if", 1, (ew,)))),), BlockResources(128)
    )
    placed = dataclasses.replace(
        plan,
        resources=dataclasses.replace(
            plan.resources, regs_per_thread=255, spill_bytes_per_thread=100, spill_invariant_bytes=0,
            spill_openers=("ew",),
        ),
    )  # fmt: skip
    plain = dataclasses.replace(plan, resources=dataclasses.replace(plan.resources, regs_per_thread=255))
    t = _traffic(0.0, 1.0)
    assert action_demand(dot, placed, hw, t).busy_s[SMEM] == action_demand(dot, plain, hw, t).busy_s[SMEM]
    extra = action_demand(ew, placed, hw, t).busy_s[SMEM] - action_demand(ew, plain, hw, t).busy_s[SMEM]
    assert extra == pytest.approx(25_600 / 1e11, rel=1e-6)
    # the default placement charges the dot: a 100 B frame is all loop-invariant state, reloaded only
    default = dataclasses.replace(placed, resources=dataclasses.replace(placed.resources, spill_openers=None))
    dot_extra = (
        action_demand(dot, default, hw, t).busy_s[SMEM] - action_demand(dot, plain, hw, t).busy_s[SMEM]
    )
    assert dot_extra == pytest.approx(25_600 / 1e11, rel=1e-6)  # spill_invariant_bytes=0 still stores it
    assert action_demand(ew, default, hw, t).busy_s[SMEM] == action_demand(ew, plain, hw, t).busy_s[SMEM]


def test_a_dot_moves_the_frame_bytes_the_machine_code_moves_where_the_plan_gives_them(round_hw):
    import dataclasses

    hw = dataclasses.replace(round_hw, **LOCAL)
    # a 100 B frame (12,800 B an SM: L1 holds it, 1e11 B/s): by the rule each dot reloads it and stores
    # nothing back (all of it loop-invariant state), 100 x 128 = 12,800 B; where the SASS says the K loop
    # touches 24 distinct bytes around its one dot, 24 x 128 = 3,072 B; none, 0 B
    dot = TileAction("mm", ActionKind.DOT, dtype="float16", shape=(128, 128, 64), variant="wgmma")
    plan = TilePlan("p", TileGrid((4,)), (), (Loop("k", 8, (dot,)),), BlockResources(128))

    def with_frame(**kw):
        res = dataclasses.replace(plan.resources, regs_per_thread=255, spill_bytes_per_thread=100, **kw)
        return dataclasses.replace(plan, resources=res)

    plain = dataclasses.replace(plan, resources=dataclasses.replace(plan.resources, regs_per_thread=255))
    t = _traffic(0.0, 1.0)
    base = action_demand(dot, plain, hw, t).busy_s[SMEM]
    for kw, moved in (({}, 12_800), ({"spill_pass_bytes": 24}, 3_072), ({"spill_pass_bytes": 0}, 0)):
        extra = action_demand(dot, with_frame(**kw), hw, t).busy_s[SMEM] - base
        assert extra == pytest.approx(moved / 1e11, rel=1e-6, abs=1e-15)
    with pytest.raises(PlanError, match="spill_pass_bytes"):
        BlockResources(128, spill_pass_bytes=-1)


def test_spill_openers_must_name_actions_of_the_plan():
    from tilesight.errors import PlanError

    ew = TileAction("ew", ActionKind.ELEMENTWISE, flops=1e3)
    with pytest.raises(PlanError, match="spill_openers.*nope.*not an action"):
        TilePlan(
            "p",
            TileGrid((4,)),
            (),
            (ew,),
            BlockResources(128, spill_bytes_per_thread=8, spill_openers=("nope",)),
        )


def test_waited_tile_latency_puts_dram_waits_on_new_lines_by_hand():
    from tilesight.hardware import load_profile
    from tilesight.model.resources import slowest_line_latency, waited_tile_latency

    hw = load_profile("h200")
    line = hw.l2_line_bytes
    fast, slow = 1.0, 3.0

    def mix(p: float) -> float:
        return pytest.approx(p * fast + (1 - p) * slow)

    plain = TileAction("l", ActionKind.LOAD, tensor="x")
    # without re-reads: the slowest of 4 lines, each fast with 0.9: 0.9^4 of the time fast
    p = 0.9**4
    assert waited_tile_latency(hw, 0.9, 4 * line, fast, slow, plain) == mix(p)
    assert waited_tile_latency(hw, 0.9, 4 * line, fast, slow, None) == slowest_line_latency(
        hw, 0.9, 4 * line, fast, slow
    )
    # 3/4 of every step re-read, the new quarter all in a quarter of the steps (one whole step of 4 lines):
    # 10% of the lines wait, first the new ones (25% of them: 0.4 each), none of the re-read ones. Three
    # steps in four are fast; the fresh one is fast with 0.6^4
    taps = TileAction("l", ActionKind.LOAD, tensor="x", rereads=((1, 0.75),), fresh_steps=0.25)
    p = 0.75 + 0.25 * 0.6**4
    assert waited_tile_latency(hw, 0.9, 4 * line, fast, slow, taps) == mix(p)
    # more waits than new lines: the new ones all wait, the rest spread over the re-read lines
    p = 0.75 * (1 - 0.5 / 0.75) ** 4
    assert waited_tile_latency(hw, 0.25, 4 * line, fast, slow, taps) == mix(p)


@pytest.mark.parametrize(
    "vector, apart, want",
    [
        # 2048 bytes in 2-byte lanes: 32 warp instructions; 16-byte lane stride -> 32 x 16 B = 16 sectors each
        (2, 16, 32 * 16),
        (2, 4, 32 * 4),  # lanes 4 bytes apart: 128 bytes, 4 sectors an instruction
        (1, 16, 64 * 16),  # 1-byte lanes: 64 instructions
        (2, None, 0),  # lanes contiguous: whole words
        (4, 16, 0),  # 4-byte lanes write whole words
    ],
)
def test_partial_write_sectors_by_hand(round_hw, vector, apart, want):
    from tilesight.model.resources import partial_write_sectors

    act = TileAction("st", ActionKind.STORE, tensor="out", vector_bytes=vector, lane_stride_bytes=apart)
    assert partial_write_sectors(act, 2048.0, round_hw) == want
    load = TileAction("ld", ActionKind.LOAD, tensor="out", vector_bytes=vector, lane_stride_bytes=apart)
    assert partial_write_sectors(load, 2048.0, round_hw) == 0


@settings(max_examples=200, deadline=None)
@given(
    vector=st.sampled_from((1, 2, 4, 8, 16)),
    apart=st.sampled_from((2, 4, 8, 16, 32)),
    elems=st.integers(1, 1 << 20),
)
def test_partial_write_sectors_invariants(round_hw, vector, apart, elems):
    from tilesight.model.resources import partial_write_sectors

    if apart <= vector:
        return  # a plan never carries such a stride (TileAction refuses it)
    nbytes = float(elems * vector)
    act = TileAction("st", ActionKind.STORE, tensor="out", vector_bytes=vector, lane_stride_bytes=apart)
    sectors = partial_write_sectors(act, nbytes, round_hw)
    if vector >= 4:
        assert sectors == 0.0  # whole words: nothing to merge
        return
    # one warp instruction per 32 lanes of `vector` bytes, each spanning 32 x `apart` bytes (>= 1 sector)
    instructions = nbytes / (vector * 32)
    assert sectors == pytest.approx(instructions * max(1.0, 32 * apart / 32))
    wider = TileAction("st", ActionKind.STORE, tensor="out", vector_bytes=vector, lane_stride_bytes=2 * apart)
    assert partial_write_sectors(wider, nbytes, round_hw) >= sectors  # lanes further apart span more sectors


def test_scan_carry_chain_floor_and_issue(round_hw):
    import dataclasses

    from tilesight.plan import ScanCarry

    # 8 warps on 4 schedulers (2 a scheduler); a scan of 100 carry steps, 4 lines a thread, 2 operands: 800
    # chunk totals a thread loaded and combined one after another. At 10 ns each the chain takes 8 us
    # whatever else; at 2 ns of issue each, two warps a scheduler, they hold the CUDA pipe 3.2 us on top of
    # the 1e6 element ops' 1 us (2e6 FLOP over the round GPU's 2e12 FLOP/s an SM)
    hw = dataclasses.replace(
        round_hw, scan_carry_latency_s=10e-9, scan_carry_issue_s=2e-9, schedulers_per_sm=4
    )
    scan = TileAction("scan", ActionKind.REDUCE, flops=1e6, scan=ScanCarry(steps=100, lines=4, operands=2))
    plan = dataclasses.replace(_plan(scan), resources=BlockResources(256))
    d = action_demand(scan, plan, hw, _traffic(0.0, 1.0))
    assert d.floor_s == pytest.approx(8 * US)
    assert d.busy_s[CUDA] == pytest.approx(1 * US + 3.2 * US)
    # a profile without the scan_chain calibration prices the element ops alone; so does a plain reduction
    bare = action_demand(scan, plan, round_hw, _traffic(0.0, 1.0))
    plain = action_demand(dataclasses.replace(scan, scan=None), plan, hw, _traffic(0.0, 1.0))
    for other in (bare, plain):
        assert other.floor_s == 0.0 and other.busy_s[CUDA] == pytest.approx(1 * US)


@settings(max_examples=40, deadline=None)
@given(
    steps=st.integers(2, 4096), lines=st.integers(1, 16), operands=st.integers(1, 3), more=st.integers(1, 64)
)
def test_scan_carry_cost_grows_with_its_steps(round_hw, steps, lines, operands, more):
    import dataclasses

    from tilesight.plan import ScanCarry

    hw = dataclasses.replace(
        round_hw, scan_carry_latency_s=20e-9, scan_carry_issue_s=3e-9, schedulers_per_sm=4
    )

    def demand(n: int):
        scan = TileAction("scan", ActionKind.REDUCE, flops=1e4, scan=ScanCarry(n, lines, operands))
        return action_demand(scan, _plan(scan), hw, _traffic(0.0, 1.0))

    a, b = demand(steps), demand(steps + more)
    assert b.floor_s > a.floor_s and b.busy_s[CUDA] > a.busy_s[CUDA]


@pytest.mark.parametrize(
    ("spill", "resident", "latencies"),
    [
        # no frame: no reload waits to pay
        (0, 1, (0.0, 0.0)),
        # 100 B x 128 threads = 12,800 B per SM fit the 32 KiB of L1: a read-only slot is an L1 hit (20 ns),
        # a slot the loop stores to waits for L2 (0.5 us)
        (100, 1, (20e-9, 5e-7)),
        # 200 B at two blocks: 51,200 B per SM overflow L1: both from L2
        (200, 2, (5e-7, 5e-7)),
        # 8000 B: 4 MB of frames over the chip, beyond L2: still L2's latency (the docstring says why)
        (8000, 1, (5e-7, 5e-7)),
    ],
)
def test_a_spill_reload_waits_for_the_level_its_frame_lives_in(round_hw, spill, resident, latencies):
    from dataclasses import replace

    from tilesight.model.resources import reload_latency_s

    hw = replace(round_hw, **LOCAL, local_l1_latency_s=20e-9)
    _, plan = _spilling(spill)
    assert reload_latency_s(plan, hw, resident) == pytest.approx(latencies, rel=1e-3)

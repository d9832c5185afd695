"""End-to-end evaluation on the round-number GPU (tests/model/conftest.py); every number worked by hand."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tilesight as ts
from tilesight.errors import LaunchError
from tilesight.library.gemm import gemm_plan
from tilesight.model.evaluate import _makespan, clear_caches, evaluate
from tilesight.plan import Pipeline

from .plans import row_loop_plan, stream_plan, two_chain_plan

US = 1e-6


def test_two_stage_load_compute_pipeline(round_hw):
    # 4 tiles on 4 SMs, 1 resident (grid limit). Per iteration at full share:
    #   load: DDR 1e5/1e11 = 1 us, L2 0.5 us, + DDR latency 1 us -> finishes at 2 us;
    #   compute: 3e6 / 1e12 = 3 us on CUDA, starts at 2 -> L = 5 us, L_fill = 2 us, max U = 3 us (CUDA).
    # stages=2 -> d = 1: T_steady = max(3, 5/2) = 3; T_pro = 2; 3 steady iterations; T_epi = 3
    #   T = 2 + 3*3 + 3 = 14 us, + 2 us launch = 16 us.
    r = evaluate(stream_plan(tiles=4, trips=4, stages=2), round_hw)
    assert r.latency_s == pytest.approx(16 * US)
    ph = {p.phase: p for p in r.phases}
    assert ph["prologue"].time_s == pytest.approx(2 * US)
    assert ph["steady"].time_s == pytest.approx(9 * US)
    assert ph["epilogue"].time_s == pytest.approx(3 * US)
    assert ph["tail"].time_s == 0.0
    assert ph["steady"].bottleneck is Pipeline.CUDA
    assert ph["steady"].reason.startswith("CUDA-bound in steady state")
    # busiest SM: 4 iterations x (CUDA 3, DDR 1, L2 0.5) us
    assert r.busy_s[Pipeline.CUDA] == pytest.approx(12 * US)
    assert r.busy_s[Pipeline.DDR] == pytest.approx(4 * US)
    assert r.busy_s[Pipeline.L2] == pytest.approx(2 * US)
    assert r.utilization[Pipeline.CUDA] == pytest.approx(12 / 16)
    # overlap: 1 - 14 / (12 + 4 + 2) = 1 - 14/18
    assert r.overlap_rate == pytest.approx(1 - 14 / 18)
    assert r.bottleneck is Pipeline.CUDA


def test_single_stage_serialises_the_loop(round_hw):
    # stages=1 -> d = 0. The block is alone on its SM and waits for its load, which leaves DRAM at the SM's
    # port (LOADS_LEAVE_AT_L2_PORT_ALONE: 1e5 B at 2e11 B/s = 0.5 us, behind the 1 us latency): L = 1.5 + 3
    # = 4.5 us, T_steady = max(3, 4.5/1) = 4.5, T = 4.5 + 3*4.5 = 18 us (+2 launch)
    r = evaluate(stream_plan(tiles=4, trips=4, stages=1), round_hw)
    assert r.latency_s == pytest.approx(20 * US)
    reason = {p.phase: p for p in r.phases}["steady"].reason
    assert "latency-bound in steady state: too few iterations in flight (loop: stages=1" in reason


def _chain_plan(stored_reload_waits: int = 0, spill_bytes_per_thread: int = 0):
    """A loop whose iteration loads a row, then scales it and exponentiates it one after the other."""
    from tilesight.plan import ActionKind, BlockResources, Loop, TensorAccess, TileAction, TileGrid, TilePlan

    from .plans import ROW_ELEMS

    x = TensorAccess("x", "float32", (16, ROW_ELEMS), (1, ROW_ELEMS))
    body = (
        TileAction("load", ActionKind.LOAD, tensor="x"),
        TileAction("scale", ActionKind.ELEMENTWISE, flops=1e6, deps=("load",)),
        TileAction("exp", ActionKind.SFU, flops=2e5, deps=("scale",)),
    )
    loop = Loop("loop", 4, body=body, stages=4, stored_reload_waits=stored_reload_waits)
    resources = BlockResources(
        128,
        regs_per_thread=255 if spill_bytes_per_thread else None,
        spill_bytes_per_thread=spill_bytes_per_thread,
    )
    return TilePlan("chain", TileGrid((4,)), (x,), (loop,), resources)


def test_a_compute_chain_bound_loop_says_so(round_hw):
    # per iteration: load (DDR 1 us + 1 us latency), then 1e6 element ops on the CUDA cores (1 us at 1e12
    # op/s) and 2e5 exponentials on the SFU (2 us at 1e11 op/s), one after the other: busiest pipeline 2 us,
    # compute chain 3 us, L = 5 us over d + 1 = 4 -> 1.25: the chain sets the steady state, 3 us, which more
    # stages would not shorten
    r = evaluate(_chain_plan(), round_hw)
    steady = {p.phase: p for p in r.phases}["steady"]
    assert r.extras["steady_per_unit_s"] == pytest.approx(r.extras["tile_latency_s"])
    assert "each iteration's compute runs one step after another (loop: 3000 ns an iteration" in steady.reason


def test_a_loop_bound_by_its_spill_reloads_says_so(round_hw):
    # the chain-bound loop above, spilling 8 bytes a thread, whose warps stop 10 times an iteration for a
    # reload of a slot the loop stores to: 10 x the L2 latency (0.5 us) = 5 us, longer than the compute's 3
    spilled = _chain_plan(stored_reload_waits=10, spill_bytes_per_thread=8)
    steady = {p.phase: p for p in evaluate(spilled, round_hw).phases}["steady"]
    why = "wait for their register-spill reloads one after another (loop: 10 waits, 5000 ns an iteration"
    assert why in steady.reason
    # without the waits the compute chain bounds it, as above
    plain = _chain_plan(spill_bytes_per_thread=8)
    steady = {p.phase: p for p in evaluate(plain, round_hw).phases}["steady"]
    assert "each iteration's compute runs one step after another (loop: 3000 ns an iteration" in steady.reason


def test_best_order_differs_from_program_order(round_hw):
    # load_x: DDR 1 us + 1 us latency -> done at 2; cx 1 us CUDA (needs x); cy 2 us CUDA.
    # program order (load_x, cx, cy): cx 2..3, cy 3..5 -> L = 5 us;
    # best order (load_x, cy, cx): cy 0..2, cx 2..3 -> L = 3 us. T = 3 + 2 launch = 5 us.
    r = evaluate(two_chain_plan(), round_hw)
    assert r.latency_s == pytest.approx(5 * US)
    assert r.extras["best_orders"]["tile"] == ["load_x", "cy", "cx"]


def test_tail_wave_gets_a_larger_bandwidth_share(round_hw, monkeypatch):
    import tilesight.model.resources as resources

    # the region shares alone, without a lone block's load burst (test_a_lone_blocks_waited_load_...)
    monkeypatch.setattr(resources, "LOADS_LEAVE_AT_L2_PORT_ALONE", False)
    clear_caches()
    # 5 tiles, 60,000 B smem each -> (60000 + 1024) rounded to 61,440 -> 1 resident. One full wave of 4, then
    # 1 tail block on 1 SM.
    # full: load DDR 1 us + 1 us latency -> 2; compute 3 us -> L = 5, L_fill = 2, epilogue 3 us. T_full = 5.
    # tail on 1 SM: DDR share 4e11 -> 0.25 us, L2 share min(8e11, 2e11) -> 0.5 us; load 0.5 + 1 = 1.5;
    #   L = 4.5 us. One resident block: its slot frees only when the full region's block exits, so no
    #   overlap ((p - 1) T_steady = 0): the tail adds 4.5 us.
    # T = 5 + 4.5 + 2 launch = 11.5 us.
    r = evaluate(stream_plan(tiles=5, trips=1, stages=1, smem=60_000), round_hw)
    occ = r.occupancy
    assert (occ.resident_blocks, occ.limiter) == (1, "smem")
    assert (occ.full_waves, occ.tail_blocks, occ.tail_active_sms) == (1, 1, 1)
    ph = {p.phase: p for p in r.phases}
    assert ph["tail"].time_s == pytest.approx(4.5 * US)
    assert r.latency_s == pytest.approx(11.5 * US)
    assert "1 block(s) on 1 SM(s)" in ph["tail"].reason
    clear_caches()


def test_first_wave_blocks_that_take_turns_exit_together(round_hw):
    # 10 tiles, 40,000 B smem each -> 41,984 B a block: 2 resident on 4 SMs, one full wave of 8 and a tail of
    # 2 on 2 SMs. A tile loops twice over load (DDR 1 us + 1 us latency at the SM's full share) then compute
    # (3 us CUDA), one stage: L = 2 x 5 = 10 us, U = 6 us CUDA.
    # full region: 2 units at d = 1; ring 10 / 2 = 5 < U = 6, the two queue for the CUDA cores (mean value
    #   analysis, service 6, the other 4 elsewhere): n=1: R=6, X=1/10, Q=0.6; n=2: R=6 x 1.6=9.6, X=2/13.6
    #   -> T_steady 6.8; the region ends at 10 + 6.8 = 16.8 us.
    # tail on 2 SMs: DDR share 2e11 -> 0.5 us + 1 latency, compute 3 -> L = 2 x 4.5 = 9 us.
    # The stagger alone (tail_overlap) starts the tail (p - 1) x 6.8 before the region ends, at 10 us: the
    # tail would add 9 - 6.8 = 2.2 us. But the wave's two blocks started together and take turns on the SM
    # iteration by iteration (first_wave_exit_s): the first exits at 2 x 6.8 = 13.6 us, so the tail ends at
    # 13.6 + 9 = 22.6 us and adds 5.8. T = 16.8 + 5.8 + 2 launch = 24.6 us.
    r = evaluate(stream_plan(tiles=10, trips=2, stages=1, smem=40_000), round_hw)
    occ = r.occupancy
    assert (occ.resident_blocks, occ.full_waves, occ.tail_blocks) == (2, 1, 2)
    assert r.extras["full_region_s"] == pytest.approx(16.8 * US)
    assert {p.phase: p for p in r.phases}["tail"].time_s == pytest.approx(5.8 * US)
    assert r.latency_s == pytest.approx(24.6 * US)
    # a tile without a loop of two or more iterations runs each pipeline's work in one piece, the first block
    # ahead of the second: the first exits as the stagger has it. Trips 1: L = 5, U = 3, T_steady 3.4 (the
    # test above), region 5 + 3.4 = 8.4; tail L = 4.5 starts at 8.4 - 3.4 = 5 and adds 1.1 us.
    r = evaluate(stream_plan(tiles=10, trips=1, stages=1, smem=40_000), round_hw)
    assert {p.phase: p for p in r.phases}["tail"].time_s == pytest.approx(1.1 * US)
    assert r.latency_s == pytest.approx((8.4 + 1.1 + 2) * US)


def test_partial_single_wave_has_no_tail(round_hw):
    # 2 tiles on 4 SMs: the only wave is partial, active = 2: DDR share 2e11 -> 0.5 us; L2 min(4e11, 2e11)
    # -> 0.5 us; load = 0.5 + 1 latency = 1.5; compute 3 -> L = 4.5 us; + 2 launch = 6.5 us.
    r = evaluate(stream_plan(tiles=2, trips=1, stages=1), round_hw)
    assert r.latency_s == pytest.approx(6.5 * US)
    assert {p.phase: p for p in r.phases}["tail"].time_s == 0.0


def test_resident_blocks_interleave(round_hw):
    # 8 tiles, 2 resident per SM (grid limit ceil(8/4)). One tile alone on its SM (the SM's full share):
    #   load DDR 1 us + 1 latency = 2; compute 3 us -> L_tile = 5 us, fill 2; U_tile = 3 us CUDA.
    # outer envelope N = 2, d = 1: the asymptotes max(3, 5/2) = 3 (the CUDA pipe, now that the two tiles
    # interleave their load and compute phases); the two queue for it (mean value analysis, service 3, the
    # other 2 elsewhere): n=1: R=3, X=1/5, Q=0.6; n=2: R=3 x 1.6=4.8, X=2/6.8 -> T_steady 3.4: the
    # staggered stream would end at 5 + 3.4 = 8.4 us. But the grid is one whole wave, so the SM's two blocks
    # start together (started_together_s): 3.4 sooner, no sooner than the CUDA-paced stream 5 + 1 x 3 = 8 us
    # (both loads at 0, the first block computes 2..5, the second 5..8). T = 8 us (+2 launch).
    r = evaluate(stream_plan(tiles=8, trips=1, stages=1), round_hw)
    assert r.occupancy.resident_blocks == 2
    assert r.latency_s == pytest.approx(10.0 * US)
    ph = {p.phase: p.time_s for p in r.phases}
    assert ph["prologue"] + ph["steady"] + ph["epilogue"] + ph["tail"] == pytest.approx(8.0 * US)


def test_launch_errors_name_the_field(round_hw):
    with pytest.raises(LaunchError, match="resources.smem_bytes=102401"):
        evaluate(stream_plan(4, 1, 1, smem=102_401), round_hw)
    with pytest.raises(LaunchError, match="resources.threads=1056"):
        evaluate(stream_plan(4, 1, 1, threads=1056), round_hw)


def test_estimate_dispatches_by_profile_name_and_rejects_unknown():
    plan = gemm_plan(1024, 1024, 1024, 128, 128, 64)
    r = ts.estimate(plan, hw="h200")
    assert r.hw == "h200" and r.latency_s > 0
    json.dumps(r.to_dict())
    with pytest.raises(ts.UnknownProfileError, match="h999"):
        ts.estimate(plan, hw="h999")


def test_gemm_on_h200_is_consistent():
    r = ts.estimate(gemm_plan(4096, 4096, 4096, 128, 128, 64, group_m=8), hw="h200")
    total = sum(p.time_s for p in r.phases) + r.launch_overhead_s
    assert total == pytest.approx(r.latency_s)
    assert r.flops == pytest.approx(2 * 4096**3)
    assert r.extras["order_search_exact"]
    assert {a.name for a in r.actions} == {"load_a", "load_b", "dot", "store_c"}


def test_net_time_fills_the_net_entry_and_missing_is_noted(round_hw):
    from tilesight.plan import (
        ActionKind,
        BlockResources,
        MemLevel,
        TensorAccess,
        TileAction,
        TileGrid,
        TilePlan,
    )

    w = TensorAccess("w", "float32", (4, 1000), (1, 1000), level=MemLevel.REMOTE)
    plan = TilePlan(
        "remote",
        TileGrid((4,)),
        (w,),
        (TileAction("fetch", ActionKind.REMOTE, tensor="w"),),
        BlockResources(64),
    )
    r = evaluate(plan, round_hw, net_time_s={"fetch": 5e-6})
    # one 5 us Net action per SM, + 2 us launch
    assert r.latency_s == pytest.approx(7 * US)
    assert r.busy_s[Pipeline.NET] == pytest.approx(5 * US)
    r0 = evaluate(plan, round_hw)
    assert any("no network time" in n for n in r0.notes)


def test_persistent_programs_run_their_tiles_back_to_back(round_hw):
    # 8 tiles on 4 programs: 4 blocks, 1 resident (grid limit ceil(4/4)), each program runs 2 tiles in turn:
    # N = 2 units of L = 4.5 us at d = 0 -> 9 us, + 2 launch = 11 us. (A unit is 5 us with its row's DRAM
    # share, 1 us; a program alone on its SM that waits for its tile's row moves it at its port: 0.5 us).
    from dataclasses import replace

    plan = stream_plan(tiles=8, trips=1, stages=1)
    plan = replace(plan, grid=replace(plan.grid, programs=4))
    r = evaluate(plan, round_hw)
    assert r.occupancy.blocks == 4 and r.occupancy.resident_blocks == 1
    assert r.extras["tiles_per_program"] == 2
    assert r.latency_s == pytest.approx(11 * US)


def test_a_persistent_program_keeps_its_pipelined_tiles_in_flight(round_hw):
    # the 4 programs of the test above, each keeping 2 of its tiles in flight (a pipelined row loop): 2 units
    # of L = 5 us at d = 1. The two queue for the CUDA cores (U = 3 us, the rest 2 us): mean value analysis,
    # 1 unit: R = 3, X = 1/5, Q = 0.6; 2 units: R = 3 x 1.6 = 4.8, X = 2 / 6.8 -> T_steady = 3.4 us;
    # fill 2 + 3.4 + epilogue 3 = 8.4, + 2 launch (one tile at a time: 12 us)
    from dataclasses import replace

    plan = stream_plan(tiles=8, trips=1, stages=1)
    plan = replace(plan, grid=replace(plan.grid, programs=4, tiles_in_flight=2))
    assert evaluate(plan, round_hw).latency_s == pytest.approx(10.4 * US)
    # a grid of one tile per block is not persistent: its blocks are its tiles in flight whatever it says
    flat = stream_plan(tiles=8, trips=1, stages=1)
    assert evaluate(
        replace(flat, grid=replace(flat.grid, tiles_in_flight=2)), round_hw
    ).latency_s == pytest.approx(evaluate(flat, round_hw).latency_s)


def test_a_pipelined_row_loop_computes_its_rows_one_after_another(round_hw):
    # 8 flat tiles (a row loop's body: load a row, then 3 us of CUDA-core work on it) on 4 programs keeping 2
    # rows in flight: the tile takes L = 5 us (the load's 1 us busy + 1 us latency, then the work), the two
    # rows queue for the CUDA cores at T = 3.4 us (the test above's mean value analysis): fill 2 + 3.4 +
    # epilogue 3, + 2 launch = 10.4 us. The program computes its rows one after another: a row's serial
    # time is its compute chain (3 us), its reductions' shuffle trees (none) and the loop's step
    # (row_loop_step_s). A 1 us step makes it 4 us, above the queue: 2 + 4 + 3 + 2 = 11 us; a 4 us step
    # (7 us) is capped by the tile's own latency, one row at a time: 2 + 5 + 3 + 2 = 12 us.
    from dataclasses import replace

    from tilesight.plan import ActionKind, TileAction

    plan = row_loop_plan(tiles_in_flight=2)
    body = plan.body
    r = evaluate(plan, round_hw)
    assert r.latency_s == pytest.approx(10.4 * US)
    assert r.extras["tile_serial_s"] == pytest.approx(3 * US)
    stepped = evaluate(plan, replace(round_hw, row_loop_step_s=1e-6))
    assert stepped.latency_s == pytest.approx(11 * US)
    assert stepped.extras["tile_serial_s"] == pytest.approx(4 * US)
    steady = next(ph for ph in stepped.phases if ph.phase == "steady")
    assert "computes its tiles one after another (4000 ns a tile" in steady.reason
    capped = evaluate(plan, replace(round_hw, row_loop_step_s=4e-6))
    one_at_a_time = evaluate(replace(plan, grid=replace(plan.grid, tiles_in_flight=1)), round_hw)
    assert capped.latency_s == pytest.approx(12 * US) == one_at_a_time.latency_s
    # a reduction adds its warp's whole shuffle tree (warp_reduction_latency_s) to the row's serial time
    total = TileAction("total", ActionKind.REDUCE, flops=1e3, deps=("compute",), warps=1)
    reduced = replace(plan, body=(*body, total))
    tree = evaluate(reduced, replace(round_hw, warp_reduction_latency_s=5e-7)).extras["tile_serial_s"]
    assert tree == pytest.approx(evaluate(reduced, round_hw).extras["tile_serial_s"] + 0.5 * US)
    # a reduction over 24 elements a thread (3072 over 128 threads) adds row_element_step_s for each of the 16
    # beyond ROW_ELEMENTS_HIDDEN (8); one over 1000 (7.8 a thread) adds nothing
    wide = replace(plan, body=(*body, replace(total, flops=3072.0)))
    per_element = replace(round_hw, row_element_step_s=1e-8)
    assert evaluate(wide, per_element).extras["tile_serial_s"] == pytest.approx(
        evaluate(wide, round_hw).extras["tile_serial_s"] + 16 * 1e-8
    )
    assert evaluate(reduced, per_element).extras["tile_serial_s"] == pytest.approx(
        evaluate(reduced, round_hw).extras["tile_serial_s"]
    )
    # a tile with a loop inside keeps one tile in flight (the frontend's rule) and has no row step
    looped = stream_plan(tiles=8, trips=1, stages=1)
    looped = replace(looped, grid=replace(looped.grid, programs=4, tiles_in_flight=2))
    assert evaluate(looped, replace(round_hw, row_loop_step_s=4e-6)).extras["tile_serial_s"] == 0.0


def test_an_unpipelined_row_program_waits_the_idle_dram_round_trip_and_its_rows_serial_time(round_hw):
    # the row loop above, one row in flight (two stages: the next row's copies after this row's stores), 4
    # programs on the 4 SMs: one at a time, L = 5 us (fill 2: the load's 1 us busy + 1 us DRAM latency, then
    # 3 us of work), 2 rows a program: 10 + 2 launch = 12 us. With an idle DRAM round trip of 0.25 us the
    # row's load waits 0.75 us less (all of it from DRAM): L = 4.25, 8.5 + 2 = 10.5 us, the prologue 1.25 us
    from dataclasses import replace

    plan = row_loop_plan(tiles_in_flight=1)
    assert evaluate(plan, round_hw).latency_s == pytest.approx(12 * US)
    idle = replace(round_hw, ddr_idle_latency_s=0.25e-6)
    r = evaluate(plan, idle)
    assert r.latency_s == pytest.approx(10.5 * US)
    assert {p.phase: p.time_s for p in r.phases}["prologue"] == pytest.approx(1.25 * US)
    # the row's compute is at least its serial time: a 1 us loop step makes it 4 us, L = 5.25 -> 12.5 us
    # (without the idle figure the fill stays 2: L = 6 -> 14 us)
    assert evaluate(plan, replace(idle, row_loop_step_s=1e-6)).latency_s == pytest.approx(12.5 * US)
    assert evaluate(plan, replace(round_hw, row_loop_step_s=1e-6)).latency_s == pytest.approx(14 * US)
    # two programs an SM (16 rows on 8 programs): the tile's fill is 2 us and the CUDA cores pace the rows (4
    # an SM x 3 us): 2 + 9 + 3 + 2 launch = 16 us. A row's loads also wait for the other program's row ahead
    # of them on the SM, its 1e5 DRAM bytes at ddr_stream_per_sm_bytes_per_s; at 1e12 B/s that is 0.1 us, so
    # they wait 0.35 us where they waited 1: the fill is 1.35 us and the launch 0.65 us shorter (without a
    # stream rate in the profile the loaded figure stands)
    shared = row_loop_plan(tiles_in_flight=1, rows=16, programs=8)
    base = evaluate(shared, round_hw)
    assert base.latency_s == pytest.approx(16 * US)
    assert evaluate(shared, idle).latency_s == pytest.approx(base.latency_s)
    faster = evaluate(shared, replace(idle, ddr_stream_per_sm_bytes_per_s=1e12))
    assert {p.phase: p.time_s for p in faster.phases}["prologue"] == pytest.approx(1.35 * US)
    assert faster.latency_s == pytest.approx(15.35 * US)
    # a pipelined row loop (two rows in flight) keeps the loaded figure too
    ahead = replace(plan, grid=replace(plan.grid, tiles_in_flight=2))
    assert evaluate(ahead, idle).latency_s == pytest.approx(evaluate(ahead, round_hw).latency_s)


def test_a_persistent_program_pays_a_tiles_fill_and_drain_once(round_hw):
    # 8 tiles on 4 programs, 2 each, one after the other. A tile is the two-stage loop of the first test:
    # L = 14 us (fill 2, steady 3 x 3, drain 3) of which its 4 iterations at the steady rate are 12 us. Its
    # own warps issue the loads, so a program runs a tile's fill and drain under its other tile:
    # units of 12 us at d = 0 -> fill 2 + 12 + epilogue 10 = 24 us, + the 2 us paid once = 26, + 2 launch.
    from dataclasses import replace

    plan = stream_plan(tiles=8, trips=4, stages=2)
    plan = replace(plan, grid=replace(plan.grid, programs=4))
    assert evaluate(plan, round_hw).latency_s == pytest.approx(28 * US)
    # a loop whose loads a producer warpgroup issues keeps each tile whole: 2 x 14 + 2
    (loop,) = plan.body
    fed = replace(plan, body=(replace(loop, producer_loads=True),))
    assert evaluate(fed, round_hw).latency_s == pytest.approx(30 * US)


def test_nested_loops_apply_the_envelope_recursively(round_hw):
    # inner loop: 4 trips, 2 stages of (load 2 us incl. latency -> compute 3 us): T_inner = 14 us (as above),
    # usage 4 x 3 = 12 us CUDA. outer loop: 2 trips, 1 stage: L = 14, T_steady = max(12, 14) = 14 -> 28 us.
    # 4 tiles on 4 SMs: 28 + 2 launch = 30 us.
    from tilesight.plan import ActionKind, BlockResources, Loop, TensorAccess, TileAction, TileGrid, TilePlan

    x = TensorAccess("x", "float32", (4 * 8, 25_000), (1, 25_000))
    inner = Loop(
        "inner",
        4,
        stages=2,
        body=(
            TileAction("load", ActionKind.LOAD, tensor="x"),
            TileAction("compute", ActionKind.ELEMENTWISE, flops=3e6, deps=("load",)),
        ),
    )
    plan = TilePlan("nested", TileGrid((4,)), (x,), (Loop("outer", 2, (inner,)),), BlockResources(128))
    r = evaluate(plan, round_hw)
    assert r.latency_s == pytest.approx(30 * US)
    assert r.busy_s[Pipeline.CUDA] == pytest.approx(24 * US)
    assert set(r.extras["best_orders"]) == {"tile", "outer", "inner"}


def test_cache_model_is_used_and_memoised_by_its_settings(round_hw):
    """Regression: a model whose settings cannot be hashed must not be memoised by object id."""
    from tilesight.cache import compulsory_traffic

    class Counting:
        name = "counting"

        def __init__(self):
            self.calls = []  # unhashable state

        def traffic(self, plan, hw):
            self.calls.append(plan.name)
            return compulsory_traffic(plan, hw)

    m = Counting()
    plan = stream_plan(tiles=4, trips=2, stages=1)
    evaluate(plan, round_hw, cache_model=m)
    evaluate(plan, round_hw, cache_model=m)
    assert m.calls == ["stream", "stream"]


def test_latency_only_path_matches_the_report(round_hw):
    from tilesight.model.evaluate import clear_caches, latency_s

    for plan in (stream_plan(4, 4, 2), stream_plan(5, 1, 1, smem=60_000), two_chain_plan()):
        clear_caches()
        cold = latency_s(plan, round_hw)
        assert cold == evaluate(plan, round_hw).latency_s == latency_s(plan, round_hw)


def test_notes_flag_indirect_tensors_and_spills(round_hw):
    from dataclasses import replace

    plan = stream_plan(4, 1, 1)
    plan = replace(
        plan,
        tensors=(replace(plan.tensors[0], indirect=True),),
        resources=replace(plan.resources, regs_per_thread=64, spill_bytes_per_thread=48),
    )
    notes = evaluate(plan, round_hw).notes
    assert any("tensor x uses indirect addressing" in n for n in notes)
    assert any("register spills: 48 bytes per thread" in n for n in notes)
    assert not any("registers per thread not given" in n for n in notes)


def test_memo_keys_and_default_model_do_not_change_results():
    from tilesight.cache import default_cache_model
    from tilesight.model import evaluate as ev

    # the memo key hashes the plan's precomputed hash: equal plans built twice share one key, and a plan
    # differing in one block size does not
    hw = ts.load_profile("h200")
    p1 = gemm_plan(1024, 1024, 1024, 128, 128, 64)
    p2 = gemm_plan(1024, 1024, 1024, 128, 128, 64)
    p3 = gemm_plan(1024, 1024, 1024, 128, 64, 64)
    assert ev._Key(hash(p1), p1, 1) == ev._Key(hash(p2), p2, 1)
    assert ev._Key(hash(p1), p1, 1) != ev._Key(hash(p3), p3, 1)
    # the shared default model gives the same report as a freshly built one (both cold)
    ev.clear_caches()
    implicit = evaluate(p1, hw)
    ev.clear_caches()
    explicit = evaluate(p1, hw, cache_model=default_cache_model())
    assert implicit == explicit
    assert ev.latency_s(p3, hw) == evaluate(p3, hw).latency_s


def test_per_profile_numbers_follow_the_profile_object():
    import dataclasses

    from tilesight.model import evaluate as ev
    from tilesight.model.resources import full_share_rates, region_scale

    # kept per profile object: a modified copy of the profile gets its own numbers (CUDA cores at half the
    # rate: the copy's full-share CUDA rate is half the original's)
    hw = ts.load_profile("h200")
    slow = dataclasses.replace(hw, cuda_flops_per_s=hw.cuda_flops_per_s / 2)
    for prof in (hw, slow, hw):
        assert ev._region_scale(prof, 66) == region_scale(prof, 66, 1)
        assert ev._full_share_rates(prof) == full_share_rates(prof)
    assert ev._full_share_rates(slow)[1] == ev._full_share_rates(hw)[1] / 2


def test_mean_trips_times_the_mean_iteration_count():
    """A loop whose programs run 2 or 3 trips (mean 2.5) costs between the 2-trip and the 3-trip plan, and its
    actions' work counts 2.5 occurrences per tile."""
    import dataclasses

    from tilesight.library.gemm import gemm_plan
    from tilesight.plan import Loop

    base = gemm_plan(1024, 1024, 192, 128, 128, 64)  # K loop of 3 trips

    def with_loop(**kw):
        body = tuple(dataclasses.replace(n, **kw) if isinstance(n, Loop) else n for n in base.body)
        return dataclasses.replace(base, body=body)

    hw = ts.load_profile("h200")
    two, three = evaluate(with_loop(trips=2), hw), evaluate(with_loop(trips=3), hw)
    mean = evaluate(with_loop(trips=3, mean_trips=2.5), hw)
    assert two.latency_s < mean.latency_s < three.latency_s
    assert mean.flops == pytest.approx((two.flops + three.flops) / 2)


def test_makespan_of_unequal_blocks_by_hand():

    # two slots; blocks of 1, 1, 1, 3 in launch order: the 3rd starts at 1 (ends 2), the 4th at 1 (ends 4)
    assert _makespan(np.array([1.0, 1.0, 1.0, 3.0]), 2) == 4.0
    # the same work in mean-length blocks (1.5 each) ends at 3; the long block launched last costs 1 more
    assert _makespan(np.full(4, 1.5), 2) == 3.0
    # longest first: 3 then 1, 1, 1 on two slots ends at 3 (the short ones fill the other slot)
    assert _makespan(np.array([3.0, 1.0, 1.0, 1.0]), 2) == 3.0


def test_blocks_left_alone_on_an_sm_run_at_their_own_latency():
    from tilesight.model.evaluate import _shared_makespan

    # one SM, two slots, a shared pace of 1 s (a slot turns a mean block over every 2 s) and a lone block's
    # latency 1.5 s: blocks of 1, 1, 1, 3 mean blocks. The first two share the SM and end at 2; the third
    # and fourth share it until the third ends at 4, the fourth then having 2 of its 3 left, alone at 1.5 s
    # a block: it ends at 4 + 3 = 7 (the slot schedule of _makespan, blind to the speed-up, says 2 + 2 x 3 =
    # 8).
    assert _shared_makespan(np.array([1.0, 1.0, 1.0, 3.0]), 1, 2, 1.0, 1.5) == pytest.approx(7.0)
    # a lone block is never faster than its latency nor slower than at full residency: with a latency
    # above 2 s it runs at the shared pace, and the schedule is the slots' again (2 x (1 + 3) = 8)
    assert _shared_makespan(np.array([1.0, 1.0, 1.0, 3.0]), 1, 2, 1.0, 5.0) == pytest.approx(8.0)
    # two SMs of two slots, six equal blocks (pace 1 s, lone latency 1.5 s): each SM's two blocks end
    # together at 2 x 1 = 2; the last two go one to each SM and run alone, ending at 2 + 1.5 = 3.5 (both to
    # the first SM would share it and end at 2 + 2 = 4)
    assert _shared_makespan(np.ones(6), 2, 2, 1.0, 1.5) == pytest.approx(3.5)
    # one slot an SM: the greedy list schedule itself
    w = np.array([3.0, 1.0, 1.0, 1.0, 2.0, 5.0, 1.0])
    assert _shared_makespan(w, 2, 1, 1.0, 9.0) == _makespan(w, 2)


@settings(max_examples=60, deadline=None)
@given(
    work=st.lists(st.floats(0.05, 4.0), min_size=1, max_size=40),
    sms=st.integers(1, 4),
    per_sm=st.integers(1, 4),
    alone=st.floats(0.1, 10.0),
)
def test_a_shared_schedule_ends_between_its_bounds(work, sms, per_sm, alone):
    from tilesight.model.evaluate import _shared_makespan

    w = np.array(work)
    end = _shared_makespan(w, sms, per_sm, 1.0, alone)
    fastest = min(alone, per_sm * 1.0)  # seconds a mean block takes at best on an SM
    # no faster than the SMs' work at full residency, nor than the longest block alone; no slower than every
    # block one after another at the shared pace
    assert end >= w.sum() / sms * 1.0 - 1e-9
    assert end >= w.max() * fastest - 1e-9
    assert end <= w.sum() * per_sm * 1.0 + 1e-9


def test_the_unequal_schedule_moves_smoothly_with_its_inputs():
    """A causal grid's blocks come in few lengths, so the exact list schedule is full of ties and its makespan
    jumps on rounding: 2,048 blocks of 0-63 trips (32 heads of 64 query blocks), four an SM on 132 SMs, at
    the pace and lone latency one causal attention of validation 76 was predicted with. A 0.05% change in the
    loop's share of the tile and in the latencies moves the exact schedule's gap by 15 us (half a block),
    and the jittered mean by a third of that at most (16 seeded runs)."""
    from tilesight.model.evaluate import _shared_makespan, unequal_gap_s

    trips = np.tile(np.arange(64), 32).astype(float)

    def work(share):
        return 1.0 + share * (trips / trips.mean() - 1.0)

    a = (work(0.9545), 132, 4, 17.7267e-6, 30.5423e-6)
    b = (work(0.9550), 132, 4, 17.7264e-6, 30.5291e-6)

    def exact(w, sms, per_sm, pace, alone):
        reference = _shared_makespan(np.full(len(w), w.mean()), sms, per_sm, pace, alone)
        return _shared_makespan(w, sms, per_sm, pace, alone) - reference

    assert abs(exact(*b) - exact(*a)) > 10e-6  # the tie-bound jump the jitter is for
    assert abs(unequal_gap_s(*b) - unequal_gap_s(*a)) < 5e-6
    assert unequal_gap_s(*a) == unequal_gap_s(*a)  # seeded: a prediction repeats
    # equal blocks: only the jitter's own spread, under 0.1% of the makespan (about 284 us)
    assert 0.0 <= unequal_gap_s(np.ones(2048), 132, 4, 17.7e-6, 30.5e-6) < 0.3e-6


@settings(max_examples=40, deadline=None)
@given(n_blocks=st.integers(1, 300_000))
def test_block_jitters_stay_near_one_within_the_budget(n_blocks):
    from tilesight.model import evaluate as ev

    runs = ev._block_jitters(n_blocks)
    assert 1 <= len(runs) <= ev.JITTER_RUNS
    assert len(runs) == 1 or len(runs) * n_blocks <= ev.JITTER_BLOCK_BUDGET
    for factors in runs:
        assert factors.shape == (n_blocks,)
        assert np.all(np.abs(factors - 1.0) <= ev.BLOCK_JITTER)


def test_causal_blocks_launched_last_lengthen_the_kernel():
    """A loop whose per-program trips rise with the launch index ends later than the same mean work spread
    evenly; reversing the launch order (longest first) costs nothing extra."""
    import dataclasses

    from tilesight.library.gemm import gemm_plan
    from tilesight.model.evaluate import unequal_blocks_s
    from tilesight.plan import Loop

    base = gemm_plan(4096, 4096, 2048, 128, 128, 64)  # 1024 tiles, a K loop of 32 trips
    blocks = base.grid.blocks
    rising = tuple(1 + i // 32 for i in range(blocks))  # 1..32 trips, 32 blocks each, longest last

    def with_trips(seq):
        body = tuple(
            dataclasses.replace(n, trips=16, mean_trips=sum(seq) / len(seq), trips_by_program=seq)
            if isinstance(n, Loop)
            else n
            for n in base.body
        )
        return dataclasses.replace(base, body=body)

    hw = ts.load_profile("h200")
    up = evaluate(with_trips(rising), hw)
    down = evaluate(with_trips(tuple(reversed(rising))), hw)
    assert up.latency_s > down.latency_s
    from tilesight.model.evaluate import _core, _model_and_key

    model, key = _model_and_key(None)
    extra, mains = {}, {}
    for name, seq in (("up", rising), ("down", tuple(reversed(rising))), ("flat", (16,) * blocks)):
        plan = with_trips(seq)
        mains[name] = _core(plan, hw, model, None, hash(plan), key).main
        extra[name] = unequal_blocks_s(plan, mains[name], hw.sm_count)
    # flat: nothing beyond the schedules' jitter (equal blocks then end a little apart: well under 1% of a
    # block's latency)
    latency = mains["flat"].cost.latency_s
    assert extra["up"] > extra["down"] >= 0.0 and 0.0 <= extra["flat"] < 0.01 * latency


def test_few_warps_leave_schedulers_idle():
    """A 2-warp block alone on an SM issues from 2 of the H200's 4 warp schedulers: its CUDA-core, SFU and
    warp-level tensor-core work runs at half the SM's rate; two such blocks per SM fill the schedulers."""
    import dataclasses

    from tilesight.library.gemm import gemm_plan
    from tilesight.model.evaluate import few_warps_factor

    hw = ts.load_profile("h200")
    plan = gemm_plan(1024, 1024, 1024, 64, 64, 32)
    two_warps = dataclasses.replace(plan, resources=dataclasses.replace(plan.resources, threads=64))
    assert few_warps_factor(two_warps, hw, 1) == 2.0
    assert few_warps_factor(two_warps, hw, 2) == 1.0
    assert few_warps_factor(two_warps, hw, 1) == 2.0
    assert few_warps_factor(two_warps, dataclasses.replace(hw, schedulers_per_sm=0), 1) == 1.0
    # one warp alone: a quarter of the SM
    one_warp = dataclasses.replace(plan, resources=dataclasses.replace(plan.resources, threads=32))
    assert few_warps_factor(one_warp, hw, 1) == 4.0


def test_after_a_single_first_wave_the_tail_blocks_of_an_sm_start_together():
    """527 tiles of 64 x 256 at two blocks an SM, latency-bound (one stage): a first wave of 264 blocks, then
    263 more, two on 131 SMs. The first wave's pair of blocks on an SM started together and ends together
    (first_wave_exit_s: both near their ends when the first exits), so the tail's pair there starts together
    too and ends ``started_together_s(tail)`` sooner than a pair one steady interval apart (stop 89: 225.6 ->
    215.6 us, against 195.9 for the 528 tiles of two whole waves; vLLM's block-scaled fp8 GEMM, one full wave
    and a tail of 248 at two an SM, 569 -> 490 us on the h100 profile, measured 257)."""
    from tilesight.library.gemm import gemm_plan
    from tilesight.model import evaluate as E

    hw = ts.load_profile("h200")
    plan = gemm_plan(64 * 527, 256, 4096, 64, 256, 128, num_stages=1, num_warps=4)
    model, key = E._model_and_key(None)
    c = E._core(plan, hw, model, None, hash(plan), key)
    assert (c.occ.resident_blocks, c.wv.full_waves, c.wv.tail_blocks, c.tail.resident) == (2, 1, 263, 2)
    exit_s, together = E.first_wave_exit_s(c.full), E.started_together_s(c.tail)
    assert exit_s > c.full.env.total_s - E.tail_overlap(c.full.env, 2) and together > 0.0
    assert c.t_tail == pytest.approx(exit_s + c.tail.env.total_s - together - c.full.env.total_s)
    assert c.latency == pytest.approx(c.full.env.total_s + c.t_tail + hw.launch_overhead_s)
    whole = gemm_plan(64 * 528, 256, 4096, 64, 256, 128, num_stages=1, num_warps=4)
    assert evaluate(plan, hw).latency_s - evaluate(whole, hw).latency_s < 0.11 * evaluate(whole, hw).latency_s


def test_a_tail_of_lone_blocks_gets_its_own_loop_cost():
    """Two blocks per SM in the full wave, one per SM in the tail on every SM: the regions share their scale,
    but the tail's blocks are alone on their SMs and wait for their own loads (tilesight.model.tile)."""
    from tilesight.hardware import load_profile
    from tilesight.library.gemm import gemm_plan
    from tilesight.model import evaluate as E

    hw = load_profile("h200")
    # 396 tiles of 128 x 128 (96 KiB of shared memory: 2 per SM): 264 in the full wave, 132 in the tail
    plan = gemm_plan(128 * 396, 128, 4096, 128, 128, 64, num_stages=3, num_warps=8)
    model, key = E._model_and_key(None)
    c = E._core(plan, hw, model, None, hash(plan), key)
    assert (c.full.resident, c.tail.resident, c.tail.active) == (2, 1, hw.sm_count)
    assert c.full.scale == c.tail.scale and c.tail.cost is not c.full.cost
    full_loop, tail_loop = c.full.cost.loops[0][2], c.tail.cost.loops[0][2]
    assert tail_loop.steady_s > full_loop.steady_s


def _dot_stream(variant="wgmma", producer_loads=False, waits=True):
    """64 tiles, each: load one x row (DDR 1 us + 1 us latency, L2 0.5 us), then a 2e7-FLOP fp16 dot
    (TC 2 us at 1e13 FLOP/s): tensor-core bound, 16 blocks resident per SM (128 threads of 2048); ``waits``:
    a free elementwise action reads the dot's result (the warps wait for it)."""
    from tilesight.plan import ActionKind, BlockResources, Loop, TensorAccess, TileAction, TileGrid, TilePlan

    x = TensorAccess("x", "float32", (64, 25_000), (1, 25_000))
    body = (
        TileAction("load", ActionKind.LOAD, tensor="x"),
        TileAction("dot", ActionKind.DOT, dtype="float16", shape=(100, 100, 1000), flops=2e7, deps=("load",),
                   variant=variant),
    )  # fmt: skip
    if waits:
        body += (TileAction("use", ActionKind.ELEMENTWISE, deps=("dot",)),)
    if producer_loads:
        body = (Loop("loop", 1, body=body, producer_loads=True),)
    return TilePlan("dots", TileGrid((64,)), (x,), body, BlockResources(128))


def test_l2_exposure_under_tensor_cores_across_resident_blocks(round_hw):
    # 16 tiles an SM at 16 resident: T = fill + 15 x steady + (latency - fill) = 2 + 15 steady + 2 us, with
    # steady the busiest pipeline per tile: TC 2 us. With half the L2 time exposed under the tensor cores
    # (l2_exposed_under_tc = 0.5) a wgmma stream whose warps load their own tiles takes 2 + 0.5 x 0.5 =
    # 2.25 us a tile: 15 x 0.25 = 3.75 us more. Not for a warp-level mma, a dtype whose rate was measured on
    # such a kernel (tc_own_loads), loads a producer warpgroup issues, or a dot nothing waits for.
    import dataclasses

    from tilesight.model.evaluate import clear_caches

    exposed = dataclasses.replace(round_hw, l2_exposed_under_tc=0.5)
    own = dataclasses.replace(exposed, tc_own_loads=frozenset({"float16"}))
    base = evaluate(_dot_stream(), round_hw).latency_s
    assert base == pytest.approx((2 + 15 * 2 + 2 + 2) * US)  # + 2 us launch
    clear_caches()
    assert evaluate(_dot_stream(), exposed).latency_s == pytest.approx(base + 3.75 * US)
    for plan, hw in (
        (_dot_stream("mma"), exposed),
        (_dot_stream(), own),
        (_dot_stream(producer_loads=True), exposed),
        (_dot_stream(waits=False), exposed),
    ):
        clear_caches()
        assert evaluate(plan, hw).latency_s == pytest.approx(evaluate(plan, round_hw).latency_s)


def _locked_plan(holders: float, section: tuple = ()) -> ts.TilePlan:
    """Four tiles; each takes a lock (acquire / release: stores of one int32 lock word) around ``section``
    (which may store x: 25,000 float32 = 100,000 bytes a row, DDR 1 us, L2 0.5 us at full share)."""
    from tilesight.plan import (
        ActionKind,
        BlockResources,
        LockSection,
        TensorAccess,
        TileAction,
        TileGrid,
        TilePlan,
    )

    from .plans import ROW_ELEMS

    lock = TensorAccess("lock", "int32", (4,), (1,))
    x = TensorAccess("x", "float32", (4, ROW_ELEMS), (1, ROW_ELEMS))
    body = (
        TileAction("acquire", ActionKind.STORE, tensor="lock"),
        *section,
        TileAction("release", ActionKind.STORE, tensor="lock", deps=("acquire",)),
    )
    held = LockSection("acquire", "release", tuple(n.name for n in section), holders)
    return TilePlan("locked", TileGrid((4,)), (lock, x), body, BlockResources(128), lock=held)


def test_lock_holders_serialise_their_handoffs(round_hw):
    # an empty section: one hold is the acquire's round trip plus the release's way to the next holder,
    # 2 x l2_latency = 2 x 0.5 us = 1 us; 1000 holders per lock -> 1000 us, plus the 2 us launch
    r = evaluate(_locked_plan(1000.0), round_hw)
    assert r.latency_s == pytest.approx(1000e-6 + 2e-6, rel=1e-12)
    (lock,) = [p for p in r.phases if p.phase == "lock"]
    assert (
        lock.bottleneck is Pipeline.L2
        and "1000 programs take each lock in turn, 1 us per hold" in lock.reason
    )
    assert r.bottleneck is Pipeline.L2


def test_lock_time_scales_with_its_holders(round_hw):
    # the holds follow one another: twice the programs per lock, twice the time beyond the launch
    one, two = (evaluate(_locked_plan(h), round_hw).latency_s - 2e-6 for h in (500.0, 1000.0))
    assert two == pytest.approx(2 * one, rel=1e-12) and one == pytest.approx(500e-6, rel=1e-12)


def test_lock_section_must_be_the_nodes_between_acquire_and_release():
    from tilesight.errors import PlanError
    from tilesight.plan import ActionKind, LockSection, TileAction

    extra = (TileAction("work", ActionKind.ELEMENTWISE, flops=1e3),)
    with pytest.raises(PlanError, match="lock.holders"):
        LockSection("acquire", "release", (), 0.5)
    plan = _locked_plan(2.0, extra)
    with pytest.raises(PlanError, match="lock.section"):
        import dataclasses

        dataclasses.replace(plan, lock=LockSection("acquire", "release", (), 2.0))


def test_a_held_store_costs_its_l2_time_not_its_dram_drain(round_hw):
    # section: one 100,000-byte row stored: 0.5 us into L2 (its 1 us of DRAM drain comes after the release);
    # hold = 1 us handoff (2 x l2_latency: round_hw has no lock calibration) + 0.5 us; 1000 holders + launch
    from tilesight.plan import ActionKind, TileAction

    store = (TileAction("store_x", ActionKind.STORE, tensor="x", deps=("acquire",)),)
    r = evaluate(_locked_plan(1000.0, store), round_hw)
    assert r.latency_s == pytest.approx(1000 * 1.5e-6 + 2e-6, rel=1e-9)


def test_calibrated_handoff_grows_with_the_programs_spinning():
    from tilesight.model.evaluate import lock_handoff_s

    hw = ts.load_profile("h200")
    # 1.0812 us + 0.30554 ns x 1056 resident programs (132 SMs x 8 blocks) = 1.40385 us
    assert lock_handoff_s(hw, 1056) == pytest.approx(1.40385e-6, rel=1e-5)
    assert lock_handoff_s(hw, 4224) > lock_handoff_s(hw, 1056)


def test_a_lone_blocks_waited_load_transfers_at_its_sm_port(round_hw, monkeypatch):
    import tilesight.model.resources as resources

    # stream_plan unpipelined: 4 tiles on 4 SMs, one resident block each, so each iteration waits for its own
    # load. Its 1e5 bytes leave DRAM at the SM's port (2e11 B/s: 0.5 us) behind the 1 us DRAM latency, not at
    # its 1e11 B/s share (1 us): an iteration is 1 + 0.5 + 3 (compute) = 4.5 us, four of them 18 us, + 2 us
    # launch = 20 us (22 us at the share). The DRAM time still counts in full in the busy sums.
    r = evaluate(stream_plan(tiles=4, trips=4, stages=1), round_hw)
    assert r.latency_s == pytest.approx(20 * US)
    assert r.busy_s[Pipeline.DDR] == pytest.approx(4 * US)
    monkeypatch.setattr(resources, "LOADS_LEAVE_AT_L2_PORT_ALONE", False)
    clear_caches()
    assert evaluate(stream_plan(tiles=4, trips=4, stages=1), round_hw).latency_s == pytest.approx(22 * US)
    clear_caches()


@given(
    tiles=st.integers(1, 40),
    trips=st.integers(1, 6),
    stages=st.integers(1, 3),
    flops=st.floats(1e4, 1e7),
    smem=st.sampled_from([0, 20_000, 60_000]),
)
@settings(max_examples=60, deadline=None)
def test_latency_covers_every_pipeline_and_the_phases_add_up(round_hw, tiles, trips, stages, flops, smem):
    # whatever the grid (one partial wave, whole waves, waves and a tail: the blocks-start-together rule
    # applies to the first two), no pipeline of the busiest SM is busy longer than the kernel runs, and the
    # phases add up to the kernel's time less its launch
    r = evaluate(stream_plan(tiles=tiles, trips=trips, stages=stages, flops=flops, smem=smem), round_hw)
    run = r.latency_s - r.launch_overhead_s
    for pipe, busy in r.busy_s.items():
        assert busy <= run * (1 + 1e-9), pipe
    assert sum(p.time_s for p in r.phases) == pytest.approx(run)


def test_an_uneven_tail_shares_bandwidth_by_the_blocks_each_sm_runs(round_hw):
    # 6 tiles on 4 SMs, two resident (grid limit): one partial wave, two SMs run two blocks and two run one.
    # The busiest SM asks for 2 of the 6 blocks' bandwidth (tail_sharing_sms: 6 / 2 = 3 SMs' worth, not 4):
    # DDR 4e11 / 3 B/s -> its 1e5-byte load 0.75 us (L2 min(8e11 / 3, 2e11) -> 0.5 us), + 1 us latency;
    # compute 3 us: L = 4.75 us. Its two blocks start together and share the CUDA cores (started_together_s):
    # 4.75 + 3 = 7.75 us, + 2 us launch. The DRAM the busiest SM uses: 2 x 0.75 us.
    from tilesight.model.evaluate import tail_sharing_sms
    from tilesight.model.occupancy import waves

    assert tail_sharing_sms(waves(6, 4, 2)) == 3.0
    assert tail_sharing_sms(waves(4, 4, 2)) == 4.0  # every active SM holds as many: the active SMs, as before
    r = evaluate(stream_plan(tiles=6, trips=1, stages=1), round_hw)
    assert (r.occupancy.resident_blocks, r.occupancy.tail_blocks, r.occupancy.tail_active_sms) == (2, 6, 4)
    assert r.latency_s == pytest.approx(9.75 * US)
    assert r.busy_s[Pipeline.DDR] == pytest.approx(1.5 * US)


def test_consumer_warpgroups_run_their_exponentials_beside_the_dots(round_hw):
    # four tiles, one an SM; each runs a producer-fed loop of 10 steps: a 2e7-FLOP fp16 dot (TC 2 us at
    # 1e13 FLOP/s) and 1e5 exponentials after it (SFU 1 us at 1e11 op/s). Where exponentials hold the tensor
    # cores (sfu_tc_serialised), one consumer warpgroup has them on its TC time: 10 x (2 + 1) = 30 us; two
    # consumer warpgroups run one's softmax beside the other's dots: 10 x 2 = 20 us of TC, the SFU's 10 us
    # alike in both.
    import dataclasses

    from tilesight.plan import ActionKind, BlockResources, Loop, TileAction, TileGrid, TilePlan

    hw = dataclasses.replace(round_hw, sfu_tc_serialised=1)
    body = (
        TileAction("dot", ActionKind.DOT, dtype="float16", shape=(100, 100, 1000), flops=2e7,
                   variant="wgmma"),
        TileAction("exp", ActionKind.SFU, flops=1e5, deps=("dot",)),
    )  # fmt: skip
    loop = Loop("k", 10, body=body, producer_loads=True)

    def busy(groups):
        plan = TilePlan("fa", TileGrid((4,)), (), (loop,), BlockResources(256, compute_groups=groups))
        clear_caches()
        report = evaluate(plan, hw)
        return report.busy_s[Pipeline.TC], report.busy_s[Pipeline.SFU]

    assert busy(1) == pytest.approx((30 * US, 10 * US))
    assert busy(2) == pytest.approx((20 * US, 10 * US))


def _dram_stream(tiles: int = 4, trips: int = 50, dots: bool = True) -> ts.TilePlan:
    """``tiles`` tiles (one an SM on the round GPU), each a two-stage loop of ``trips`` steps: load a distinct
    x row (100,000 bytes, from DRAM) into shared memory and run a small dot (or, ``dots`` False, an
    element-wise op) on it."""
    from tilesight.plan import ActionKind, BlockResources, Loop, MemLevel, TensorAccess, TileAction, TileGrid

    x = TensorAccess("x", "float32", (tiles * trips, 25_000), (1, 25_000))
    if dots:
        work = TileAction("dot", ActionKind.DOT, dtype="float16", shape=(64, 64, 64), deps=("load",),
                          variant="wgmma")  # fmt: skip
    else:
        work = TileAction("dot", ActionKind.ELEMENTWISE, flops=1e3, deps=("load",))
    body = (TileAction("load", ActionKind.LOAD, tensor="x", dst=MemLevel.SMEM), work)
    loop = Loop("k", trips, body, stages=2)
    return ts.TilePlan("stream", TileGrid((tiles,)), (x,), (loop,), BlockResources(128))


def test_a_dram_stream_of_tiles_meets_a_loaded_dram(round_hw):
    # Every row comes from DRAM: the pipelined loads' DRAM latency (0.8 us unloaded) grows with the load the
    # launch puts on DRAM, solved as a fixed point, so the launch takes longer with the profile's queue, and
    # it is the time at its own load: U = reads / (T - launch) / B gives back the queue it was evaluated at.
    import dataclasses

    from tilesight.model import evaluate as E
    from tilesight.model.resources import ddr_queue_s

    base = dataclasses.replace(round_hw, tma_ddr_latency_s=0.8 * US, tma_l2_latency_s=0.2 * US)
    queued = dataclasses.replace(base, ddr_queue_latency_s=0.5 * US, ddr_queue_bw_bytes_per_s=4e11)
    plan = _dram_stream()
    clear_caches()
    t0 = evaluate(plan, base).latency_s
    clear_caches()
    model, key = E._model_and_key(None)
    c = E._core(plan, queued, model, None, hash(plan), key)
    assert c.traffic.dram_read_share == pytest.approx(1.0)
    assert c.latency > t0
    u = c.traffic.dram_read_bytes / (c.latency - queued.launch_overhead_s) / 4e11
    again = E._core_at(plan, queued, model, None, hash(plan), key, ddr_queue_s(queued, u * 4e11))
    assert again.latency == pytest.approx(c.latency, rel=0.02)
    # without dots (the probe's regime is a dot's tile stream) or without the profile's queue: unchanged
    clear_caches()
    plain = _dram_stream(dots=False)
    assert evaluate(plain, queued).latency_s == pytest.approx(evaluate(plain, base).latency_s)


def test_a_lone_blocks_pipelined_copies_stream_at_its_sms_own_dram_rate(round_hw):
    # _dram_stream through the threads' own copies (dst registers): one block an SM, every 1e5-byte row from
    # DRAM. With the profile's one-block stream rate (1.5e11 B/s, above the round GPU's 1e11 B/s DRAM share of
    # a SM) each step's copy transfers at that rate, 0.667 us against 1 us at the share, so the launch is
    # faster; its DRAM time still counts in full in the busy sums. A TMA copy (dst shared memory) moves at the
    # port (2e11 B/s).
    import dataclasses

    from tilesight.model import evaluate as E
    from tilesight.plan import MemLevel

    def stream(dst):
        plan = _dram_stream(trips=20)
        loop = plan.body[0]
        load = dataclasses.replace(loop.body[0], dst=dst)
        return dataclasses.replace(plan, body=(dataclasses.replace(loop, body=(load, loop.body[1])),))

    base = dataclasses.replace(round_hw, tma_ddr_latency_s=0.8 * US, tma_l2_latency_s=0.2 * US)
    fast = dataclasses.replace(base, ddr_stream_per_sm_bytes_per_s=1.5e11)
    model, key = E._model_and_key(None)
    rates = {}
    cases = (("share", base, MemLevel.REG), ("stream", fast, MemLevel.REG), ("tma", fast, MemLevel.SMEM))
    for name, hw, dst in cases:
        clear_caches()
        plan = stream(dst)
        c = E._core(plan, hw, model, None, hash(plan), key)
        ddr = evaluate(plan, hw).busy_s[Pipeline.DDR]
        rates[name] = (c.demands["load"].burst_bytes_per_s, c.latency, ddr)
    clear_caches()
    assert rates["share"][0] == 0.0  # no stream rate in the profile: the load holds its DRAM share
    assert rates["stream"][0] == pytest.approx(1.5e11)
    assert rates["tma"][0] == pytest.approx(round_hw.l2_bw_per_sm_bytes_per_s) == 2e11
    assert rates["stream"][1] < rates["share"][1]
    # the DRAM busy time is the same: 20 rows x 1e5 B at the 1e11 B/s share of a SM, 20 us
    assert rates["stream"][2] == pytest.approx(rates["share"][2])
    assert rates["share"][2] == pytest.approx(20 * US)


def test_a_loop_of_no_trips_costs_nothing_though_its_tensor_has_no_traffic(round_hw):
    # the stream plan with a second loop of 0 trips reading w, a tensor nothing else reads: the cache model
    # walks no access of w (no traffic), the engine charges the loop nothing: the time of the plan without it
    import dataclasses

    from tilesight.plan import ActionKind, Loop, TensorAccess, TileAction

    base = stream_plan(tiles=4, trips=4, stages=2)
    w = TensorAccess("w", "float32", (1, 1000), (1, 1000))
    empty = Loop("none", 0, (TileAction("load_w", ActionKind.LOAD, tensor="w"),))
    plan = dataclasses.replace(
        base, name="with_empty_loop", tensors=(*base.tensors, w), body=(*base.body, empty)
    )
    assert evaluate(plan, round_hw).latency_s == pytest.approx(evaluate(base, round_hw).latency_s)
    assert evaluate(plan, round_hw).latency_s == pytest.approx(
        16 * US
    )  # test_two_stage_load_compute_pipeline


def _split_store_plan(vector=2, apart=16) -> ts.TilePlan:
    """Four tiles, each storing 1024 float16 elements (2048 bytes) in ``vector``-byte accesses whose lanes
    lie ``apart`` bytes apart (a mask that split each thread's 16-byte vector)."""
    from tilesight.plan import ActionKind, BlockResources, TensorAccess, TileAction, TileGrid, TilePlan

    out = TensorAccess("out", "float16", (4096,), (1024,))
    st_ = TileAction("st", ActionKind.STORE, tensor="out", vector_bytes=vector, lane_stride_bytes=apart)
    return TilePlan("split", TileGrid((4,)), (out,), (st_,), BlockResources(128))


def _paced_split_store_plan(flops: float, tile: int = 1024) -> ts.TilePlan:
    """:func:`_split_store_plan`'s four tiles of ``tile`` float16 elements, 2-byte lanes 16 bytes apart, with
    ``flops`` (element ops) of element-wise arithmetic a tile in front of each store."""
    from tilesight.plan import ActionKind, BlockResources, TensorAccess, TileAction, TileGrid, TilePlan

    out = TensorAccess("out", "float16", (4 * tile,), (tile,))
    ew = TileAction("ew", ActionKind.ELEMENTWISE, flops=flops)
    st_ = TileAction("st", ActionKind.STORE, tensor="out", vector_bytes=2, lane_stride_bytes=16, deps=("ew",))
    return TilePlan("paced", TileGrid((4,)), (out,), (ew, st_), BlockResources(128))


def test_split_store_floor_by_hand(round_hw):
    import dataclasses

    from tilesight.model.evaluate import split_store_floor_s

    hw = dataclasses.replace(round_hw, l2_partial_write_sectors_per_s=1e9)
    hw = dataclasses.replace(hw, split_store_pacing_free=0.25, split_store_pacing_relief=0.5)
    # 2048 sectors: 2.048 us of merges; 1 us of arithmetic, 0.512 us of it free: 0.488 us paced, half of that
    # (0.244 us) off the merges; plus the 2 us launch
    assert split_store_floor_s(hw, 2048, 1e-6) == pytest.approx(2.048e-6 - 0.244e-6 + 2e-6, rel=1e-12)
    # arithmetic within the free share, or a profile without the relief: the bare merges
    assert split_store_floor_s(hw, 2048, 0.5e-6) == pytest.approx(4.048e-6, rel=1e-12)
    bare = dataclasses.replace(hw, split_store_pacing_relief=0.0)
    assert split_store_floor_s(bare, 2048, 1e-6) == pytest.approx(4.048e-6, rel=1e-12)
    # never below the launch, whatever the arithmetic
    assert split_store_floor_s(hw, 2048, 1.0) == pytest.approx(2e-6, rel=1e-12)


def test_arithmetic_before_short_split_store_bursts_takes_time_off_the_merges(round_hw):
    import dataclasses

    from tilesight.plan import Pipeline as P

    hw = dataclasses.replace(round_hw, l2_partial_write_sectors_per_s=1e9)
    hw = dataclasses.replace(hw, split_store_pacing_free=0.25, split_store_pacing_relief=0.5)
    # one tile an SM, 1e6 element ops of it at the SM's 1e12 op/s: 1 us of CUDA-core issue, under the 2.048 us
    # of merges (2048 sectors, test_split_sub_word_stores_wait_for_the_l2_merges): 0.244 us off them
    r = evaluate(_paced_split_store_plan(1e6), hw)
    assert r.busy_s[P.CUDA] == pytest.approx(1e-6, rel=1e-12)
    assert r.latency_s == pytest.approx(2.048e-6 - 0.244e-6 + 2e-6, rel=1e-12)
    # eight stores a thread (1024 elements over 128 threads); at 64 a thread (8192 elements) the burst is
    # longer than SPLIT_STORE_PACED_BURST: 16384 sectors, 16.384 us of merges, none taken off
    long = evaluate(_paced_split_store_plan(1e6, tile=8192), hw)
    assert long.latency_s == pytest.approx(16.384e-6 + 2e-6, rel=1e-12)


def test_split_sub_word_stores_wait_for_the_l2_merges(round_hw):
    import dataclasses

    # per tile 2048 B in 2-byte lanes: 2048 / (2 x 32) = 32 warp stores, each spanning 32 lanes x 16 B = 512 B
    # = 16 sectors: 512 sectors a tile, 2048 over the launch; at 1e9 sectors/s that is 2.048 us, plus the
    # 2 us launch (the stores' own pipelines take far less: 2048 B at 1e11 B/s of DRAM a SM is 20 ns)
    hw = dataclasses.replace(round_hw, l2_partial_write_sectors_per_s=1e9)
    r = evaluate(_split_store_plan(), hw)
    assert r.latency_s == pytest.approx(2.048e-6 + 2e-6, rel=1e-12)
    (merges,) = [p for p in r.phases if p.phase == "merges"]
    assert merges.bottleneck is Pipeline.L2 and merges.reason.startswith("st: stores narrower than a 4-byte")
    assert any(n.startswith("st stores 2 bytes a lane with the lanes 16 bytes apart") for n in r.notes)
    # lanes 4 bytes apart span 4 sectors an instruction: 512 sectors, 0.512 us
    assert evaluate(_split_store_plan(2, 4), hw).latency_s == pytest.approx(0.512e-6 + 2e-6, rel=1e-12)
    # whole words (4-byte lanes), or a profile without the rate: no merges
    for plan, profile in ((_split_store_plan(4, 16), hw), (_split_store_plan(), round_hw)):
        r = evaluate(plan, profile)
        assert r.latency_s < 2.1e-6 and not [p for p in r.phases if p.phase == "merges"]


def _sync_operand_plan(tiles: int) -> ts.TilePlan:
    """``tiles`` blocks of 256 threads, each a 40-trip, 3-stage loop whose A tile (128 x 64 fp16: 32 elements
    a thread) Triton left synchronous (element-wide loads the iteration waits for) and whose B tile (64 x 64)
    is copied ahead, into one dot."""
    from tilesight.plan import (
        SYNC_LOAD,
        ActionKind,
        BlockResources,
        Loop,
        TensorAccess,
        TileAction,
        TileGrid,
        TilePlan,
    )

    a = TensorAccess("a", "float16", (128 * tiles, 64 * 40), (128, 64))
    b = TensorAccess("b", "float16", (64 * 40, 64), (64, 64))
    load_a = TileAction("load_a", ActionKind.LOAD, tensor="a", variant=SYNC_LOAD, vector_bytes=2)
    load_b = TileAction("load_b", ActionKind.LOAD, tensor="b")
    mm = TileAction("mm", ActionKind.DOT, dtype="float16", shape=(128, 64, 64), deps=("load_a", "load_b"))
    loop = Loop("k", 40, (load_a, load_b, mm), stages=3, reduction=True, waits_sync_loads=True)
    return TilePlan("sync_a", TileGrid((tiles,)), (a, b), (loop,), BlockResources(256))


def test_sync_issue_by_hand(round_hw):
    import dataclasses

    from tilesight.model.evaluate import sync_issue_s

    plan = _sync_operand_plan(4)
    a = plan.tensor("a")
    hw = dataclasses.replace(round_hw, sync_load_issue_per_element=7.0, schedulers_per_sm=4)
    # 128 x 64 elements over 256 threads: 32 a thread, 7 instructions each, 8 warps on 4 schedulers: two warps
    # a scheduler, 2 x 224 = 448 cycles at 1 GHz
    assert sync_issue_s(plan, a, hw) == pytest.approx(448e-9, rel=1e-12)
    assert sync_issue_s(plan, a, round_hw) == 0.0  # a profile without the count
    # 4 warps (one a scheduler) of the same tile: 64 elements a thread, 448 cycles again
    four = dataclasses.replace(plan, resources=dataclasses.replace(plan.resources, threads=128))
    assert sync_issue_s(four, a, hw) == pytest.approx(448e-9, rel=1e-12)


def test_a_lone_block_issues_its_synchronous_loads_on_the_chain(round_hw):
    import dataclasses

    hw = dataclasses.replace(round_hw, schedulers_per_sm=4)
    issuing = dataclasses.replace(hw, sync_load_issue_per_element=7.0)
    # four blocks on four SMs, each alone: its iterations' chain 448 ns longer (test_sync_issue_by_hand), the
    # 39 steady iterations by all of it, the first (its latency, the load's wait) by at most that
    lone = _sync_operand_plan(4)
    extra = evaluate(lone, issuing).latency_s - evaluate(lone, hw).latency_s
    assert 39 * 448e-9 - 1e-15 <= extra <= 40 * 448e-9 + 1e-15
    # sixteen blocks, four an SM: the other blocks fill the schedulers, nothing is added
    shared = _sync_operand_plan(16)
    assert evaluate(shared, issuing).latency_s == pytest.approx(evaluate(shared, hw).latency_s, rel=1e-12)


def test_block_jitters_are_seeded_kept_and_read_only():
    from tilesight.model import evaluate as ev

    first, again = ev._block_jitters(2048), ev._block_jitters(2048)
    assert first is again  # kept: a ranking asks for the same grid's factors config after config
    assert all(not f.flags.writeable for f in first)
    fresh = ev._seeded_block_jitters(2048)
    assert all(np.array_equal(a, b) for a, b in zip(first, fresh, strict=True))
    big = ev.JITTER_BLOCK_BUDGET + 1  # not kept, the same values
    assert ev._block_jitters(big) is not ev._block_jitters(big)
    assert np.array_equal(ev._block_jitters(big)[0], ev._seeded_block_jitters(big)[0])


def test_a_lone_warpgroup_attention_block_meets_its_warps_at_the_barrier():
    """FlashAttention on one warpgroup (4 warps) at four stages of 64 x 64 x d128 tiles is alone on its SM:
    each K/V iteration's chain takes the profile's cross-warp latency for 4 warps (74.8 ns on the H200); at
    two stages two blocks share the SM and the barrier's wait is theirs to fill (tilesight.model.tile)."""
    import dataclasses

    from tilesight.hardware import load_profile
    from tilesight.library.attention import attention_forward_plan
    from tilesight.model import evaluate as E

    hw = load_profile("h200")
    without = dataclasses.replace(hw, cross_warp_reduction={})
    model, key = E._model_and_key(None)

    def loop(stages, profile):
        plan = attention_forward_plan(2, 32, 4096, 4096, 128, block_m=64, block_n=64, num_stages=stages,
                                      num_warps=4)  # fmt: skip
        core = E._core(plan, profile, model, None, hash((plan, bool(profile.cross_warp_reduction))), key)
        return core.full.resident, core.full.cost.loops[0][2]

    (alone, barrier), (_, plain) = loop(4, hw), loop(4, without)
    assert alone == 1 and hw.reduction_latency(4) == pytest.approx(74.8e-9)
    # the chain, 74.8 ns longer, now sets the iteration (it was just under the busiest pipeline's time)
    assert barrier.bound == "chain" and barrier.steady_s > plain.steady_s
    assert barrier.steady_s <= plain.steady_s + hw.reduction_latency(4) + 1e-15
    (shared, with_it), (_, without_it) = loop(2, hw), loop(2, without)
    assert shared == 2 and with_it.steady_s == pytest.approx(without_it.steady_s)
    # the report says what the meeting costs and what hides it, where it is on the chain
    plan = attention_forward_plan(2, 32, 4096, 4096, 128, block_m=64, block_n=64, num_stages=4, num_warps=4)
    why = E._latency_why(E._core(plan, hw, model, None, hash(plan), key).full)
    assert "75 ns of it the block's warps meeting at the stage barrier" in why and "two blocks an SM" in why


def test_cuda_ddr_norm_is_the_p_norm_of_the_larger_compute_and_the_dram_time():
    from tilesight.model.evaluate import cuda_ddr_norm_s
    from tilesight.model.resources import CUDA, DDR, NPIPES, SFU

    def busy(cuda, sfu, ddr):
        b = [0.0] * NPIPES
        b[CUDA], b[SFU], b[DDR] = cuda, sfu, ddr
        return tuple(b)

    # equal times: 2^(1/4) x 40 = 47.568; the SFU's 10 stays under the CUDA cores' 40
    assert cuda_ddr_norm_s(busy(40.0, 10.0, 40.0), 4.0) == pytest.approx(47.568, abs=1e-3)
    # 30 against 40 at p = 5.6: 40 x (1 + 0.75^5.6)^(1 / 5.6) = 40 x 1.1997^0.17857 = 41.32
    assert cuda_ddr_norm_s(busy(30.0, 0.0, 40.0), 5.6) == pytest.approx(41.32, abs=0.01)
    # the SFU's time stands for the arithmetic where it is the larger
    assert cuda_ddr_norm_s(busy(0.0, 30.0, 40.0), 5.6) == pytest.approx(41.32, abs=0.01)
    # no DRAM time, or no arithmetic: the other alone
    assert cuda_ddr_norm_s(busy(30.0, 0.0, 0.0), 5.6) == 30.0
    assert cuda_ddr_norm_s(busy(0.0, 0.0, 40.0), 5.6) == 40.0


@given(st.floats(0.0, 1e3), st.floats(0.0, 1e3), st.floats(0.0, 1e3), st.floats(1.0, 10.0))
@settings(max_examples=200, deadline=None)
def test_cuda_ddr_norm_lies_between_the_larger_time_and_its_balance_bound(cuda, sfu, ddr, p):
    from tilesight.model.evaluate import cuda_ddr_norm_s
    from tilesight.model.resources import CUDA, DDR, NPIPES, SFU

    b = [0.0] * NPIPES
    b[CUDA], b[SFU], b[DDR] = cuda, sfu, ddr
    top = max(cuda, sfu, ddr)
    got = cuda_ddr_norm_s(tuple(b), p)
    assert top * (1 - 1e-12) <= got <= top * 2 ** (1 / p) * (1 + 1e-12)


def test_a_flat_element_wise_stream_at_the_balance_takes_the_norm(round_hw):
    import dataclasses

    from tilesight.plan import ActionKind, BlockResources, TensorAccess, TileAction, TileGrid, TilePlan

    # 4,000 loop-free tiles on the round GPU's 4 SMs, each loading a 100,000-byte row (1 us of DRAM at the
    # full share) and computing 1e6 element ops on it (1 us of CUDA cores at 1e12 a second an SM): the
    # stream's steady state is paced by 1 us a tile without the rule, by 2^(1/4) us with p = 4, so the
    # launch (1,000 tiles an SM, launch overhead and the first tiles' latency aside) takes 1.189x as long
    x = TensorAccess("x", "float32", (4000, 25_000), (1, 25_000))
    body = (
        TileAction("load", ActionKind.LOAD, tensor="x"),
        TileAction("compute", ActionKind.ELEMENTWISE, flops=1e6, deps=("load",)),
    )
    plan = TilePlan("ew", TileGrid((4000,)), (x,), body, BlockResources(128))
    clear_caches()
    base = evaluate(plan, dataclasses.replace(round_hw, cuda_ddr_norm_p=0.0)).latency_s
    normed = evaluate(plan, dataclasses.replace(round_hw, cuda_ddr_norm_p=4.0)).latency_s
    overhead = round_hw.launch_overhead_s
    assert (normed - overhead) / (base - overhead) == pytest.approx(2**0.25, rel=0.01)


def test_a_dot_free_loop_takes_the_norm_too(round_hw):
    import dataclasses

    # 400 tiles of 8 trips, each trip a 100,000-byte row from DRAM (1 us) and 1e6 element ops (1 us): the
    # norm paces the loop above the larger time and at most 2^(1/4) above it
    plan = stream_plan(400, 8, 3, flops=1e6)
    clear_caches()
    base = evaluate(plan, dataclasses.replace(round_hw, cuda_ddr_norm_p=0.0)).latency_s
    normed = evaluate(plan, dataclasses.replace(round_hw, cuda_ddr_norm_p=4.0)).latency_s
    overhead = round_hw.launch_overhead_s
    assert base - overhead == pytest.approx(800e-6, rel=0.01)  # 800 trips an SM at 1 us
    assert 1.05 < (normed - overhead) / (base - overhead) <= 2**0.25 * 1.001


def _dot_loop_plan(load_in_loop: bool):
    """Four tiles, each running 10 dependent warpgroup dots (2e7 FLOPs each) in a loop, their A tile loaded
    before the loop (operands on chip) or in it, every iteration."""
    import dataclasses

    from tilesight.plan import ActionKind, BlockResources, Loop, TensorAccess, TileAction, TileGrid, TilePlan

    a = TensorAccess("a", "float16", (400, 1000), (100, 1000))
    load = TileAction("load_a", ActionKind.LOAD, tensor="a")
    dot = TileAction(
        "dot", ActionKind.DOT, dtype="float16", shape=(100, 100, 1000), variant="wgmma", mma_n=128
    )
    if load_in_loop:
        body = (Loop("k", 10, (load, dataclasses.replace(dot, deps=("load_a",))), stages=2),)
    else:
        body = (load, Loop("k", 10, (dot,), deps=("load_a",)))
    return TilePlan("dots", TileGrid((4,)), (a,), body, BlockResources(128))


@pytest.mark.parametrize(("load_in_loop", "tc_us"), [(False, 10.0), (True, 20.0)])
def test_a_loop_of_dots_on_chip_runs_at_the_dot_chain_rate(round_hw, load_in_loop, tc_us):
    # the dot-chain probes' case: a loop that loads nothing chains its dots at wgmma_chain_flops_per_s
    # (8e13 over 4 SMs: 10 x 2e7 FLOPs a tile, one tile an SM, take 10 us); a loop that loads its operands
    # keeps the profile's GEMM rate (4e13: 20 us), its loads sharing the dots' time
    import dataclasses

    hw = dataclasses.replace(round_hw, wgmma_chain_flops_per_s=8e13)
    report = ts.estimate(_dot_loop_plan(load_in_loop), hw=hw)
    assert report.busy_s[Pipeline.TC] == pytest.approx(tc_us * 1e-6)

"""tilesight.cache.model: the tile reuse-distance SDCM cache model and its L1.5 -> L2 cascade."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tilesight.cache.model as model_mod
from tilesight.cache import CompulsoryCacheModel
from tilesight.cache.model import WRITE_SECTOR_HIT_RATE, SdcmCacheModel, sdcm_breakdown
from tilesight.errors import TileSightError
from tilesight.hardware import load_profile
from tilesight.library.gemm import gemm_plan
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

H200 = load_profile("h200")
# The bare SDCM (one L2, no request coalescing, lockstep waves) for numbers worked out by hand.
BARE = dict(partitions=1, merge_spread=None, skew=0.0)
# H200 with a placement for hand-worked numbers: blocks go to SMs 0, 1, 2, ...; SMs 0, 1 -> partition 0, 2, 3
# -> partition 1, and so on
PAIRS = dataclasses.replace(
    H200,
    sm_dispatch_order=tuple(range(132)),
    sm_dispatch_order_sparse=(),
    sm_l2_partition=tuple((s // 2) % 2 for s in range(132)),
)
# A B200-like synthetic profile with an L1.5 tier: 2 SMs per group, 4 MiB effective each.
WITH_L15 = dataclasses.replace(
    H200, l15_bytes=8 << 20, l15_effective_bytes=4 << 20, l15_bw_bytes_per_s=2.0e13, l15_sms_per_group=2
)


def test_tiny_gemm_by_hand():
    # 256^3 with 128x128x64 tiles: 2 x 2 tiles in one wave, 4 K steps. Per step A(m, k) is read by both tiles
    # of row m: one miss, one hit -> A hit 1/2; B likewise. Reads: A 4 tiles x 4 steps x 16 KiB = 256 KiB,
    # B 256 KiB; C writes 4 x 32 KiB = 128 KiB, all hits. L2 hit = (128 + 128 + 128) / 640 = 0.6.
    traffic, rows = sdcm_breakdown(gemm_plan(256, 256, 256, 128, 128, 64), H200, **BARE)
    assert traffic.l2_hit_rate == pytest.approx(0.6)
    assert traffic.tensors["a"].l2_hit == pytest.approx(0.5)
    assert traffic.tensors["c"].l2_hit == WRITE_SECTOR_HIT_RATE
    # DRAM: each of A, B (128 KiB) read once; C (128 KiB) is still dirty in L2 when the kernel ends, so its
    # write-back falls outside the kernel (WRITEBACK_AT_KERNEL_END is False)
    assert traffic.dram_read_bytes == pytest.approx(2 * 131072)
    assert traffic.dram_write_bytes == pytest.approx(0.0)
    assert traffic.l15_hit_rate is None
    by_action = {r.action: r for r in rows}
    assert by_action["load_a"].compulsory_fraction == pytest.approx(0.5)


def test_everything_fits_matches_compulsory():
    plan = gemm_plan(1024, 1024, 1024, 64, 64, 32)
    sd = SdcmCacheModel(**BARE).traffic(plan, H200)
    comp = CompulsoryCacheModel().traffic(plan, H200)
    # the whole problem (3 x 2 MiB) fits the 50 MiB L2: only first touches miss
    assert sd.l2_hit_rate == pytest.approx(comp.l2_hit_rate, abs=1e-9)
    assert sd.dram_read_bytes == pytest.approx(comp.dram_read_bytes)


def test_masked_blocks_move_only_tensor_bytes():
    traffic, _ = sdcm_breakdown(gemm_plan(1000, 1000, 1000, 128, 128, 64), H200, **BARE)
    # A and B are 1000 x 1000 fp16 = 2 MB each; everything fits, so each is read once
    assert traffic.dram_read_bytes == pytest.approx(4e6)


def test_written_blocks_reach_dram_when_evicted(monkeypatch):
    # C = 16384^2 fp16 = 512 MiB, ten times the 50 MiB L2: all but the last ~50 MiB written is evicted
    # during the kernel; with write-back at kernel end counted, all of C is written
    plan = gemm_plan(16384, 16384, 512, 128, 128, 64, group_m=8)
    c_bytes = 16384 * 16384 * 2
    evicted = SdcmCacheModel().traffic(plan, H200).dram_write_bytes
    assert 0.85 * c_bytes < evicted < c_bytes
    monkeypatch.setattr(model_mod, "WRITEBACK_AT_KERNEL_END", True)
    model_mod.clear_memo()
    assert SdcmCacheModel().traffic(plan, H200).dram_write_bytes == pytest.approx(c_bytes)
    model_mod.clear_memo()


def test_group_m_improves_reuse_on_large_gemm():
    # 8192^3 with 128x256 tiles: row-major waves span 2 rows x 32 columns and re-read all of B every wave
    # (64 MiB of B per wave > 50 MiB L2); GROUP_M = 8 walks 8-row panels and keeps B columns warm
    flat = SdcmCacheModel().traffic(gemm_plan(8192, 8192, 8192, 128, 256, 64, group_m=1), H200)
    grouped = SdcmCacheModel().traffic(gemm_plan(8192, 8192, 8192, 128, 256, 64, group_m=8), H200)
    assert grouped.l2_hit_rate > flat.l2_hit_rate + 0.03
    assert grouped.dram_bytes < flat.dram_bytes


@settings(max_examples=10, deadline=None)
@given(st.floats(4e6, 2e8), st.floats(1.05, 4.0))
def test_more_capacity_never_hurts(cap, factor):
    plan = gemm_plan(4096, 8192, 4096, 128, 128, 64, group_m=4)
    small = SdcmCacheModel(l2_capacity_bytes=cap).traffic(plan, H200)
    large = SdcmCacheModel(l2_capacity_bytes=cap * factor).traffic(plan, H200)
    assert large.l2_hit_rate >= small.l2_hit_rate - 1e-9
    for t in small.tensors.values():
        assert 0.0 <= t.l2_hit <= 1.0


def test_sampling_along_k_matches_full_replay():
    plan = gemm_plan(6144, 6144, 2048, 128, 128, 32, group_m=4)
    sampled = SdcmCacheModel().traffic(plan, H200)
    full = SdcmCacheModel(samples=10_000).traffic(plan, H200)  # every one of the 64 K steps
    assert sampled.l2_hit_rate == pytest.approx(full.l2_hit_rate, abs=0.005)


def test_persistent_gemm_runs():
    traffic = SdcmCacheModel().traffic(
        gemm_plan(8192, 8192, 4096, 128, 128, 64, group_m=8, programs=132), H200
    )
    assert 0.0 < traffic.l2_hit_rate < 1.0


def test_l15_cascade_by_hand():
    # 2 x 2 tiles on SMs 0..3; groups {0, 1} hold row m = 0, {2, 3} row m = 1.
    # A(m, k): the second tile of each row hits in its group's L1.5 -> A: L1.5 1/2, L2 0, DRAM 1/2.
    # B(k, n): first touched in group 0, re-read by group 1 -> B: L1.5 0, L2 1/2, DRAM 1/2.
    # L2 sees 128 KiB of A misses + 256 KiB of B + 128 KiB of C writes = 512 KiB, of which 128 + 128 hit.
    traffic, _ = sdcm_breakdown(gemm_plan(256, 256, 256, 128, 128, 64), WITH_L15, **BARE)
    assert traffic.tensors["a"].l15_hit == pytest.approx(0.5) and traffic.tensors[
        "a"
    ].l2_hit == pytest.approx(0)
    assert traffic.tensors["b"].l15_hit == pytest.approx(0) and traffic.tensors["b"].l2_hit == pytest.approx(
        0.5
    )
    assert traffic.l2_hit_rate == pytest.approx(0.5)
    # L1.5 hits: 128 KiB of 512 KiB of reads
    assert traffic.l15_hit_rate == pytest.approx(0.25)
    assert traffic.dram_read_bytes == pytest.approx(2 * 131072)


def test_l15_never_adds_dram_traffic():
    plan = gemm_plan(8192, 8192, 4096, 128, 256, 64, group_m=8)
    one = SdcmCacheModel().traffic(plan, H200)
    two = SdcmCacheModel().traffic(plan, WITH_L15)
    assert two.dram_read_bytes <= one.dram_read_bytes * (1 + 1e-9)
    for t in two.tensors.values():
        assert t.l15_hit + t.l2_hit <= 1.0 + 1e-9


def test_memoised_per_plan_and_profile():
    plan = gemm_plan(2048, 2048, 2048, 128, 128, 64)
    assert SdcmCacheModel().traffic(plan, H200) is SdcmCacheModel().traffic(plan, H200)


@pytest.mark.parametrize("dense_max", [1 << 26, 0])
def test_leader_positions_is_each_cells_first_position(monkeypatch, dense_max):
    # cells 7, 3, 7, 3, 5 at positions 4, 2, 9, 6, 1: leaders 4, 2, 4, 2, 1 (by dense table and by sort alike)
    import numpy as np

    monkeypatch.setattr(model_mod, "_DENSE_DISTINCT_MAX", dense_max)
    cell = np.array([7, 3, 7, 3, 5])
    pos = np.array([4, 2, 9, 6, 1])
    assert model_mod._leader_positions(cell, pos, 8).tolist() == [4, 2, 4, 2, 1]


def test_merge_window_lag_grows_with_positions_behind_the_leader(monkeypatch):
    # the tiny GEMM's 2 x 2 tiles launch row-major in one wave, (0,0) (0,1) (1,0) (1,1). A row block's second
    # reader is one position behind the first (the leader, which goes to L2), a B column block's two: with
    # only the position lag, at 1 per position, P(merge) = 1/2 for A's reuses and 1/3 for B's; half the reads
    # are reuses, so the merged shares are 1/4 and 1/6 and the lookups 3/4 and 5/6 of the requested bytes
    monkeypatch.setattr(model_mod, "LRC_WINDOW_BLOCK_LAG", 0.0)
    monkeypatch.setattr(model_mod, "LRC_WINDOW_POSITION_LAG", 1.0)
    model_mod.clear_memo()
    _, rows = sdcm_breakdown(gemm_plan(256, 256, 256, 128, 128, 64), H200, **dict(BARE, merge_spread=1.0))
    model_mod.clear_memo()
    by = {r.tensor: r for r in rows}
    assert by["a"].l2_merged == pytest.approx(1 / 4)
    assert by["b"].l2_merged == pytest.approx(1 / 6)
    assert by["a"].l2_lookups == pytest.approx(3 / 4)
    assert by["b"].l2_lookups == pytest.approx(5 / 6)
    assert by["c"].l2_merged == 0.0  # writes are not merged


def test_coalesced_requests_are_neither_hits_nor_lookups(monkeypatch):
    # the tiny GEMM's read hits are all same-step reuses inside its one wave (half of the reads). With no lag
    # behind the leader every one is merged: read hits 0, lookups 1/2 of 512 KiB; C writes 128 KiB hit ->
    # 128 / 384
    tiny = gemm_plan(256, 256, 256, 128, 128, 64)
    monkeypatch.setattr(model_mod, "LRC_WINDOW_BLOCK_LAG", 0.0)
    monkeypatch.setattr(model_mod, "LRC_WINDOW_POSITION_LAG", 0.0)
    model_mod.clear_memo()
    merged = SdcmCacheModel(**dict(BARE, merge_spread=0.0)).traffic(tiny, H200)
    assert merged.l2_hit_rate == pytest.approx(1 / 3)
    # a lag of one leader lifetime per resident block, at one block per SM, merges half of them: hits
    # 0.25 x 512 + 128 = 256 of 0.75 x 512 + 128 = 512
    monkeypatch.setattr(model_mod, "LRC_WINDOW_BLOCK_LAG", 1.0)
    model_mod.clear_memo()
    traffic = SdcmCacheModel(**dict(BARE, merge_spread=1.0)).traffic(tiny, H200)
    model_mod.clear_memo()
    assert traffic.l2_hit_rate == pytest.approx(0.5)
    # merged requests are still served without DRAM: A and B are read once (2 x 128 KiB), L2 service 1/2
    assert traffic.dram_read_bytes == pytest.approx(2 * 131072)
    assert traffic.tensors["a"].l2_hit == pytest.approx(0.5)
    # the engine's L2 work per byte takes the merges of LRC_MERGE_SPREAD's rule at LRC_TIMING_BLOCKS_PER_SM =
    # 2 blocks per SM: 1 / (1 + 1 x 2) = 1/3 of the same-step reuses (half the reads) merged, 1 - 1/6 = 5/6
    # for A and B; 1 for the written C; with spread 0 every reuse merges at any residency: 1/2
    assert traffic.tensors["a"].l2_lookups == pytest.approx(5 / 6)
    assert traffic.tensors["a"].l2_merged == pytest.approx(1 / 6)
    assert traffic.tensors["c"].l2_lookups == 1.0
    assert merged.tensors["b"].l2_lookups == pytest.approx(0.5)


def test_partitioned_l2_counts_near_and_fabric_lookups():
    plan = gemm_plan(256, 256, 256, 128, 128, 64)
    two = dict(BARE, partitions=2)
    # tiles (0,0) (0,1) on SMs 0, 1 (partition 0), (1,0) (1,1) on SMs 2, 3 (partition 1). Whole L2: every
    # block is read twice, one miss one hit (p_all 1/2). Near: A(m) stays in one partition (p_near 1/2), B(n)
    # is read from both (p_near 0). Hits per read p_all = 1/2 (homed near: p_all; homed far: p_near, then
    # p_all - p_near across the fabric); lookups 1 + (1 - p_near) / 2: A 1.25, B 1.5. Reads 256 KiB each,
    # C writes 128 KiB: (128 + 128 + 128) / (320 + 384 + 128) = 6 / 13
    t = SdcmCacheModel(**two).traffic(plan, PAIRS)
    assert t.l2_hit_rate == pytest.approx(6 / 13)
    assert (t.tensors["a"].l2_lookups, t.tensors["b"].l2_lookups) == pytest.approx((1.25, 1.5))
    assert t.dram_read_bytes == pytest.approx(2 * 131072)  # A and B once: DRAM follows p_all
    # all four tiles in one partition: no fabric lookups for A or B beyond their near misses, 384 / 768
    one_side = dataclasses.replace(PAIRS, sm_l2_partition=(0,) * 132)
    assert SdcmCacheModel(**two).traffic(plan, one_side).l2_hit_rate == pytest.approx(0.5)
    # a small grid takes the sparse dispatch order: SMs 0, 1, 4, 5 are all partition 0 -> 0.5 again (and the
    # memo keys on that order: the same plan on PAIRS still gives 6 / 13)
    sparse = dataclasses.replace(PAIRS, sm_dispatch_order_sparse=(0, 1, 4, 5))
    assert SdcmCacheModel(**two).traffic(plan, sparse).l2_hit_rate == pytest.approx(0.5)
    assert SdcmCacheModel(**two).traffic(plan, PAIRS).l2_hit_rate == pytest.approx(6 / 13)


def test_replicas_shrink_the_capacity_left_for_distinct_lines():
    # a block read from one of two partitions has 1.5 copies on average (one more at home half the time), as
    # in the calibration sweep; read from both, 2. The tiny GEMM on PAIRS: A blocks one partition, B blocks
    # both, equal bytes -> mean 1.75 copies, capacity share 1.5 / 1.75
    plan = gemm_plan(256, 256, 256, 128, 128, 64)
    eo = model_mod.execution_order(plan, PAIRS)
    streams = model_mod._streams(plan, eo.coords)
    part = model_mod._partition_of(eo.sm, PAIRS, 2)
    assert part.tolist() == [0, 0, 1, 1]
    assert model_mod._replica_share(streams, part, 2) == pytest.approx(1.5 / 1.75)
    assert model_mod._replica_share(streams, part * 0, 1) == pytest.approx(1.0)  # one L2: one copy
    assert model_mod._replica_share(streams, part * 0, 2) == pytest.approx(1.0)  # all reads on one side
    # a persistent grid counts the readers round by round (rounds: one per launch index): B's columns, read
    # from one partition in each round, are held once there plus at home, 1.5 copies like A's rows -> the
    # calibrated capacity
    assert model_mod._replica_share(streams, part, 2, np.array([0, 0, 1, 1])) == pytest.approx(1.0)
    # rounds that read each column from both partitions keep both copies: A's four (round, row) blocks at
    # 1.5 copies, B's two (round, column) blocks at 2 -> 1.5 / (10 / 6)
    assert model_mod._replica_share(streams, part, 2, np.array([0, 1, 0, 1])) == pytest.approx(0.9)


def test_execution_skew_lengthens_reuse_distances():
    # deep K, row-major: with skew the B reuse between rows of the grid spans more of the wave's loop
    plan = gemm_plan(4096, 11008, 4096, 64, 64, 32)
    lockstep = SdcmCacheModel(**BARE).traffic(plan, H200)
    skewed = SdcmCacheModel(**dict(BARE, skew=1.0)).traffic(plan, H200)
    assert skewed.dram_read_bytes > lockstep.dram_read_bytes
    assert skewed.l2_hit_rate < lockstep.l2_hit_rate


def test_execution_skew_by_hand():
    # 128x128x64 fp16 tiles (wgmma): per K step 2*128*128*64 FLOPs over (128*64 + 64*128)*2 bytes = 64 FLOP/B;
    # ridge = 6.5628e14 FLOP/s / 8.3355e12 B/s = 78.73 FLOP/B; shortfall 1 - 64/78.73 = 0.1871
    lo, hi = model_mod.EXECUTION_SKEW_COMPUTE, model_mod.EXECUTION_SKEW_MEMORY
    ridge = H200.tc_rate("float16") / H200.l2_bw_bytes_per_s
    assert ridge == pytest.approx(78.73, abs=0.01)
    skew = model_mod.execution_skew(gemm_plan(4096, 4096, 4096, 128, 128, 64), H200)
    assert skew == pytest.approx(lo + (hi - lo) * (1 - 64 / ridge))
    # 128x256: 85.3 FLOP/B, above the ridge -> compute-paced
    assert model_mod.execution_skew(gemm_plan(4096, 4096, 4096, 128, 256, 64), H200) == lo
    # 16x128 on the warp-level mma: 14.2 FLOP/B against the mma rate's own (lower) ridge
    mma = H200.tc_rate("float16", "mma") / H200.l2_bw_bytes_per_s
    narrow = model_mod.execution_skew(gemm_plan(4096, 4096, 4096, 16, 128, 64, variant="mma"), H200)
    assert narrow == pytest.approx(lo + (hi - lo) * (1 - (16 * 128 / 144) / mma))


def test_execution_skew_without_dots_is_memory_paced():
    copy = TilePlan(
        name="copy",
        grid=TileGrid(shape=(64,), dims=("i",)),
        tensors=(
            TensorAccess("x", "float32", (65536,), (1024,), AccessMode.READ),
            TensorAccess("y", "float32", (65536,), (1024,), AccessMode.WRITE),
        ),
        body=(
            TileAction("load_x", ActionKind.LOAD, tensor="x", dst=MemLevel.REG),
            TileAction("store_y", ActionKind.STORE, tensor="y", src=MemLevel.REG, deps=("load_x",)),
        ),
        resources=BlockResources(threads=128),
    )
    assert model_mod.execution_skew(copy, H200) == model_mod.EXECUTION_SKEW_MEMORY


@settings(max_examples=25, deadline=None)
@given(bm=st.sampled_from([16, 32, 64, 128, 256]), bn=st.sampled_from([16, 32, 64, 128, 256]))
def test_execution_skew_bounded_and_falls_with_tile_size(bm, bn):
    lo, hi = model_mod.EXECUTION_SKEW_COMPUTE, model_mod.EXECUTION_SKEW_MEMORY
    skew = model_mod.execution_skew(gemm_plan(2048, 2048, 2048, bm, bn, 32), H200)
    assert lo <= skew <= hi
    # a larger tile does more tensor-core work per byte: never more skew
    assert model_mod.execution_skew(gemm_plan(2048, 2048, 2048, bm, 2 * bn, 32), H200) <= skew


def test_execution_skew_per_block_an_sm_by_hand():
    # 128x128x64: the pacing rule's skew (above), plus 0.04 for each block an SM holds beyond the first, the
    # wave's mean, up to six blocks (the most the NCU studies measured)
    plan = gemm_plan(4096, 4096, 4096, 128, 128, 64)
    pacing = model_mod.execution_skew(plan, H200)
    assert model_mod.execution_skew(plan, H200, 1.0) == pacing
    assert model_mod.execution_skew(plan, H200, 0.5) == pacing  # a partial wave: no block shares an SM
    assert model_mod.execution_skew(plan, H200, 3.0) == pytest.approx(pacing + 0.08)
    assert model_mod.execution_skew(plan, H200, 2.5) == pytest.approx(pacing + 0.06)
    assert model_mod.execution_skew(plan, H200, 32.0) == pytest.approx(pacing + 0.2)  # 5 blocks beyond


@settings(max_examples=30, deadline=None)
@given(st.floats(0.0, 64.0), st.floats(0.0, 64.0))
def test_execution_skew_grows_with_blocks_an_sm_and_stays_at_most_one(a, b):
    plan = gemm_plan(2048, 2048, 2048, 16, 64, 32, variant="mma")
    lo, hi = sorted((a, b))
    assert model_mod.execution_skew(plan, H200, lo) <= model_mod.execution_skew(plan, H200, hi) <= 1.0


def test_latency_paced_loops_keep_the_compute_skew_by_hand():
    # 16x64x32 at two stages: one iteration of loads in flight, (16*32 + 32*64) * 2 = 5,120 B an iteration,
    # 40.4 ns at the SM's 126.7 GB/s L2 port against the 266.3 ns L2 latency: paced by the latency, so the
    # compute skew at any blocks an SM; at three stages the pacing rule and the per-block drift again
    lo = model_mod.EXECUTION_SKEW_COMPUTE
    assert H200.l2_latency_s * H200.l2_bw_per_sm_bytes_per_s == pytest.approx(33740, abs=1)
    two = gemm_plan(4096, 14336, 4096, 16, 64, 32, num_stages=2, variant="mma")
    assert model_mod._latency_paced(two, H200)
    assert model_mod.execution_skew(two, H200) == model_mod.execution_skew(two, H200, 14.0) == lo
    three = gemm_plan(4096, 14336, 4096, 16, 64, 32, num_stages=3, variant="mma")
    assert not model_mod._latency_paced(three, H200)
    assert model_mod.execution_skew(three, H200, 14.0) > model_mod.execution_skew(three, H200) > lo
    # the threshold: 64x64x128 moves 32,768 B an iteration (258.6 ns: latency-paced), 128x64x128 49,152 B
    # (387.9 ns), 16x256x128 69,632 B (549.6 ns, the narrow study's tile that keeps its misses)
    assert model_mod._latency_paced(gemm_plan(4096, 4096, 4096, 64, 64, 128, num_stages=2), H200)
    assert not model_mod._latency_paced(gemm_plan(4096, 4096, 4096, 128, 64, 128, num_stages=2), H200)
    wide = gemm_plan(4096, 14336, 4096, 16, 256, 128, num_stages=2, variant="mma")
    assert not model_mod._latency_paced(wide, H200)


def test_latency_paced_looks_through_an_early_returns_one_trip_loop():
    # the code past ``if pid_m * BM >= n: return`` is a one-trip loop (taken by 0.9 of the programs) around
    # the K loop: the K loop's stages and loads decide, as they do without the return (stop 75: the MoE
    # GEMMs' wrapper alone looked latency-paced, kept the compute skew, and their weights hit L2 at 57%
    # where NCU saw 32%)
    three = gemm_plan(4096, 14336, 4096, 16, 64, 32, num_stages=3, variant="mma")
    wrapped = dataclasses.replace(three, body=(Loop("if_1", 1, three.body, mean_trips=0.9),))
    assert not model_mod._latency_paced(wrapped, H200)
    assert model_mod.execution_skew(wrapped, H200) == model_mod.execution_skew(three, H200)
    assert model_mod.execution_skew(wrapped, H200) > model_mod.EXECUTION_SKEW_COMPUTE
    # a two-stage K loop inside stays latency-paced; a one-trip loop around plain loads is itself the loop
    two = gemm_plan(4096, 14336, 4096, 16, 64, 32, num_stages=2, variant="mma")
    assert model_mod._latency_paced(dataclasses.replace(two, body=(Loop("if_1", 1, two.body),)), H200)
    (k_loop,) = [n for n in three.body if isinstance(n, Loop)]
    assert model_mod._top_loops(wrapped.body) == [k_loop]


def test_gathered_blocks_each_move_a_whole_tile():
    # 64 programs gather 16 rows each of a 64-row fp16 table (128 columns, 16 KiB): every row is read by 16
    # programs, so the 64 keys' tiles (4 KiB each) add up to 16 times the tensor. Masked edge tiles are
    # spread over the tensor's bytes; gathered ones are not edges: each read moves its 4 KiB
    table = TensorAccess("x", "float16", (64, 128), (16, 128), AccessMode.READ, indirect=True)
    plan = TilePlan(
        name="gather",
        grid=TileGrid(shape=(64,), dims=("p",)),
        tensors=(table,),
        body=(TileAction("load_x", ActionKind.LOAD, tensor="x", dst=MemLevel.REG),),
        resources=BlockResources(threads=128),
    )
    traffic, rows = sdcm_breakdown(plan, H200, **BARE)
    (row,) = rows
    assert row.requested_bytes == pytest.approx(64 * 16 * 128 * 2)
    # the same access taken as a region of the table: 64 blocks of 4 KiB over 16 KiB, a quarter-row each
    direct = dataclasses.replace(plan, tensors=(dataclasses.replace(table, indirect=False),))
    assert sdcm_breakdown(direct, H200, **BARE)[1][0].requested_bytes == pytest.approx(16384)


def test_latency_paced_needs_a_loop():
    copy = TilePlan(
        name="copy",
        grid=TileGrid(shape=(64,), dims=("i",)),
        tensors=(TensorAccess("x", "float32", (65536,), (1024,), AccessMode.READ),),
        body=(TileAction("load_x", ActionKind.LOAD, tensor="x", dst=MemLevel.REG),),
        resources=BlockResources(threads=128),
    )
    assert not model_mod._latency_paced(copy, H200)  # no loop: the pacing rule decides


@settings(max_examples=30, deadline=None)
@given(
    bm=st.sampled_from([16, 32, 64, 128]),
    bn=st.sampled_from([32, 64, 128, 256]),
    bk=st.sampled_from([32, 64, 128]),
    stages=st.sampled_from([1, 2, 3, 4]),
    per_sm=st.floats(0.0, 16.0),
)
def test_latency_paced_skew_is_never_above_the_rule(bm, bn, bk, stages, per_sm):
    plan = gemm_plan(4096, 4096, 4096, bm, bn, bk, num_stages=stages)
    skew = model_mod.execution_skew(plan, H200, per_sm)
    assert model_mod.EXECUTION_SKEW_COMPUTE <= skew <= 1.0
    if model_mod._latency_paced(plan, H200):
        assert stages <= model_mod.LATENCY_PACED_STAGES and skew == model_mod.EXECUTION_SKEW_COMPUTE


def test_default_model_uses_the_pacing_rule():
    from tilesight.cache.order import execution_order

    plan = gemm_plan(4096, 11008, 4096, 64, 64, 32)
    per_sm = execution_order(plan, H200).concurrency / H200.sm_count
    assert per_sm > 1  # 64x64x32 tiles: several blocks an SM, so the per-block term is in the rule
    rule = model_mod.execution_skew(plan, H200, per_sm)
    assert rule > model_mod.execution_skew(plan, H200)
    assert SdcmCacheModel().traffic(plan, H200) == SdcmCacheModel(skew=rule).traffic(plan, H200)
    assert SdcmCacheModel().traffic(plan, H200) != SdcmCacheModel(skew=0.0).traffic(plan, H200)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"form": "lru"},
        {"samples": 0},
        {"merge_spread": -1.0},
        {"merge_spread": float("inf")},
        {"merge_spread": "1.5"},
        {"l2_capacity_bytes": 0.0},
        {"skew": -0.1},
        {"partitions": 0},
    ],
)
def test_bad_settings_raise(kwargs):
    with pytest.raises(TileSightError):
        SdcmCacheModel(**kwargs)


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from([256, 1000, 2048, 3072, 6144]),
    st.sampled_from([256, 1536, 4096, 8192]),
    st.sampled_from([64, 512, 2048]),
    st.sampled_from([(64, 64, 32), (128, 128, 64), (128, 256, 64), (256, 64, 32)]),
    st.sampled_from([1, 4, 8]),
    st.sampled_from([None, 66, 132]),
)
def test_traffic_invariants(m, n, k, tile, group_m, programs):
    plan = gemm_plan(m, n, k, *tile, group_m=group_m, programs=programs)
    traffic = SdcmCacheModel().traffic(plan, H200)
    assert 0.0 <= traffic.l2_hit_rate <= 1.0
    for t in traffic.tensors.values():
        assert 0.0 <= t.l2_hit <= 1.0 and t.ddr_bytes <= t.requested_bytes * (1 + 1e-9)
    # reads never come from DRAM less often than once per tensor byte touched
    touched = sum(plan.tensor(x).tensor_bytes for x in ("a", "b"))
    assert traffic.dram_read_bytes >= touched * (1 - 1e-9)


def test_generic_plan_with_prologue_loop_and_epilogue():
    """Attention-like shape: a prologue load (q), a reduction loop reading k shared by all tiles, a store."""
    plan = TilePlan(
        name="toy",
        grid=TileGrid(shape=(4,), dims=("x",)),
        tensors=(
            TensorAccess("q", "fp16", (256, 64), (64, 64)),
            TensorAccess("k", "fp16", (192, 64), (64, 64), reuse_dims=frozenset({"x"})),
            TensorAccess("o", "fp16", (256, 64), (64, 64), AccessMode.WRITE),
        ),
        body=(
            TileAction("load_q", ActionKind.LOAD, tensor="q", dst=MemLevel.SMEM),
            Loop(
                "kv",
                3,
                (TileAction("load_k", ActionKind.LOAD, tensor="k", dst=MemLevel.SMEM),),
                reduction=True,
            ),
            TileAction("store_o", ActionKind.STORE, tensor="o", deps=("kv",)),
        ),
        resources=BlockResources(threads=128),
    )
    traffic, rows = sdcm_breakdown(plan, H200, **BARE)
    by = {r.action: r for r in rows}
    # 4 tiles in one wave; q: one private 8 KiB block per tile, never reused -> hit 0;
    # k: 3 blocks, each read by all 4 tiles: 1 miss + 3 hits -> 0.75; o: 4 writes, all hits
    assert by["load_q"].l2_hit == 0.0 and by["load_k"].l2_hit == pytest.approx(0.75)
    assert by["load_k"].accesses == 12
    # reads: q 32 KiB (0 hits), k 96 KiB (72 hits); writes o 32 KiB (hits): (72 + 32) / 160
    assert traffic.l2_hit_rate == pytest.approx(104 / 160)
    assert traffic.dram_read_bytes == pytest.approx(32768 + 24576)


def test_staggered_window_counts_distinct_keys_of_a_launch_window():
    import numpy as np

    # 4 tiles with keys 0 0 1 1 (one occurrence of 8-byte blocks): positions 1 and 3 repeat the key one
    # launch index back (gap 1). D(n) = n - sum_q max(0, n - g_q) / 4: D(1) = 1, D(2) = 2 - 2/4 = 1.5,
    # D(3) = 3 - 4/4 = 2, D(4) = 4 - 6/4 = 2.5 -> 2 (clipped to the 2 keys)
    keys = np.array([0, 0, 1, 1])
    s = model_mod._Stream("load_x", "x", False, np.array([0]), 8.0, keys, 2)
    prev = model_mod._previous_same_key(keys, 2)
    window = model_mod._staggered_window_bytes([s], [prev], 4, 1)
    assert window.tolist() == pytest.approx([0.0, 8.0, 12.0, 16.0, 16.0])


def test_window_at_selected_gaps_equals_the_full_window():
    import numpy as np

    # same 4 tiles as above (keys 0 0 1 1, gap histogram: two gaps of 1): at n = 1 and 3 the full window
    # gives 8 and 16 bytes; _window_at evaluates only there
    keys = np.array([0, 0, 1, 1])
    s = model_mod._Stream("load_x", "x", False, np.array([0]), 8.0, keys, 2)
    hist = np.bincount(np.array([1, 1]), minlength=5)
    at = np.array([1, 3])
    assert model_mod._window_at([s], [hist], 4, 1, at).tolist() == pytest.approx([8.0, 16.0])


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=40), st.integers(1, 3))
def test_window_at_matches_full_window(keys, ngroups):
    import numpy as np

    k = np.array(keys)
    s = model_mod._Stream("load_x", "x", False, np.array([0, 3]), 16.0, k, 6)
    prev = model_mod._previous_same_key(k, 6)
    full = model_mod._staggered_window_bytes([s], [prev], k.size, ngroups)
    j = np.flatnonzero(prev >= 0)
    hist = np.bincount(j - prev[j], minlength=k.size + 1)
    at = np.arange(k.size + 1)
    assert model_mod._window_at([s], [hist], k.size, ngroups, at).tolist() == full.tolist()


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 6), min_size=12, max_size=12), min_size=1, max_size=3),
    st.integers(1, 3),
    st.lists(st.integers(0, 12), min_size=1, max_size=6, unique=True),
)
def test_window_at_matches_its_formula_written_out(streams_keys, ngroups, distances):
    # the staggered window at a few distances n, against its docstring's formula summed gap by gap in plain
    # Python: per stream, n / groups positions less sum_q max(0, n - g_q) / tiles over its reuse gaps g_q,
    # kept within [0, nkeys], times the stream's occurrences and block bytes
    import numpy as np

    tiles = 12
    streams, hists, gaps = [], [], []
    for r, keys in enumerate(streams_keys):
        k = np.array(keys)
        streams.append(model_mod._Stream(f"load_{r}", f"t{r}", False, np.arange(r + 1), 4.0 * (r + 1), k, 7))
        prev = model_mod._previous_same_key(k, 7)
        g = [j - int(prev[j]) for j in range(tiles) if prev[j] >= 0]
        gaps.append(g)
        hists.append(np.bincount(np.array(g, dtype=np.int64), minlength=tiles + 1))
    at = np.array(sorted(distances))
    expected = []
    for n in at.tolist():
        total = 0.0
        for s, g in zip(streams, gaps, strict=True):
            distinct = n / ngroups - sum(max(0, n - q) for q in g) / tiles
            total += s.slots.size * s.block_bytes * min(max(distinct, 0.0), s.nkeys)
        expected.append(total)
    got = model_mod._window_at(streams, np.array(hists), tiles, ngroups, at)
    assert got.tolist() == pytest.approx(expected, rel=1e-12, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 12), st.integers(1, 9), st.data())
def test_distinct_per_bin_counts_each_bins_distinct_ids(per_bin, bins, data):
    # both ways of counting (column by column for a few ids per bin, a reduction for more) against sets
    import numpy as np

    ids = data.draw(st.lists(st.integers(0, per_bin * bins - 1), max_size=60))
    got = model_mod._distinct_per_bin(np.array(ids, dtype=np.int64), per_bin, bins)
    expected = [len({i for i in ids if i // per_bin == b}) for b in range(bins)]
    assert got.tolist() == expected


def test_chunked_walk_equals_one_pass(monkeypatch):
    # the walk's chunk size is a speed knob only: 1-tile chunks give the same traffic as the default
    hw = load_profile("h200")
    plan = gemm_plan(2048, 2048, 512, 128, 128, 64, group_m=8)
    model_mod.clear_memo()
    ref = sdcm_breakdown(plan, hw)
    monkeypatch.setattr(model_mod, "WALK_CHUNK", 7)
    model_mod.clear_memo()
    got = sdcm_breakdown(plan, hw)
    model_mod.clear_memo()
    assert got == ref


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.sets(st.integers(0, 30), min_size=1, max_size=12), min_size=1, max_size=4),
    st.integers(1, 3),
)
def test_sampled_steps_count_and_match_occurrences(slot_sets, samples):
    import numpy as np

    # "before" counts a stream's occurrences strictly before each sampled slot, "at" flags one on it
    streams = [
        model_mod._Stream(f"s{k}", "x", False, np.array(sorted(sl)), 8.0, np.zeros(1, np.int64), 1)
        for k, sl in enumerate(slot_sets)
    ]
    for s, (idx, before, at) in zip(streams, model_mod._sampled_steps(streams, samples), strict=True):
        sig = s.slots[idx]
        for r, o in enumerate(streams):
            assert before[r].tolist() == [float(np.sum(o.slots < x)) for x in sig]
            assert at[r].tolist() == [float(x in o.slots) for x in sig]


def _two_pass_plan(rows: int, cols: int, block: int, reverse: bool = False):
    """A normalisation kernel's shape: one row per tile, two loops over the row reading x twice, a store;
    ``reverse``: the second loop walks the row backwards."""
    trips = -(-cols // block)
    return TilePlan(
        name="two_pass",
        grid=TileGrid(shape=(rows,), dims=("row",)),
        tensors=(
            TensorAccess("x", "fp16", (rows, cols), (1, block)),
            TensorAccess("y", "fp16", (rows, cols), (1, block), AccessMode.WRITE),
        ),
        body=(
            Loop("sum", trips, (TileAction("load_x", ActionKind.LOAD, tensor="x", dst=MemLevel.REG),)),
            Loop(
                "norm",
                trips,
                (
                    TileAction("load_x_2", ActionKind.LOAD, tensor="x", dst=MemLevel.REG, reverse=reverse),
                    TileAction("store_y", ActionKind.STORE, tensor="y", src=MemLevel.REG, deps=("load_x_2",)),
                ),
            ),
        ),
        resources=BlockResources(threads=256),
    )


def test_second_pass_over_a_row_hits_l2():
    # 1024 rows of 8 KiB read twice: between a block's two reads its wave (every tile at once) reads one
    # row each, 8 MiB, well inside the 50 MiB L2, so the second pass hits and DRAM reads x once (8 MiB).
    traffic, rows = sdcm_breakdown(_two_pass_plan(1024, 4096, 1024), H200, **BARE)
    by = {r.action: r for r in rows}
    assert by["load_x"].l2_hit == 0.0 and by["load_x"].compulsory_fraction == 1.0
    assert by["load_x_2"].l2_hit == pytest.approx(1.0, abs=1e-6)
    assert by["load_x_2"].compulsory_fraction == 0.0
    assert traffic.dram_read_bytes == pytest.approx(1024 * 4096 * 2, rel=1e-6)
    assert traffic.tensors["x"].l2_hit == pytest.approx(0.5, abs=1e-6)
    # each read action keeps its own rates for the engine: the first pass waits for DRAM, the second not
    assert traffic.of("load_x", "x").l2_hit == 0.0 and traffic.of("load_x", "x").ddr_wait == 1.0
    assert traffic.of("load_x_2", "x").l2_hit == pytest.approx(1.0, abs=1e-6)
    assert traffic.of("load_x_2", "x").ddr_bytes == pytest.approx(0.0, abs=1.0)
    assert traffic.of("load_x", "x").ddr_bytes == pytest.approx(traffic.dram_read_bytes)
    # a tensor one action reads (and a write) has its tensor's traffic
    assert "store_y" not in traffic.reads and traffic.of("store_y", "y") is traffic.tensors["y"]


def test_a_partial_last_block_moves_only_its_bytes():
    # rows of 2560 fp16 in 2048-wide blocks: two blocks a pass, the second with 512 columns, so an access
    # moves (2048 + 512) x 2 B / 2 = 2560 B on average, not the tile's 4096; the first pass all from DRAM
    from tilesight.model.resources import DDR, L2, action_demand

    plan = _two_pass_plan(1024, 2560, 2048)
    traffic = SdcmCacheModel(**BARE).traffic(plan, H200)
    first, second = (a for a, _ in plan.actions() if a.name in ("load_x", "load_x_2"))
    first_pass = traffic.of("load_x", "x")
    assert first_pass.requested_bytes / first_pass.accesses == pytest.approx(2560)
    d = action_demand(first, plan, H200, traffic)
    assert d.bytes == 4096 and d.amounts[DDR] == pytest.approx(2560, rel=1e-6)
    assert action_demand(second, plan, H200, traffic).amounts[DDR] == pytest.approx(0.0, abs=1.0)
    assert d.amounts[L2] <= 2560 * (1 + 1e-6)


def test_the_engine_times_each_pass_at_its_own_hit_rate():
    # the first pass's load waits for DRAM (ddr_latency), the second finds the row in L2 (l2_latency)
    from tilesight.model.resources import action_demand

    plan = _two_pass_plan(1024, 4096, 1024)
    traffic = SdcmCacheModel(**BARE).traffic(plan, H200)
    first, second = (a for a, _ in plan.actions() if a.name in ("load_x", "load_x_2"))
    assert action_demand(first, plan, H200, traffic).latency_s == pytest.approx(H200.ddr_latency_s)
    assert action_demand(second, plan, H200, traffic).latency_s == pytest.approx(H200.l2_latency_s, rel=1e-5)


def test_second_pass_misses_when_the_wave_overflows_l2(monkeypatch):
    # With an L2 of a quarter of what the wave reads between the two passes the second pass mostly misses.
    plan = _two_pass_plan(1024, 65536, 8192)  # 128 KiB rows: a wave reads 128 MiB before re-reading
    traffic, rows = sdcm_breakdown(plan, H200, l2_capacity_bytes=32 << 20, **BARE)
    by = {r.action: r for r in rows}
    assert by["load_x_2"].l2_hit < 0.05


def test_a_backward_second_pass_rereads_the_last_blocks_first():
    # The same 128 KiB rows, 8 blocks of 16 KiB, the second pass backwards: its step i re-reads the first
    # pass's block 7 - i after the wave's i later first-pass blocks, its own i second-pass reads and i stores,
    # 3 i x 16 KiB x 1024 tiles: nothing for the first step (a sure hit), 48 MiB and more after it (misses in
    # a 32 MiB L2). So 1/8 of the second pass hits, where walking forwards (7 blocks and more in between)
    # none of it does.
    plan = _two_pass_plan(1024, 65536, 8192, reverse=True)
    _, rows = sdcm_breakdown(plan, H200, l2_capacity_bytes=32 << 20, **BARE)
    assert {r.action: r for r in rows}["load_x_2"].l2_hit == pytest.approx(1 / 8, abs=1e-3)
    _, rows = sdcm_breakdown(_two_pass_plan(1024, 65536, 8192), H200, l2_capacity_bytes=32 << 20, **BARE)
    assert {r.action: r for r in rows}["load_x_2"].l2_hit < 1e-3
    # with 2 KiB blocks (8192-wide rows, 2 MiB a step over the wave) and 12 MiB of L2 the backward pass hits
    # at 0, 6 and 12 MiB: 1, ~1 and ~1/2 of its 8 steps; forwards the distances are 14-28 MiB: misses
    backward = _two_pass_plan(1024, 8192, 1024, reverse=True)
    _, rows = sdcm_breakdown(backward, H200, l2_capacity_bytes=12 << 20, **BARE)
    assert 2 / 8 < {r.action: r for r in rows}["load_x_2"].l2_hit < 3 / 8
    _, rows = sdcm_breakdown(_two_pass_plan(1024, 8192, 1024), H200, l2_capacity_bytes=12 << 20, **BARE)
    assert {r.action: r for r in rows}["load_x_2"].l2_hit < 0.05


def test_warm_tensor_first_touches_hit():
    # the tiny GEMM above reads A (128 KiB) and B (128 KiB) once each from DRAM; with all of A's lines left in
    # L2 by an earlier kernel only B comes from DRAM, with half of them half of A's first touches miss
    plan = gemm_plan(256, 256, 256, 128, 128, 64)
    warm = SdcmCacheModel(**BARE).traffic(dataclasses.replace(plan, l2_warm=(("a", 1.0),)), H200)
    assert warm.dram_read_bytes == pytest.approx(131072)
    assert warm.tensors["a"].l2_hit == pytest.approx(1.0)
    half = SdcmCacheModel(**BARE).traffic(dataclasses.replace(plan, l2_warm=(("a", 0.5),)), H200)
    assert half.dram_read_bytes == pytest.approx(131072 + 65536)
    # the compulsory model takes the same share off A's DRAM reads
    comp = CompulsoryCacheModel().traffic(dataclasses.replace(plan, l2_warm=(("a", 0.5),)), H200)
    assert comp.dram_read_bytes == pytest.approx(131072 + 65536)


def test_written_lines_left_in_l2():
    # the tiny GEMM's C (128 KiB) is all in L2 when it ends; a 512 MiB C keeps only about the last L2-full
    small = SdcmCacheModel(**BARE).traffic(gemm_plan(256, 256, 256, 128, 128, 64), H200)
    assert small.tensors["c"].l2_resident_at_end == pytest.approx(1.0)
    big = SdcmCacheModel().traffic(gemm_plan(16384, 16384, 512, 128, 128, 64, group_m=8), H200)
    assert 0.0 < big.tensors["c"].l2_resident_at_end < 0.15
    assert small.tensors["a"].l2_resident_at_end == 0.0  # read-only tensors leave nothing written


def test_ddr_wait_counts_the_reads_behind_a_missing_first_request():
    from tilesight.cache.model import _ddr_wait

    # a wave asks for each block 5 times (80% repeats): a 4% miss share is 20% of the first requests, and
    # the repeats behind them wait too (20%); misses at or above the first requests' share: every read waits
    assert _ddr_wait(0.04, 0.8) == pytest.approx(0.2)
    assert _ddr_wait(0.3, 0.8) == 1.0
    assert _ddr_wait(0.1, 0.0) == pytest.approx(0.1)  # no repeats: the misses alone
    assert _ddr_wait(0.0, 0.9) == 0.0


@settings(max_examples=200, deadline=None)
@given(miss=st.floats(0.0, 1.0), more=st.floats(0.0, 1.0), concurrent=st.floats(0.0, 1.0))
def test_ddr_wait_is_a_share_at_least_the_misses_and_grows_with_them(miss, more, concurrent):
    from tilesight.cache.model import _ddr_wait

    w = _ddr_wait(miss, concurrent)
    assert 0.0 <= w <= 1.0
    assert w >= miss - 1e-12
    assert _ddr_wait(min(1.0, miss + more), concurrent) >= w - 1e-12


def test_execution_skew_builds_up_over_waves():
    # the first wave runs in lockstep whatever the skew: a one-wave grid does not see it, a many-wave one does
    one = gemm_plan(1024, 2048, 8192, 128, 128, 32)  # 128 tiles: one wave on H200
    skewed, lockstep = SdcmCacheModel(**dict(BARE, skew=1.0)), SdcmCacheModel(**BARE)
    assert skewed.traffic(one, H200) == lockstep.traffic(one, H200)
    many = gemm_plan(8192, 8192, 8192, 128, 128, 32)
    assert skewed.traffic(many, H200).l2_hit_rate < lockstep.traffic(many, H200).l2_hit_rate


def _tap_plan(rereads: tuple[tuple[int, float], ...]) -> TilePlan:
    """Four tiles, each reading its own row of x in four 1 KiB steps (no block shared between tiles), the
    steps re-reading ``rereads`` of their own earlier steps (a convolution's taps)."""
    return TilePlan(
        name="taps",
        grid=TileGrid(shape=(4,), dims=("row",)),
        tensors=(TensorAccess("x", "fp16", (4, 2048), (1, 512)),),
        body=(
            Loop(
                "k",
                4,
                (TileAction("load_x", ActionKind.LOAD, tensor="x", dst=MemLevel.SMEM, rereads=rereads),),
            ),
        ),
        resources=BlockResources(threads=128),
    )


def test_own_rereads_by_hand():
    # every block private and read once: no hit without rereads; with half of each step's bytes read one step
    # before (a few KiB in between, far inside the L2) steps 1-3 hit half: (0 + 3 x 0.5) / 4 = 0.375
    plain, _ = sdcm_breakdown(_tap_plan(()), H200, samples=4, **BARE)
    taps, rows = sdcm_breakdown(_tap_plan(((1, 0.5),)), H200, samples=4, **BARE)
    assert plain.l2_hit_rate == 0.0
    assert taps.l2_hit_rate == pytest.approx(0.375)
    assert taps.dram_read_bytes == pytest.approx(0.625 * 16 * 1024)
    # a gap of 3 leaves only the last step with an earlier read: 0.5 / 4
    late, _ = sdcm_breakdown(_tap_plan(((3, 0.5),)), H200, samples=4, **BARE)
    assert late.l2_hit_rate == pytest.approx(0.125)


def test_own_rereads_never_lower_a_hit():
    # a re-read share hits with the larger of its own and its cross-tile probability: a tile re-reading a
    # block every tile shares keeps that block's hits
    plan = gemm_plan(512, 512, 512, 128, 128, 64)
    loads = {a.name for a, _ in plan.actions() if a.kind is ActionKind.LOAD}
    base, _ = sdcm_breakdown(plan, H200, **BARE)
    body = tuple(
        dataclasses.replace(n, body=tuple(
            dataclasses.replace(a, rereads=((1, 1.0),)) if a.name in loads else a for a in n.body
        )) if isinstance(n, Loop) else n
        for n in plan.body
    )  # fmt: skip
    more, _ = sdcm_breakdown(dataclasses.replace(plan, body=body), H200, **BARE)
    for name in ("a", "b"):
        assert more.tensors[name].l2_hit >= base.tensors[name].l2_hit - 1e-12
        assert 0.0 <= more.tensors[name].l2_hit <= 1.0


def _loop_of_no_trips_plan(w_elsewhere: bool) -> TilePlan:
    """64 tiles each read their own KiB of x and write it to y; a loop of no trips (a runtime count of 0)
    reads w, and with ``w_elsewhere`` one more read of w sits outside the loop."""
    outside = (
        (TileAction("load_w_once", ActionKind.LOAD, tensor="w", dst=MemLevel.REG),) if w_elsewhere else ()
    )
    return TilePlan(
        name="no_trips",
        grid=TileGrid(shape=(64,), dims=("i",)),
        tensors=(
            TensorAccess("x", "float32", (16384,), (256,), AccessMode.READ),
            TensorAccess("w", "float32", (256,), (256,), AccessMode.READ, reuse_dims=frozenset({"i"})),
            TensorAccess("y", "float32", (16384,), (256,), AccessMode.WRITE),
        ),
        body=(
            TileAction("load_x", ActionKind.LOAD, tensor="x", dst=MemLevel.REG),
            *outside,
            Loop("rows", 0, (TileAction("load_w", ActionKind.LOAD, tensor="w", dst=MemLevel.REG),)),
            TileAction("store_y", ActionKind.STORE, tensor="y", src=MemLevel.REG, deps=("load_x",)),
        ),
        resources=BlockResources(threads=128),
    )


@pytest.mark.parametrize("w_elsewhere", [False, True])
def test_a_loop_of_no_trips_is_walked_as_no_access(w_elsewhere):
    # the walk reaches load_w no time: no accesses, no bytes, and the others' numbers as without it. x: 64
    # private KiB blocks, every read a compulsory miss; y: 64 KiB written, hits; with w read once a tile
    # outside the loop, its one 1 KiB block is a miss in the first tile and a hit in the other 63
    traffic, rows = sdcm_breakdown(_loop_of_no_trips_plan(w_elsewhere), H200, **BARE)
    by = {r.action: r for r in rows}
    assert by["load_w"].accesses == 0 and by["load_w"].requested_bytes == 0.0 and by["load_w"].ddr_bytes == 0
    assert by["load_x"].l2_hit == 0.0 and traffic.dram_read_bytes == pytest.approx(65536 + 1024 * w_elsewhere)
    hits, looked_up = 65536 + 63 * 1024 * w_elsewhere, 2 * 65536 + 65536 * w_elsewhere
    assert traffic.l2_hit_rate == pytest.approx(hits / looked_up)
    assert ("w" in traffic.tensors) == w_elsewhere


def test_tiles_that_return_early_stay_out_of_the_walk():
    # A MoE-like grid of 8 x 4 tiles of a 1024^2 GEMM (128 x 256 x 64 tiles) whose last 2 block rows return
    # early (``if pid_m * BM >= num_tokens_post_padded: return``): 24 of the 32 tiles run. Everything fits
    # L2, so DRAM reads each block the live tiles touch once: A's 6 live rows (6 x 128 x 1024 x 2 bytes =
    # 1.5 MiB) and all of B (2 MiB). Walking all 32 tiles at the guard's 0.75 share read 0.75 x (2 + 2) MiB
    gemm = gemm_plan(1024, 1024, 1024, 128, 256, 64)
    grid = gemm.grid
    rows = grid.coordinates()[:, list(grid.dims).index("m")]
    taken = tuple(int(r < 6) for r in rows)
    guard = Loop("if_1", 1, gemm.body, mean_trips=sum(taken) / len(taken), trips_by_program=taken)
    plan = dataclasses.replace(gemm, body=(guard,))
    assert model_mod.early_returns(plan)[0] is guard
    traffic, _ = sdcm_breakdown(plan, H200, **BARE)
    assert traffic.dram_read_bytes == pytest.approx(6 * 128 * 1024 * 2 + 1024 * 1024 * 2)
    # every program running the guard: the plan as it was
    every = dataclasses.replace(guard, trips_by_program=(1,) * len(taken), mean_trips=None)
    assert model_mod.early_returns(dataclasses.replace(gemm, body=(every,))) is None
    # tiled work before the return (a whole A tile read by every program): the walk keeps every tile
    (load_a,) = [a for a, _ in gemm.actions() if a.name == "load_a"]
    before = dataclasses.replace(gemm, body=(dataclasses.replace(load_a, name="load_a_first"), guard))
    assert model_mod.early_returns(before) is None

"""Diagnosis rules: each bottleneck class from a report built by hand, and effects stated from two reports."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesight.diagnose import BottleneckClass, Change, diagnose, find_issues, proposals
from tilesight.errors import LaunchError
from tilesight.integrations.whatif import explore
from tilesight.plan import (
    AccessMode,
    ActionKind,
    BlockResources,
    KernelSequence,
    Pipeline,
    TensorAccess,
    TileAction,
    TileGrid,
    TilePlan,
)
from tilesight.report import ActionStats, Occupancy, PhaseCost, Report


def report(
    *,
    latency_s: float = 100e-6,
    bottleneck: Pipeline = Pipeline.DDR,
    util: dict[Pipeline, float] | None = None,
    l2_hit: float = 0.9,
    resident: int = 2,
    limiter: str = "smem",
    blocks: int = 1056,
    full_waves: int = 4,
    tail_blocks: int = 0,
    sm_count: int = 132,
    tail_s: float = 0.0,
) -> Report:
    util = util if util is not None else {bottleneck: 0.95}
    busy = {p: u * latency_s for p, u in util.items()}
    phases = (PhaseCost("steady", latency_s - tail_s, bottleneck, busy),)
    if tail_s:
        phases += (PhaseCost("tail", tail_s, bottleneck, busy),)
    occ = Occupancy(resident, limiter, {limiter: resident}, blocks, full_waves, tail_blocks, 66, sm_count)
    return Report(
        kernel="k",
        hw="h200",
        latency_s=latency_s,
        launch_overhead_s=0.0,
        busy_s=busy,
        utilization=util,
        bottleneck=bottleneck,
        phases=phases,
        overlap_rate=0.2,
        l2_hit_rate=l2_hit,
        dram_bytes=1e6,
        occupancy=occ,
    )


def classes(r: Report, **kw: object) -> list[BottleneckClass]:
    return [i.cls for i in find_issues(r, **kw)]  # type: ignore[arg-type]


CONFIG = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 1, "num_warps": 8, "num_stages": 3}


def test_poor_l2_locality_suggests_group_m() -> None:
    issues = find_issues(report(l2_hit=0.41), config=CONFIG)
    assert issues[0].cls is BottleneckClass.L2_LOCALITY
    assert issues[0].changes == (Change({"GROUP_M": 8}),)
    assert "L2 hit rate of 41%" in issues[0].evidence


def test_effect_sentence_from_two_predictions() -> None:
    before = report(l2_hit=0.41, latency_s=130e-6)
    after = report(l2_hit=0.78, latency_s=100e-6)
    d = diagnose(before, config=CONFIG, whatifs={Change({"GROUP_M": 8}): after})
    (effect,) = d.findings[0].effects
    # 130 us / 100 us = 1.30x
    assert effect.sentence() == "GROUP_M=8 raises predicted L2 hit from 41% to 78%: 1.30x faster"
    assert d.findings[0].best is effect


def test_refused_change_keeps_its_reason() -> None:
    d = diagnose(report(l2_hit=0.41), config=CONFIG, whatifs={Change({"GROUP_M": 8}): "smem exceeds"})
    assert d.findings[0].effects[0].sentence() == "GROUP_M=8: not predicted (smem exceeds)"


def test_pipeline_overlap_when_busiest_pipeline_idles() -> None:
    # busiest pipeline busy 50% of the kernel: 50% exposed > 30%
    r = report(bottleneck=Pipeline.TC, util={Pipeline.TC: 0.5, Pipeline.DDR: 0.4})
    (issue,) = [i for i in find_issues(r, config=CONFIG) if i.cls is BottleneckClass.PIPELINE_OVERLAP]
    assert issue.share == pytest.approx(0.5)
    assert issue.changes == (Change({"num_stages": 4}),)


def test_pipeline_overlap_also_deepens_a_loops_own_stages() -> None:
    # a kernel passing its row loop's tl.range(num_stages=...) as a constexpr: the launch's num_stages does
    # not reach that loop, so the what-if steps both (and any other *_STAGES constexpr), each a change of its
    # own
    r = report(bottleneck=Pipeline.DDR, util={Pipeline.DDR: 0.25})
    cfg = {"BLOCK": 2048, "ROW_STAGES": 2, "num_warps": 8, "num_stages": 1, "MY_STAGESX": 3, "stages": 2}
    (issue,) = [i for i in find_issues(r, config=cfg) if i.cls is BottleneckClass.PIPELINE_OVERLAP]
    assert issue.changes == (Change({"num_stages": 2}), Change({"ROW_STAGES": 3}), Change({"stages": 3}))
    # freeing shared memory steps them down, never below 1
    low = report(bottleneck=Pipeline.TC, util={Pipeline.TC: 0.6}, resident=1, limiter="smem")
    (issue,) = [i for i in find_issues(low, config=cfg) if i.cls is BottleneckClass.OCCUPANCY]
    assert issue.changes == (Change({"ROW_STAGES": 1}), Change({"stages": 1}))


def test_occupancy_limit_by_shared_memory() -> None:
    r = report(bottleneck=Pipeline.TC, util={Pipeline.TC: 0.6}, resident=1, limiter="smem")
    (issue,) = [i for i in find_issues(r, config=CONFIG) if i.cls is BottleneckClass.OCCUPANCY]
    assert issue.changes == (Change({"num_stages": 2}),)
    r = report(bottleneck=Pipeline.TC, util={Pipeline.TC: 0.6}, resident=1, limiter="registers")
    (issue,) = [i for i in find_issues(r, config=CONFIG) if i.cls is BottleneckClass.OCCUPANCY]
    assert issue.changes == (Change({"num_warps": 4}),)


def test_small_grid() -> None:
    r = report(blocks=64, full_waves=0, tail_blocks=64)
    (issue,) = [i for i in find_issues(r, config=CONFIG) if i.cls is BottleneckClass.SMALL_GRID]
    assert issue.share == pytest.approx(1 - 64 / 132)  # 68 of 132 SMs idle
    assert set(issue.changes) == {Change({"BLOCK_M": 64}), Change({"BLOCK_N": 64})}  # BLOCK_K left alone


def test_tail_wave() -> None:
    # 1.25 waves of 132 resident blocks: 165 blocks; efficiency 1.25 / 2 = 62.5% < 80%
    r = report(blocks=165, resident=1, full_waves=1, tail_blocks=33, tail_s=40e-6)
    (issue,) = [i for i in find_issues(r, config=CONFIG) if i.cls is BottleneckClass.TAIL_WAVE]
    assert issue.share == pytest.approx(0.4)  # tail phase 40 of 100 us
    assert "62% wave efficiency" in issue.evidence or "63% wave efficiency" in issue.evidence


def _plan(*, indirect: bool = False, spill: int = 0) -> TilePlan:
    return TilePlan(
        name="k",
        grid=TileGrid((4,)),
        tensors=(TensorAccess("x", "f16", (256,), (64,), indirect=indirect),),
        body=(TileAction("ld", ActionKind.LOAD, tensor="x"),),
        resources=BlockResources(128, spill_bytes_per_thread=spill),
    )


def test_indirect_addressing_and_spills_come_from_the_plan() -> None:
    r = report()
    assert BottleneckClass.INDIRECT_ADDRESSING in classes(r, plan=_plan(indirect=True))
    assert BottleneckClass.INDIRECT_ADDRESSING not in classes(r, plan=_plan())
    assert BottleneckClass.SPILLS in classes(r, plan=_plan(spill=64))


def test_a_kernel_sequence_is_diagnosed_from_all_its_kernels() -> None:
    r = report()
    seq = KernelSequence("prog", (_plan(), dataclasses.replace(_plan(indirect=True, spill=64), name="k2")))
    found = classes(r, plan=seq)
    assert BottleneckClass.INDIRECT_ADDRESSING in found and BottleneckClass.SPILLS in found
    assert BottleneckClass.SPILLS not in classes(r, plan=KernelSequence("prog", (_plan(),)))


def test_tile_reuse_when_traffic_not_misses_bounds() -> None:
    r = report(bottleneck=Pipeline.L2, util={Pipeline.L2: 0.95}, l2_hit=0.97)
    (issue,) = [i for i in find_issues(r, config=CONFIG) if i.cls is BottleneckClass.TILE_REUSE]
    assert set(issue.changes) == {Change({"BLOCK_M": 256}), Change({"BLOCK_N": 256})}


def _row_plan(warps: int) -> TilePlan:
    return TilePlan(
        name="rows",
        grid=TileGrid((132,)),
        tensors=(TensorAccess("x", "f16", (132, 1024), (1, 1024)),),
        body=(
            TileAction("ld", ActionKind.LOAD, tensor="x"),
            TileAction("row_max", ActionKind.REDUCE, flops=1024.0, deps=("ld",), warps=warps),
        ),
        resources=BlockResources(32 * warps),
    )


def test_cross_warp_reductions_on_the_load_store_path() -> None:
    # SMEM-bound at 95%, its reductions 60 of the 80 us SMEM busy (75%) on 16 warps: the finding, sharing
    # 0.75 x 0.95 of the kernel, proposes 8 and 4 warps, and the reuse advice (larger tiles) is left out; with
    # the reductions at 30 of 80 us, or on one warp, or not SMEM-bound, no finding
    def stats(reduce_us: float) -> tuple[ActionStats, ...]:
        return (
            ActionStats("ld", "load", 1, {Pipeline.SMEM: (80 - reduce_us) * 1e-6}),
            ActionStats("row_max", "reduce", 1, {Pipeline.SMEM: reduce_us * 1e-6}),
        )

    r = dataclasses.replace(report(bottleneck=Pipeline.SMEM, util={Pipeline.SMEM: 0.95}), actions=stats(60))
    cfg = {"BLOCK": 1024, "num_warps": 16}
    found = find_issues(r, plan=_row_plan(16), config=cfg)
    (issue,) = [i for i in found if i.cls is BottleneckClass.CROSS_WARP_REDUCTION]
    assert issue.share == pytest.approx(0.75 * 0.95)
    assert issue.changes == (Change({"num_warps": 8}), Change({"num_warps": 4}))
    assert "16 warps hold 75%" in issue.evidence
    assert BottleneckClass.TILE_REUSE not in [i.cls for i in found]
    low = dataclasses.replace(r, actions=stats(30))
    assert BottleneckClass.CROSS_WARP_REDUCTION not in classes(low, plan=_row_plan(16), config=cfg)
    assert BottleneckClass.CROSS_WARP_REDUCTION not in classes(r, plan=_row_plan(1), config=cfg)
    ddr = dataclasses.replace(r, bottleneck=Pipeline.DDR)
    assert BottleneckClass.CROSS_WARP_REDUCTION not in classes(ddr, plan=_row_plan(16), config=cfg)


def _copy_plan(vector: int) -> TilePlan:
    x = TensorAccess("x", "float16", (132, 1024), (1, 1024))
    y = TensorAccess("y", "float16", (132, 1024), (1, 1024), mode=AccessMode.WRITE)
    return TilePlan(
        name="copy",
        grid=TileGrid((132,)),
        tensors=(x, y),
        body=(
            TileAction("ld", ActionKind.LOAD, tensor="x", vector_bytes=vector),
            TileAction("st", ActionKind.STORE, tensor="y", deps=("ld",), vector_bytes=vector),
        ),
        resources=BlockResources(256),
    )


def test_element_wide_accesses_on_the_load_store_path() -> None:
    # SMEM-bound at 90%, its 2-byte (one float16 element) load and store holding 72 of the 80 us of SMEM busy
    # (90%): the finding shares 0.9 x 0.9 of the kernel, names both actions, and the larger-tile advice is
    # left out; with 16-byte vectors, or the accesses at 30 of 80 us, or not SMEM-bound, no finding
    def stats(access_us: float) -> tuple[ActionStats, ...]:
        return (
            ActionStats("ld", "load", 1, {Pipeline.SMEM: access_us / 2 * 1e-6}),
            ActionStats("st", "store", 1, {Pipeline.SMEM: access_us / 2 * 1e-6}),
            ActionStats("other", "elementwise", 1, {Pipeline.SMEM: (80 - access_us) * 1e-6}),
        )

    r = dataclasses.replace(report(bottleneck=Pipeline.SMEM, util={Pipeline.SMEM: 0.9}), actions=stats(72))
    found = find_issues(r, plan=_copy_plan(2), config={"BLOCK": 1024})
    (issue,) = [i for i in found if i.cls is BottleneckClass.ELEMENT_WIDE]
    assert issue.share == pytest.approx(0.9 * 0.9)
    assert "ld, st move one element" in issue.evidence and "hold 90%" in issue.evidence
    assert BottleneckClass.TILE_REUSE not in [i.cls for i in found]
    assert BottleneckClass.ELEMENT_WIDE not in classes(r, plan=_copy_plan(16), config={})
    low = dataclasses.replace(r, actions=stats(30))
    assert BottleneckClass.ELEMENT_WIDE not in classes(low, plan=_copy_plan(2), config={})
    ddr = dataclasses.replace(r, bottleneck=Pipeline.DDR)
    assert BottleneckClass.ELEMENT_WIDE not in classes(ddr, plan=_copy_plan(2), config={})


def test_a_stream_at_its_compulsory_traffic_is_not_told_to_swizzle() -> None:
    # the copy reads x (132 x 1024 float16 = 270,336 bytes) and writes y (as many): 540,672 compulsory DRAM
    # bytes. DDR-bound at a 41% hit rate moving them (or up to 10% more: 594,739), it is a stream at its
    # compulsory traffic, not a locality problem; at 600,000 bytes or twice them, the locality finding returns
    plan = _copy_plan(16)
    for moved in (540_672, 590_000):
        r = dataclasses.replace(report(l2_hit=0.41), dram_bytes=moved)
        (issue,) = find_issues(r, plan=plan, config=CONFIG)
        assert issue.cls is BottleneckClass.COMPULSORY_TRAFFIC and issue.share == pytest.approx(0.95)
        assert f"{moved / 1e6:.4g} MB where its tensors touch 0.5407 MB" in issue.evidence
    for moved in (600_000, 2 * 540_672):
        r = dataclasses.replace(report(l2_hit=0.41), dram_bytes=moved)
        assert classes(r, plan=plan, config=CONFIG) == [BottleneckClass.L2_LOCALITY]
    # a high hit rate (the writes' hits) at the compulsory bytes: the same finding, not the larger-tile advice
    r = dataclasses.replace(report(l2_hit=0.9), dram_bytes=540_672)
    assert classes(r, plan=plan, config=CONFIG) == [BottleneckClass.COMPULSORY_TRAFFIC]
    # without the plan, or on a GPU profile the diagnosis cannot load, the hit rate alone decides
    assert classes(dataclasses.replace(report(l2_hit=0.41), dram_bytes=540_672), config=CONFIG) == [
        BottleneckClass.L2_LOCALITY
    ]
    custom = dataclasses.replace(report(l2_hit=0.41), dram_bytes=540_672, hw="my-gpu")
    assert classes(custom, plan=plan, config=CONFIG) == [BottleneckClass.L2_LOCALITY]


def test_busy_compute_bound_kernel_has_no_findings() -> None:
    assert find_issues(report(bottleneck=Pipeline.TC, util={Pipeline.TC: 0.97})) == ()


def test_explore_repredicts_each_proposal_and_records_refusals() -> None:
    before = report(l2_hit=0.41, latency_s=130e-6, util={Pipeline.DDR: 0.5})
    seen = []

    def predict(cfg: dict) -> Report:
        seen.append(dict(cfg))
        if cfg["num_stages"] == 4:
            raise LaunchError("smem_bytes", 300000, 232448, "h200")
        return dataclasses.replace(before, latency_s=100e-6, l2_hit_rate=0.78)

    d = explore(before, CONFIG, predict)
    assert {c.label for c in proposals(find_issues(before, config=CONFIG))} == {"GROUP_M=8", "num_stages=4"}
    assert len(seen) == 2
    effects = {e.change.label: e for f in d.findings for e in f.effects}
    assert effects["GROUP_M=8"].speedup == pytest.approx(1.3)
    assert "cannot launch" in (effects["num_stages=4"].error or "")


@settings(deadline=None)
@given(
    st.floats(0.0, 1.0),
    st.sampled_from(list(Pipeline)),
    st.integers(1, 5000),
    st.integers(1, 8),
)
def test_shares_are_fractions(hit: float, neck: Pipeline, blocks: int, resident: int) -> None:
    waves, tail = divmod(blocks, resident * 132)
    r = report(
        l2_hit=hit, bottleneck=neck, util={neck: 0.5}, blocks=blocks, resident=resident, full_waves=waves
    )
    r = dataclasses.replace(r, occupancy=dataclasses.replace(r.occupancy, tail_blocks=tail))
    for issue in find_issues(r, config=CONFIG):
        assert 0.0 <= issue.share <= 1.0


def test_tilelang_swizzle_switch_is_proposed() -> None:
    issues = find_issues(report(l2_hit=0.3), config={"block_M": 128, "use_swizzle": False})
    assert Change({"use_swizzle": True}) in issues[0].changes


@pytest.mark.parametrize(
    ("phase", "cls"),
    [("merges", BottleneckClass.SPLIT_STORES), ("atomic chain", BottleneckClass.ATOMIC_CHAIN)],
)
def test_time_beyond_the_schedule_is_its_own_class_and_leaves_the_schedule_its_own_bottleneck(
    phase: str, cls: BottleneckClass
) -> None:
    from tilesight.report import CHAIN_PHASE, MERGE_PHASE

    assert {MERGE_PHASE, CHAIN_PHASE} == {"merges", "atomic chain"}
    # 100 us: a 40 us DDR-bound schedule at 95% of its time (38 us busy, 38% of the kernel) and 60 us beyond
    # it (the L2's merges of split stores, or atomics waiting on one word), the report's bottleneck L2 with an
    # L2 hit rate of 25%
    base = report(latency_s=100e-6, bottleneck=Pipeline.DDR, util={Pipeline.DDR: 0.38}, l2_hit=0.25)
    steady = dataclasses.replace(base.phases[0], time_s=40e-6)
    beyond = PhaseCost(phase, 60e-6, Pipeline.L2, {})
    r = dataclasses.replace(base, phases=(steady, beyond), bottleneck=Pipeline.L2)
    issues = find_issues(r, config=CONFIG)
    assert issues[0].cls is cls and issues[0].share == pytest.approx(0.6)
    assert "for 60 of 100 us" in issues[0].evidence
    # the schedule is DDR-bound and 95% busy: its poor locality (the DDR's 38% of the kernel) is the only
    # other issue (no overlap issue from the L2's 0% or the DDR's 38% over the whole kernel)
    (locality,) = issues[1:]
    assert locality.cls is BottleneckClass.L2_LOCALITY and locality.share == pytest.approx(0.38)
    assert locality.evidence.startswith("ddr-bound")


def test_every_class_has_advice_and_a_metric() -> None:
    from tilesight.diagnose import ADVICE, METRICS

    assert set(ADVICE) == set(BottleneckClass) == set(METRICS)

"""Timeline lanes from a report: derived from phases, chunked steady state, or the engine's own intervals."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesight.plan import Pipeline
from tilesight.report import Occupancy, PhaseCost, Report
from tilesight.timeline import TimelineError, build_timeline

US = 1e-6


def report(phases: tuple[PhaseCost, ...], extras: dict | None = None) -> Report:
    busy: dict[Pipeline, float] = {}
    for ph in phases:
        for p, v in ph.busy_s.items():
            busy[p] = busy.get(p, 0.0) + v
    latency = sum(p.time_s for p in phases)
    return Report(
        kernel="k",
        hw="h200",
        latency_s=latency,
        launch_overhead_s=0.0,
        busy_s=busy,
        utilization={p: v / latency for p, v in busy.items()},
        bottleneck=Pipeline.DDR,
        phases=phases,
        overlap_rate=0.0,
        l2_hit_rate=0.5,
        dram_bytes=0.0,
        occupancy=Occupancy(1, "smem", {}, 132, 1, 0, 0, 132),
        extras=extras or {},
    )


PHASES = (
    PhaseCost("tail", 5 * US, Pipeline.DDR, {Pipeline.DDR: 4 * US}),  # listed out of order on purpose
    PhaseCost("prologue", 2 * US, Pipeline.DDR, {Pipeline.DDR: 2 * US, Pipeline.TC: 0.0}),
    PhaseCost("steady", 10 * US, Pipeline.DDR, {Pipeline.DDR: 10 * US, Pipeline.TC: 6 * US}),
)


def test_derived_lanes_by_hand() -> None:
    t = build_timeline(report(PHASES))
    assert t.derived
    # phases in prologue, steady, tail order: [0, 2], [2, 12], [12, 17] us
    assert [(p.phase, p.start_s / US, p.end_s / US) for p in t.phases] == [
        ("prologue", 0, 2),
        ("steady", 2, 12),
        ("tail", 12, 17),
    ]
    lanes = {lane.pipeline: lane for lane in t.lanes}
    assert list(lanes) == [Pipeline.TC, Pipeline.DDR]  # resource-vector order, idle pipelines left out
    assert [(s.start_s / US, s.end_s / US) for s in lanes[Pipeline.TC].segments] == [(2, 8)]
    ddr = [(round(s.start_s / US, 9), round(s.end_s / US, 9)) for s in lanes[Pipeline.DDR].segments]
    assert ddr == [(0, 2), (2, 12), (12, 16)]
    assert t.end_s == pytest.approx(17 * US)


def test_steady_state_cut_into_units() -> None:
    # steady 10 us at 2.5 us per unit: 4 chunks of 2.5 us; TC busy 6 us -> 1.5 us per chunk
    t = build_timeline(report(PHASES, {"steady_per_unit_s": 2.5 * US}))
    tc = next(lane for lane in t.lanes if lane.pipeline is Pipeline.TC)
    assert [(round(s.start_s / US, 9), round(s.end_s / US, 9)) for s in tc.segments] == [
        (2, 3.5),
        (4.5, 6),
        (7, 8.5),
        (9.5, 11),
    ]
    assert tc.busy_s == pytest.approx(6 * US)


def test_engine_intervals_are_drawn_as_given() -> None:
    t = build_timeline(
        report(PHASES, {"timeline": [("tc", 1 * US, 3 * US, "dot"), (Pipeline.DDR, 0.0, 1 * US, "ld")]})
    )
    assert not t.derived
    assert [(lane.pipeline, [s.label for s in lane.segments]) for lane in t.lanes] == [
        (Pipeline.TC, ["dot"]),
        (Pipeline.DDR, ["ld"]),
    ]
    assert t.to_dict()["lanes"][0]["segments"][0] == {
        "pipeline": "tc",
        "start_s": 1e-6,
        "end_s": 3e-6,
        "label": "dot",
    }


@pytest.mark.parametrize("bad", [[("gpu", 0, 1, "x")], [("tc", 2, 1, "backwards")], [("tc", 0, 1)]])
def test_malformed_engine_interval(bad: list) -> None:
    with pytest.raises(TimelineError):
        build_timeline(report(PHASES, {"timeline": bad}))


@settings(deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(0.1, 100.0), st.floats(0.0, 200.0), st.floats(0.0, 200.0)),
        min_size=1,
        max_size=4,
    ),
    st.one_of(st.none(), st.floats(0.01, 50.0)),
)
def test_segments_stay_inside_their_phase(spec: list, unit: float | None) -> None:
    names = ("prologue", "steady", "epilogue", "tail")
    phases = tuple(
        PhaseCost(names[i], t * US, Pipeline.TC, {Pipeline.TC: a * US, Pipeline.DDR: b * US})
        for i, (t, a, b) in enumerate(spec)
    )
    t = build_timeline(report(phases, {"steady_per_unit_s": unit * US} if unit else {}))
    spans = {p.phase: p for p in t.phases}
    for lane in t.lanes:
        for seg in lane.segments:
            span = spans[seg.label]
            assert span.start_s - 1e-18 <= seg.start_s <= seg.end_s <= span.end_s + 1e-15
        # a lane never works longer than the phases it appears in
        assert lane.busy_s <= sum(p.end_s - p.start_s for p in t.phases) * (1 + 1e-9)

"""Kernels launched back to back (KernelSequence) on the round-number GPU: every number worked by hand."""

from __future__ import annotations

import dataclasses
import json

import pytest

import tilesight as ts
from tilesight.model.evaluate import evaluate, latency_s
from tilesight.model.sequence import warmed_plans
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

from .plans import stream_plan

US = 1e-6


def _program() -> KernelSequence:
    # kernel "a": 4 tiles x 4 iterations, 16 us (tests/model/test_evaluate.py: 14 us + 2 us launch);
    # kernel "b": the same with 2 iterations: T_pro 2 + 1 steady x 3 + T_epi 3 = 8 us, + 2 us launch = 10 us
    a = dataclasses.replace(stream_plan(tiles=4, trips=4, stages=2), name="a")
    b = dataclasses.replace(stream_plan(tiles=4, trips=2, stages=2), name="b")
    return KernelSequence("prog", (a, b))


def test_kernels_run_one_after_another(round_hw):
    seq = _program()
    r = evaluate(seq, round_hw)
    assert r.kernel == "prog"
    assert r.latency_s == pytest.approx(26 * US)
    assert latency_s(seq, round_hw) == pytest.approx(26 * US)
    assert r.launch_overhead_s == pytest.approx(4 * US)
    # CUDA: 3 us per iteration on each SM, 4 + 2 iterations
    assert r.busy_s[Pipeline.CUDA] == pytest.approx(18 * US)
    assert r.utilization[Pipeline.CUDA] == pytest.approx(18 / 26)
    assert [k["kernel"] for k in r.extras["kernels"]] == ["a", "b"]
    assert [k["latency_s"] for k in r.extras["kernels"]] == pytest.approx([16 * US, 10 * US])


def test_combined_report_adds_and_weights_the_kernels(round_hw):
    seq = _program()
    r = evaluate(seq, round_hw)
    a, b = (evaluate(p, round_hw) for p in seq.plans)
    assert r.dram_bytes == pytest.approx(a.dram_bytes + b.dram_bytes)
    assert r.flops == pytest.approx(a.flops + b.flops)
    for p in Pipeline:
        assert r.busy_s[p] == pytest.approx(a.busy_s[p] + b.busy_s[p])
    # phases in launch order, each reason naming its kernel; the bottleneck is the longest phase's
    assert len(r.phases) == len(a.phases) + len(b.phases)
    assert all(ph.reason.startswith(("a: ", "b: ")) for ph in r.phases if ph.reason)
    assert r.bottleneck == max(r.phases, key=lambda ph: ph.time_s).bottleneck
    assert sorted(x.name for x in r.actions) == sorted(
        [f"a/{x.name}" for x in a.actions] + [f"b/{x.name}" for x in b.actions]
    )
    assert r.occupancy == a.occupancy  # the longest kernel's
    assert any("back to back" in n for n in r.notes)
    json.dumps(r.to_dict())  # the per-kernel summary is plain data


def test_estimate_takes_a_sequence(round_hw):
    r = ts.estimate(_program(), hw=round_hw)
    assert r.latency_s == pytest.approx(26 * US)
    with pytest.raises(TypeError, match="no launch arguments"):
        ts.estimate(_program(), 1, hw=round_hw)


def test_one_kernel_sequence_is_that_kernel(round_hw):
    plan = stream_plan(tiles=4, trips=4, stages=2)
    r = evaluate(KernelSequence("one", (plan,)), round_hw)
    assert r.latency_s == pytest.approx(evaluate(plan, round_hw).latency_s)


def test_text_rendering_lists_each_kernel(round_hw):
    text = str(evaluate(_program(), round_hw))
    assert "kernel a: 16.00 us" in text and "kernel b: 10.00 us" in text


def _row_plan(name: str, mode: AccessMode, kind: ActionKind, tensor: str = "y", rows: int = 4) -> TilePlan:
    # one 4,000-byte fp32 row per tile, 4 tiles: 16 KB moved
    t = TensorAccess(tensor, "float32", (rows, 1000), (1, 1000), mode)
    return TilePlan(
        name, TileGrid((rows,)), (t,), (TileAction("x", kind, tensor=tensor),), BlockResources(128)
    )


def test_a_tensor_written_before_is_read_from_l2(round_hw):
    writer = _row_plan("w", AccessMode.WRITE, ActionKind.STORE)
    reader = _row_plan("r", AccessMode.READ, ActionKind.LOAD)
    plans = warmed_plans(KernelSequence("p", (writer, reader)), round_hw)
    # 16 KB written into a 1 MB L2: every line is still there when the reader starts
    assert plans[0].l2_warm == ()
    ((name, share),) = plans[1].l2_warm
    assert name == "y" and share == pytest.approx(1.0, abs=1e-3)
    cold, warm = evaluate(reader, round_hw), evaluate(plans[1], round_hw)
    assert cold.dram_bytes == pytest.approx(16_000) and warm.dram_bytes == pytest.approx(0.0, abs=20)
    assert warm.latency_s < cold.latency_s
    r = evaluate(KernelSequence("p", (writer, reader)), round_hw)
    assert r.latency_s == pytest.approx(evaluate(writer, round_hw).latency_s + warm.latency_s)


def test_a_kernel_streaming_more_than_l2_flushes_what_came_before(round_hw):
    writer = _row_plan("w", AccessMode.WRITE, ActionKind.STORE)
    # 4 tiles x 5 rows of 100,000 bytes = 2 MB from DRAM: twice the 1 MB L2 (keep = max(0, 1 - 2) = 0)
    flush = dataclasses.replace(stream_plan(tiles=4, trips=5, stages=2), name="flush")
    reader = _row_plan("r", AccessMode.READ, ActionKind.LOAD)
    plans = warmed_plans(KernelSequence("p", (writer, flush, reader)), round_hw)
    assert plans[2].l2_warm == ()


def test_timeline_lays_the_kernels_end_to_end(round_hw):
    from tilesight.timeline import build_timeline

    r = evaluate(_program(), round_hw)
    tl = build_timeline(r)
    # kernel a's phases from 0, kernel b's from a's 16 us (a's 2 us launch gap last, as for one kernel)
    firsts = [s for s in tl.phases if s.phase == "prologue"]
    assert [s.start_s for s in firsts] == pytest.approx([0.0, 16 * US])
    assert tl.phases[-1].end_s == pytest.approx(26 * US - 2 * US)
    labels = {seg.label.split(":")[0] for lane in tl.lanes for seg in lane.segments}
    assert labels == {"a", "b"}

"""benchmarks/ncu_diag/attn_issue.py: the attention issue probe's case sets and its report, on CPU."""

from __future__ import annotations

import json

import pytest
from _ncu import ncu_csv


@pytest.fixture(scope="module")
def probe(load_script):
    return load_script("benchmarks/ncu_diag/attn_issue.py")


def test_the_mask_set_pairs_each_causal_tile_with_its_unmasked_twin(probe):
    shape, cases = probe.case_set("mask")
    assert shape == (3, 20, 3200)  # validation 84's fp16 d128 shape
    names = [probe.name(c) for c in cases]
    assert len(set(names)) == len(names) == 2 * len(probe.MASK_TILES)
    assert "causal/d128/m128n128w8s3" in names and "causal-unmasked/d128/m128n128w8s3" in names
    assert probe.case_set(None) == ((probe.BATCH, probe.HEADS, probe.N_CTX), probe.CASES)
    assert probe.name(("staged", False, 64, 64, 32, 4, 3)) == "staged-full/d64/m64n32w4s3"
    with pytest.raises(SystemExit, match="ATTN_ISSUE_SET='nope'"):
        probe.case_set("nope")


def test_report_puts_the_mask_beside_its_twin(probe, tmp_path, capsys):
    causal, twin = "causal/d128/m128n128w8s3", "causal-unmasked/d128/m128n128w8s3"
    barrier = probe.STALL.format("barrier")

    def launch(cycles, issue, inst, stalled_barrier):
        return {
            probe.CYCLES: cycles,
            probe.ISSUE: issue,
            "sm__inst_executed.sum": inst,
            barrier: stalled_barrier,
        }

    # two launches a case, the second kept: the causal launch 1.2M cycles at 40% issue, 1.5 warps a barrier
    # stall an issue; its twin 1.0M cycles at 35%, 1.0 warps
    launches = [
        launch(0, 0, 0, 0),
        launch(1.2e6, 40.0, 9e8, 1.5),
        launch(0, 0, 0, 0),
        launch(1.0e6, 35.0, 7e8, 1.0),
    ]
    markers = f"NCU_DIAG_CASE {causal}\nNCU_DIAG_CASE {twin}\n"
    (tmp_path / "attn_issue_ncu.csv").write_text(markers + ncu_csv(launches, "attention_fwd_kernel"))
    timing = [{"case": causal, "p50_us": 540.0}, {"case": twin, "p50_us": 440.0}]
    (tmp_path / "attn_issue_timing.jsonl").write_text("".join(json.dumps(r) + "\n" for r in timing))
    assert probe.report(tmp_path) == 0
    out = capsys.readouterr().out
    assert f"{causal}: the mask adds 100.0 us, 200000 cycles an SM, 2e+08 warp instructions" in out
    # barrier stalls: 1.0 x 0.35 x 1.0M = 350000 warp-cycles unmasked, 1.5 x 0.40 x 1.2M = 720000 masked
    (row,) = [ln for ln in out.splitlines() if ln.strip().startswith("barrier ")]
    assert row.split() == ["barrier", "350000", "->", "720000", "warp-cycles", "a", "scheduler"]
    (line,) = [ln for ln in out.splitlines() if ln.startswith(causal + " ")]
    assert line.split()[1:4] == ["540.0", "1200000", "40.0"] and line.endswith("barrier 1.50")
    with pytest.raises(SystemExit, match="no file .*attn_issue_timing.jsonl"):
        probe.report(tmp_path / "none")


def test_the_lone_set_pairs_each_lone_block_with_its_two_block_twin(probe):
    shape, cases = probe.case_set("lone")
    assert shape == probe.LONE_SHAPE == (2, 32, 4096)
    names = [probe.name(c) for c in cases]
    assert len(set(names)) == len(names)
    assert all(a in names and b in names for a, b in probe.LONE_PAIRS)
    for c in (*cases, *probe.MASK_CASES, *probe.CASES):
        assert probe.parse_name(probe.name(c)) == c
    # 2 x 32 heads x 64 query blocks x 64 key blocks of 64 over 132 SMs
    assert probe.tile_steps_per_sm(("loop", False, 128, 64, 64, 4, 4), shape) == pytest.approx(262144 / 132)
    with pytest.raises(ValueError, match="full launches"):
        probe.tile_steps_per_sm(("loop", True, 128, 64, 64, 4, 4), shape)


def test_report_reads_a_lone_block_per_step_beside_its_twin(probe, tmp_path, capsys, monkeypatch):
    lone, twin = "full/d128/m64n64w4s4", "full/d128/m64n64w4s3"
    steps = 262144 / 132  # K/V steps an SM of either (64 x 64 tiles at b2h32n4096)
    barrier = probe.STALL.format("barrier")
    launches = [
        {probe.CYCLES: 0, probe.ISSUE: 0, barrier: 0},
        {probe.CYCLES: 1650 * steps, probe.ISSUE: 40.0, barrier: 1.0},  # 660 barrier warp-cycles a step
        {probe.CYCLES: 0, probe.ISSUE: 0, barrier: 0},
        {probe.CYCLES: 1400 * steps, probe.ISSUE: 50.0, barrier: 0.5},  # 350
    ]
    markers = f"NCU_DIAG_CASE {lone}\nNCU_DIAG_CASE {twin}\n"
    (tmp_path / "attn_issue_ncu.csv").write_text(markers + ncu_csv(launches, "attention_fwd_kernel"))
    timing = [{"case": lone, "p50_us": 1616.0}, {"case": twin, "p50_us": 1402.0}]
    (tmp_path / "attn_issue_timing.jsonl").write_text("".join(json.dumps(r) + "\n" for r in timing))
    monkeypatch.setattr(probe, "predicted_us", lambda c, shape: {4: 1509.0, 3: 1424.0}[c[-1]])
    assert probe.report(tmp_path) == 0
    out = capsys.readouterr().out
    (row,) = [ln for ln in out.splitlines() if ln.strip().startswith(lone + " ") and "ns measured" in ln]
    # 1616 us over 1985.9 steps: 813.7 ns a step; predicted 1509 us: 759.8 ns; 1.071
    assert row.split()[1:8] == ["813.7", "ns", "measured,", "759.8", "predicted", "(1.071),", "1650.0"]
    assert f"{lone} against {twin}: 1650.0 against 1400.0 SM cycles a step" in out
    (stall,) = [ln for ln in out.splitlines() if ln.strip().startswith("barrier ")]
    assert stall.split()[:4] == ["barrier", "350.0", "->", "660.0"]

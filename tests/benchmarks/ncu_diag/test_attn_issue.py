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

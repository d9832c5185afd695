"""benchmarks/score_l2.py: scoring of measured NCU data, on synthetic measurements."""

from __future__ import annotations

import json

import pytest
from _scripts import load_script

import tilesight.cache.model as model_mod
from tilesight.cache.model import LRC_MERGE_SPREAD, SdcmCacheModel
from tilesight.hardware import load_profile

score_l2 = load_script("benchmarks/score_l2.py", on_path=False, name="tilesight_bench_score_l2")
ncu_cases = load_script("benchmarks/ncu_l2/ncu_cases.py", on_path=False, name="tilesight_bench_ncu_cases")
H200 = load_profile("h200")


def _measured(offset_pp: float) -> list[dict]:
    """Small real cases with 'measurements' equal to the model's prediction plus ``offset_pp``."""
    cases = [c for c in ncu_cases.build_cases() if c["M"] * c["N"] <= 2048 * 2048][:12]
    out = []
    for c in cases:
        t = SdcmCacheModel().traffic(score_l2.plan_for(c), H200)
        out.append(
            dict(c, l2_hit_pct=100 * t.l2_hit_rate + offset_pp, dram_read_bytes=1.1 * t.dram_read_bytes,
                 dram_write_bytes=1.1 * t.dram_write_bytes, shared_bytes=-1, n_regs=-1)
        )  # fmt: skip
    return out


def test_scores_on_synthetic_measurements():
    cases = _measured(1.5)
    s = score_l2.score(cases, H200, SdcmCacheModel())
    # predictions are 1.5 pp below the "measurement"; DRAM predictions 1/1.1 of it: |1/1.1 - 1| = 0.0909
    assert s["mae_pp_calibration"] == pytest.approx(1.5) and s["mae_pp_held_out"] == pytest.approx(1.5)
    assert s["dram_rel_err_all"] == pytest.approx(1 - 1 / 1.1)
    assert s["cases"] == len(cases)


def test_swizzle_check_counts_direction():
    base = dict(kernel="grouped", M=1, N=1, K=1, block_m=1, block_n=1, block_k=1, num_stages=1, num_warps=1)
    cases = [dict(base, case_id=f"g{g}", group_m=g, programs=None) for g in (1, 4, 8)]
    rows = [
        {"case_id": "g1", "meas_hit_pct": 60.0, "pred_hit_pct": 70.0},
        {"case_id": "g4", "meas_hit_pct": 80.0, "pred_hit_pct": 75.0},  # +20 measured, +5 predicted: agrees
        {
            "case_id": "g8",
            "meas_hit_pct": 82.0,
            "pred_hit_pct": 60.0,
        },  # vs g1: +22 / -10 disagrees; vs g4: < 5 pp
    ]
    agree, total, failures = score_l2.swizzle_check(cases, rows)
    assert (agree, total) == (1, 2) and "GROUP_M=8" in failures[0]


def test_main_reads_data_file(tmp_path, capsys):
    data = tmp_path / "ncu.json"
    data.write_text(json.dumps({"meta": {"gpu": "fake", "date": "today"}, "cases": _measured(0.0)}))
    assert score_l2.main(["--data", str(data), "--narrow", "--json", str(tmp_path / "s.json")]) == 0
    out = capsys.readouterr().out
    assert "target held-out MAE <= 2.0 pp: PASS" in out
    assert json.loads((tmp_path / "s.json").read_text())["sdcm"]["mae_pp_held_out"] == pytest.approx(0.0)


def test_missing_data_is_reported(tmp_path):
    assert score_l2.main(["--data", str(tmp_path / "none.json")]) == 2


def test_runs_are_averaged_per_case(tmp_path):
    # two runs of the same cases, 2 pp apart: the reference is their mean, 1 pp from each
    runs = []
    for k, offset in enumerate((0.0, 2.0)):
        runs.append(tmp_path / f"run{k}.json")
        doc = {"meta": {"gpu": "fake", "date": "today"}, "cases": _measured(offset)}
        runs[-1].write_text(json.dumps(doc))
    assert score_l2.main(["--data", *map(str, runs), "--narrow", "--json", str(tmp_path / "s.json")]) == 0
    assert json.loads((tmp_path / "s.json").read_text())["sdcm"]["mae_pp_held_out"] == pytest.approx(1.0)
    # runs of different cases are refused, not silently joined
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"meta": {}, "cases": _measured(0.0)[1:]}))
    assert score_l2.main(["--data", str(runs[0]), str(other), "--narrow"]) == 2


def test_sweep_uses_calibration_third_only():
    cases = _measured(0.0)
    cal = [c for c in cases if not ncu_cases.is_held_out(c["case_id"])]
    lo, hi = model_mod.EXECUTION_SKEW_COMPUTE, model_mod.EXECUTION_SKEW_MEMORY
    ramp, per_block = model_mod.EXECUTION_SKEW_RAMP_WAVES, model_mod.EXECUTION_SKEW_PER_BLOCK
    # at the committed knobs the model reproduces its own "measurements"
    ((sk_lo, sk_hi, sk_ramp, sk_block, mae),) = score_l2.sweep_skew([cases], H200, [lo], [hi], [ramp])
    assert (sk_lo, sk_hi, sk_ramp, sk_block) == (lo, hi, ramp, per_block)
    assert mae == pytest.approx(0.0) and cal
    ((ch, mae),) = score_l2.sweep_spread(cases, H200, [LRC_MERGE_SPREAD])
    assert ch == LRC_MERGE_SPREAD and mae == pytest.approx(0.0)
    # other skews move the MAE only through the model, and the committed knobs come back afterwards
    ((_, _, _, _, mae_other),) = score_l2.sweep_skew([cases], H200, [0.0], [1.0], [0], [0.0])
    assert mae_other >= 0.0
    m = model_mod
    assert (m.EXECUTION_SKEW_COMPUTE, m.EXECUTION_SKEW_MEMORY, m.EXECUTION_SKEW_RAMP_WAVES) == (lo, hi, ramp)
    assert m.EXECUTION_SKEW_PER_BLOCK == per_block
    # a pair with the compute-paced skew above the memory-paced one is not a candidate
    assert score_l2.sweep_skew([cases], H200, [0.5], [0.2], [ramp]) == []


def test_plan_for_estimates_registers_where_none_were_measured():
    # a 256x128 tile on 8 warps: its fp32 accumulator is 256 x 128 / 256 threads = 128 registers a thread,
    # plus the frontend's overhead of 40: 168 (ptxas gave 202 on the GPU), so one block per SM, where
    # gemm_plan alone would ignore registers; a measured count is taken as it is
    case = next(c for c in ncu_cases.cases_of("blind36") if (c["block_m"], c["block_n"]) == (256, 128))
    assert score_l2.plan_for(case, H200).resources.regs_per_thread == 168
    assert score_l2.plan_for(dict(case, n_regs=202), H200).resources.regs_per_thread == 202
    # a 16x16 tile's accumulator is one register a thread: 41 with the overhead
    small = dict(case, block_m=16, block_n=16, num_warps=8)
    assert score_l2.plan_for(small, H200).resources.regs_per_thread == 41

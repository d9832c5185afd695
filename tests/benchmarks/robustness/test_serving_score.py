"""benchmarks/robustness/serving/score.py: the serving sweep's predictions against GPU timings, by hand."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def score(load_script):
    return load_script("benchmarks/robustness/serving/score.py", on_path=False, name="serving_score")


def test_a_case_name_says_its_family(score):
    assert score.family("v_unified_decode2d_b64_kv4k") == "attention"
    assert score.family("v_paged_decode_2d_b64_kv4k") == "attention"
    assert score.family("v_unified_reduce_segments_b8") == "memory"  # the unified kernel's reduction
    assert score.family("v_decode_stage2_b32") == "memory"
    assert score.family("v_fused_moe_w13_m256") == "gemm"
    assert score.family("v_w8a8_block_fp8_mm_1024x4096x14336") == "gemm"
    assert score.family("v_per_token_group_quant_fp8_4096x7168") == "memory"


def test_errors_are_against_the_measured_time_and_the_rest_is_set_apart(score):
    predicted = {
        "records": [
            {"case": "v_fused_moe_w13_m16", "outcome": "predicted", "latency_us": 90.0, "bound_us": 50.0},
            {"case": "v_paged_decode_a", "outcome": "predicted", "latency_us": 120.0, "bound_us": 100.0},
            {"case": "v_lora_3slice", "outcome": "refused", "error": "pointer from a uint64 array"},
            {"case": "v_quant", "outcome": "predicted", "latency_us": 10.0, "bound_us": 5.0},
        ]
    }
    measured = [
        {"case": "v_fused_moe_w13_m16", "status": "ok", "p50_us": 100.0},
        {"case": "v_paged_decode_a", "status": "ok", "p50_us": 100.0},
        {"case": "v_lora_3slice", "status": "ok", "p50_us": 7.0},
        {"case": "v_quant", "status": "error", "error": "CompilationError: ..."},
        {"case": "v_new", "status": "ok", "p50_us": 1.0},
    ]
    rows, apart = score.score(predicted, measured)
    assert [(r["case"], r["family"]) for r in rows] == [
        ("v_fused_moe_w13_m16", "gemm"),
        ("v_paged_decode_a", "attention"),
    ]
    # 90 against 100: 10% off; its floor 50: 50% off. 120 against 100: 20%; floor 0%
    assert score._mape(rows, "predicted_us") == pytest.approx(15.0)
    assert score._mape(rows, "floor_us") == pytest.approx(25.0)
    assert len(apart) == 3
    assert any("v_lora_3slice: refused" in a for a in apart)
    assert any("v_quant: not timed" in a for a in apart)
    assert any("v_new: not in the predictions" in a for a in apart)

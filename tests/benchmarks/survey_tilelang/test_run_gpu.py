"""The TileLang survey harness's named sets (benchmarks/survey_tilelang/run_gpu.py): which cases belong to
which set, and that each set's committed predictions and timings cover exactly its cases."""

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("tilelang")

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "benchmarks" / "survey_tilelang"))

import run_gpu  # noqa: E402

DATA = ROOT / "benchmarks" / "data" / "survey_tilelang"
pytestmark = pytest.mark.tilelang


def test_sets_by_suffix():
    assert run_gpu.set_of("transpose_shared") == "survey"
    assert run_gpu.set_of("gemv_n8192_k28672_r") == "recheck"
    assert run_gpu.set_of("transpose_f16_4096_64x64_t256_b") == "banks"
    assert run_gpu.set_of("layernorm_f16_16384x2048_bm8_t256_g") == "regs"
    assert run_gpu.set_of("gemm_guard_both_3000_128x128x32_u") == "guards"
    assert run_gpu.set_of("split_reduce_4096x4096_s4_rb64_t128_n") == "serial"
    assert run_gpu.measured_file("survey") == "survey_tilelang_h200.jsonl"
    assert run_gpu.measured_file("banks") == "banks_h200.jsonl"
    assert run_gpu.predicted_file("survey") == "predicted_before_measuring.json"
    assert run_gpu.predicted_file("regs") == "regs_predicted_before_measuring.json"


@pytest.mark.parametrize("which, count", [("banks", 8), ("regs", 8), ("guards", 9), ("serial", 13)])
def test_each_new_set_is_recorded_and_timed_case_for_case(which, count):
    names = run_gpu.runnable(which)
    assert len(names) == count and all(run_gpu.set_of(n) == which for n in names)
    predicted = json.loads((DATA / run_gpu.predicted_file(which)).read_text())["cases"]
    lines = (DATA / run_gpu.measured_file(which)).read_text().splitlines()
    timed = [json.loads(x)["name"] for x in lines if x]
    assert set(predicted) == set(names) == set(timed)

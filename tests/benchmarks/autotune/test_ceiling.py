"""benchmarks/autotune/ceiling.py: the leave-one-problem-out per-config correction, worked out by hand."""

from __future__ import annotations

import math

import pytest


@pytest.fixture(scope="module")
def ceiling(load_script):
    return load_script("benchmarks/autotune/ceiling.py", on_path=False)


def _row(problem, config, predicted, measured):
    return {"problem": problem, "config": config, "predicted_us": predicted, "measured_us": measured}


def test_keys(ceiling):
    assert ceiling.family("attention/full/float16/b2h32n4096d64") == ("attention", "full", "64")
    assert ceiling.family("gemm/grouped/float16/sq4096") == ("gemm", "grouped", "")
    assert ceiling.config_key("m128n64w8s3", stages=False) == "m128n64w8"
    assert ceiling.config_key("m128n128k64w8s3g8", stages=False) == "m128n128k64w8g8"
    assert ceiling.config_key("m128n64w8s3", stages=True) == "m128n64w8s3"


def test_a_config_bias_seen_on_the_other_problem_corrects_the_pick(ceiling):
    # two problems of one family, configs A (predicted 100, measured 110) and B (predicted 105, measured
    # 100): predicted, both keep A, 100 / 110 of the best. Each problem's median log ratio is
    # (ln 1.1 + ln(100 / 105)) / 2; relative to it A sits at +0.0720 and B at -0.0720 on the other problem,
    # so A is scaled by e^0.0720 = 1.0747 (107.5) and B by 0.9305 (97.7): B is kept, the best
    rows = [
        _row(p, c, pred, meas)
        for p in ("attention/full/float16/b1h1n64d64", "attention/full/float16/b2h1n64d64")
        for c, pred, meas in (("m64n64w4s3", 100.0, 110.0), ("m64n32w4s3", 105.0, 100.0))
    ]
    problems = ceiling.by_problem(rows)
    ks = dict.fromkeys(problems, 1)
    assert ceiling.mean_ratio(problems, ks) == pytest.approx(100 / 110)
    factor = ceiling.leave_one_out(problems)
    shift = (math.log(1.1) - math.log(100 / 105)) / 2
    assert factor("attention/full/float16/b1h1n64d64", rows[0]) == pytest.approx(math.exp(shift))
    assert factor("attention/full/float16/b1h1n64d64", rows[1]) == pytest.approx(math.exp(-shift))
    assert ceiling.mean_ratio(problems, ks, factor) == pytest.approx(1.0)
    # a config no other problem of the family has is left as predicted
    lone = _row("attention/causal/float16/b1h1n64d64", "m64n64w4s3", 100.0, 100.0)
    assert ceiling.leave_one_out(ceiling.by_problem([lone]))(lone["problem"], lone) == 1.0


def test_the_committed_data_reads(ceiling):
    assert ceiling.main([]) == 0


def test_repeat_spread_by_hand(ceiling, tmp_path):
    import json

    def rec(case, p50):
        return json.dumps({"id": case, "kernel": "k", "measured_us": {"p50": p50}})

    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "triton_attention.jsonl").write_text(
        "\n".join([rec("attention/x", 100.0), rec("attention/y", 200.0), rec("attention/z", 50.0)])
    )
    (tmp_path / "triton_attention.jsonl").write_text(
        "\n".join([rec("attention/x", 110.0), rec("attention/y", 200.0)])
    )
    n, median, p90 = ceiling.repeat_spread(tmp_path)
    # two launches timed twice: |ln(100 / 110)| = 0.0953 and 0; median of the two 0.0477, p90 the larger
    assert n == 2
    assert median == pytest.approx(math.log(1.1) / 2)
    assert p90 == pytest.approx(math.log(1.1))

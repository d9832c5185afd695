"""benchmarks/autotune/causal_mask.py: the mask's cost from hand-made sweep rows, and the greedy schedule."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

PATH = Path(__file__).resolve().parents[3] / "benchmarks" / "autotune" / "causal_mask.py"


@pytest.fixture(scope="module")
def mask():
    spec = importlib.util.spec_from_file_location("causal_mask", PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _row(problem, config, measured, predicted):
    return {"problem": problem, "config": config, "measured_us": measured, "predicted_us": predicted}


def test_mask_cost_is_causal_minus_staged_causal(mask):
    causal, staged = "attention/causal/float16/b1h8n1024d128", "attention/staged-causal/float16/b1h8n1024d128"
    rows = {
        (causal, "m64n64w4s3"): _row(causal, "m64n64w4s3", 100.0, 120.0),
        (staged, "m64n64w4s3"): _row(staged, "m64n64w4s3", 90.0, 100.0),
        (causal, "m128n128w8s3"): _row(causal, "m128n128w8s3", 100.0, 100.0),  # no staged twin: left out
    }
    # measured 10 of 100 (0.1), predicted 20 of 120 (1/6), measured / predicted cost 0.5
    ((key, costs),) = mask.mask_costs(rows).items()
    assert key == ("m64n64w4s3", 128)
    assert costs == [pytest.approx((0.1, 1 / 6, 0.5))]


def test_greedy_makespan_by_hand(mask):
    # two programs of three query blocks (1, 2, 3 steps of 1 us) on two slots: blocks go 1, 2 | 3 on the
    # first free slot: slot A 0-1, slot B 0-2, A 1-4 (3 steps), B 2-3 (1), B 3-5 (2), A 4-7 (3): ends at 7
    assert mask.makespan(3, 2, 1.0, 0.0, 2) == pytest.approx(7.0)
    # a fixed 0.5 us a block adds to each: A 0-1.5, B 0-2.5, A 1.5-5, B 2.5-4, B 4-6.5, A 5-8.5
    assert mask.makespan(3, 2, 1.0, 0.5, 2) == pytest.approx(8.5)

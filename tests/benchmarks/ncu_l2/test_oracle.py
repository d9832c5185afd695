"""benchmarks/ncu_l2/oracle.py: the hit-rate formula and the term substitution, worked out by hand."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def oracle(load_script):
    return load_script("benchmarks/ncu_l2/oracle.py", on_path=False)  # it puts benchmarks/ on the path itself


def test_hit_rate_counts_writes_as_hits_and_merges_as_neither(oracle):
    # 100 B read, 50 B written; reads hit 0.9 before merging, 0.3 merged, 0.1 looked up again over the fabric:
    # hits 100 x (0.9 - 0.3) + 50 = 110 over lookups 100 x (1 - 0.3 + 0.1) + 50 = 130
    assert oracle.hit_rate_pct(100.0, 50.0, 0.9, 0.3, 0.1) == pytest.approx(100.0 * 110.0 / 130.0)
    # no merges, no fabric, no writes: the read hit share itself
    assert oracle.hit_rate_pct(100.0, 0.0, 0.75, 0.0, 0.0) == pytest.approx(75.0)
    assert oracle.hit_rate_pct(0.0, 0.0, 0.5, 0.0, 0.0) == 0.0


def test_measured_terms_per_requested_read_sector(oracle):
    case = {
        oracle.COALESCABLE: 1000.0,
        oracle.COALESCED: 250.0,
        oracle.FABRIC: 80.0,
        "dram_read_bytes": 200.0 * 32.0,  # 200 sectors from DRAM
    }
    assert oracle.measured_terms(case) == pytest.approx({"p2": 0.8, "merged": 0.25, "fabric": 0.08})


def test_substitution_replaces_one_term_and_shifts_the_hits_with_p2(oracle):
    model = {"reads": 100.0, "writes": 0.0, "p2": 0.9, "base": 0.95, "merged": 0.2, "fabric": 0.1}
    meas = {"p2": 0.7, "merged": 0.4, "fabric": 0.0}
    # the model itself: (0.95 - 0.2) / (1 - 0.2 + 0.1) = 0.75 / 0.9
    assert oracle.substituted(model, meas, "model") == pytest.approx(100.0 * 0.75 / 0.9)
    # measured p2 0.7: base falls by 0.2 to 0.75, (0.75 - 0.2) / 0.9
    assert oracle.substituted(model, meas, "p2") == pytest.approx(100.0 * 0.55 / 0.9)
    # measured merges 0.4: (0.95 - 0.4) / (1 - 0.4 + 0.1)
    assert oracle.substituted(model, meas, "merged") == pytest.approx(100.0 * 0.55 / 0.7)
    # measured fabric 0: 0.75 / 0.8
    assert oracle.substituted(model, meas, "fabric") == pytest.approx(100.0 * 0.75 / 0.8)
    # all three: (0.75 - 0.4) / (1 - 0.4 + 0)
    assert oracle.substituted(model, meas, "all three") == pytest.approx(100.0 * 0.35 / 0.6)

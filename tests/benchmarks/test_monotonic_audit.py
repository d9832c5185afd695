"""benchmarks/monotonic_audit.py: the twins it draws and the violations it counts (a stand-in predictor)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesight.errors import LaunchError


@pytest.fixture(scope="module")
def audit(load_script):
    return load_script("benchmarks/monotonic_audit.py", name="tilesight_bench_monotonic_audit")


def test_a_twin_counts_only_when_faster_than_the_tolerance(audit):
    # 100 us against a twin at 98.5 us: 1.5% faster, inside the 2% tolerance; 97.9 us is past it; equal or
    # slower never counts
    assert not audit.violation(100.0, 98.5)
    assert audit.violation(100.0, 97.9)
    assert not audit.violation(100.0, 100.0)
    assert not audit.violation(100.0, 250.0)
    assert audit.violation(100.0, 99.5, tol=0.0)
    with pytest.raises(ValueError, match="tol"):
        audit.violation(100.0, 90.0, tol=1.0)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(["gemm", "softmax", "attention"]))
def test_a_twin_only_adds_work_that_compiles_the_same(audit, seed, kind):
    # the twin has more rows (GEMM, softmax) or heads (attention) and every other size unchanged: the strides
    # and the constexprs the kernel is compiled with stay the same
    d = audit.draw(kind, random.Random(seed))
    assert d.kind == kind
    assert d.bigger[0] > d.base[0] >= 1
    assert d.bigger[1:] == d.base[1:]
    if kind == "gemm":
        m, n, k = d.base
        assert n % 16 == 0 and k % 16 == 0  # strides keep Triton's divisibility by 16
        assert d.bigger[0] - m in (1, d.config[0] // 2, d.config[0])


def test_the_audit_counts_pairs_and_skips_refused_launches(audit):
    # a stand-in predictor: the GEMM's time is its rows (in us) except that 65 rows take 50 us (faster than
    # 64 rows' 64: a violation), and a launch of 7 rows is refused as over the shared-memory limit
    def predict(kind, cfg, sizes):
        rows = sizes[0]
        if rows == 7:
            raise LaunchError("resources.smem_bytes", 300_000, 232_448, "h200")
        return 50.0 if rows == 65 else float(rows)

    cfg = (64, 64, 32, 4, 3, 1)
    draws = [
        audit.Draw("gemm", cfg, (64, 64, 64), (65, 64, 64)),
        audit.Draw("gemm", cfg, (100, 64, 64), (164, 64, 64)),
        audit.Draw("gemm", cfg, (6, 64, 64), (7, 64, 64)),
    ]
    done, bad = audit.audit(draws, predict)
    assert done == 2
    assert [(d.base[0], base, bigger) for d, base, bigger in bad] == [(64, 64.0, 50.0)]


def test_unknown_kinds_and_bad_arguments_are_named(audit):
    with pytest.raises(ValueError, match="unknown kind 'conv'"):
        audit.draw("conv", random.Random(0))
    with pytest.raises(SystemExit):
        audit.main(["--count", "0"])


def test_measured_twins_count_a_later_size_faster_than_the_first(audit):
    def row(m, n, cfg, us):
        return {"id": f"gemm/grouped/float16/v91_{m}x{n}/{cfg}", "problem": {"M": m, "N": n, "K": 64},
                "measured_us": {"p50": us}}  # fmt: skip

    rows = [row(65, 512, "c1", 11.0), row(64, 512, "c1", 10.0), row(128, 512, "c1", 10.1),
            row(64, 1024, "c2", 20.0), row(65, 1024, "c2", 21.0), row(128, 1024, "c2", 19.0)]  # fmt: skip
    ids = {r["id"]: r for r in rows}
    # 'fast' has every twin at 0.9 of its measured time (both draws then have one faster), 'same' none
    fast = {i: 0.9 * r["measured_us"]["p50"] if r["problem"]["M"] > 64 else r["measured_us"]["p50"]
            for i, r in ids.items()}  # fmt: skip
    same = {i: 10.0 for i in ids}
    lines, faster = audit.measured_twins(rows, {"fast": fast, "same": same})
    # measured: c2's M = 128 is 5% faster than M = 64 (beyond the 2% tolerance), c1's nothing
    assert faster == {"measured": 1, "fast": 2, "same": 0}
    assert len(lines) == 2 and lines[0].startswith(
        "N=512 K=64 c1 M=64/65/128: measured    10.0    11.0    10.1"
    )
    with pytest.raises(ValueError, match="no prediction"):
        audit.measured_twins(rows, {"short": {}})

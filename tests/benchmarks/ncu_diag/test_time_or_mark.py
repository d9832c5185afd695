"""benchmarks/ncu_diag/kmajor.py::time_or_mark, the case driver every ncu_diag probe shares, with the GPU
calls stubbed: the timing row it prints and the ncu pass's marker and launches."""

from __future__ import annotations

import json

import pytest


@pytest.fixture(scope="module")
def kmajor(load_script):
    return load_script("benchmarks/ncu_diag/kmajor.py")


@pytest.fixture
def no_gpu(monkeypatch):
    import torch
    import triton.testing

    syncs = []
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: syncs.append(1))
    # do_bench's quantiles in ms: p50 0.25, p20 0.2, p80 0.3
    monkeypatch.setattr(triton.testing, "do_bench", lambda run, **kw: (run(), [0.25, 0.2, 0.3])[1])
    return syncs


def test_timing_warms_once_then_prints_the_row_with_the_case_fields_first(kmajor, no_gpu, capsys):
    launches = []
    kmajor.time_or_mark("m128n128k64w8s3g8", lambda: launches.append(1), True, size=4096)
    row = json.loads(capsys.readouterr().out)
    assert list(row) == ["case", "size", "p50_us", "p20_us", "p80_us"]
    assert row["case"] == "m128n128k64w8s3g8" and row["size"] == 4096
    assert (row["p50_us"], row["p20_us"], row["p80_us"]) == pytest.approx((250.0, 200.0, 300.0))
    assert len(launches) == 2 and len(no_gpu) == 1  # the warm launch, synchronised, and do_bench's


def test_the_ncu_pass_marks_the_case_and_launches_it_twice(kmajor, no_gpu, capsys):
    launches = []
    kmajor.time_or_mark("tma-full/d64/m128n32w8s3", lambda: launches.append(1), False)
    assert capsys.readouterr().out == "NCU_DIAG_CASE tma-full/d64/m128n32w8s3\n"
    assert len(launches) == 2 and len(no_gpu) == 1

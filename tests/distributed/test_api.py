"""tilesight.estimate_collective: the Report it returns, and its argument checks."""

from __future__ import annotations

import pytest

import tilesight
from tilesight.distributed.api import resolve_network
from tilesight.errors import PlanError, UnknownProfileError
from tilesight.plan import Pipeline

US = 1e-6


def test_report_fields(toy):
    # ring all-reduce of 4e6 B on 4 toy GPUs: 6 steps x 12 us = 72 us, + 7 us Simple base = 79 us.
    # algbw = 4e6 / 79e-6 B/s; busbw = algbw x 2 x 3 / 4
    r = tilesight.estimate_collective(
        "all_reduce", 4_000_000, gpus=4, hw=toy, dtype="float32", algorithm="ring"
    )
    assert r.latency_s == pytest.approx(79 * US)
    assert r.launch_overhead_s == pytest.approx(7 * US)
    assert r.bottleneck is Pipeline.NET
    assert r.busy_s[Pipeline.NET] == pytest.approx(r.latency_s)
    assert [p.phase for p in r.phases] == ["prologue", "steady"]
    assert r.phases[1].time_s == pytest.approx(72 * US)
    assert r.extras["stage_count"] == 6 and len(r.extras["stages"]) == 2
    assert r.extras["algbw_bytes_per_s"] == pytest.approx(4e6 / 79e-6)
    assert r.extras["busbw_bytes_per_s"] == pytest.approx(4e6 / 79e-6 * 1.5)
    assert "algorithm ring" in r.notes[0] and "6 stages" in r.notes[0]
    r.to_dict()


def test_all_gather_algbw_counts_output(toy):
    # all-gather 1e6 B per rank on 8 GPUs: 7 x 12 us + 7 us = 91 us; algbw = 8e6 B / 91 us; busbw x 7/8
    r = tilesight.estimate_collective("all_gather", 1_000_000, gpus=8, hw=toy, dtype="uint8")
    assert r.latency_s == pytest.approx(91 * US)
    assert r.extras["busbw_bytes_per_s"] == pytest.approx(8e6 / 91e-6 * 7 / 8)


def test_gpu_name_means_its_standard_node():
    assert resolve_network("h200").name == "h200_hgx8"
    assert resolve_network("b200").name == "b200_hgx8"  # a standard node file, even without a GPU profile
    r = tilesight.estimate_collective("all_gather", 1 << 20, gpus=2, hw="h200")
    assert r.hw == "h200_hgx8" and r.extras["gpus"] == 2


def test_bad_arguments(toy):
    with pytest.raises(PlanError, match="gpus"):
        tilesight.estimate_collective("all_reduce", 1024, gpus=9, hw=toy)
    with pytest.raises(PlanError, match="multiple of 16"):
        tilesight.estimate_collective("reduce_scatter", 1000, gpus=8, hw=toy, dtype="float16")
    with pytest.raises(PlanError, match="bytes_per_rank"):
        tilesight.estimate_collective("all_reduce", -4, hw=toy)
    with pytest.raises(UnknownProfileError):
        tilesight.estimate_collective("all_reduce", 1024, hw="tpu9")

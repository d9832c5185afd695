"""Fused compute-communication: the chunk pipeline by hand, and the tile-fused plans with remote tiles."""

from __future__ import annotations

import pytest

from tilesight.distributed.fused import (
    ag_gemm_tile_plan,
    estimate_fused,
    gemm_rs_tile_plan,
    pipeline_overlap,
)
from tilesight.errors import PlanError
from tilesight.plan import ActionKind, MemLevel

US = 1e-6


def test_pipeline_comm_first():
    # 4 chunks, comm 10 us each (ends 10, 20, 30, 40), GEMM 15 us alone, 20 us while comm is in flight.
    # GEMM 0: starts 10 (comm in flight until 40) -> ends 30; GEMM 1: starts 30 -> 50; GEMM 2: starts 50
    # (comm done) -> 65; GEMM 3: 65 -> 80. Prologue 10, epilogue 15, steady 55.
    total, phases = pipeline_overlap(10 * US, 15 * US, 20 * US, 4, comm_first=True)
    assert total == pytest.approx(80 * US)
    assert [p[1] / US for p in phases] == pytest.approx([10, 55, 15])
    assert [p[0] for p in phases] == ["prologue", "steady", "epilogue"]
    assert phases[1][2] == "tc"


def test_pipeline_gemm_first():
    # 3 chunks, GEMM 10 us alone / 12 us contended, reduce-scatter 20 us per chunk.
    # GEMM 0: 0-10; RS 0: 10-30. GEMM 1 starts 10 with RS 0 in flight: 12 -> 22; RS 1: 30-50.
    # GEMM 2 starts 22, RS 1 not finished (ends 50) -> 12 -> 34; RS 2: 50-70. Total 70; steady net-bound.
    total, phases = pipeline_overlap(20 * US, 10 * US, 12 * US, 3, comm_first=False)
    assert total == pytest.approx(70 * US)
    assert [p[1] / US for p in phases] == pytest.approx([10, 40, 20])
    assert phases[1][2] == "net"


def _linear_gemm(m, n, k, dtype):
    # a stand-in GEMM: 1 us per 1e9 FLOP
    return 2.0 * m * n * k / 1e9 * US


def test_estimate_fused_ag_gemm(toy):
    # toy network (conftest): 2 GPUs; all-gather of A: M/2 x K x 2 B = 4096 x 4096 x 2 = 33554432 B per rank,
    # Simple: 1 ring step: 2 us + 33554432 / 100e9 = 2 + 335.54432 us, + 7 us base = 344.54432 us.
    # GEMM 8192 x 1024 x 4096: 68.72 GFLOP -> 68.719... us with the stand-in.
    e = estimate_fused("ag_gemm", 8192, 1024, 4096, gpus=2, hw=toy, chunks=4, gemm_time=_linear_gemm)
    assert e.comm_s == pytest.approx(344.54432 * US)
    assert e.gemm_s == pytest.approx(2 * 8192 * 1024 * 4096 / 1e9 * US)
    assert e.sequential_s == pytest.approx(e.comm_s + e.gemm_s)
    # comm dominates: overlapped is at least the whole comm (chunked) and less than the sequential time
    assert 4 * e.chunk_comm_s <= e.overlapped_s < e.sequential_s + 4 * 7 * US
    # the toy runtime holds 16 of the H200's 132 SMs: contended GEMM chunks take 132 / 116 as long
    assert e.contended_chunk_gemm_s == pytest.approx(e.chunk_gemm_s * 132 / 116)


def test_bad_fused_shape(toy):
    with pytest.raises(PlanError, match="fused.M"):
        estimate_fused("ag_gemm", 8190, 1024, 4096, gpus=2, hw=toy, gemm_time=_linear_gemm)
    with pytest.raises(PlanError, match="fused.kind"):
        estimate_fused("gemm_ar", 8192, 1024, 4096, gpus=2, hw=toy, gemm_time=_linear_gemm)


def test_tile_plans_carry_remote_actions(toy):
    plan, net = ag_gemm_tile_plan(4096, 1024, 4096, gpus=2, hw=toy)
    assert plan.body[0].kind is ActionKind.REMOTE and plan.body[1].deps == ("fetch_a",)
    assert plan.tensor("a_peer").level is MemLevel.REMOTE
    # 32 x 4 = 128 tiles of 128 x 256, 128 blocks on a 132-SM H200: the all-gather (2048 x 4096 x 2 B per
    # rank: 2 + 167.77216 us + 7 us base = 176.77216 us) is charged 176.77 us x 128 / 128 per tile occurrence
    assert plan.grid.tiles == 128
    assert net["fetch_a"] == pytest.approx(176.77216 * US)
    plan, net = gemm_rs_tile_plan(4096, 1024, 4096, gpus=2, hw=toy)
    assert plan.body[-1].name == "push_c" and plan.body[-1].deps == ("k_loop",)
    assert set(net) == {"push_c"}

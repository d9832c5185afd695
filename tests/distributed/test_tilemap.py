"""DistributedTileMap: remote accesses inferred from producer-consumer placement, and the local plan."""

from __future__ import annotations

import pytest

from tilesight.distributed.collectives import CollectiveOp
from tilesight.distributed.tilemap import (
    PARTIAL,
    REPLICA,
    SHARD0,
    DistributedTileMap,
    TensorPlacement,
    transition,
)
from tilesight.errors import PlanError
from tilesight.library import gemm_plan

SHARD1 = TensorPlacement("shard", 1)


def _gemm():
    # C (8192, 4096) = A (8192, 8192) @ B (8192, 4096), bf16: A is 128 MiB, C 64 MiB
    return gemm_plan(8192, 4096, 8192, 128, 256, 64, dtype="bfloat16")


def test_transitions():
    assert transition(SHARD0, REPLICA) is CollectiveOp.ALL_GATHER
    assert transition(SHARD0, SHARD1) is CollectiveOp.ALL_TO_ALL
    assert transition(PARTIAL, SHARD0) is CollectiveOp.REDUCE_SCATTER
    assert transition(PARTIAL, REPLICA) is CollectiveOp.ALL_REDUCE
    assert transition(REPLICA, SHARD0) is None
    assert transition(SHARD0, SHARD0) is None
    with pytest.raises(PlanError, match="partial"):
        transition(SHARD0, PARTIAL)


def test_all_gather_gemm_inferred():
    # Column-parallel GEMM on 2 GPUs: the grid is split along n; A's tiles are reused across n, so every GPU
    # needs all of A, which its producer left sharded by rows -> all-gather of 128 MiB / 2 = 64 MiB per rank.
    m = DistributedTileMap(_gemm(), 2, "n", {"b": 1, "c": 1}, held={"a": SHARD0})
    (ra,) = m.remote_accesses()
    assert (ra.tensor, ra.op, ra.bytes_per_rank, ra.before_kernel) == (
        "a",
        CollectiveOp.ALL_GATHER,
        2**26,
        True,
    )
    local = m.local_plan()
    # 64 x 16 tiles become 64 x 8; B and C halve along N
    assert local.grid.shape == (64, 8)
    assert local.tensor("b").shape == (8192, 2048) and local.tensor("a").shape == (8192, 8192)


def test_gemm_reduce_scatter_inferred(toy):
    # Split along K: every GPU produces partial sums of all of C (64 MiB); the consumer wants C's rows sharded
    # -> reduce-scatter with 64 MiB per rank. The K loop (128 trips) halves to 64 on each GPU.
    m = DistributedTileMap(_gemm(), 2, None, {"a": 1, "b": 0}, wanted={"c": SHARD0})
    (ra,) = m.remote_accesses()
    assert (ra.tensor, ra.op, ra.bytes_per_rank, ra.before_kernel) == (
        "c",
        CollectiveOp.REDUCE_SCATTER,
        2**26,
        False,
    )
    local = m.local_plan()
    assert local.body[0].trips == 64
    assert local.tensor("a").shape == (8192, 4096) and local.tensor("b").shape == (4096, 4096)
    # priced on the toy network: ring reduce-scatter on 2 GPUs, one step of 2**25 B:
    # 2 us + 33554432 / 100e9 s = 337.54432 us, + 7 us base
    ((_, cost),) = m.comm(toy)
    assert cost.time_s == pytest.approx(344.54432e-6)


def test_row_parallel_needs_nothing():
    m = DistributedTileMap(_gemm(), 2, "m", {"a": 0, "c": 0}, held={"a": SHARD0, "b": REPLICA})
    assert m.remote_accesses() == ()


def test_errors():
    with pytest.raises(PlanError, match="grid_dim"):
        DistributedTileMap(_gemm(), 2, "k", {})
    with pytest.raises(PlanError, match="split_dims\\[c\\]"):
        DistributedTileMap(_gemm(), 2, "n", {"b": 1}).remote_accesses()
    with pytest.raises(PlanError, match="not tensors"):
        DistributedTileMap(_gemm(), 2, "n", {"zz": 0})
    with pytest.raises(PlanError, match="placement.dim"):
        TensorPlacement("shard")

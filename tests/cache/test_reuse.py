"""tilesight.cache.reuse: reuse keys from reuse dimensions (Eq. 6)."""

from __future__ import annotations

import numpy as np
import pytest

from tilesight.cache.reuse import reuse_keys
from tilesight.errors import PlanError
from tilesight.library.gemm import gemm_plan
from tilesight.plan import TensorAccess, TileGrid


def test_gemm_keys():
    plan = gemm_plan(256, 384, 64, 128, 128, 64)  # 2 x 3 tiles, row-major
    coords = plan.grid.coordinates()
    ka, na = reuse_keys(plan.grid, plan.tensor("a"), coords)
    kb, nb = reuse_keys(plan.grid, plan.tensor("b"), coords)
    kc, nc = reuse_keys(plan.grid, plan.tensor("c"), coords)
    # A reused along n: key = m; B along m: key = n; C not reused: key = m * 3 + n
    np.testing.assert_array_equal(ka, [0, 0, 0, 1, 1, 1])
    np.testing.assert_array_equal(kb, [0, 1, 2, 0, 1, 2])
    np.testing.assert_array_equal(kc, [0, 1, 2, 3, 4, 5])
    assert (na, nb, nc) == (2, 3, 6)


def test_attention_kv_reused_across_query_blocks_and_heads():
    grid = TileGrid(shape=(4, 2, 3), dims=("q", "head", "batch"))
    kv = TensorAccess("k", "fp16", (3, 2, 1024, 64), (1, 1, 64, 64), reuse_dims=frozenset({"q", "head"}))
    keys, n = reuse_keys(grid, kv, grid.coordinates())
    # the key is the batch coordinate only
    np.testing.assert_array_equal(keys, grid.coordinates()[:, 2])
    assert n == 3


def test_fully_reused_tensor_has_one_key():
    grid = TileGrid(shape=(2, 2), dims=("m", "n"))
    bias = TensorAccess("bias", "fp32", (16,), (16,), reuse_dims=frozenset({"m", "n"}))
    keys, n = reuse_keys(grid, bias, grid.coordinates())
    assert n == 1 and not keys.any()


def test_unknown_reuse_dim_names_tensor():
    grid = TileGrid(shape=(2, 2), dims=("m", "n"))
    t = TensorAccess("w", "fp16", (16,), (16,), reuse_dims=frozenset({"k"}))
    with pytest.raises(PlanError, match=r"tensor\[w\]\.reuse_dims"):
        reuse_keys(grid, t, grid.coordinates())


def test_block_keys_chosen_by_data_replace_the_projection():
    # 4 x 2 tiles (m, n); the data gives row blocks 0, 1 one expert and 2, 3 another: B's key is (expert, n),
    # where the projection would give every tile a key of its own
    grid = TileGrid(shape=(4, 2), dims=("m", "n"))
    expert = np.array([7, 7, 3, 3])
    table = (expert[:, None] * 10 + np.arange(2)[None, :]).ravel()  # any integers: only equality counts
    b = TensorAccess("b", "fp16", (8, 128, 256), (1, 64, 128), block_keys=table)
    keys, n = reuse_keys(grid, b, grid.coordinates())
    np.testing.assert_array_equal(keys, [2, 3, 2, 3, 0, 1, 0, 1])
    assert n == 4
    # looked up by coordinate, whatever the launch order
    col = TileGrid(shape=(4, 2), dims=("m", "n"), order="column_major")
    keys, _ = reuse_keys(col, b, col.coordinates())
    np.testing.assert_array_equal(keys, [2, 2, 0, 0, 3, 3, 1, 1])


def test_block_keys_must_cover_the_grid():
    grid = TileGrid(shape=(4, 2), dims=("m", "n"))
    b = TensorAccess("b", "fp16", (8, 128, 256), (1, 64, 128), block_keys=np.zeros(6, dtype=np.int64))
    with pytest.raises(PlanError, match="one key per tile of the grid"):
        reuse_keys(grid, b, grid.coordinates())

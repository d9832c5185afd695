"""Tensor-access reuse keys (paper Eq. 6): the tile coordinate projected on the non-reuse grid dimensions.

Two tiles whose coordinates agree on every grid dimension outside ``reuse_dims`` touch the same block of the
tensor: a GEMM's A block is shared along ``n`` (same ``m``), B along ``m`` (same ``n``), attention K/V along
query blocks and heads, a convolution's weights along batch and spatial tiles. One rule covers them all.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import PlanError
from ..plan import TensorAccess, TileGrid


def reuse_keys(grid: TileGrid, tensor: TensorAccess, coords: np.ndarray) -> tuple[np.ndarray, int]:
    """Key of the block each tile touches, and how many distinct keys the grid can produce.

    ``coords`` are tile coordinates (tiles, ndim) as :meth:`TileGrid.coordinates` returns them. The key is
    the row-major linearisation of the coordinates on the dimensions not in ``tensor.reuse_dims`` (Eq. 6);
    a tensor reused along every dimension has the single key 0. A tensor with ``block_keys`` (the block a
    tile touches chosen by data the kernel reads) takes each tile's key from them instead.
    """
    if tensor.block_keys is not None:
        return _data_keys(grid, tensor, coords)
    unknown = sorted(set(tensor.reuse_dims) - set(grid.dims))
    if unknown:
        raise PlanError(
            f"tensor[{tensor.name}].reuse_dims",
            unknown,
            f"are not grid dimensions; grid dims: {list(grid.dims)}",
        )
    coords = np.asarray(coords, dtype=np.int64)
    if coords.ndim != 2 or coords.shape[1] != len(grid.shape):
        raise PlanError("grid.coordinates", coords.shape, f"must be (tiles, {len(grid.shape)})")
    keep = [i for i, d in enumerate(grid.dims) if d not in tensor.reuse_dims]
    if not keep:
        return np.zeros(coords.shape[0], dtype=np.int64), 1
    extents = tuple(grid.shape[i] for i in keep)
    keys = np.ravel_multi_index(tuple(coords[:, i] for i in keep), extents)
    return keys.astype(np.int64, copy=False), math.prod(extents)


def _data_keys(grid: TileGrid, tensor: TensorAccess, coords: np.ndarray) -> tuple[np.ndarray, int]:
    """Keys of a tensor whose blocks the kernel picks through data it reads: ``tensor.block_keys`` (one per
    tile of the grid, row-major) looked up at each tile's coordinates."""
    table = tensor.block_keys
    assert table is not None
    tiles = math.prod(grid.shape)
    if table.size != tiles:
        raise PlanError(
            f"tensor[{tensor.name}].block_keys",
            table.size,
            f"must have one key per tile of the grid {grid.shape} ({tiles})",
        )
    coords = np.asarray(coords, dtype=np.int64)
    if coords.ndim != 2 or coords.shape[1] != len(grid.shape):
        raise PlanError("grid.coordinates", coords.shape, f"must be (tiles, {len(grid.shape)})")
    idx = np.ravel_multi_index(tuple(coords.T), grid.shape)
    return table[idx], int(table.max()) + 1 if table.size else 1

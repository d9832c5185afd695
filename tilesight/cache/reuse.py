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
    a tensor reused along every dimension has the single key 0.
    """
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

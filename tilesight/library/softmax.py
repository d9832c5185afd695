"""A hand-written tile plan for row softmax ``y = softmax(x, dim=-1)`` (Triton's fused-softmax tutorial).

Grid ``(ceil(rows / block_rows),)``: one tile owns ``block_rows`` whole rows (the row fits one block, as in
the tutorial). Body: load the rows into registers, row max, exp2 of the shifted values, row sum, normalise,
store. No loop, so the whole tile program is one DAG evaluated once per tile.
"""

from __future__ import annotations

import math

from ..dtypes import canonical_dtype
from ..plan import AccessMode, ActionKind, BlockResources, TensorAccess, TileAction, TileGrid, TilePlan
from ._args import positive_int

THREADS_PER_WARP = 32
# CUDA-core operations per element before exp2: subtract the row max and scale by log2(e).
SHIFT_OPS_PER_ELEMENT = 2


def softmax_plan(
    rows: int, cols: int, *, block_rows: int = 1, num_warps: int = 4, dtype: str = "float16"
) -> TilePlan:
    """The row-softmax tile plan (module docstring)."""
    for name, v in (("rows", rows), ("cols", cols), ("block_rows", block_rows), ("num_warps", num_warps)):
        positive_int(f"softmax.{name}", v)
    dtype = canonical_dtype(dtype)
    n = block_rows * cols
    masked = rows % block_rows != 0
    body = (
        TileAction("load_x", ActionKind.LOAD, tensor="x"),
        TileAction("rowmax", ActionKind.REDUCE, flops=n, deps=("load_x",)),
        TileAction("shift", ActionKind.ELEMENTWISE, flops=SHIFT_OPS_PER_ELEMENT * n, deps=("rowmax",)),
        TileAction("exp2", ActionKind.SFU, flops=n, deps=("shift",)),
        TileAction("rowsum", ActionKind.REDUCE, flops=n, deps=("exp2",)),
        TileAction("normalize", ActionKind.ELEMENTWISE, flops=n, deps=("rowsum",)),
        TileAction("store_y", ActionKind.STORE, tensor="y", deps=("normalize",)),
    )
    return TilePlan(
        name=f"softmax_{rows}x{cols}_r{block_rows}",
        grid=TileGrid(shape=(math.ceil(rows / block_rows),), dims=("r",)),
        tensors=(
            TensorAccess("x", dtype, (rows, cols), (block_rows, cols), masked=masked),
            TensorAccess("y", dtype, (rows, cols), (block_rows, cols), AccessMode.WRITE, masked=masked),
        ),
        body=body,
        resources=BlockResources(threads=num_warps * THREADS_PER_WARP),
        source="tilesight.library.softmax.softmax_plan",
    )

"""Small hand-written plans for the model tests (numbers chosen for the round-number GPU in conftest)."""

from __future__ import annotations

from tilesight.plan import ActionKind, BlockResources, Loop, TensorAccess, TileAction, TileGrid, TilePlan

# One x row: 25,000 float32 = 100,000 bytes -> DDR 1e5 / 1e11 = 1 us, L2 1e5 / 2e11 = 0.5 us at full share.
ROW_ELEMS = 25_000


def stream_plan(
    tiles: int, trips: int, stages: int, *, flops: float = 3e6, smem: int = 0, threads: int = 128
) -> TilePlan:
    """Each tile loops ``trips`` times over: load one distinct x row (DDR), then a CUDA-core op on it."""
    x = TensorAccess("x", "float32", (tiles * trips, ROW_ELEMS), (1, ROW_ELEMS))
    loop = Loop(
        "loop",
        trips,
        stages=stages,
        body=(
            TileAction("load", ActionKind.LOAD, tensor="x"),
            TileAction("compute", ActionKind.ELEMENTWISE, flops=flops, deps=("load",)),
        ),
    )
    return TilePlan("stream", TileGrid((tiles,)), (x,), (loop,), BlockResources(threads, smem_bytes=smem))


def row_loop_plan(tiles_in_flight: int, *, rows: int = 8, programs: int = 4) -> TilePlan:
    """A persistent row loop's tile (load one x row, then 3 us of CUDA-core work on it) over ``rows`` rows on
    ``programs`` programs, each keeping ``tiles_in_flight`` rows in flight."""
    x = TensorAccess("x", "float32", (rows, ROW_ELEMS), (1, ROW_ELEMS))
    body = (
        TileAction("load", ActionKind.LOAD, tensor="x"),
        TileAction("compute", ActionKind.ELEMENTWISE, flops=3e6, deps=("load",)),
    )
    grid = TileGrid((rows,), programs=programs, tiles_in_flight=tiles_in_flight)
    return TilePlan("rows", grid, (x,), body, BlockResources(128))


def two_chain_plan(tiles: int = 4) -> TilePlan:
    """Program order load_x, cx (needs x), cy (independent): issuing cy first is better."""
    x = TensorAccess("x", "float32", (tiles, ROW_ELEMS), (1, ROW_ELEMS))
    body = (
        TileAction("load_x", ActionKind.LOAD, tensor="x"),
        TileAction("cx", ActionKind.ELEMENTWISE, flops=1e6, deps=("load_x",)),
        TileAction("cy", ActionKind.ELEMENTWISE, flops=2e6),
    )
    return TilePlan("two_chains", TileGrid((tiles,)), (x,), body, BlockResources(128))

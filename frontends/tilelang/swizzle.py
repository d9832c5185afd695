"""TileLang's threadblock rasterisation (``T.use_swizzle``) as a launch-index -> block-coordinate map.

TileLang rewrites ``blockIdx.x / y`` through a device function chosen by ``T.use_swizzle(panel_size, order)``.
For ``rasterization2DRow`` the (x, y) plane is cut into panels of ``panel`` rows of y; inside a panel blocks
are walked column by column (x), serpentining: odd panels walk x backwards. ``rasterization2DColumn`` is the
same with the roles of x and y exchanged. The last panel may be shorter. z stays the slowest dimension.
This module reproduces that map from its description, vectorised over launch indices.
"""

from __future__ import annotations

import numpy as np

from tilesight.errors import UnsupportedOpError

ROW = "rasterization2DRow"
COLUMN = "rasterization2DColumn"


def _panel_walk(idx: np.ndarray, panel: int, fast: int, slow: int) -> tuple[np.ndarray, np.ndarray]:
    """(across, along): ``across`` in [0, fast) walks serpentine, ``along`` in [0, slow) steps in a panel."""
    per_panel = panel * fast
    offset = idx % per_panel
    panel_idx = idx // per_panel
    total = -(-(fast * slow) // per_panel)
    last_rows = (fast * slow - panel_idx * per_panel) // fast
    stride = np.where(panel_idx + 1 < total, panel, last_rows)
    across = np.where(panel_idx % 2 == 1, fast - 1 - offset // stride, offset // stride)
    along = offset % stride + panel_idx * panel
    return across, along


def rasterization_sequence(
    device_func: str, panel: int, grid: tuple[int, int, int], kernel: str
) -> np.ndarray:
    """Block coordinates (x, y, z) in launch order for a swizzled grid ``(gx, gy, gz)``: (gx*gy*gz, 3)."""
    gx, gy, gz = grid
    idx = np.arange(gx * gy * gz, dtype=np.int64)
    plane, z = idx % (gx * gy), idx // (gx * gy)
    if device_func == ROW:
        x, y = _panel_walk(plane, panel, gx, gy)
    elif device_func == COLUMN:
        y, x = _panel_walk(plane, panel, gy, gx)
    else:
        raise UnsupportedOpError(f"threadblock swizzle {device_func!r}", kernel)
    return np.stack([x, y, z], axis=1)

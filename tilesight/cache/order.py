"""The concrete tile execution order the cache model walks (paper section 3.5.3).

Tiles leave :meth:`TileGrid.coordinates` in launch order (row-major, GROUP_M swizzle, explicit rasterisation)
and are dispatched onto ``sm_count x resident_blocks`` slots. The tiles resident together form a *wave*; they
run concurrently and, in the model, in lockstep through their loops. A persistent kernel's ``programs`` blocks
each walk launch indices ``p, p + programs, ...``: the tiles the programs handle at the same step form a wave.

Position ``pos`` within a wave goes to the SM at ``pos mod sm_count`` of the profile's measured dispatch order
(``[sm_placement] dispatch_order``; SM ``pos mod sm_count`` where the profile gives none): the block scheduler
fills every SM before stacking a second block on one. A wave of at most ``len(dispatch_order_sparse)`` blocks
takes that order instead (the scheduler spreads a small grid one block per TPC first). On GPUs with an L1.5
tier, SM ``s`` belongs to group ``s // l15_sms_per_group``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..hardware import HardwareProfile
from ..model.occupancy import residency
from ..plan import TilePlan


def resident_blocks(plan: TilePlan, hw: HardwareProfile) -> int:
    """Blocks of ``plan`` resident on one SM at once, computed exactly as the engine does
    (:func:`tilesight.model.occupancy.residency`); a block that cannot launch raises LaunchError."""
    return residency(plan.resources, hw, plan.grid.blocks).resident_blocks


@dataclass(frozen=True)
class ExecutionOrder:
    """Per launch index: its tile coordinate, wave, position in the wave and SM; plus the concurrency."""

    coords: np.ndarray  # (tiles, ndim) in launch order
    wave: np.ndarray  # (tiles,) wave index, non-decreasing in time
    pos: np.ndarray  # (tiles,) position within the wave (the slot it occupies)
    sm: np.ndarray  # (tiles,) SM the tile runs on
    concurrency: int  # tiles resident at once
    waves: int


def execution_order(
    plan: TilePlan, hw: HardwareProfile, resident: int | None = None, keep: np.ndarray | None = None
) -> ExecutionOrder:
    """Waves and positions of every launch index of ``plan`` on ``hw`` (``resident`` overrides the per-SM
    residency computed by :func:`resident_blocks`). ``keep`` (a mask over the launch indices of an ordinary
    grid): only those tiles are dispatched, in their launch order (the others return before doing any work,
    and free their slot at once)."""
    grid = plan.grid
    coords = grid.coordinates()
    if keep is not None and not grid.persistent:
        coords = coords[keep]
    tiles = coords.shape[0]
    per_sm = resident if resident is not None else resident_blocks(plan, hw)
    slots = hw.sm_count * per_sm
    idx = np.arange(tiles, dtype=np.int64)
    if grid.persistent:
        assert grid.programs is not None
        programs = grid.programs
        program, step = idx % programs, idx // programs
        if programs <= slots:
            wave, pos = step, program
        else:
            # programs beyond the resident slots start when a whole batch of programs has finished its tiles
            steps = math.ceil(tiles / programs)
            wave, pos = (program // slots) * steps + step, program % slots
        concurrency = min(programs, slots)
    else:
        wave, pos = idx // slots, idx % slots
        concurrency = min(slots, tiles)
    # (``idx // slots`` never decreases: only a persistent kernel's waves can)
    if grid.persistent and tiles and not np.all(np.diff(wave) >= 0):
        # keep launch-index arrays but make the time order explicit: sort by (wave, pos)
        order = np.lexsort((pos, wave))
        coords, wave, pos = coords[order], wave[order], pos[order]
    sm = pos % hw.sm_count
    sparse = hw.sm_dispatch_order_sparse
    if sparse and concurrency <= len(sparse):
        sm = np.asarray(sparse, dtype=np.int64)[pos]
    elif hw.sm_dispatch_order:
        sm = np.asarray(hw.sm_dispatch_order, dtype=np.int64)[sm]
    waves = int(wave.max()) + 1 if tiles else 0
    return ExecutionOrder(coords, wave, pos, sm, concurrency, waves)

"""Tile coordinates from the program-id map: grid dimensions, launch sequence and reuse dims.

Inputs are the coordinate candidates the walker recorded (per-lane integer arrays) and a validity mask over
lanes. Candidates are taken in increasing order of distinct values; one becomes a grid dimension unless it
is a function of the dimensions already chosen. A dimension's tile coordinate is the rank of the
candidate's value among its distinct values. A tensor depends on dimension ``d`` when its address
candidates are not a function of the other dimensions; its reuse dims are the ones it does not depend on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np


def _distinct(cols: list[np.ndarray]) -> int:
    if not cols:
        return 1
    return int(np.unique(np.stack(cols, axis=1), axis=0).shape[0])


@dataclass(frozen=True)
class Coordinates:
    dims: tuple[str, ...]
    shape: tuple[int, ...]
    sequence: np.ndarray  # (launches, ndim), launch order
    columns: dict[str, np.ndarray]  # candidate -> values over valid lanes


def _dim_name(cand: str, taken: set[str]) -> str:
    stem = re.sub(r"_\d+$", "", cand.lstrip("%")) or "d"
    stem = re.sub(r"^\d+$", "d", stem)
    name, i = stem, 0
    while name in taken:
        i += 1
        name = f"{stem}{i}"
    return name


def tile_coordinates(cands: dict[str, np.ndarray], valid: np.ndarray) -> Coordinates:
    lanes = valid.shape[0]
    cols = {k: np.tile(v, lanes // v.shape[0])[valid] for k, v in cands.items() if v.shape[0] and lanes % v.shape[0] == 0}
    order = sorted(cols, key=lambda k: (len(np.unique(cols[k])), k))
    chosen: list[str] = []
    for k in order:
        if len(np.unique(cols[k])) < 2:
            continue
        base = [cols[c] for c in chosen]
        if _distinct([*base, cols[k]]) > _distinct(base):
            chosen.append(k)
    if not chosen:
        n = int(valid.sum())
        return Coordinates(("program",), (max(n, 1),), np.arange(n, dtype=np.int64)[:, None], cols)
    taken: set[str] = set()
    dims = []
    for c in chosen:
        dims.append(_dim_name(c, taken))
        taken.add(dims[-1])
    ranks, shape = [], []
    for c in chosen:
        uniq, inv = np.unique(cols[c], return_inverse=True)
        ranks.append(inv.astype(np.int64))
        shape.append(len(uniq))
    return Coordinates(tuple(dims), tuple(shape), np.stack(ranks, axis=1), {**cols, **dict(zip(dims, ranks, strict=True))})


def reuse_dims(coords: Coordinates, address: set[str]) -> frozenset[str]:
    """Grid dims (names) along which ``address`` (its candidate names) stays the same."""
    key = [coords.columns[a] for a in sorted(address) if a in coords.columns]
    out = set()
    for i, d in enumerate(coords.dims):
        others = [coords.sequence[:, j] for j in range(len(coords.dims)) if j != i]
        if _distinct([*others, *key]) <= _distinct(others):
            out.add(d)
    return frozenset(out)

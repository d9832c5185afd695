"""Tile coordinates from the program-id map: grid dimensions, launch sequence and reuse dims.

Inputs are the coordinate candidates the walker recorded (per-lane integer arrays) and a validity mask over
lanes. Candidates are taken in increasing order of distinct values; one becomes a grid dimension unless it
is a function of the dimensions already chosen. A dimension's tile coordinate is the rank of the
candidate's value among its distinct values. A tensor depends on dimension ``d`` when its address
candidates are not a function of the other dimensions; its reuse dims are the ones it does not depend on.
Where an address depends on data the kernel reads whose values the caller gave (a MoE block's expert id),
:func:`block_keys` gives every tile the key of the block it touches from those values instead.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np

# Above this many joint codes, distinct counting sorts instead of using a histogram.
_BINCOUNT_LIMIT = 1 << 24
# Joint codes stay exact in int64 below this; beyond it the partial code is re-ranked first.
_CODE_LIMIT = 1 << 62


# Value ranges up to this many times the column's length (plus a constant) are ranked through a histogram of
# the values rather than np.unique's sort (several times slower on the few hundred lanes of a typical grid).
_DENSE_RANK_SPAN = 4
_DENSE_RANK_MIN = 1 << 12


def _ranked(col: np.ndarray) -> tuple[np.ndarray, int]:
    """Each entry's rank among the column's distinct values (what ``np.unique(..., return_inverse=True)``
    gives), and their count."""
    if col.size and col.dtype.kind in "iu":
        lo, hi = int(col.min()), int(col.max())
        if hi - lo <= _DENSE_RANK_SPAN * col.size + _DENSE_RANK_MIN:
            shifted = col.astype(np.int64) - lo
            rank = np.cumsum(np.bincount(shifted) > 0) - 1
            return rank[shifted], int(rank[-1]) + 1
    uniq, inv = np.unique(col, return_inverse=True)
    return inv.astype(np.int64), len(uniq)


def _joint_code(cols: list[tuple[np.ndarray, int]]) -> tuple[np.ndarray, int]:
    """One mixed-radix code per row of ranked columns (equal rows, equal codes), and the radix: codes are
    below it."""
    code = np.zeros_like(cols[0][0])
    radix = 1
    for inv, n in cols:
        if radix * n > _CODE_LIMIT:  # rare: re-rank the partial code so the joint one stays exact
            code = np.unique(code, return_inverse=True)[1].astype(np.int64).reshape(-1)
            radix = int(code.max()) + 1 if code.size else 1
        code = code + inv * radix
        radix *= n
    return code, radix


def _distinct(cols: list[tuple[np.ndarray, int]]) -> int:
    """Distinct rows of ranked columns, through one mixed-radix code per row."""
    if not cols:
        return 1
    code, radix = _joint_code(cols)
    if radix <= _BINCOUNT_LIMIT:
        return int(np.count_nonzero(np.bincount(code, minlength=1)))
    ordered = np.sort(code)  # a sort: numpy 2's hash-based np.unique is ~50x slower on int64 codes
    return int(1 + np.count_nonzero(ordered[1:] != ordered[:-1])) if ordered.size else 0


@dataclass(frozen=True)
class Coordinates:
    dims: tuple[str, ...]
    shape: tuple[int, ...]
    sequence: np.ndarray  # (launches, ndim), launch order
    columns: dict[str, tuple[np.ndarray, int]]  # candidate or dim -> (ranks over valid lanes, distinct count)

    @functools.cached_property
    def without(self) -> dict[str, tuple[list[tuple[np.ndarray, int]], int]]:
        """Per dim: the columns of the other dims, and how many distinct rows they have (what
        :func:`reuse_dims` compares every tensor's address against)."""
        out = {}
        for d in self.dims:
            others = [self.columns[o] for o in self.dims if o != d]
            out[d] = (others, _distinct(others))
        return out


def _dim_name(cand: str, taken: set[str]) -> str:
    stem = re.sub(r"_\d+$", "", cand.lstrip("%")) or "d"
    stem = re.sub(r"^\d+$", "d", stem)
    name, i = stem, 0
    while name in taken:
        i += 1
        name = f"{stem}{i}"
    return name


def tile_coordinates(
    cands: dict[str, np.ndarray], valid: np.ndarray, data: frozenset[str] = frozenset()
) -> Coordinates:
    """``data``: candidates read from memory (a MoE block's expert id, a page index): functions of the
    program id the caller's contents give, never grid dimensions of their own (taking one as a dimension
    would multiply the grid by its distinct values), though addresses still depend on them."""
    lanes = valid.shape[0]
    cols = {
        k: _ranked(np.tile(v, lanes // v.shape[0])[valid])
        for k, v in cands.items()
        if v.shape[0] and lanes % v.shape[0] == 0
    }
    order = sorted(cols, key=lambda k: (cols[k][1], k))
    chosen: list[str] = []
    have = _distinct([])  # distinct rows of the chosen columns, kept as they grow (not recounted per k)
    for k in order:
        if cols[k][1] < 2 or k in data:
            continue
        joint = _distinct([*(cols[c] for c in chosen), cols[k]])
        if joint > have:
            chosen.append(k)
            have = joint
    if not chosen:
        n = int(valid.sum())
        return Coordinates(("program",), (max(n, 1),), np.arange(n, dtype=np.int64)[:, None], cols)
    taken: set[str] = set()
    dims = []
    for c in chosen:
        dims.append(_dim_name(c, taken))
        taken.add(dims[-1])
    ranks = [cols[c][0] for c in chosen]
    shape = [cols[c][1] for c in chosen]
    dim_cols = {d: cols[c] for d, c in zip(dims, chosen, strict=True)}
    return Coordinates(tuple(dims), tuple(shape), np.stack(ranks, axis=1), {**cols, **dim_cols})


def reuse_dims(coords: Coordinates, address: set[str]) -> frozenset[str]:
    """Grid dims (names) along which ``address`` (its candidate names) stays the same."""
    key = [coords.columns[a] for a in sorted(address) if a in coords.columns]
    out = set()
    for d, (others, count) in coords.without.items():
        if _distinct([*others, *key]) <= count:
            out.add(d)
    return frozenset(out)


def block_keys(coords: Coordinates, address: set[str], data: frozenset[str]) -> np.ndarray | None:
    """Per tile of the grid (row-major over ``coords.shape``), the key of the block an access touches, where
    its ``address`` candidates (those that reach it other than through loaded data) include a candidate read
    from memory (``data``) whose values the walker knows: tiles with equal address candidates touch the same
    block. A grid dimension that reaches the address only through such data (``pid_m`` of a MoE block, which
    selects the expert) does not separate tiles; the expert does. None where no such candidate is known."""
    known = sorted(a for a in address if a in coords.columns)
    if not any(a in data for a in known):
        return None
    code, _ = _joint_code([coords.columns[a] for a in known])
    code = np.unique(code, return_inverse=True)[1].astype(np.int64).reshape(-1)
    tiles = int(np.prod(coords.shape))
    # a tile no program runs keeps a key of its own (the cache model never walks it)
    table = np.arange(tiles, dtype=np.int64) + (int(code.max()) + 1 if code.size else 0)
    table[np.ravel_multi_index(tuple(coords.sequence.T), coords.shape)] = code
    return table

"""frontends/triton/coords.py: distinct rows of ranked candidate columns, and reuse dims."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from tilesight.frontends.triton.coords import _distinct, _ranked, reuse_dims, tile_coordinates


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(1, 400),
    extents=st.lists(st.integers(1, 5000), min_size=1, max_size=4),
    seed=st.integers(0, 2**31 - 1),
)
def test_distinct_counts_the_distinct_rows(rows, extents, seed):
    rng = np.random.default_rng(seed)
    cols = [rng.integers(0, n, rows) for n in extents]
    # the mixed-radix code is exact (through the histogram and the sort paths alike)
    assert _distinct([_ranked(c) for c in cols]) == len(set(zip(*(c.tolist() for c in cols), strict=True)))


@settings(max_examples=80, deadline=None)
@given(
    values=st.lists(st.integers(-(2**40), 2**40), min_size=1, max_size=60),
    spread=st.sampled_from([1, 7, 5000, 2**40]),
)
def test_ranked_is_the_rank_among_distinct_values(values, spread):
    # narrow ranges take the histogram, wide ones np.unique: both rank each value among the distinct ones
    col = np.array(values, dtype=np.int64) % spread - spread // 2
    ranks, count = _ranked(col)
    distinct = sorted(set(col.tolist()))
    assert count == len(distinct) and ranks.tolist() == [distinct.index(v) for v in col.tolist()]


def test_distinct_of_wide_codes_takes_the_sort_path():
    # 524288 lanes of three columns whose joint radix (2^19 x 32 x 8) passes the histogram's limit
    lane = np.arange(1 << 19, dtype=np.int64)
    cols = [_ranked(lane), _ranked(lane % 32), _ranked(lane % 8)]
    assert _distinct(cols) == 1 << 19
    assert _distinct([cols[1], cols[2]]) == 32


def test_reuse_dims_of_a_grouped_grid():
    # 4 x 3 programs: rows m = pid // 3, cols n = pid % 3; A depends on m only, so it is reused along n
    pid = np.arange(12, dtype=np.int64)
    coords = tile_coordinates({"m": pid // 3, "n": pid % 3}, np.ones(12, dtype=bool))
    # dims in increasing order of distinct values: n (3) then m (4)
    assert dict(zip(coords.dims, coords.shape, strict=True)) == {"n": 3, "m": 4}
    assert reuse_dims(coords, {"m"}) == frozenset({"n"})
    assert reuse_dims(coords, {"m", "n"}) == frozenset()

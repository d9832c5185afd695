"""TileLang's threadblock rasterisation reproduced as a launch-index -> block map (no TileLang needed)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tilesight.frontends.tilelang.swizzle import COLUMN, ROW, rasterization_sequence

from tilesight.errors import UnsupportedOpError


def test_row_rasterisation_serpentines_over_panels():
    # gx=3, gy=4, panel 2: panels of 2 y-rows (6 blocks). Panel 0 walks x = 0,0,1,1,2,2 with y = 0,1,0,1,...
    # Panel 1 (odd) walks x backwards: 2,2,1,1,0,0 with y = 2,3,2,3,2,3.
    seq = rasterization_sequence(ROW, 2, (3, 4, 1), "k")
    expected = [
        (0, 0),
        (0, 1),
        (1, 0),
        (1, 1),
        (2, 0),
        (2, 1),
        (2, 2),
        (2, 3),
        (1, 2),
        (1, 3),
        (0, 2),
        (0, 3),
    ]
    assert [tuple(r[:2]) for r in seq.tolist()] == expected
    assert (seq[:, 2] == 0).all()


def test_row_rasterisation_short_last_panel():
    # gx=2, gy=3, panel 2: panel 0 = 4 blocks (stride 2); panel 1 has one row left (stride (6-4)/2 = 1) and,
    # being odd, walks x backwards: (1, 2), (0, 2).
    seq = rasterization_sequence(ROW, 2, (2, 3, 1), "k")
    assert [tuple(r[:2]) for r in seq.tolist()] == [(0, 0), (0, 1), (1, 0), (1, 1), (1, 2), (0, 2)]


def test_column_rasterisation_swaps_roles():
    # gx=4, gy=2, panel 2: panels of 2 x-columns; inside, x steps fastest; odd panels walk y backwards.
    seq = rasterization_sequence(COLUMN, 2, (4, 2, 1), "k")
    assert [tuple(r[:2]) for r in seq.tolist()] == [
        (0, 0),
        (1, 0),
        (0, 1),
        (1, 1),
        (2, 1),
        (3, 1),
        (2, 0),
        (3, 0),
    ]


def test_z_is_slowest():
    seq = rasterization_sequence(ROW, 10, (2, 2, 3), "k")
    assert seq[:4, 2].tolist() == [0, 0, 0, 0] and seq[-1, 2] == 2


def test_unknown_rasterisation_names_it():
    with pytest.raises(UnsupportedOpError, match="rasterization2DMLX"):
        rasterization_sequence("rasterization2DMLX", 4, (2, 2, 1), "k")


@settings(max_examples=60, deadline=None)
@given(
    gx=st.integers(1, 12),
    gy=st.integers(1, 12),
    gz=st.integers(1, 3),
    panel=st.integers(1, 16),
    func=st.sampled_from([ROW, COLUMN]),
)
def test_rasterisation_visits_every_block_once(gx, gy, gz, panel, func):
    seq = rasterization_sequence(func, panel, (gx, gy, gz), "k")
    assert seq.shape == (gx * gy * gz, 3)
    assert seq.min() >= 0 and (seq.max(axis=0) < np.array([gx, gy, gz])).all()
    assert len({tuple(r) for r in seq.tolist()}) == gx * gy * gz

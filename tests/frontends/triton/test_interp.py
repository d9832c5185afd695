"""The scalar abstract interpreter: MLIR ``arith`` integer semantics, and the Python-int fast path for values
the same in every lane agreeing with the vectorised numpy path."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tilesight.frontends.triton import interp

INTS = st.integers(min_value=-(1 << 40), max_value=1 << 40)
FAST = sorted(interp._PY_INT)


@pytest.mark.parametrize(
    ("name", "a", "b", "want"),
    [
        # signed division truncates toward zero; the remainder takes the dividend's sign
        ("arith.divsi", 7, -2, -3),
        ("arith.divsi", -7, 2, -3),
        ("arith.remsi", -7, 2, -1),
        ("arith.remsi", 7, -2, 1),
        # ceiling division: 7 / 2 = 3.5 -> 4; -7 / 2 = -3.5 -> -3
        ("arith.ceildivsi", 7, 2, 4),
        ("arith.ceildivsi", -7, 2, -3),
        ("arith.divsi", 5, 0, 0),  # a lane dividing by zero is masked-out work: 0
    ],
)
def test_signed_division_semantics(name, a, b, want):
    assert interp.evaluate(name, "", [np.array([a]), np.array([b])]).tolist() == [want]
    two = interp.evaluate(name, "", [np.array([a, a]), np.array([b, b])])  # the numpy path
    assert two.tolist() == [want, want]


@given(st.sampled_from(FAST), INTS, INTS)
def test_uniform_fast_path_matches_numpy(name, a, b):
    fast = interp.evaluate(name, "", [np.array([a]), np.array([b])])
    lanes = interp.evaluate(name, "", [np.array([a, 0]), np.array([b, 1])])
    assert fast.tolist() == [int(lanes[0])]


def test_trip_counts():
    # 0 to 1000 step 64: ceil(1000 / 64) = 16; an empty range and a zero step take 0 trips
    lb, ub, step = np.array([0, 5, 0]), np.array([1000, 5, 10]), np.array([64, 1, 0])
    assert interp.trip_counts(lb, ub, step).tolist() == [16, 0, 0]


NAN = float("nan")


@pytest.mark.parametrize(
    ("pred", "want"),
    [
        # lanes (1 vs 2, 2 vs 2, NaN vs 2): ordered predicates are false where a side is NaN, unordered true
        ("oeq", [False, True, False]),
        ("one", [True, False, False]),
        ("olt", [True, False, False]),
        ("oge", [False, True, False]),
        ("ueq", [False, True, True]),
        ("une", [True, False, True]),
        ("ult", [True, False, True]),
        ("ule", [True, True, True]),
        ("ugt", [False, False, True]),
        ("uge", [False, True, True]),
        ("ord", [True, True, False]),
        ("uno", [False, False, True]),
        ("true", [True, True, True]),
        ("false", [False, False, False]),
    ],
)
def test_float_comparisons_follow_mlir_predicates(pred, want):
    # `if f != 0:` on a float argument is `arith.cmpf une` (was a KeyError deep in the walker)
    got = interp.evaluate("arith.cmpf", f"{pred}, %a, %b : f32", [np.array([1.0, 2.0, NAN]), np.array([2.0])])
    assert got.tolist() == want


def test_an_unknown_predicate_leaves_the_value_unknown():
    assert interp.evaluate("arith.cmpf", "bogus, %a, %b : f32", [np.array([1.0]), np.array([2.0])]) is None

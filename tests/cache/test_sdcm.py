"""tilesight.cache.sdcm: exact binomial (Eq. 7) and Gaussian / Zelen-Severo (Eq. 8-10) hit probabilities."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from tilesight.cache.sdcm import (
    TABLE_MIN_CALL,
    ZELEN_SEVERO_MAX_ERROR,
    gaussian_valid,
    hit_probability,
    hit_probability_exact,
    hit_probability_gaussian,
    hit_probability_table,
    zelen_severo_cdf,
)
from tilesight.errors import ProfileError, TileSightError

# Where the normal approximation is valid (D p (1 - p) >= 12) the two forms agree within this absolute
# tolerance; worst case over A in {1..32}, B / A in 1.5..2000: 0.019 (A = 13), from the binomial's skew.
GAUSSIAN_TOLERANCE = 0.02


def test_exact_hand_values():
    # A = 1, B = 4: P = (1 - 1/4)^D; D = 2 -> 0.5625
    assert hit_probability_exact(2, 4.0, 1) == pytest.approx(0.5625)
    # A = 2, B = 4, D = 3: p = 1/2, P(X <= 1) = (C(3,0) + C(3,1)) / 8 = 4/8
    assert hit_probability_exact(3, 4.0, 2) == pytest.approx(0.5)
    # fewer intervening blocks than ways always hit; a first access (inf) always misses
    np.testing.assert_array_equal(hit_probability_exact([0, 15], 1000.0, 16), [1.0, 1.0])
    assert hit_probability_exact(np.inf, 1000.0, 16) == 0.0


def test_capacity_below_ways_is_fully_associative():
    # B = 8 slots, A = 16 ways: one set of 8; hit iff fewer than 8 blocks intervened
    np.testing.assert_array_equal(hit_probability_exact([7, 8, 20], 8.0, 16), [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(hit_probability_gaussian([7, 8, 20], 8.0, 16), [1.0, 0.0, 0.0])


def test_zelen_severo_matches_normal_cdf():
    x = np.linspace(-8, 8, 4001)
    assert np.max(np.abs(zelen_severo_cdf(x) - stats.norm.cdf(x))) < ZELEN_SEVERO_MAX_ERROR
    assert zelen_severo_cdf(0.0) == pytest.approx(0.5, abs=ZELEN_SEVERO_MAX_ERROR)


def test_zelen_severo_far_tails_are_exact_and_raise_nothing():
    # exp(-x^2 / 2) underflows past |x| ~ 38.6: the tails come out exactly 0 and 1 even when the caller has
    # numpy raise on underflow
    with np.errstate(all="raise"):
        out = zelen_severo_cdf(np.array([-1e9, -40.0, 40.0, 1e9, -np.inf, np.inf]))
    assert out.tolist() == [0.0, 0.0, 1.0, 1.0, 0.0, 1.0]


def test_gaussian_near_capacity():
    # B = 3200 blocks, A = 16: mean = D / 200; at D = 3000 the mean is 15, sigma = sqrt(15 * 0.995) = 3.86,
    # z = (15.5 - 15) / 3.86 = 0.129 -> Phi = 0.551; the exact binomial CDF is 0.568
    assert hit_probability_gaussian(3000, 3200.0, 16) == pytest.approx(0.5515, abs=1e-3)
    assert hit_probability_exact(3000, 3200.0, 16) == pytest.approx(0.5681, abs=1e-3)


def test_bad_geometry_and_form():
    with pytest.raises(ProfileError):
        hit_probability_exact(1, 0.0, 16)
    with pytest.raises(ProfileError):
        hit_probability_gaussian(1, 10.0, 0)
    with pytest.raises(TileSightError):
        hit_probability_exact(-1, 10.0, 2)
    with pytest.raises(TileSightError):
        hit_probability(1, 10.0, 2, form="lru")


geometry = st.tuples(st.floats(1.0, 1e5), st.integers(1, 32))
distances = st.lists(st.floats(0.0, 2e5, allow_nan=False), min_size=1, max_size=30)


@settings(max_examples=60, deadline=None)
@given(geometry, distances, st.sampled_from(["exact", "gaussian"]))
def test_probability_in_unit_interval_and_non_increasing(geom, dist, form):
    cap, ways = geom
    d = np.sort(np.asarray(dist))
    p = hit_probability(d, cap, ways, form)
    assert np.all((p >= 0.0) & (p <= 1.0))
    assert np.all(np.diff(p) <= 1e-12)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 32), st.floats(1.5, 2000.0), distances)
def test_forms_agree_where_gaussian_valid(ways, cap_over_ways, dist):
    cap = ways * cap_over_ways
    d = np.asarray(dist)
    valid = gaussian_valid(d, cap, ways)
    if valid.any():
        diff = hit_probability_exact(d[valid], cap, ways) - hit_probability_gaussian(d[valid], cap, ways)
        assert np.max(np.abs(diff)) <= GAUSSIAN_TOLERANCE


@pytest.mark.parametrize("ways, cap", [(1, 50.0), (2, 3.0), (16, 50.0), (16, 3200.0), (32, 1e5)])
@pytest.mark.parametrize("form", ["gaussian", "exact"])
def test_table_matches_direct_evaluation(ways, cap, form):
    # the model interpolates a tabulated curve; its error stays below 1e-5 everywhere (worst seen: 3.5e-6)
    d = np.concatenate([np.linspace(0, 3 * cap / ways + 50, 20001), np.geomspace(1e-6, 10, 1000), [np.inf]])
    table = hit_probability_table(cap, ways, form)
    assert np.max(np.abs(table(d) - hit_probability(d, cap, ways, form))) < 1e-5


def test_table_keeps_the_input_shape():
    # ways 16, 3200 blocks: p = 1/200; D = 0 hits (below A - 1 = 15), D = 1e9 misses (beyond the table)
    table = hit_probability_table(3200.0, 16)
    assert table(np.float64(0.0)).shape == () and float(table(0.0)) == 1.0
    grid = np.array([[0.0, 1e9], [15.0, np.inf]])
    out = table(grid)
    assert out.shape == (2, 2) and out.tolist() == [[1.0, 0.0], [1.0, 0.0]]
    assert table(grid.ravel()).tolist() == out.ravel().tolist()


def test_validity_region_excludes_the_skewed_small_counts():
    # A = 6, B = 36, D = 31: D p = 5.2 and D (1 - p) = 25.8 pass the textbook rule, but the forms differ by
    # 0.021 there (variance 4.3); the variance rule leaves it out and keeps D = 200 (variance 27.8)
    assert not gaussian_valid(31.0, 36.0, 6)
    assert gaussian_valid(200.0, 36.0, 6)


@pytest.mark.parametrize("form", ["gaussian", "exact"])
@pytest.mark.parametrize("cap, ways", [(1600.0, 16), (20.0, 16)])
def test_small_calls_evaluate_the_form_and_agree_with_the_table(form, cap, ways):
    # a call under TABLE_MIN_CALL distances is the form itself, also between A - 1 and A (cap 20, 16 ways:
    # P(15.3) = 0.981, not P(16) = 0.954); the same distances inside a large call come from the table, within
    # its 1e-5
    d = np.concatenate([np.linspace(0.0, 4 * cap / ways, TABLE_MIN_CALL - 4), [15.3, 15.9, 30.0]])
    table = hit_probability_table(cap, ways, form)
    small = table(d)
    assert small.tolist() == hit_probability(d, cap, ways, form).tolist()
    large = table(np.concatenate([d, d]))[: d.size]
    assert np.max(np.abs(large - small)) < 1e-5


@pytest.mark.parametrize("form", ["gaussian", "exact"])
@pytest.mark.parametrize("cap, ways", [(1600.0, 16), (20.0, 16), (8.0, 16)])
def test_many_equals_one_call_per_part(form, cap, ways):
    # the batched evaluation the cache walk uses gives every part exactly what its own call gives: small
    # parts the form (evaluated together), a part of TABLE_MIN_CALL distances or more the table
    rng = np.random.default_rng(0)
    parts = [rng.uniform(0.0, 4 * cap / ways, n) for n in (0, 5, TABLE_MIN_CALL - 1, TABLE_MIN_CALL, 300)]
    parts[1][0] = np.inf
    table = hit_probability_table(cap, ways, form)
    got = table.many(parts)
    assert [g.tolist() for g in got] == [table(d).tolist() for d in parts]

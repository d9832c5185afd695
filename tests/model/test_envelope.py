"""The prologue-steady-epilogue envelope: hand-worked values and invariants."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesight.model.envelope import envelope


def test_hand_worked_two_stage():
    # L = 5, L_fill = 2, max U = 3, N = 4, d = 1: T_steady = max(3, 2.5) = 3, T_pro = 2, 3 steady, T_epi = 3
    env = envelope(5.0, 2.0, 3.0, 4, 1)
    assert (env.steady_s, env.prologue_s, env.steady_count, env.epilogue_s) == (3.0, 2.0, 3, 3.0)
    assert env.total_s == 14.0 and not env.latency_bound


def test_deep_pipeline_prologue_holds_d_iterations():
    # L = 8, L_fill = 3, max U = 1, N = 10, d = 3: T_steady = max(1, 8/4) = 2 (latency-bound)
    # T_pro = 3 + (3 - 1) * 2 = 7; steady 7 * 2 = 14; T_epi = 5 -> T = 26 = L + (N - 1) T_steady = 8 + 18
    env = envelope(8.0, 3.0, 1.0, 10, 3)
    assert env.latency_bound
    assert (env.prologue_s, env.steady_count, env.epilogue_s, env.total_s) == (7.0, 7, 5.0, 26.0)


def test_zero_depth_is_serial_and_zero_trips_cost_nothing():
    assert envelope(5.0, 2.0, 3.0, 4, 0).total_s == 20.0
    assert envelope(5.0, 2.0, 3.0, 0, 2).total_s == 0.0


def test_fewer_iterations_than_depth():
    # N = 2 < d = 4: T_steady = max(1, 10/5) = 2; T_pro = 4 + (2 - 1) * 2 = 6; no steady; T_epi = 6 -> 12
    env = envelope(10.0, 4.0, 1.0, 2, 4)
    assert (env.prologue_s, env.steady_count, env.total_s) == (6.0, 0, 12.0)


def test_bad_inputs():
    with pytest.raises(ValueError, match="iterations"):
        envelope(1.0, 0.5, 1.0, -1, 0)
    with pytest.raises(ValueError, match="fill_s"):
        envelope(1.0, 2.0, 1.0, 1, 0)


_times = st.floats(min_value=1e-9, max_value=1e-3)


@settings(deadline=None)
@given(_times, st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.integers(1, 200), st.integers(0, 8))
def test_invariants(lat, fill_frac, busy_frac, n, d):
    fill, busy = lat * fill_frac, lat * busy_frac  # busy <= L: a list schedule never beats a pipe's sum
    env = envelope(lat, fill, busy, n, d)
    assert env.total_s == pytest.approx(lat + (n - 1) * env.steady_s)
    assert env.total_s >= n * busy * (1 - 1e-12)  # never faster than the busiest pipeline
    assert env.total_s <= n * lat * (1 + 1e-12)  # never slower than running iterations back to back
    assert envelope(lat, fill, busy, n + 1, d).total_s >= env.total_s  # more iterations never take less
    assert envelope(lat, fill, busy, n, d + 1).total_s <= env.total_s * (1 + 1e-12)  # deeper never slower


def test_in_order_compute_chain_bounds_the_steady_state():
    # One iteration: L = 5 us, fill 1 us, busiest pipeline 2 us, two dependent compute actions of 1.5 us each
    # issued by the same warps (S = 3 us). Deep pipelining (d = 4) would give max(2, 5/5) = 2 us, but the
    # next iteration's compute cannot start before this one's: T_steady = max(2, 1, 3) = 3 us.
    # T = L + (N - 1) T_steady = 5 + 9 x 3 = 32 us for N = 10.
    env = envelope(5.0, 1.0, 2.0, 10, 4, serial_s=3.0)
    assert env.steady_s == pytest.approx(3.0)
    assert env.total_s == pytest.approx(32.0)
    assert env.latency_bound and env.bound == "chain"
    assert envelope(5.0, 1.0, 2.0, 10, 4).steady_s == pytest.approx(2.0)


def test_the_bound_names_the_term_that_sets_the_steady_state():
    # L = 8, busiest pipeline 1: d = 1 gives L / 2 = 4 (ring); a chain of 5 beats it (chain); a load span of
    # 12 over one iteration in flight beats both (loads); a busiest pipeline of 13 beats everything (pipeline)
    assert envelope(8.0, 2.0, 1.0, 10, 1).bound == "ring"
    assert envelope(8.0, 2.0, 1.0, 10, 1, serial_s=5.0).bound == "chain"
    assert envelope(8.0, 2.0, 1.0, 10, 1, serial_s=5.0, load_s=12.0).bound == "loads"
    env = envelope(20.0, 2.0, 13.0, 10, 1, serial_s=5.0, load_s=12.0)
    assert env.bound == "pipeline" and not env.latency_bound


def test_a_share_of_one_iteration_costs_that_share():
    # L = 4, L_fill = 1: a body run by a quarter of the programs (or iterations) costs 1 on average, split
    # 0.25 fill and 0.75 drain; a whole iteration costs L
    env = envelope(4.0, 1.0, 2.0, 0.25, 1)
    assert env.total_s == pytest.approx(1.0)
    assert (env.prologue_s, env.epilogue_s, env.steady_count) == (pytest.approx(0.25), pytest.approx(0.75), 0)
    assert envelope(4.0, 1.0, 2.0, 1, 1).total_s == pytest.approx(4.0)


def test_closed_cycle_by_hand():
    # two blocks, each 1 on the busiest pipe and 1 elsewhere (latency 2): mean value analysis gives
    # n=1: R=1, X=1/2, Q=1/2; n=2: R=1.5, X=2/2.5=0.8; one completion every 1.25, where both asymptotes
    # (max(1, 2 / 2)) say 1: the blocks sometimes queue for the pipe together
    from tilesight.model.envelope import closed_cycle_s

    assert closed_cycle_s(1.0, 2.0, 2) == pytest.approx(1.25)
    assert closed_cycle_s(1.0, 5.0, 1) == pytest.approx(5.0)  # alone: its latency
    queued = envelope(2.0, 0.5, 1.0, 100, 1, queued=True)
    assert queued.steady_s == pytest.approx(1.25) and queued.bound == "pipeline"  # of equal asymptotes
    assert envelope(2.0, 0.5, 1.0, 100, 1).steady_s == pytest.approx(1.0)
    # a pipeline-bound or chain-bound envelope is left as it is
    assert envelope(1.0, 0.5, 1.0, 100, 3, queued=True).steady_s == pytest.approx(1.0)
    assert envelope(4.0, 0.5, 1.0, 100, 1, 3.0, queued=True).steady_s == pytest.approx(3.0)
    # a chain between the ring (2 / 2 = 1) and the queue (1.25) leaves the queue the bound
    assert envelope(2.0, 0.5, 1.0, 100, 1, 1.1, queued=True).steady_s == pytest.approx(1.25)


@given(
    st.floats(1e-3, 10.0),
    st.floats(0.0, 50.0),
    st.integers(1, 64),
)
@settings(max_examples=200, deadline=None)
def test_closed_cycle_lies_above_both_asymptotes(service, extra, customers):
    from tilesight.model.envelope import closed_cycle_s

    latency = service + extra
    t = closed_cycle_s(service, latency, customers)
    assert t >= max(service, latency / customers) * (1 - 1e-9)
    assert t <= service + latency / customers + 1e-9  # never worse than the two one after another
    if customers > 1:  # one more block in flight never slows the stream
        assert closed_cycle_s(service, latency, customers - 1) >= t * (1 - 1e-9)

"""Order search: list schedules, deduplicated exhaustive search, branch and bound (vs brute force)."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from tilesight.model import schedule as S
from tilesight.model.resources import CUDA, DDR, NPIPES, TC


def vec(**entries: float) -> tuple[float, ...]:
    v = [0.0] * NPIPES
    for k, x in entries.items():
        v[{"tc": TC, "cuda": CUDA, "ddr": DDR}[k]] = x
    return tuple(v)


def test_list_schedule_two_chains():
    # 0: load (DDR 1, +1 latency -> dur 2); 1: cx (CUDA 1, needs 0); 2: cy (CUDA 2)
    deps = ((), (0,), ())
    vecs = (vec(ddr=1), vec(cuda=1), vec(cuda=2))
    durs, mem = (2.0, 1.0, 2.0), (True, False, False)
    assert S.list_schedule((0, 1, 2), deps, vecs, durs, mem) == (5.0, 2.0, (0.0, 2.0, 3.0))
    assert S.list_schedule((0, 2, 1), deps, vecs, durs, mem) == (3.0, 0.0, (0.0, 2.0, 0.0))
    best = S.best_schedule(deps, vecs, durs, mem)
    assert best.order == (0, 2, 1) and best.latency_s == 3.0 and best.exact
    assert best.busy_s[CUDA] == 3.0 and best.busy_s[DDR] == 1.0


def test_projection_dedup_counts():
    # a, b on DDR; c on TC: 3! = 6 topological orders, but only the relative order of a and b matters -> 2
    orders, exact = S.candidate_orders(((), (), ()), (1 << DDR, 1 << DDR, 1 << TC))
    assert exact and len(orders) == 2


def test_wide_dag_falls_back_to_exact_branch_and_bound():
    # 8 independent nodes on one pipeline: 8! = 40,320 distinct projections > 5,040 -> branch and bound;
    # any order gives L = sum of durations (1 + 2 + ... + 8 = 36).
    n = 8
    deps = tuple(() for _ in range(n))
    vecs = tuple(vec(cuda=i + 1.0) for i in range(n))
    durs = tuple(i + 1.0 for i in range(n))
    orders, exact = S.candidate_orders(deps, tuple(S.used_mask(v) for v in vecs))
    assert not exact
    best = S.best_schedule(deps, vecs, durs, (False,) * n)
    assert best.latency_s == 36.0 and best.exact


def _brute(deps, vecs, durs, mem):
    best = None
    for perm in itertools.permutations(range(len(vecs))):
        pos = {v: i for i, v in enumerate(perm)}
        if all(pos[j] < pos[i] for i in range(len(vecs)) for j in deps[i]):
            lat = S.list_schedule(perm, deps, vecs, durs, mem)[0]
            best = lat if best is None else min(best, lat)
    return best


@st.composite
def dags(draw):
    n = draw(st.integers(1, 6))
    deps = tuple(tuple(j for j in range(i) if draw(st.booleans())) for i in range(n))
    vecs, durs, mem = [], [], []
    for _ in range(n):
        pipe = draw(st.sampled_from(["tc", "cuda", "ddr"]))
        x = float(draw(st.integers(1, 9)))
        vecs.append(vec(**{pipe: x}))
        lat = float(draw(st.integers(0, 3))) if pipe == "ddr" else 0.0
        durs.append(x + lat)
        mem.append(pipe == "ddr")
    return deps, tuple(vecs), tuple(durs), tuple(mem)


@settings(max_examples=60, deadline=None)
@given(dags())
def test_search_matches_brute_force(dag):
    deps, vecs, durs, mem = dag
    expected = _brute(deps, vecs, durs, mem)
    assert S.best_schedule(deps, vecs, durs, mem).latency_s == expected
    order, exact = S._branch_and_bound(deps, vecs, durs, mem)
    assert exact and S.list_schedule(order, deps, vecs, durs, mem)[0] == expected
    # invariants: L is at least every pipeline's busy sum and the critical path of durations
    lat = S.best_schedule(deps, vecs, durs, mem).latency_s
    assert all(lat >= sum(v[r] for v in vecs) for r in range(NPIPES))


def _projections(orders, masks):
    users = [frozenset(i for i in range(len(masks)) if masks[i] >> r & 1) for r in range(NPIPES)]
    users = [u for u in users if len(u) > 1]
    return [tuple(tuple(i for i in o if i in u) for u in users) for o in orders]


@st.composite
def shared_dags(draw):
    # nodes on zero, one or two of three pipelines, so the reduction meets nodes sharing only some pipelines
    n = draw(st.integers(1, 7))
    deps = tuple(tuple(j for j in range(i) if draw(st.integers(0, 3)) == 0) for i in range(n))
    masks = tuple(draw(st.sampled_from([0, 1, 2, 4, 3, 5, 6])) for _ in range(n))
    return deps, masks


@settings(max_examples=120, deadline=None)
@given(shared_dags())
def test_orders_cover_every_projection_once(dag):
    # the sleep-set enumeration yields exactly one topological order per distinct per-pipeline projection:
    # the same projections as all topological orders (brute force over permutations), none twice
    deps, masks = dag
    n = len(deps)
    every = [
        p
        for p in itertools.permutations(range(n))
        if all(p.index(j) < p.index(i) for i in range(n) for j in deps[i])
    ]
    got = list(S._topological_orders(deps, masks))
    assert all(o in every for o in got)
    projected = _projections(got, masks)
    assert len(set(projected)) == len(projected)
    assert set(projected) == set(_projections(every, masks))


def test_independent_chains_are_not_interleaved_in_every_way():
    # two chains of 6 nodes on disjoint pipelines (one on TC, one on DDR): 924 interleavings, one projection
    deps = ((), (0,), (1,), (2,), (3,), (4,), (), (6,), (7,), (8,), (9,), (10,))
    masks = (1 << TC,) * 6 + (1 << DDR,) * 6
    assert len(list(S._topological_orders(deps, masks))) == 1
    orders, exact = S.candidate_orders(deps, masks)
    assert exact and len(orders) == 1


def test_critical_path_order_issues_the_longest_chain_first():
    # 0 -> 1 (a 5-long chain behind node 0) and 2 alone (3 long): tails 0: 1 + 5 = 6, 1: 5, 2: 3
    deps = ((), (0,), ())
    tail = [6.0, 5.0, 3.0]
    assert S._critical_path_order(deps, tail) == (0, 1, 2)
    # with node 2 the longer path it goes first; ties keep the lower index
    assert S._critical_path_order(deps, [6.0, 5.0, 7.0]) == (2, 0, 1)
    assert S._critical_path_order(((), ()), [1.0, 1.0]) == (0, 1)

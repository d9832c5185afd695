"""Steady-state order search over one body's tile-action DAG (paper section 3.4, Eq. 4/5).

A body (the children of a loop, or the top-level tile program) is a DAG of nodes. Each node has a usage
vector over the nine pipelines (seconds), a duration (its largest usage entry plus, for memory actions, the
access latency, which does not occupy a pipeline; for a nested loop, its envelope time) and a memory flag.

**List schedule** of a topological order sigma: nodes are issued in sigma order; a node starts when its
dependencies have finished and every pipeline it uses is free (no back-filling); pipeline ``r`` is then busy
for the node's own entry ``u_r``. This yields ``L(sigma)`` (one iteration's standalone latency),
``L_fill(sigma)`` (when the first non-memory node starts; ``L`` if there is none) and the per-pipeline busy
sums ``U_r`` (order independent).

**Search.** The envelope ``T = L + (N - 1) T_steady`` with ``T_steady = max(max_r U_r, L / (d + 1))`` is
non-decreasing in ``L`` for every ``N`` and ``d`` while ``U`` does not depend on the order, so the best order
of Eq. 5 is the one with the smallest ``L`` (ties: the smaller ``L_fill``, then the earlier order). The list
schedule depends only on the relative order of nodes that share a pipeline, so topological orders are
deduplicated by that projection (computed once per DAG *structure*: dependencies plus the set of pipelines
each node uses, and memoised). Up to :data:`MAX_DISTINCT_ORDERS` distinct projections every one is tried
(exact); beyond it (or beyond :data:`MAX_ENUMERATED_ORDERS` raw orders) a branch-and-bound search over
order prefixes with the lower bound ``max(max_r (free_r + remaining U_r), earliest start + critical path)``
runs, exact unless it exhausts :data:`MAX_BNB_EXPANSIONS` prefix expansions, in which case the best order
found is used and the result says ``exact=False``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple

from .resources import NPIPES

# Distinct per-pipeline order projections tried exhaustively (7! = 5,040: any body of up to 7 nodes that all
# share one pipeline, and every real kernel body we model, e.g. MLA decode's 132 orders, stays below it).
MAX_DISTINCT_ORDERS = 5040
# Raw topological orders enumerated while collecting distinct projections before switching to branch and
# bound (bounds the enumeration for wide DAGs whose many orders collapse onto few projections).
MAX_ENUMERATED_ORDERS = 200_000
# Prefix expansions the branch-and-bound search may make before it settles for its best order so far. It
# starts from the better of the program order and the critical-path-first order and tries the most critical
# ready node first; at 20,000 a FlashAttention backward loop body (about 30 nodes) settles in under a
# second on the order the 200,000 cap found (10 s), and no committed prediction moved.
MAX_BNB_EXPANSIONS = 20_000


class BodySchedule(NamedTuple):
    """The best list schedule of one body: issue order (node indices), ``L``, ``L_fill``, starts, ``U``."""

    order: tuple[int, ...]
    latency_s: float
    fill_s: float
    starts: tuple[float, ...]
    busy_s: tuple[float, ...]
    candidates: int
    exact: bool


def used_mask(vec: tuple[float, ...]) -> int:
    """Bit ``r`` set when the node uses pipeline ``r``."""
    m = 0
    for r in range(NPIPES):
        if vec[r] > 0.0:
            m |= 1 << r
    return m


def list_schedule(
    order: tuple[int, ...],
    deps: tuple[tuple[int, ...], ...],
    vecs: tuple[tuple[float, ...], ...],
    durs: tuple[float, ...],
    memory: tuple[bool, ...],
) -> tuple[float, float, tuple[float, ...]]:
    """``(L, L_fill, starts)`` of issuing ``order`` (a topological order of the body)."""
    n = len(vecs)
    free = [0.0] * NPIPES
    finish = [0.0] * n
    starts = [0.0] * n
    fill = -1.0
    for i in order:
        t = 0.0
        for j in deps[i]:
            if finish[j] > t:
                t = finish[j]
        v = vecs[i]
        for r in range(NPIPES):
            if v[r] > 0.0 and free[r] > t:
                t = free[r]
        for r in range(NPIPES):
            if v[r] > 0.0:
                free[r] = t + v[r]
        starts[i] = t
        finish[i] = t + durs[i]
        if not memory[i] and (fill < 0.0 or t < fill):
            fill = t
    latency = max(finish) if n else 0.0
    return latency, (latency if fill < 0.0 else fill), tuple(starts)


def _topological_orders(deps: tuple[tuple[int, ...], ...], masks: tuple[int, ...]):
    """Topological orders (generator), one per distinct per-pipeline projection.

    Two nodes that share no pipeline commute: swapping them when adjacent changes no pipeline's order, so
    the list schedule cannot tell the two orders apart. The search skips such reorderings with sleep sets
    (Godefroid's partial-order reduction): after the branch that issues ``i`` next, a sibling branch issuing a
    node ``j`` that shares no pipeline with ``i`` keeps ``i`` asleep until a node sharing a pipeline with it
    is issued, since any order issuing ``i`` right after ``j`` was already reached as ``i`` then ``j``. Every
    projection is still reached (each commutation class of orders keeps a representative), and each once.
    Nodes using no pipeline are placed as soon as they are ready."""
    n = len(deps)
    succ: list[list[int]] = [[] for _ in range(n)]
    indeg = [0] * n
    for i, ds in enumerate(deps):
        for j in ds:
            succ[j].append(i)
            indeg[i] += 1
    order: list[int] = []
    placed = [False] * n

    def place(i: int) -> None:
        placed[i] = True
        order.append(i)
        for s in succ[i]:
            indeg[s] -= 1

    def unplace(i: int) -> None:
        for s in succ[i]:
            indeg[s] += 1
        order.pop()
        placed[i] = False

    def rec(sleep: frozenset[int]):
        if len(order) == n:
            yield tuple(order)
            return
        ready = [i for i in range(n) if indeg[i] == 0 and not placed[i]]
        free = next((i for i in ready if masks[i] == 0), None)
        if free is not None:  # commutes with every node: one placement covers all
            place(free)
            yield from rec(sleep)
            unplace(free)
            return
        done: list[int] = []
        for i in ready:
            if i in sleep:
                continue
            m = masks[i]
            place(i)
            yield from rec(frozenset(j for j in (*sleep, *done) if not masks[j] & m))
            unplace(i)
            done.append(i)

    yield from rec(frozenset())


@functools.lru_cache(maxsize=1024)
def candidate_orders(
    deps: tuple[tuple[int, ...], ...], masks: tuple[int, ...]
) -> tuple[tuple[tuple[int, ...], ...], bool]:
    """Topological orders with distinct per-pipeline projections, and whether that list is complete."""
    seen: dict[tuple, tuple[int, ...]] = {}
    bits = [[i for i in range(len(masks)) if masks[i] >> r & 1] for r in range(NPIPES)]
    users = [frozenset(b) for b in bits if len(b) > 1]
    count = 0
    for order in _topological_orders(deps, masks):
        count += 1
        key = tuple(tuple(i for i in order if i in u) for u in users)
        if key not in seen:
            seen[key] = order
            if len(seen) > MAX_DISTINCT_ORDERS:
                return (), False
        if count >= MAX_ENUMERATED_ORDERS:
            return (), False
    return tuple(seen.values()), True


def _priority_order(deps: tuple[tuple[int, ...], ...], key: Callable[[int], Any]) -> tuple[int, ...]:
    """Kahn's topological sort issuing, among the ready nodes, the one with the smallest ``key``."""
    n = len(deps)
    done: set[int] = set()
    out: list[int] = []
    while len(out) < n:
        ready = [i for i in range(n) if i not in done and all(j in done for j in deps[i])]
        i = min(ready, key=key)
        done.add(i)
        out.append(i)
    return tuple(out)


def _program_order(deps: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    """The topological order preferring the lowest index (the plan's program order where legal)."""
    return _priority_order(deps, lambda k: k)


def _critical_path_order(deps: tuple[tuple[int, ...], ...], tail: list[float]) -> tuple[int, ...]:
    """The topological order issuing, among the ready nodes, the one with the longest path to the end
    (``tail``; ties: the lower index)."""
    return _priority_order(deps, lambda k: (-tail[k], k))


def _branch_and_bound(deps, vecs, durs, memory) -> tuple[tuple[int, ...], bool]:
    n = len(vecs)
    succ: list[list[int]] = [[] for _ in range(n)]
    for i, ds in enumerate(deps):
        for j in ds:
            succ[j].append(i)
    tail = [0.0] * n  # critical path from the start of i to the end of the body
    best_order = _program_order(deps)
    for i in reversed(best_order):
        tail[i] = durs[i] + max((tail[s] for s in succ[i]), default=0.0)
    # the incumbent: the better of the program order and the critical-path-first list schedule (the ready
    # node with the longest path to the end issues first), so the search starts with a tight bound
    best = list_schedule(best_order, deps, vecs, durs, memory)[0]
    critical = _critical_path_order(deps, tail)
    lat = list_schedule(critical, deps, vecs, durs, memory)[0]
    if lat < best:
        best, best_order = lat, critical
    # children are tried most critical first: good complete orders come early and prune the rest
    by_tail = sorted(range(n), key=lambda i: (-tail[i], i))
    expansions = 0
    exact = True
    free = [0.0] * NPIPES
    finish = [0.0] * n
    remaining = [sum(v[r] for v in vecs) for r in range(NPIPES)]
    placed = [False] * n
    prefix: list[int] = []

    def bound() -> float:
        lb = max(free[r] + remaining[r] for r in range(NPIPES))
        for i in range(n):
            if placed[i]:
                lb = max(lb, finish[i])
            else:
                est = max((finish[j] for j in deps[i] if placed[j]), default=0.0)
                lb = max(lb, est + tail[i])
        return lb

    def rec() -> None:
        nonlocal best, best_order, expansions, exact
        if len(prefix) == n:
            lat = max(finish)
            if lat < best:
                best, best_order = lat, tuple(prefix)
            return
        for i in by_tail:
            if placed[i] or not all(placed[j] for j in deps[i]):
                continue
            if expansions >= MAX_BNB_EXPANSIONS:
                exact = False
                return
            expansions += 1
            saved = list(free)
            v = vecs[i]
            t = max((finish[j] for j in deps[i]), default=0.0)
            for r in range(NPIPES):
                if v[r] > 0.0 and free[r] > t:
                    t = free[r]
            for r in range(NPIPES):
                if v[r] > 0.0:
                    free[r] = t + v[r]
                    remaining[r] -= v[r]
            finish[i] = t + durs[i]
            placed[i] = True
            prefix.append(i)
            if bound() < best:
                rec()
            prefix.pop()
            placed[i] = False
            for r in range(NPIPES):
                if v[r] > 0.0:
                    remaining[r] += v[r]
            free[:] = saved

    rec()
    return best_order, exact


@functools.lru_cache(maxsize=4096)
def best_schedule(
    deps: tuple[tuple[int, ...], ...],
    vecs: tuple[tuple[float, ...], ...],
    durs: tuple[float, ...],
    memory: tuple[bool, ...],
) -> BodySchedule:
    """The order with the smallest ``L`` (Eq. 5) and its list schedule; memoised on the numbers."""
    n = len(vecs)
    busy = tuple(sum(v[r] for v in vecs) for r in range(NPIPES))
    masks = tuple(used_mask(v) for v in vecs)
    orders, exact = candidate_orders(deps, masks)
    if exact:
        best_key = None
        best_order: tuple[int, ...] = orders[0]
        best_res = None
        for order in orders:
            res = list_schedule(order, deps, vecs, durs, memory)
            key = (res[0], res[1])
            if best_key is None or key < best_key:
                best_key, best_order, best_res = key, order, res
        assert best_res is not None
        return BodySchedule(best_order, best_res[0], best_res[1], best_res[2], busy, len(orders), True)
    order, exact = _branch_and_bound(deps, vecs, durs, memory)
    lat, fill, starts = list_schedule(order, deps, vecs, durs, memory)
    return BodySchedule(order, lat, fill, starts, busy, 0 if n else 1, exact)

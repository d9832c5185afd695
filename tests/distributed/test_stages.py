"""Eq. 11 and the stage decompositions of ring and tree, worked by hand on the toy network (conftest.py).

On the toy network every exchange crosses two hops (gpu_s -> switch, switch -> gpu_d), alpha 1 us each, so the
routed hop latency of a stage is 2 us; Simple's beta is 1 / 100e9 s/B, so 1 MB on one link serialises in 10
us.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesight.distributed.collectives import CollectiveOp, get_algorithm
from tilesight.distributed.stages import Exchange, Stage, sequence_cost, stage_cost
from tilesight.errors import PlanError

US = 1e-6


def test_single_exchange(toy):
    # 1e6 B from gpu0 to gpu1: 2 hops x 1 us + 1e6 B / 100e9 B/s = 2 + 10 = 12 us
    c = stage_cost(Stage("one", (Exchange(0, 1, 1e6),)), toy, "simple")
    assert c.latency_s == pytest.approx(2 * US)
    assert c.serialization_s == pytest.approx(10 * US)
    assert c.time_s == pytest.approx(12 * US)


def test_shared_link_serialises(toy):
    # gpu1 and gpu2 both send 1e6 B to gpu0: link switch0->gpu0 carries 2e6 B -> 20 us, + 2 us latency
    c = stage_cost(Stage("incast", (Exchange(1, 0, 1e6), Exchange(2, 0, 1e6))), toy, "simple")
    assert c.bottleneck_link == "switch0->gpu0"
    assert c.bottleneck_bytes == pytest.approx(2e6)
    assert c.time_s == pytest.approx(22 * US)


def test_protocol_changes_beta(toy):
    # LL reaches half the bandwidth: 1e6 B -> 20 us, + 2 us
    c = stage_cost(Stage("one", (Exchange(0, 1, 1e6),)), toy, "ll")
    assert c.time_s == pytest.approx(22 * US)


def test_local_and_empty_exchanges_cost_nothing(toy):
    c = stage_cost(Stage("local", (Exchange(3, 3, 1e9), Exchange(0, 1, 0))), toy, "simple")
    assert c.time_s == 0 and c.exchanges == 0


@pytest.mark.parametrize(
    ("n", "size", "steps", "step_us"),
    [
        # 4 GPUs, S = 4e6: 2(n-1) = 6 steps, each every rank sends S/4 = 1e6 B to its successor:
        # each tx and rx link carries 1e6 B -> 10 us, + 2 us latency = 12 us per step, 72 us in all
        (4, 4e6, 6, 12.0),
        # 8 GPUs, S = 8e6: 14 steps of S/8 = 1e6 B -> 12 us each, 168 us in all
        (8, 8e6, 14, 12.0),
    ],
)
def test_ring_all_reduce(n, size, steps, step_us, toy):
    stages = get_algorithm("ring").stages(CollectiveOp.ALL_REDUCE, size, tuple(range(n)))
    assert [s.label for s in stages] == ["ring reduce-scatter step", "ring all-gather step"]
    assert [s.repeat for s in stages] == [n - 1, n - 1]
    first = stages[0].exchanges
    assert [(e.src, e.dst) for e in first] == [(i, (i + 1) % n) for i in range(n)]
    assert all(e.bytes == size / n for e in first)
    seq = sequence_cost(stages, toy, "simple")
    assert seq.steps == steps
    assert [s.time_s for s in seq.stages] == pytest.approx([step_us * US] * 2)
    assert seq.time_s == pytest.approx(steps * step_us * US)


def test_ring_all_gather_and_reduce_scatter_8(toy):
    # all-gather of 1e6 B per rank on 8 GPUs: 7 steps of 1e6 B -> 7 x 12 us = 84 us
    ag = sequence_cost(
        get_algorithm("ring").stages(CollectiveOp.ALL_GATHER, 1e6, tuple(range(8))), toy, "simple"
    )
    assert ag.time_s == pytest.approx(84 * US)
    # reduce-scatter of 8e6 B per rank: 7 steps of 1e6 B -> 84 us
    rs = get_algorithm("ring").stages(CollectiveOp.REDUCE_SCATTER, 8e6, tuple(range(8)))
    assert sequence_cost(rs, toy, "simple").time_s == pytest.approx(84 * US)


def test_tree_all_reduce_4(toy):
    # Double binary tree on 4 GPUs, S = 4e6, each tree carries S/2 = 2e6 B per exchange.
    # Tree A (heap over 0,1,2,3): 1->0, 2->0 (level 1), 3->1 (level 2).
    # Tree B (heap over 3,2,1,0): 2->3, 1->3 (level 1), 0->2 (level 2).
    # reduce level 2: 3->1, 0->2: each link 2e6 B -> 20 us + 2 us = 22 us
    # reduce level 1: 1->0, 2->0, 2->3, 1->3: gpu1 and gpu2 send 4e6 B, gpu0 and gpu3 receive 4e6 -> 40 + 2
    # = 42
    # broadcast mirrors it: 42 + 22. Total 128 us.
    stages = get_algorithm("tree").stages(CollectiveOp.ALL_REDUCE, 4e6, (0, 1, 2, 3))
    assert [s.label for s in stages] == [
        "tree reduce level 2",
        "tree reduce level 1",
        "tree broadcast level 1",
        "tree broadcast level 2",
    ]
    assert sorted((e.src, e.dst) for e in stages[0].exchanges) == [(0, 2), (3, 1)]
    assert sorted((e.src, e.dst) for e in stages[1].exchanges) == [(1, 0), (1, 3), (2, 0), (2, 3)]
    assert sorted((e.src, e.dst) for e in stages[2].exchanges) == [(0, 1), (0, 2), (3, 1), (3, 2)]
    seq = sequence_cost(stages, toy, "simple")
    assert [s.time_s / US for s in seq.stages] == pytest.approx([22, 42, 42, 22])
    assert seq.time_s == pytest.approx(128 * US)


def test_tree_all_reduce_8(toy):
    # 8 GPUs, S = 8e6, S/2 = 4e6 B per exchange; depth 3.
    # Tree A: 1,2->0 (L1); 3,4->1 and 5,6->2 (L2); 7->3 (L3). Tree B (order 7..0): 6,5->7; 4,3->6 and
    # 2,1->5; 0->4.
    # L3: 7->3, 0->4: one exchange per link, 4e6 B -> 40 + 2 = 42 us
    # L2: gpu3 and gpu4 each send twice (8e6 B), gpu1, gpu2, gpu5, gpu6 each receive twice -> 80 + 2 = 82 us
    # L1: gpu0 receives from 1 and 2, gpu7 from 6 and 5 -> 82 us. Up 206 us, down 206 us: 412 us.
    stages = get_algorithm("tree").stages(CollectiveOp.ALL_REDUCE, 8e6, tuple(range(8)))
    assert len(stages) == 6
    assert sorted((e.src, e.dst) for e in stages[0].exchanges) == [(0, 4), (7, 3)]
    seq = sequence_cost(stages, toy, "simple")
    assert [s.time_s / US for s in seq.stages] == pytest.approx([42, 82, 82, 82, 82, 42])
    assert seq.time_s == pytest.approx(412 * US)


def test_bad_exchange():
    with pytest.raises(PlanError, match="exchange.bytes"):
        Exchange(0, 1, -1.0)
    with pytest.raises(PlanError, match="stage\\[x\\].repeat"):
        Stage("x", (), repeat=0)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7), st.floats(1.0, 1e9)), min_size=1, max_size=12),
    st.floats(1.0, 4.0),
)
def test_more_bytes_never_faster(toy, exchanges, scale):
    net = toy
    base = Stage("s", tuple(Exchange(s, d, b) for s, d, b in exchanges))
    more = Stage("s", tuple(Exchange(s, d, b * scale) for s, d, b in exchanges))
    t0, t1 = stage_cost(base, net, "simple").time_s, stage_cost(more, net, "simple").time_s
    assert t1 >= t0 - 1e-18
    # a stage is at least as slow as any one of its exchanges alone
    for e in base.exchanges:
        assert t0 >= stage_cost(Stage("one", (e,)), net, "simple").time_s - 1e-18

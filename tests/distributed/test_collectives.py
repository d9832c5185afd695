"""Algorithm family: decompositions of recursive doubling, Rabenseifner and all-to-all, and runtime choice."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesight.distributed.collectives import (
    CollectiveOp,
    algorithm_names,
    choose_collective,
    collective_bytes,
    get_algorithm,
)
from tilesight.distributed.stages import sequence_cost
from tilesight.errors import PlanError

US = 1e-6


def test_registry():
    assert set(algorithm_names()) == {"ring", "tree", "recursive_doubling", "rabenseifner", "all_to_all"}
    with pytest.raises(PlanError, match="registered"):
        get_algorithm("butterfly")


def test_recursive_doubling_all_reduce_4(toy):
    # 2 steps (partners r^1 then r^2), each rank sends the whole S = 1e6 B: 2 x (2 + 10) = 24 us
    stages = get_algorithm("recursive_doubling").stages(CollectiveOp.ALL_REDUCE, 1e6, (0, 1, 2, 3))
    assert [(e.src, e.dst) for e in stages[1].exchanges] == [(0, 2), (1, 3), (2, 0), (3, 1)]
    assert sequence_cost(stages, toy, "simple").time_s == pytest.approx(24 * US)


def test_rabenseifner_all_reduce_8(toy):
    # S = 8e6 on 8 GPUs. Halving: 4e6, 2e6, 1e6 B (40, 20, 10 us); doubling: 1e6, 2e6, 4e6 B. Each +2 us.
    # (40 + 20 + 10) x 2 + 6 x 2 = 152 us
    stages = get_algorithm("rabenseifner").stages(CollectiveOp.ALL_REDUCE, 8e6, tuple(range(8)))
    assert [s.exchanges[0].bytes for s in stages] == [4e6, 2e6, 1e6, 1e6, 2e6, 4e6]
    assert sequence_cost(stages, toy, "simple").time_s == pytest.approx(152 * US)


def test_all_to_all_8(toy):
    # S = 8e6 per rank: each rank sends 1e6 B to each of 7 peers in one stage: its tx link carries 7e6 B
    # -> 70 us + 2 us = 72 us
    stages = get_algorithm("all_to_all").stages(CollectiveOp.ALL_TO_ALL, 8e6, tuple(range(8)))
    assert len(stages) == 1 and len(stages[0].exchanges) == 56
    assert sequence_cost(stages, toy, "simple").time_s == pytest.approx(72 * US)


def test_power_of_two_only():
    assert not get_algorithm("recursive_doubling").supports(CollectiveOp.ALL_REDUCE, 6)
    assert get_algorithm("ring").supports(CollectiveOp.ALL_REDUCE, 6)


def test_choice_by_size(toy):
    # 8 GPUs. Small (8 KiB, LL): tree is 6 stages vs ring 14, so latency favours the tree.
    small = choose_collective("all_reduce", 8192, toy, tuple(range(8)))
    assert small.algorithm == "tree" and small.protocol == "ll"
    # Large (1 GB, Simple): ring's 14 x S/8 bandwidth term beats the tree's 6 x S/2 (worse with incast).
    large = choose_collective("all_reduce", 1e9, toy, tuple(range(8)))
    assert large.algorithm == "ring" and large.protocol == "simple"
    # ring 1e9 B: 14 steps of 1.25e8 B -> 14 x (2 + 1250) us = 17528 us, + 7 us base
    assert large.time_s == pytest.approx(17535 * US)
    assert set(large.candidates) == {"ring", "tree"}


def test_forced_choice(toy):
    c = choose_collective("all_reduce", 8192, toy, tuple(range(4)), algorithm="ring", protocol="simple")
    assert (c.algorithm, c.protocol) == ("ring", "simple")
    with pytest.raises(PlanError, match="does not run all_gather"):
        choose_collective("all_gather", 8192, toy, tuple(range(4)), algorithm="tree")
    with pytest.raises(PlanError, match="collective.op"):
        choose_collective("broadcast", 8192, toy, (0, 1))
    with pytest.raises(PlanError, match="two or more"):
        choose_collective("all_reduce", 8192, toy, (0,))


def test_collective_bytes():
    # NCCL's nBytes: all-gather output, all-reduce / reduce-scatter input, all-to-all one peer's message
    assert collective_bytes(CollectiveOp.ALL_GATHER, 1024, 4) == 4096
    assert collective_bytes(CollectiveOp.REDUCE_SCATTER, 1024, 4) == 1024
    assert collective_bytes(CollectiveOp.ALL_TO_ALL, 1024, 4) == 256


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(["all_reduce", "all_gather", "reduce_scatter", "all_to_all"]),
    st.integers(2, 8),
    st.integers(10, 30),
)
def test_monotone_in_size(toy, op, n, log2_bytes):
    t0 = choose_collective(op, 2.0**log2_bytes, toy, tuple(range(n))).time_s
    t1 = choose_collective(op, 2.0 ** (log2_bytes + 1), toy, tuple(range(n))).time_s
    assert t1 >= t0

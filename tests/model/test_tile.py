"""tilesight.model.tile helpers."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesight.model.tile import body_deps
from tilesight.plan import ActionKind, TileAction


def test_body_deps_indices_per_body():
    # b depends on a (index 0); c on a and b (0, 1); a second body with the same names in another order
    # gets its own indices
    a = TileAction("a", ActionKind.ELEMENTWISE, flops=1.0)
    b = TileAction("b", ActionKind.ELEMENTWISE, flops=1.0, deps=("a",))
    c = TileAction("c", ActionKind.ELEMENTWISE, flops=1.0, deps=("a", "b"))
    body = (a, b, c)
    assert body_deps(body) == ((), (0,), (0, 1))
    assert body_deps(body) == ((), (0,), (0, 1))  # second call: the kept entry
    assert body_deps((b, a)) == ((1,), ())


def test_compute_groups_share_a_loop_iterations_chain():
    """Two independent compute groups halve a loop's in-order compute chain (the pipelines still bound it)."""
    from tilesight.model.envelope import envelope

    # one iteration: latency 10, fill 2, busiest pipe 3, compute chain 8, 100 trips, depth 3
    one = envelope(10.0, 2.0, 3.0, 100, 3, 8.0)
    two = envelope(10.0, 2.0, 3.0, 100, 3, 8.0 / 2)
    assert one.steady_s == 8.0 and two.steady_s == 4.0  # max(3, 10 / 4, 8) and max(3, 2.5, 4)


def _demand(name, kind, pipe, busy, latency=0.0):
    """A demand busy ``busy`` on pipeline ``pipe`` alone, with ``latency``."""
    from tilesight.model.resources import NPIPES, ActionDemand

    vec = [0.0] * NPIPES
    vec[pipe] = busy
    return ActionDemand(name, kind, tuple(vec), tuple(vec), latency, kind is ActionKind.LOAD)


def test_groups_meeting_at_a_barrier_queue_on_the_busiest_pipe():
    """Two compute groups whose own warps load the loop's tiles wait for each other every iteration: the
    last ends its half of the chain plus the other's time on the busiest pipe; with a producer warpgroup
    loading, the groups drift apart and just halve the chain."""
    from tilesight.model.resources import CUDA, L2, NPIPES, TC
    from tilesight.model.tile import eval_body
    from tilesight.plan import Loop

    acts = (
        TileAction("ld", ActionKind.LOAD, tensor="t"),
        TileAction("mm", ActionKind.DOT, dtype="float16", shape=(64, 64, 64), deps=("ld",)),
        TileAction("ew", ActionKind.ELEMENTWISE, flops=1.0, deps=("mm",)),
    )
    demands = {
        "ld": _demand("ld", ActionKind.LOAD, L2, 1.0, 0.5),
        "mm": _demand("mm", ActionKind.DOT, TC, 3.0),
        "ew": _demand("ew", ActionKind.ELEMENTWISE, CUDA, 1.0),
    }
    # one iteration: load 1 + 0.5 latency, then dot 3, then element-wise 1: L = 5.5; chain 3 + 1 = 4;
    # busiest pipe TC 3; depth 2 (3 stages): L / 3 = 1.83
    synced = eval_body((Loop("loop", 100, acts, stages=3),), demands, (1.0,) * NPIPES, groups=2)
    drifting = eval_body(
        (Loop("loop", 100, acts, stages=3, producer_loads=True),), demands, (1.0,) * NPIPES, groups=2
    )
    # synchronised: 4 / 2 + 3 / 2 = 3.5; a producer's: max(TC 3, 1.83, 4 / 2) = 3
    assert synced.loops[0][2].steady_s == pytest.approx(3.5)
    assert drifting.loops[0][2].steady_s == pytest.approx(3.0)


def test_groups_without_loads_run_apart():
    """Two compute groups in a loop with no loads (an on-chip attention loop) have no barrier between them:
    no queueing on the busiest pipe, and each keeps an iteration of its own in flight, so the loop runs at its
    pipelines' busy time instead of one iteration's latency after another."""
    from tilesight.model.resources import CUDA, NPIPES, TC
    from tilesight.model.tile import eval_body
    from tilesight.plan import Loop

    acts = (
        TileAction("mm", ActionKind.DOT, dtype="float16", shape=(64, 64, 64)),
        TileAction("ew", ActionKind.ELEMENTWISE, flops=1.0, deps=("mm",)),
        TileAction("mm2", ActionKind.DOT, dtype="float16", shape=(64, 64, 64), deps=("ew",)),
    )
    demands = {
        "mm": _demand("mm", ActionKind.DOT, TC, 3.0),
        "ew": _demand("ew", ActionKind.ELEMENTWISE, CUDA, 1.0),
        "mm2": _demand("mm2", ActionKind.DOT, TC, 3.0),
    }
    body = (Loop("loop", 100, acts, stages=1),)
    # one iteration: dot 3, element-wise 1, dot 3 in a row: L = 7, chain 7; busiest pipe TC 6; depth 0
    one = eval_body(body, demands, (1.0,) * NPIPES, groups=1).loops[0][2]
    two = eval_body(body, demands, (1.0,) * NPIPES, groups=2).loops[0][2]
    # one group: max(6, L 7, chain 7) = 7; two: max(6, L / 2 = 3.5, chain 7 / 2 = 3.5) = 6, the tensor cores
    # (before stop 69: 7 / 2 + 6 / 2 = 6.5 on the chain and L 7 a step, as if a barrier held them together)
    assert one.steady_s == pytest.approx(7.0)
    assert two.steady_s == pytest.approx(6.0)
    assert two.bound == "pipeline"


def test_refill_slack_by_hand():
    from tilesight.model.tile import _refill_slack, body_deps
    from tilesight.plan import ActionKind, TileAction

    def act(name, kind, *deps):
        shape = (64, 64, 64) if kind is ActionKind.DOT else ()
        return TileAction(
            name, kind, tensor="t" if kind is ActionKind.LOAD else None, dtype="fp16", shape=shape, deps=deps
        )

    L, D, E = ActionKind.LOAD, ActionKind.DOT, ActionKind.ELEMENTWISE
    # attention-like: K feeds the first dot, V the last; compute 2 + 3 + 2 = 7 back to back
    body = (act("k", L), act("v", L), act("qk", D, "k"), act("sm", E, "qk"), act("pv", D, "sm", "v"))
    starts, durs, mems = (
        (0.0, 0.0, 1.0, 3.0, 6.0),
        [1.0, 1.0, 2.0, 3.0, 2.0],
        [True, True, False, False, False],
    )
    # each buffer is held for 2 of the 7: free for 5 / 7 of the iteration
    assert _refill_slack(body, body_deps(body), starts, durs, mems) == pytest.approx(5 / 7)
    # decode-like: one buffer feeds the first and the last dot, so it is held the whole chain
    body = (act("kv", L), act("qk", D, "kv"), act("sm", E, "qk"), act("pv", D, "sm", "kv"))
    assert _refill_slack(body, body_deps(body), starts[1:], durs[1:], mems[1:]) == 0.0


def test_loop_busy_adds_the_exposed_share_of_l2_under_busier_tensor_cores():
    from tilesight.model.resources import L2, NPIPES, TC
    from tilesight.model.tile import loop_busy_s

    def busy(tc, l2, smem=0.0):
        v = [0.0] * NPIPES
        v[TC], v[L2], v[4] = tc, l2, smem
        return tuple(v)

    # tensor cores 338, L2 263 (the overlap probe's BN 128): 338 + 0.36 x 263 = 432.68
    assert loop_busy_s(busy(338.0, 263.0), 0.36) == pytest.approx(432.68)
    # L2 the busier: the dots hide under the loads (BN 64: 169 and 263 -> 263)
    assert loop_busy_s(busy(169.0, 263.0), 0.36) == 263.0
    # another pipeline busier still wins; no exposure given: the busiest pipeline
    assert loop_busy_s(busy(10.0, 5.0, smem=20.0), 0.36) == 20.0
    assert loop_busy_s(busy(338.0, 263.0), 0.0) == 338.0


def _load_dot_loop(load_pipe: int, load_s: float, load_latency_s: float, dot_s: float, waits: bool = False):
    """A loop body of one load (``load_s`` busy on ``load_pipe``, plus its latency) feeding one dot (``dot_s``
    on the tensor cores), its demands, and the unit region scale; ``waits``: a free elementwise action reads
    the dot's result in the same iteration (an attention loop's softmax)."""
    from tilesight.model.resources import NPIPES, TC, ActionDemand

    def demand(name, kind, pipe, seconds, memory, latency=0.0):
        busy = [0.0] * NPIPES
        busy[pipe] = seconds
        return ActionDemand(name, kind, tuple(busy), tuple(busy), latency, memory)

    load = TileAction("ld", ActionKind.LOAD, tensor="a")
    dot = TileAction("mm", ActionKind.DOT, dtype="float16", shape=(64, 64, 64), deps=("ld",))
    demands = {
        "ld": demand("ld", ActionKind.LOAD, load_pipe, load_s, True, load_latency_s),
        "mm": demand("mm", ActionKind.DOT, TC, dot_s, False),
        "sm": demand("sm", ActionKind.ELEMENTWISE, TC, 0.0, False),
    }
    body = (load, dot, TileAction("sm", ActionKind.ELEMENTWISE, deps=("mm",))) if waits else (load, dot)
    return body, demands, (1.0,) * NPIPES


def test_exposed_l2_lengthens_a_tensor_core_bound_loop_that_waits_for_its_dot():
    from tilesight.model.resources import L2
    from tilesight.model.tile import eval_body
    from tilesight.plan import Loop

    body, demands, scale = _load_dot_loop(L2, 2.0, 0.0, 3.0, waits=True)
    loop = Loop("k", 100, body, stages=4, reduction=True)
    # per iteration: TC 3, L2 2, latency 5 over depth 3: steady max(3, 5 / 4, chain 3) = 3 without exposure,
    # 3 + 0.5 x 2 = 4 with half the L2 time exposed; 100 iterations: fill 2 + 2 x steady + 97 x steady + 3
    plain = eval_body((loop,), demands, scale)
    half = eval_body((loop,), demands, scale, exposed=0.5)
    assert plain.loops[0][2].steady_s == pytest.approx(3.0)
    assert half.loops[0][2].steady_s == pytest.approx(4.0)
    assert half.latency_s - plain.latency_s == pytest.approx(99 * 1.0)


def test_a_chained_dot_hides_its_loads_under_busier_tensor_cores():
    from tilesight.model.resources import L2
    from tilesight.model.tile import eval_body
    from tilesight.plan import Loop

    # the loop above without the wait (a GEMM's dot feeds only the next iteration's dot): steady 3, not 4
    body, demands, scale = _load_dot_loop(L2, 2.0, 0.0, 3.0)
    loop = Loop("k", 100, body, stages=4, reduction=True)
    assert eval_body((loop,), demands, scale, exposed=0.5).loops[0][2].steady_s == pytest.approx(3.0)


def test_softmax_busy_holds_the_tensor_cores_for_cuda_work_beyond_the_exponentials():
    from tilesight.model.resources import CUDA, NPIPES, SFU, TC
    from tilesight.model.tile import softmax_busy

    def vec(tc, cuda, sfu):
        busy = [0.0] * NPIPES
        busy[TC], busy[CUDA], busy[SFU] = tc, cuda, sfu
        return tuple(busy)

    # TC 3 (dots 2 + the exponentials' 1, already serialised), CUDA 5: the tensor cores wait 5 - 1 = 4 more
    assert softmax_busy(vec(3.0, 5.0, 1.0)) == vec(7.0, 5.0, 1.0)
    # CUDA-core work shorter than the exponentials hides under them: unchanged
    assert softmax_busy(vec(3.0, 1.0, 2.0)) == vec(3.0, 1.0, 2.0)


def test_a_loop_waiting_for_its_dot_holds_the_tensor_cores_through_its_softmax():
    from tilesight.model.resources import CUDA, NPIPES, SFU, TC, ActionDemand
    from tilesight.model.tile import eval_body
    from tilesight.plan import Loop

    def demand(name, kind, pipe, seconds):
        busy = [0.0] * NPIPES
        busy[pipe] = seconds
        return ActionDemand(name, kind, tuple(busy), tuple(busy), 0.0, False)

    s = TileAction("s", ActionKind.DOT, dtype="float16", shape=(64, 64, 64))
    mask = TileAction("mask", ActionKind.ELEMENTWISE, deps=("s",))
    exp = TileAction("exp", ActionKind.SFU, deps=("mask",))
    o = TileAction("o", ActionKind.DOT, dtype="float16", shape=(64, 64, 64), deps=("exp",))
    demands = {
        "s": demand("s", ActionKind.DOT, TC, 2.0),
        "mask": demand("mask", ActionKind.ELEMENTWISE, CUDA, 3.0),
        "exp": demand("exp", ActionKind.SFU, SFU, 1.0),
        "o": demand("o", ActionKind.DOT, TC, 2.0),
    }
    loop = Loop("k", 10, (s, mask, exp, o), stages=3, reduction=True)
    scale = (1.0,) * NPIPES
    # per iteration TC 4 and CUDA 3 over SFU 1: the loop's tensor-core busy time grows by 3 - 1 = 2, so ten
    # iterations hold the tensor cores 60 (not 40); the CUDA and SFU entries are unchanged
    plain = eval_body((loop,), demands, scale)
    serial = eval_body((loop,), demands, scale, softmax_serial=True)
    assert plain.busy_s[TC] == pytest.approx(40.0)
    assert serial.busy_s[TC] == pytest.approx(60.0)
    assert serial.busy_s[CUDA] == plain.busy_s[CUDA] == pytest.approx(30.0)


def test_waits_on_dot_when_other_work_reads_a_dot_of_the_same_body():
    from tilesight.model.tile import waits_on_dot

    ld = TileAction("ld", ActionKind.LOAD, tensor="k")
    s = TileAction("s", ActionKind.DOT, dtype="float16", shape=(64, 64, 64), deps=("ld",))
    o = TileAction("o", ActionKind.DOT, dtype="float16", shape=(64, 64, 64), deps=("s",))
    m = TileAction("m", ActionKind.REDUCE, deps=("s",))
    ew = TileAction("ew", ActionKind.ELEMENTWISE, deps=("ld",))
    assert waits_on_dot((ld, s, m, o))  # attention: the row max reads S = Q K^T
    assert not waits_on_dot((ld, s))  # GEMM: the dot feeds the next iteration's
    assert not waits_on_dot((ld, s, o))  # a dot reading a dot: chained on the tensor cores
    assert not waits_on_dot((ld, ew))  # no dot


def test_a_block_alone_waits_for_its_loads():
    from tilesight.model.resources import DDR
    from tilesight.model.tile import eval_body
    from tilesight.plan import Loop

    body, demands, scale = _load_dot_loop(DDR, 1.0, 3.0, 2.0)  # load span 1 + 3 = 4
    for stages, alone_steady in ((2, 4.0), (3, 2.0), (5, 2.0)):
        loop = Loop("k", 50, body, stages=stages, reduction=True)
        # latency 4 + 2 = 6 over depth stages - 1: steady max(2, 6 / stages, chain 2) = 3 / 2 / 2 shared;
        # alone, also the load span 4 over stages - 1: 4, 2, 1 -> 4, 2, 2
        shared = eval_body((loop,), demands, scale).loops[0][2].steady_s
        alone = eval_body((loop,), demands, scale, alone=True).loops[0][2].steady_s
        assert shared == pytest.approx(max(2.0, 6.0 / stages))
        assert alone == pytest.approx(alone_steady)


def test_a_lone_warpgroup_waiting_for_its_dot_meets_its_warps_at_the_barrier_every_iteration():
    """One compute group alone on its SM, whose own warps load the loop's tiles and wait for its dot, adds
    the barrier's latency to each iteration's chain; nothing else does."""
    from tilesight.model.resources import L2
    from tilesight.model.tile import eval_body
    from tilesight.plan import Loop

    body, demands, scale = _load_dot_loop(L2, 1.0, 0.0, 3.0, waits=True)
    loop = Loop("k", 100, body, stages=4, reduction=True)

    def steady(loop=loop, **kw):
        return eval_body((loop,), demands, scale, **kw).loops[0][2].steady_s

    # TC 3, L2 1, one iteration's latency 1 + 3 = 4 over depth 3: steady max(3, 1.33, chain 3) = 3; alone
    # with a 0.5 barrier the chain is 3.5 and sets it
    assert steady() == pytest.approx(3.0)
    assert steady(alone=True, barrier_s=0.5) == pytest.approx(3.5)
    # not alone, or without the barrier: 3
    assert steady(barrier_s=0.5) == pytest.approx(3.0)
    assert steady(alone=True) == pytest.approx(3.0)
    # two groups meeting there already queue at it (3 / 2 + 3 / 2): no more
    assert steady(alone=True, barrier_s=0.5, groups=2) == pytest.approx(3.0)
    # a producer warpgroup's loads, or a dot nobody in the iteration waits for (a GEMM loop): no barrier
    produced = Loop("k", 100, body, stages=4, reduction=True, producer_loads=True)
    assert steady(loop=produced, alone=True, barrier_s=0.5) == pytest.approx(3.0)
    chained_body, chained_demands, _ = _load_dot_loop(L2, 1.0, 0.0, 3.0)
    chained = Loop("k", 100, chained_body, stages=4, reduction=True)
    assert eval_body((chained,), chained_demands, scale, alone=True, barrier_s=0.5).loops[0][2].steady_s == (
        pytest.approx(3.0)
    )


def test_a_descriptor_loop_waiting_for_its_dot_meets_its_warps_once_more_every_iteration():
    """Tiles a tensor descriptor brings (warp 0's TMA copy between CTA barriers) add one meeting of the
    block's warps to each iteration's chain of a loop whose warps wait for its dot, alone or not; pointer
    loads, a producer warpgroup's loads and a GEMM loop's chained dot add nothing."""
    from dataclasses import replace

    from tilesight.model.resources import L2
    from tilesight.model.tile import eval_body
    from tilesight.plan import DESCRIPTOR_LOAD, Loop

    body, demands, scale = _load_dot_loop(L2, 1.0, 0.0, 3.0, waits=True)
    by_descriptor = (replace(body[0], variant=DESCRIPTOR_LOAD), *body[1:])

    def steady(b, **kw):
        loop = Loop("k", 100, b, stages=4, reduction=True, **kw)
        return eval_body((loop,), demands, scale, meeting_s=0.5).loops[0][2].steady_s

    # TC 3, L2 1, latency 4 over depth 3: steady max(3, 1.33, chain 3) = 3; the meeting: chain 3.5
    assert steady(body) == pytest.approx(3.0)
    assert steady(by_descriptor) == pytest.approx(3.5)
    assert steady(by_descriptor, producer_loads=True) == pytest.approx(3.0)
    chained, chained_demands, _ = _load_dot_loop(L2, 1.0, 0.0, 3.0)
    gemm_body = (replace(chained[0], variant=DESCRIPTOR_LOAD), chained[1])
    gemm = Loop("k", 100, gemm_body, stages=4, reduction=True)
    gemm_steady = eval_body((gemm,), chained_demands, scale, meeting_s=0.5).loops[0][2].steady_s
    assert gemm_steady == pytest.approx(3.0)


@settings(max_examples=100, deadline=None)
@given(
    st.floats(0.1, 5.0), st.floats(0.0, 3.0), st.floats(0.1, 5.0), st.integers(2, 5), st.floats(0.0, 2.0),
    st.booleans(),
)  # fmt: skip
def test_a_stage_barrier_lengthens_a_lone_loop_by_at_most_itself(load, latency, dot, stages, barrier, waits):
    from tilesight.model.resources import L2
    from tilesight.model.tile import eval_body
    from tilesight.plan import Loop

    body, demands, scale = _load_dot_loop(L2, load, latency, dot, waits=waits)
    loop = Loop("k", 20, body, stages=stages, reduction=True)
    plain = eval_body((loop,), demands, scale, alone=True)
    met = eval_body((loop,), demands, scale, alone=True, barrier_s=barrier)
    assert plain.latency_s - 1e-12 <= met.latency_s <= plain.latency_s + 20 * barrier + 1e-9
    if not waits:  # a loop whose warps do not wait for its dot runs the barrier under it
        assert met.latency_s == pytest.approx(plain.latency_s)


def _attention_like_loop(stages: int, refill_after_compute: bool, variant: str = "wgmma"):
    """A loop body: a load of 1000 bytes (L2 busy 1) feeding S = Q K^T (tensor cores 2), a softmax reading it
    (CUDA cores 3), and P V (tensor cores 2) that nothing in the body reads; its demands; the unit scale."""
    from tilesight.model.resources import CUDA, L2, NPIPES, TC, ActionDemand
    from tilesight.plan import Loop

    def demand(name, kind, pipe, seconds, memory, nbytes=0.0):
        busy = [0.0] * NPIPES
        busy[pipe] = seconds
        return ActionDemand(name, kind, tuple(busy), tuple(busy), 0.0, memory, bytes=nbytes)

    dot = dict(kind=ActionKind.DOT, dtype="float16", shape=(64, 64, 64), variant=variant)
    body = (
        TileAction("ld", ActionKind.LOAD, tensor="k"),
        TileAction("qk", deps=("ld",), **dot),
        TileAction("sm", ActionKind.ELEMENTWISE, deps=("qk",)),
        TileAction("pv", deps=("sm",), **dot),
    )
    demands = {
        "ld": demand("ld", ActionKind.LOAD, L2, 1.0, True, 1000.0),
        "qk": demand("qk", ActionKind.DOT, TC, 2.0, False),
        "sm": demand("sm", ActionKind.ELEMENTWISE, CUDA, 3.0, False),
        "pv": demand("pv", ActionKind.DOT, TC, 2.0, False),
    }
    loop = Loop("k", 40, body, stages=stages, reduction=True, refill_after_compute=refill_after_compute)
    return loop, demands, (1.0,) * NPIPES


def test_a_refill_after_the_compute_waits_behind_it():
    from tilesight.model.tile import eval_body, refill_span_s

    port = (4.0, 1000.0)  # latency 4, the 1000 bytes in 1: the loads alone span 5
    # chain 2 + 3 + 2 = 7; P V (2) runs on behind the refill, so it waits for 7 - 2 = 5 of the chain: 10 in
    # all over stages - 1 iterations: 10 at two stages, 5 at three (under the chain's 7). Issued at the
    # iteration's start, only the loads' 5 count: under the chain at any depth.
    for stages, after, steady in ((2, True, 10.0), (3, True, 7.0), (2, False, 7.0), (3, False, 7.0)):
        loop, demands, scale = _attention_like_loop(stages, after)
        cost = eval_body((loop,), demands, scale, port=port)
        name, sub, env = cost.loops[0]
        assert sub.async_tail_s == pytest.approx(2.0)
        assert refill_span_s(loop, sub, demands, port, 7.0, 1) == pytest.approx(10.0 if after else 5.0)
        assert env.steady_s == pytest.approx(steady), (stages, after)
        # without the port (a profile without the SM's L2 rate) the chain stands
        assert eval_body((loop,), demands, scale).loops[0][2].steady_s == pytest.approx(7.0)
    # a warp-level mma returns its result to the warps that issue it: no asynchronous tail, the whole chain
    # of 7 comes before the refill (5 + 7 = 12 at two stages)
    loop, demands, scale = _attention_like_loop(2, True, variant="mma")
    cost = eval_body((loop,), demands, scale, port=port)
    assert cost.loops[0][1].async_tail_s == 0.0
    assert cost.loops[0][2].steady_s == pytest.approx(12.0)


def test_a_gemm_loop_refills_behind_its_own_dot():
    from tilesight.model.resources import L2
    from tilesight.model.tile import eval_body
    from tilesight.plan import Loop

    # load (L2 busy 1, latency 3) -> dot (2): the dot is the asynchronous tail, so the refill waits only for
    # the loads: (port latency 4 + 1000 bytes at 1000 B/s) / (stages - 1) = 5, 2.5 against the chain's 2
    body, demands, scale = _load_dot_loop(L2, 1.0, 3.0, 2.0)
    body = (
        body[0],
        TileAction("mm", ActionKind.DOT, dtype="float16", shape=(64, 64, 64), deps=("ld",), variant="wgmma"),
    )
    demands["ld"] = demands["ld"]._replace(bytes=1000.0)
    for stages, steady in ((2, 5.0), (3, 2.5), (5, 2.0)):
        loop = Loop("k", 50, body, stages=stages, reduction=True, refill_after_compute=True)
        # the ring (latency 3 + 1 + 2 = 6 over stages) never binds here: 3, 2, 1.2
        got = eval_body((loop,), demands, scale, port=(4.0, 1000.0)).loops[0][2].steady_s
        assert got == pytest.approx(steady), stages


@settings(max_examples=60, deadline=None)
@given(
    latency=st.floats(0.0, 10.0),
    rate=st.floats(100.0, 1e4),
    stages=st.integers(2, 6),
    after=st.booleans(),
)
def test_the_refill_bound_only_lengthens_and_more_stages_never_hurt(latency, rate, stages, after):
    from tilesight.model.tile import eval_body

    def steady(n_stages, port):
        loop, demands, scale = _attention_like_loop(n_stages, after)
        return eval_body((loop,), demands, scale, port=port).loops[0][2].steady_s

    port = (latency, rate)
    with_port, without = steady(stages, port), steady(stages, None)
    assert with_port >= without - 1e-12  # a lower bound on the iteration: never faster
    assert steady(stages + 1, port) <= with_port + 1e-12  # one more stage in flight never slows it
    # issued after the compute, the refill waits at least as long as one issued at the iteration's start
    loop, demands, scale = _attention_like_loop(stages, True)
    early, _, _ = _attention_like_loop(stages, False)
    late_s = eval_body((loop,), demands, scale, port=port).loops[0][2].steady_s
    early_s = eval_body((early,), demands, scale, port=port).loops[0][2].steady_s
    assert late_s >= early_s - 1e-12


def test_envelope_load_span_over_the_loads_in_flight():
    from tilesight.model.envelope import envelope

    # latency 10, fill 6, busiest pipe 3, chain 4, depth 2 (L / 3 = 3.33): a load span of 9 over 2 loads in
    # flight sets 4.5; a span of 6 gives 3 and the chain's 4 stands; at depth 0 the span counts whole (6) and
    # L / 1 = 10 stands
    assert envelope(10.0, 6.0, 3.0, 20, 2, 4.0, load_s=9.0).steady_s == pytest.approx(4.5)
    assert envelope(10.0, 6.0, 3.0, 20, 2, 4.0, load_s=6.0).steady_s == pytest.approx(4.0)
    assert envelope(10.0, 6.0, 3.0, 20, 0, 4.0, load_s=6.0).steady_s == pytest.approx(10.0)


def test_a_producer_warpgroup_hides_the_l2_time_under_busier_tensor_cores():
    from tilesight.model.resources import L2
    from tilesight.model.tile import eval_body
    from tilesight.plan import Loop

    # the loop of test_exposed_l2_lengthens_a_tensor_core_bound_loop_that_waits_for_its_dot with its loads on
    # a producer warpgroup: steady 3 (the tensor cores), not 3 + 0.5 x 2
    body, demands, scale = _load_dot_loop(L2, 2.0, 0.0, 3.0, waits=True)
    loop = Loop("k", 100, body, stages=4, reduction=True, producer_loads=True)
    assert eval_body((loop,), demands, scale, exposed=0.5).loops[0][2].steady_s == pytest.approx(3.0)


@settings(max_examples=80, deadline=None)
@given(
    busy=st.lists(st.floats(0.0, 1e3), min_size=9, max_size=9),
    exposed=st.lists(st.floats(0.0, 1.0), min_size=2, max_size=2),
)
def test_loop_busy_is_at_least_the_busiest_pipeline_and_grows_with_exposure(busy, exposed):
    from tilesight.model.tile import loop_busy_s

    lo, hi = sorted(exposed)
    b = tuple(busy)
    assert loop_busy_s(b, 0.0) == max(b)
    assert max(b) <= loop_busy_s(b, lo) <= loop_busy_s(b, hi)


def test_a_serial_chain_is_a_floor_under_the_duration():
    from tilesight.model.resources import CUDA, NPIPES, ActionDemand
    from tilesight.model.tile import eval_body

    busy = [0.0] * NPIPES
    busy[CUDA] = 2.0
    ew = TileAction("ew", ActionKind.ELEMENTWISE, flops=1.0)
    scale = (1.0,) * NPIPES
    # the chain longer than the issue time: the action takes the chain; shorter: its busy time
    for floor, expected in ((5.0, 5.0), (1.0, 2.0)):
        d = ActionDemand("ew", ActionKind.ELEMENTWISE, tuple(busy), tuple(busy), 0.0, False, floor_s=floor)
        cost = eval_body((ew,), {"ew": d}, scale)
        assert cost.latency_s == pytest.approx(expected)
        assert cost.busy_s[CUDA] == 2.0  # the floor is not busy time


def test_a_lone_producer_loop_is_a_ring_of_its_stages():
    from tilesight.model.resources import DDR
    from tilesight.model.tile import eval_body
    from tilesight.plan import Loop

    # the loop of test_a_block_alone_waits_for_its_loads (load span 4, dot 2) with a producer warpgroup
    # issuing the loads: a stage is refilled only once its tiles are consumed, so a step is the ring
    # (span 4 + dot 2) / stages, at least the dot: 3, 2, 2 -- not the span over stages - 1 (4, 2, 2)
    body, demands, scale = _load_dot_loop(DDR, 1.0, 3.0, 2.0)
    for stages, want in ((2, 3.0), (3, 2.0), (5, 2.0)):
        loop = Loop("k", 50, body, stages=stages, reduction=True, producer_loads=True)
        assert eval_body((loop,), demands, scale, alone=True).loops[0][2].steady_s == pytest.approx(want)


def test_a_burst_load_takes_its_port_time_not_its_share():
    from tilesight.model.resources import DDR, L2
    from tilesight.model.tile import eval_body
    from tilesight.plan import Loop

    # a 1000-byte load busy 4 on L2 (its share) and 1 on DDR, latency 3, bursting at 1000 B/s: 1 + 3 = 4 long
    # rather than 4 + 3; the L2 share still bounds the step from below (busiest pipeline 4)
    body, demands, scale = _load_dot_loop(L2, 4.0, 3.0, 2.0)
    busy = list(demands["ld"].busy_s)
    busy[DDR] = 1.0
    demands["ld"] = demands["ld"]._replace(busy_s=tuple(busy), bytes=1000.0, burst_bytes_per_s=1000.0)
    loop = Loop("k", 50, body, stages=2, reduction=True, producer_loads=True)
    cost = eval_body((loop,), demands, scale, alone=True)
    sub = cost.loops[0][1]
    assert sub.latency_s == pytest.approx(4.0 + 2.0)
    assert cost.loops[0][2].steady_s == pytest.approx(4.0)  # max(L2 4, (4 + 2) / 2 = 3)


def test_consumer_warpgroups_waiting_for_their_dots_take_the_step_latency():
    from tilesight.model.resources import L2
    from tilesight.model.tile import eval_body
    from tilesight.plan import Loop

    # a producer-fed loop, TC 3 and L2 2 a step, the dot's result read in the step; two consumer groups share
    # the chain (3 / 2 = 1.5), each also taking step_latency 2.5, which holds the tensor cores too (the groups
    # meet at every step's barrier): steady max(TC 3 + 2.5, 1.5 + 2.5) = 5.5. Not for one group (chain 3:
    # steady 3), nor where nothing waits for the dot (steady 3).
    waiting, demands, scale = _load_dot_loop(L2, 2.0, 0.0, 3.0, waits=True)
    chained, _, _ = _load_dot_loop(L2, 2.0, 0.0, 3.0)

    def steady(body, groups, step_latency):
        loop = Loop("k", 100, body, stages=4, reduction=True, producer_loads=True)
        cost = eval_body((loop,), demands, scale, groups, step_latency=step_latency)
        return cost.loops[0][2].steady_s

    assert steady(waiting, 2, 0.0) == pytest.approx(3.0)
    assert steady(waiting, 2, 2.5) == pytest.approx(5.5)
    assert steady(waiting, 1, 2.5) == pytest.approx(3.0)
    assert steady(chained, 2, 2.5) == pytest.approx(3.0)


def test_groups_on_their_own_columns_share_the_chain_without_the_step_latency():
    # the same producer-fed loop, TC 3 and L2 2 a step, its dot's result read in the step, on two groups that
    # split the tile's columns (BlockResources.group_split "columns": an fp8 GEMM's two warpgroups, each
    # promoting its own half): each runs half the chain (1.5) and no FlashAttention step latency, so the
    # tensor cores' 3 bound the step, where row groups take 3 + 2.5
    from tilesight.model.resources import L2
    from tilesight.model.tile import eval_body
    from tilesight.plan import Loop

    waiting, demands, scale = _load_dot_loop(L2, 2.0, 0.0, 3.0, waits=True)
    loop = Loop("k", 100, waiting, stages=4, reduction=True, producer_loads=True)

    def steady(own_rows):
        cost = eval_body((loop,), demands, scale, 2, step_latency=2.5, groups_own_rows=own_rows)
        return cost.loops[0][2].steady_s

    assert steady(True) == pytest.approx(5.5)
    assert steady(False) == pytest.approx(3.0)


def test_an_unrolled_loop_overlaps_its_iterations_loads():
    """ptxas unrolls a load-only loop four times and issues the four iterations' loads together: the loop
    runs as a pipeline of depth 3 over the loads' latency, as four stages would."""
    from tilesight.model.resources import CUDA, L2, NPIPES
    from tilesight.model.tile import eval_body
    from tilesight.plan import Loop

    acts = (
        TileAction("ld", ActionKind.LOAD, tensor="t"),
        TileAction("acc", ActionKind.ELEMENTWISE, flops=1.0, deps=("ld",)),
    )
    demands = {
        "ld": _demand("ld", ActionKind.LOAD, L2, 1.0, 8.0),
        "acc": _demand("acc", ActionKind.ELEMENTWISE, CUDA, 1.0),
    }
    scale = (1.0,) * NPIPES
    # one iteration: load 1 + latency 8, then the add 1: L = 10; busiest pipe 1
    plain = eval_body((Loop("loop", 100, acts),), demands, scale).loops[0][2]
    unrolled = eval_body((Loop("loop", 100, acts, unroll=4),), demands, scale).loops[0][2]
    staged = eval_body((Loop("loop", 100, acts, stages=4),), demands, scale).loops[0][2]
    assert plain.depth == 0 and plain.steady_s == pytest.approx(10.0)  # one iteration at a time
    assert unrolled.depth == 3 and unrolled.steady_s == pytest.approx(2.5)  # max(1, 10 / 4)
    assert unrolled.steady_s == staged.steady_s
    assert Loop("loop", 1, acts, stages=2, unroll=4).ahead == 4


def test_a_loop_unroll_must_be_positive():
    from tilesight.errors import PlanError
    from tilesight.plan import Loop

    with pytest.raises(PlanError, match="unroll"):
        Loop("loop", 4, (TileAction("ld", ActionKind.LOAD, tensor="t"),), unroll=0)


def test_a_burst_load_before_a_pipelined_loop_leaves_the_loops_refill_at_the_port():
    from tilesight.model.resources import L2
    from tilesight.model.tile import eval_body, refill_span_s
    from tilesight.plan import Loop

    # a lone block's burst load at the top of its program (the combine of a split-KV decode: its LSE row),
    # then a two-stage loop whose warps load their own tiles: the loop's refill is still timed at the SM's
    # L2 port (latency 1, 500 B/s) the profile gives, whatever the burst before it took (a crash before)
    body, demands, scale = _load_dot_loop(L2, 4.0, 3.0, 2.0)
    demands["ld"] = demands["ld"]._replace(bytes=1000.0)
    first = TileAction("lse", ActionKind.LOAD, tensor="b")
    demands["lse"] = demands["ld"]._replace(name="lse", bytes=100.0, burst_bytes_per_s=1000.0)
    loop = Loop("k", 10, body, stages=2, reduction=True)
    cost = eval_body((first, loop), demands, scale, alone=True, port=(1.0, 500.0))
    sub = cost.loops[0][1]
    assert refill_span_s(loop, sub, demands, (1.0, 500.0), 0.0, 1) == pytest.approx(1.0 + 1000.0 / 500.0)
    assert cost.loops[0][2].steady_s >= 3.0


def test_a_refill_waits_for_its_loads_mean_line_latency_where_longer_than_l2s():
    from tilesight.model.resources import L2
    from tilesight.model.tile import eval_body, refill_span_s
    from tilesight.plan import Loop

    # a two-stage loop whose one load moves 1000 B at the port's 500 B/s: 1 (L2's latency) + 2. A load whose
    # lines come partly from DRAM waits its mean line latency instead (3.5: refill 6.5); never less than L2's
    body, demands, scale = _load_dot_loop(L2, 4.0, 3.0, 2.0)
    demands["ld"] = demands["ld"]._replace(bytes=1000.0)
    loop = Loop("k", 10, body, stages=2, reduction=True)
    sub = eval_body(body, demands, scale)
    assert refill_span_s(loop, sub, demands, (1.0, 500.0), 0.0, 1) == pytest.approx(3.0)
    slow = {**demands, "ld": demands["ld"]._replace(refill_latency_s=4.5)}
    assert refill_span_s(loop, sub, slow, (1.0, 500.0), 0.0, 1) == pytest.approx(6.5)
    fast = {**demands, "ld": demands["ld"]._replace(refill_latency_s=0.5)}
    assert refill_span_s(loop, sub, fast, (1.0, 500.0), 0.0, 1) == pytest.approx(3.0)


def test_a_load_left_synchronous_in_a_pipelined_loop_is_on_the_chain():
    """Two loads feed a dot (tensor cores 2): a (L2 busy 0.5, latency 3) copied asynchronously stages - 1
    iterations ahead, b (the same) left synchronous by the pipeliner. Their transfers end at 0.5 and 1 on
    L2, b's data arrives at 4, the dot ends at 6: the iteration's latency; its compute chain is the dot's 2.
    With b asynchronous too the loop runs at max(busy 2, 6 / stages, chain 2); with b synchronous in a loop
    that waits for it (Loop.waits_sync_loads) every iteration waits for b's latency before its dot: chain
    3 + 2 = 5, at any number of stages. An unpipelined loop (one stage) is as before: its iterations take
    their latency, 6."""
    import dataclasses

    from tilesight.model.resources import L2, NPIPES, TC, ActionDemand
    from tilesight.model.tile import eval_body
    from tilesight.plan import SYNC_LOAD, Loop

    def demand(name, kind, pipe, seconds, memory, latency=0.0):
        busy = [0.0] * NPIPES
        busy[pipe] = seconds
        return ActionDemand(name, kind, tuple(busy), tuple(busy), latency, memory)

    a, b = TileAction("a", ActionKind.LOAD, tensor="a"), TileAction("b", ActionKind.LOAD, tensor="b")
    mm = TileAction("mm", ActionKind.DOT, dtype="float16", shape=(64, 64, 64), deps=("a", "b"))
    demands = {
        "a": demand("a", ActionKind.LOAD, L2, 0.5, True, 3.0),
        "b": demand("b", ActionKind.LOAD, L2, 0.5, True, 3.0),
        "mm": demand("mm", ActionKind.DOT, TC, 2.0, False),
    }
    scale = (1.0,) * NPIPES
    sync_b = dataclasses.replace(b, variant=SYNC_LOAD)
    for stages in (2, 3, 5):
        pipelined = Loop("k", 40, (a, b, mm), stages=stages, reduction=True)
        waited = Loop("k", 40, (a, sync_b, mm), stages=stages, reduction=True, waits_sync_loads=True)
        # a loop whose synchronous loads the compiler issues ahead anyway (an unrolled loop) does not wait
        unrolled = dataclasses.replace(waited, waits_sync_loads=False)
        assert eval_body((unrolled,), demands, scale).loops[0][2].steady_s == pytest.approx(
            max(2.0, 6.0 / stages)
        )
        assert eval_body((pipelined,), demands, scale).loops[0][2].steady_s == pytest.approx(
            max(2.0, 6.0 / stages)
        )
        sub, env = eval_body((waited,), demands, scale).loops[0][1:]
        assert sub.sync_load_s == pytest.approx(3.0) and env.steady_s == pytest.approx(5.0)
    single = Loop("k", 40, (a, sync_b, mm), stages=1, reduction=True)
    assert eval_body((single,), demands, scale).loops[0][2].steady_s == pytest.approx(6.0)


def test_spill_reload_waits_lengthen_each_iteration_chain():
    from tilesight.model.resources import L2
    from tilesight.model.tile import eval_body
    from tilesight.plan import Loop

    # the GEMM-like loop (TC 3, L2 2, latency 5 over 4 stages: steady 3) with 2 waits for read-only slots at
    # 1 each and 1 for a stored slot at 4: the warps' waits take 2 x 1 + 1 x 4 = 6 an iteration while the
    # tensor cores run their 3: the chain is 6, the steady bound
    body, demands, scale = _load_dot_loop(L2, 2.0, 0.0, 3.0)
    plain = Loop("k", 100, body, stages=4, reduction=True)
    spilled = Loop("k", 100, body, stages=4, reduction=True, reload_waits=2, stored_reload_waits=1)
    assert eval_body((plain,), demands, scale, reload_latency=(1.0, 4.0)).loops[0][2].steady_s == 3.0
    assert eval_body((spilled,), demands, scale).loops[0][2].steady_s == 3.0  # no latency given: free
    cost = eval_body((spilled,), demands, scale, reload_latency=(1.0, 4.0))
    assert cost.loops[0][2].steady_s == pytest.approx(6.0)
    # waits shorter than the dots' chain hide under it
    short = eval_body((spilled,), demands, scale, reload_latency=(0.5, 1.0)).loops[0][2]
    assert short.steady_s == pytest.approx(3.0)
    assert cost.loops[0][2].bound == "chain"


def test_spill_reload_waits_add_to_the_chain_of_a_loop_that_waits_for_its_dots():
    from tilesight.model.resources import L2
    from tilesight.model.tile import eval_body
    from tilesight.plan import Loop

    # the same loop with a softmax reading the dot's result (attention's): no dot is in flight while the
    # warps stop for a reload, so the 2 x 1 + 1 x 4 = 6 of waits follow the dot's 3 (chain 9) where the
    # GEMM-like loop above takes the longer of the two (6); the 2 x 0.5 + 1 x 1 = 2 of short waits still
    # add (5), where they hid under the GEMM loop's dots
    body, demands, scale = _load_dot_loop(L2, 2.0, 0.0, 3.0, waits=True)
    spilled = Loop("k", 100, body, stages=4, reduction=True, reload_waits=2, stored_reload_waits=1)
    plain = Loop("k", 100, body, stages=4, reduction=True)
    assert eval_body((plain,), demands, scale, reload_latency=(1.0, 4.0)).loops[0][2].steady_s == 3.0
    cost = eval_body((spilled,), demands, scale, reload_latency=(1.0, 4.0)).loops[0][2]
    assert cost.steady_s == pytest.approx(9.0) and cost.bound == "chain"
    short = eval_body((spilled,), demands, scale, reload_latency=(0.5, 1.0)).loops[0][2]
    assert short.steady_s == pytest.approx(5.0)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 50), st.integers(0, 50), st.floats(0.0, 5.0), st.floats(0.0, 5.0))
def test_more_reload_waits_never_shorten_a_loop(read_only, stored, l_read, l_stored):
    from tilesight.model.resources import L2
    from tilesight.model.tile import eval_body
    from tilesight.plan import Loop

    body, demands, scale = _load_dot_loop(L2, 2.0, 0.5, 3.0)
    latency = (l_read, l_stored)

    def total(r, s):
        loop = Loop("k", 10, body, stages=3, reduction=True, reload_waits=r, stored_reload_waits=s)
        return eval_body((loop,), demands, scale, reload_latency=latency).latency_s

    assert total(read_only + 1, stored) >= total(read_only, stored) - 1e-12
    assert total(read_only, stored + 1) >= total(read_only, stored) - 1e-12

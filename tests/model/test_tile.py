"""tilesight.model.tile helpers."""

from __future__ import annotations

import pytest

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

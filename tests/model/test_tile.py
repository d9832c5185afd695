"""tilesight.model.tile helpers."""

from __future__ import annotations

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

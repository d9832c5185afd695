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

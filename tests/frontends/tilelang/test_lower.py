"""Lowering a walked TileLang kernel into a TilePlan (frontends/tilelang/lower.py)."""

import pytest

pytest.importorskip("tilelang")

import tilelang.language as T  # noqa: E402
from tilesight.frontends.tilelang import plan_prim_func  # noqa: E402

from tilesight.hardware import load_profile  # noqa: E402
from tilesight.plan import ActionKind  # noqa: E402

pytestmark = pytest.mark.tilelang

HW = load_profile("h200")


def test_a_loop_walking_its_row_backwards_marks_its_load_reverse():
    # a two-pass RMSNorm whose second pass starts at the row's end, (nk - 1 - k) * bk: that load walks the
    # row backwards, the first pass's forwards
    m, n, bk = 256, 4096, 512
    nk = n // bk

    @T.prim_func
    def main(A: T.Tensor((m, n), "float32"), B: T.Tensor((m, n), "float32")):
        with T.Kernel(m, threads=128) as bx:
            a_s = T.alloc_shared((1, bk), "float32")
            acc = T.alloc_fragment((1, bk), "float32")
            ss = T.alloc_fragment((1,), "float32")
            T.clear(acc)
            for k in T.Serial(nk):
                T.copy(A[bx, k * bk], a_s)
                for i, j in T.Parallel(1, bk):
                    acc[i, j] += a_s[i, j] * a_s[i, j]
            T.reduce_sum(acc, ss, dim=1)
            for k in T.Serial(nk):
                T.copy(A[bx, (nk - 1 - k) * bk], a_s)
                for i, j in T.Parallel(1, bk):
                    a_s[i, j] *= ss[i]
                T.copy(a_s, B[bx, (nk - 1 - k) * bk])

    plan = plan_prim_func(main, HW)
    loads = [a for a, _ in plan.actions() if a.kind is ActionKind.LOAD]
    assert [a.reverse for a in loads] == [False, True]

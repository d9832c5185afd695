"""TileLang constructs beyond the reference kernels: tile atomic adds (split-K) and clamp."""

import pytest

pytest.importorskip("tilelang")

import tilelang.language as T  # noqa: E402
from tilesight.frontends.tilelang import plan_prim_func  # noqa: E402

from tilesight.hardware import load_profile  # noqa: E402
from tilesight.plan import AccessMode, ActionKind  # noqa: E402

pytestmark = pytest.mark.tilelang

HW = load_profile("h200")


def _split_k(M=256, N=256, K=4096, splits=4, bm=128, bn=128, bk=64):
    part = K // splits

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), splits, threads=128) as (bx, by, bz):
            a = T.alloc_shared((bm, bk), "float16")
            b = T.alloc_shared((bk, bn), "float16")
            c = T.alloc_fragment((bm, bn), "float32")
            T.clear(c)
            for k in T.Pipelined(part // bk, num_stages=3):
                T.copy(A[by * bm, bz * part + k * bk], a)
                T.copy(B[bz * part + k * bk, bx * bn], b)
                T.gemm(a, b, c)
            T.atomic_add(C[by * bm, bx * bn], c)

    return main


def test_split_k_atomic_add_is_an_atomic_store_of_the_tile():
    plan = plan_prim_func(_split_k(), HW)
    # grid (256 / 128, 256 / 128, 4 splits) = 16 blocks; each adds its 128 x 128 fp32 partial into C
    assert plan.grid.blocks == 16
    (store,) = [a for a, _ in plan.actions() if a.kind is ActionKind.STORE]
    c = plan.tensor("C")
    assert store.tensor == "C" and c.mode is AccessMode.ATOMIC and c.tile == (128, 128)
    assert c.tile_bytes == 128 * 128 * 4
    # the 4 splits of one output tile write the same C tile: C is reused across the split dimension
    assert len(c.reuse_dims) == 1


def _clamp(rows=256, cols=1024):
    @T.prim_func
    def main(X: T.Tensor((rows, cols), "float32"), Y: T.Tensor((rows, cols), "float32")):
        with T.Kernel(rows, threads=128) as bx:
            x = T.alloc_fragment((cols,), "float32")
            T.copy(X[bx, 0], x)
            for i in T.Parallel(cols):
                x[i] = T.clamp(x[i] * 2.0, -448.0, 448.0)
            T.copy(x, Y[bx, 0])

    return main


def test_clamp_is_a_max_and_a_min_per_element():
    plan = plan_prim_func(_clamp(), HW)
    (ew,) = [a for a, _ in plan.actions() if a.kind is ActionKind.ELEMENTWISE]
    # per element: the multiply and the clamp's max and min = 3 operations over 1024 elements
    assert ew.flops == 3 * 1024


def _global_add(M=512, N=256, bm=64, bn=128):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float16"), B: T.Tensor((M, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            for i, j in T.Parallel(bm, bn):
                C[by * bm + i, bx * bn + j] = A[by * bm + i, bx * bn + j] + B[by * bm + i, bx * bn + j]

    return main


def test_parallel_nest_on_global_memory_loads_and_stores_its_tile():
    # TileLang's element-wise example style: the T.Parallel nest indexes global memory directly. Each lane
    # index is (uniform start) + (lane), so A, B and C move one 64 x 128 tile per block: two loads to
    # registers, one add per element (64 x 128 = 8192), one store after it
    plan = plan_prim_func(_global_add(), HW)
    assert plan.grid.blocks == (512 // 64) * (256 // 128)
    acts = {a.name: a for a, _ in plan.actions()}
    assert {t.name: t.tile for t in plan.tensors} == {"A": (64, 128), "B": (64, 128), "C": (64, 128)}
    assert [a.kind for a in acts.values()] == [
        ActionKind.LOAD,
        ActionKind.LOAD,
        ActionKind.ELEMENTWISE,
        ActionKind.STORE,
    ]
    (add,) = [a for a in acts.values() if a.kind is ActionKind.ELEMENTWISE]
    assert add.flops == 64 * 128 and set(add.deps) == {"load_A", "load_B"}
    assert acts["store_C"].deps == (add.name,)

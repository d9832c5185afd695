"""Global accesses indexed by the thread index (``tn = T.get_thread_binding(0)``), as in TileLang's GEMV
examples: every thread of the block runs the statement, so its global region is the elements all threads
touch together (walker._thread_store / _spread_region), and a T.serial loop of per-thread vector loads that
carries only registers has several iterations' loads in flight (lower.THREAD_VECTOR_LOOP_UNROLL)."""

import pytest

pytest.importorskip("tilelang")

import tilelang.language as T  # noqa: E402
from gemv_programs import gemv  # noqa: E402
from tilesight.frontends.tilelang import plan_prim_func  # noqa: E402
from tilesight.frontends.tilelang.lower import SCALAR_LOOP_UNROLL, THREAD_VECTOR_LOOP_UNROLL  # noqa: E402
from tilesight.frontends.tilelang.walker import walk  # noqa: E402

from tilesight.errors import UnsupportedOpError  # noqa: E402
from tilesight.hardware import load_profile  # noqa: E402
from tilesight.plan import ActionKind, Loop  # noqa: E402

pytestmark = pytest.mark.tilelang

HW = load_profile("h200")


def _loads(plan):
    return {a.tensor: a for a, _ in plan.actions() if a.kind is ActionKind.LOAD}


def test_a_vectorized_per_thread_load_covers_every_threads_elements():
    plan = plan_prim_func(gemv(), HW)
    loads = _loads(plan)
    # 32 threads along the rows (tn), 8 along K (tk) x 8 vector lanes (k): a 32 x 64 tile of B per K step,
    # 32 x 64 x 2 B = 4096 B; A: the 64 elements the 8 tk threads cover (the 32 tn threads share them)
    assert plan.tensor("B").tile == (32, 64) and plan.tensor("B").tile_bytes == 4096
    assert plan.tensor("A").tile == (64,) and plan.tensor("A").tile_bytes == 128
    assert loads["B"].shape == (32, 64)
    # 16 K steps x 32 blocks x 4096 B: all of B (1024 x 1024 x 2 B = 2 MiB), not one thread's 16 B per step
    (bk,) = [n for n in plan.body if isinstance(n, Loop)]
    assert bk.trips * plan.grid.blocks * plan.tensor("B").tile_bytes == 1024 * 1024 * 2
    # the output: one element per row (the 8 tk threads write the same one): 32 x 2 B per block
    assert plan.tensor("C").tile == (32,)


def test_the_per_thread_statement_counts_every_threads_elements():
    ir = walk(gemv())
    (bk,) = [n for n in ir.body if hasattr(n, "trips")]
    stores = [op for op in bk.body if getattr(op, "op", "") == "store"]
    b = next(op for op in stores if op.reads and op.reads[0].buffer == "B")
    # 256 threads x 8 lanes
    assert b.elements == 256 * 8 and b.per_thread == 8
    assert b.reads[0].extents == (32, 64)


def test_a_serial_loop_of_per_thread_vector_loads_keeps_several_in_flight():
    plan = plan_prim_func(gemv(), HW)
    (bk,) = [n for n in plan.body if isinstance(n, Loop)]
    # nvcc unrolls the bk loop by 4 and issues the 4 iterations' LDG.E.128 before the first FFMA
    assert bk.trips == 16 and bk.stages == THREAD_VECTOR_LOOP_UNROLL == 4
    assert any("per-thread vector loads" in n for n in plan.notes)


def test_a_strided_thread_index_is_priced_as_before():
    # ``2 * tn``: the rows the threads read are not one box; left as one thread's element (no region found)
    plan = plan_prim_func(gemv(N=2048, row=lambda bn, tn, BN: bn * 2 * BN + 2 * tn), HW)
    assert plan.tensor("B").tile == (1, 1)
    (bk,) = [n for n in plan.body if isinstance(n, Loop)]
    assert bk.stages == 1


def _split_k_gemv(N=1024, K=1024, BN=128, SK=4):
    part = K // SK

    @T.prim_func
    def main(A: T.Tensor((K,), "float16"), B: T.Tensor((N, K), "float16"), C: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, BN), SK, threads=BN) as (bn, bz):
            tn = T.get_thread_binding(0)
            acc = T.alloc_local((1,), "float32")
            acc[0] = 0.0
            for k in T.serial(part):
                acc[0] += T.Cast("float32", A[bz * part + k]) * T.Cast(
                    "float32", B[bn * BN + tn, bz * part + k]
                )
            T.atomic_add(C[bn * BN + tn], acc[0])

    return main


def test_a_per_thread_scalar_load_covers_a_column_of_the_threads_rows():
    plan = plan_prim_func(_split_k_gemv(), HW)
    # each of the 128 threads reads its row's element k: a 128 x 1 column of B per step (256 B), A one element
    assert plan.tensor("B").tile == (128, 1) and plan.tensor("B").tile_bytes == 256
    assert plan.tensor("A").tile == (1,)
    (k,) = [n for n in plan.body if isinstance(n, Loop)]
    # 256 steps x (8 x 4) blocks x 256 B = all of B (1024 x 1024 x 2 B)
    assert k.trips * plan.grid.blocks * 256 == 1024 * 1024 * 2
    # a scalar per-thread gather loop: unrolled as the scalar loops are (up to 64 loads in flight)
    assert k.stages == min(256, SCALAR_LOOP_UNROLL)


def _combine(splits=8, dim=128, threads=128):
    """A split-KV combine's weighted sum over the splits: a T.Parallel over the head dim (one element per
    thread) reads each split's partial output inside a T.serial loop."""

    @T.prim_func
    def main(P: T.Tensor((64, splits, dim), "float32"), Out: T.Tensor((64, dim), "float32")):
        with T.Kernel(64, threads=threads) as b:
            acc = T.alloc_fragment((dim,), "float32")
            T.clear(acc)
            for s in T.serial(splits):
                for d in T.Parallel(dim):
                    acc[d] += P[b, s, d] * 0.5
            for d in T.Parallel(dim):
                Out[b, d] = acc[d]

    return main


def test_a_serial_loop_of_one_element_per_thread_keeps_every_splits_load_in_flight():
    # 128 elements on 128 threads: each thread's load of a split is one scalar, independent of the earlier
    # splits (only the accumulation is carried), so all 8 splits' loads are in flight (SCALAR_LOOP_UNROLL);
    # on 64 threads each thread reads 2 elements a split, a vector statement of light element-wise work:
    # nvcc unrolls that loop too (8 LDG.64 back to back), so its 8 loads are in flight as well
    # (SERIAL_COPY_UNROLL), held in 8 x 2 registers (ptxas: 26)
    (loop,) = [n for n in plan_prim_func(_combine(), HW).body if isinstance(n, Loop)]
    assert loop.trips == 8 and loop.stages == min(8, SCALAR_LOOP_UNROLL)
    wide_plan = plan_prim_func(_combine(threads=64), HW)
    (wide,) = [n for n in wide_plan.body if isinstance(n, Loop)]
    assert wide.stages == 8
    # fragments: acc 128 fp32 on 64 threads, 2 registers; 2 + 16 + 8 is under the usual 2 + 32
    assert wide_plan.resources.regs_per_thread == 2 + 32


def _thread_ranges(else_work: bool, n=1024):
    """One range of the block's threads copies a row, the other (``else_work``) scales another: work on
    both sides of an ``if`` on the thread index."""

    if else_work:

        @T.prim_func
        def main(A: T.Tensor((n, 128), "float32"), B: T.Tensor((n, 128), "float32")):
            with T.Kernel(n, threads=256) as bx:
                tx = T.get_thread_binding(0)
                if tx < 128:
                    B[bx, tx] = A[bx, tx]
                else:
                    B[(bx + 1) % n, tx - 128] = A[bx, tx - 128] * 2.0

        return main

    @T.prim_func
    def one_side(A: T.Tensor((n, 128), "float32"), B: T.Tensor((n, 128), "float32")):
        with T.Kernel(n, threads=256) as bx:
            tx = T.get_thread_binding(0)
            if tx < 128:
                B[bx, tx] = A[bx, tx]

    return one_side


def test_an_if_else_on_the_thread_index_with_work_on_both_sides_is_refused():
    # walking thread 0's side would drop the other range's work: refused, naming it
    with pytest.raises(UnsupportedOpError, match=r"if/else on the thread index \(tx < 128\) with work"):
        plan_prim_func(_thread_ranges(else_work=True), HW)
    # one side only: thread 0's side, as before
    plan = plan_prim_func(_thread_ranges(else_work=False), HW)
    assert {t.name for t in plan.tensors} == {"A", "B"}

"""A scalar T.atomic_add outside T.Parallel (TileLang's GEMV examples): one add per thread of the block.

TileLang 0.1.15 lowers it to ``AtomicAdd(&C[...], acc[0])``: on sm_90a one ``REDG.E.ADD.F32`` per thread into
global memory, an ``LDS`` + ``ATOMS.CAST.SPIN`` compare-and-swap per thread into shared memory.
"""

import pytest

pytest.importorskip("tilelang")

import tilelang.language as T  # noqa: E402
from gemv_programs import gemv  # noqa: E402
from tilesight.frontends.tilelang import plan_prim_func  # noqa: E402

from tilesight.errors import UnsupportedOpError  # noqa: E402
from tilesight.hardware import load_profile  # noqa: E402
from tilesight.plan import VECTOR_REDUCTION, AccessMode, ActionKind, MemLevel  # noqa: E402

pytestmark = pytest.mark.tilelang

HW = load_profile("h200")


def _split_k_gemv(target="thread", N=1024, K=1024, BN=128, SK=4):
    """Split-K GEMV: each of the BN threads sums one row's K / SK slice and adds it into C."""
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
            if target == "thread":
                T.atomic_add(C[bn * BN + tn], acc[0])
            elif target == "block":  # every thread into the block's one element
                T.atomic_add(C[bn], acc[0])
            else:  # thread 0 only
                if tn == 0:
                    T.atomic_add(C[bn], acc[0])

    return main


def test_a_scalar_atomic_into_global_memory_is_one_element_per_thread():
    plan = plan_prim_func(_split_k_gemv(), HW)
    # grid 1024 / 128 x 4 slices = 32 blocks; each block's 128 threads add one fp32 element each into C
    assert plan.grid.blocks == 32
    (store,) = [a for a, _ in plan.actions() if a.kind is ActionKind.STORE]
    c = plan.tensor("C")
    assert store.tensor == "C" and c.mode is AccessMode.ATOMIC
    assert c.tile == (128,) and c.tile_bytes == 128 * 4
    # a relaxed reduction of one element per instruction (REDG.E.ADD.F32): 4 bytes a thread
    assert (store.variant, store.vector_bytes, store.src) == (VECTOR_REDUCTION, 4, MemLevel.REG)
    # the 4 slices of a row block add into the same C tile: reused along the slice dimension
    assert c.reuse_dims == frozenset({plan.grid.dims[1]})


def test_threads_sharing_a_global_element_are_refused():
    # (TileLang names the block index bx) 128 threads adding into one element contend: not modelled
    what = r"T.atomic_add to global 'C' at \[bx\], not one element for each of the block's 128 threads"
    with pytest.raises(UnsupportedOpError, match=what):
        plan_prim_func(_split_k_gemv("block"), HW)


def test_a_scalar_atomic_under_a_thread_guard_is_refused():
    # ``if tn == 0``: the walker reads thread indices at thread 0 and cannot count the threads that pass
    what = "T.atomic_add to 'C' under an if on the thread index"
    with pytest.raises(UnsupportedOpError, match=what) as err:
        plan_prim_func(_split_k_gemv("guarded"), HW)
    assert "tl.atomic_add_elem_op" in str(err.value)


def test_a_scalar_atomic_into_shared_memory_is_an_update_per_thread():
    plan = plan_prim_func(gemv(), HW)
    (add,) = [a for a, _ in plan.actions() if a.name.startswith("atomic_add_")]
    # 32 x 8 = 256 threads, one add each, and per add a load and a compare-and-swap of the 4-byte element:
    # 256 x 2 x 4 = 2048 B of shared memory
    assert add.kind is ActionKind.ELEMENTWISE and add.dst is MemLevel.SMEM
    assert add.flops == 256 and add.smem_bytes == 256 * 2 * 4
    assert not any(t.mode is AccessMode.ATOMIC for t in plan.tensors)  # no global atomic

"""Bad input: operators and constructs the walker does not model raise errors that name them."""

import pytest

pytest.importorskip("tilelang")

import tilelang.language as T  # noqa: E402
from tilesight.frontends.tilelang import TileLangFrontend, plan_prim_func  # noqa: E402

from tilesight.errors import FrontendError, UnsupportedOpError  # noqa: E402
from tilesight.hardware import load_profile  # noqa: E402
from tilesight.plan import ActionKind, Loop  # noqa: E402

pytestmark = pytest.mark.tilelang

HW = load_profile("h200")


def _atomic_max_kernel():
    @T.prim_func
    def main(A: T.Tensor((128, 64), "float32"), B: T.Tensor((128, 64), "float32")):
        with T.Kernel(1, threads=128) as bx:
            f = T.alloc_fragment((128, 64), "float32")
            T.copy(A[bx * 128, 0], f)
            T.atomic_max(B[bx * 128, 0], f)

    return main


def _branchy_kernel():
    @T.prim_func
    def main(A: T.Tensor((256, 64), "float16"), B: T.Tensor((256, 64), "float16")):
        with T.Kernel(2, threads=128) as bx:
            s = T.alloc_shared((128, 64), "float16")
            T.copy(A[bx * 128, 0], s)
            if bx > 0:
                T.copy(s, B[bx * 128, 0])

    return main


def _global_elementwise_kernel():
    @T.prim_func
    def main(A: T.Tensor((128, 64), "float16"), B: T.Tensor((128, 64), "float16")):
        with T.Kernel(1, threads=128) as bx:
            f = T.alloc_fragment((128, 64), "float16")
            for i, j in T.Parallel(128, 64):
                f[i, j] = A[bx * 128 + i, (j * 3) % 64] * 2  # a permutation of the lanes: no tile to name
            T.copy(f, B[bx * 128, 0])

    return main


def test_unmodelled_tile_operator_is_named():
    with pytest.raises(UnsupportedOpError, match=r"tl\.tileop\.atomicmax") as err:
        plan_prim_func(_atomic_max_kernel(), HW)
    assert err.value.construct == "tl.tileop.atomicmax"
    assert ": op " in str(err.value)  # the location names the kernel and the operator's position


def test_branch_some_blocks_take_runs_in_their_share():
    # ``if bx > 0`` on a grid of 2: the store runs in half the blocks
    plan = plan_prim_func(_branchy_kernel(), HW)
    guard = next(n for n in plan.body if isinstance(n, Loop))
    assert guard.work_trips == pytest.approx(0.5)
    assert [a.kind for a in guard.body if not isinstance(a, Loop)].count(ActionKind.STORE) == 1
    # the note says where, as one line: the kernel, its definition's file and line, the operator's position
    note = next(n for n in plan.notes if "taken by 1 of 2 blocks" in n)
    assert "main (test_tilelang_errors.py:" in note and ": op " in note and "if bx" in note


def _data_branch_kernel():
    @T.prim_func
    def main(
        A: T.Tensor((256, 64), "float16"), F: T.Tensor((2,), "int32"), B: T.Tensor((256, 64), "float16")
    ):
        with T.Kernel(2, threads=128) as bx:
            s = T.alloc_shared((128, 64), "float16")
            T.copy(A[bx * 128, 0], s)
            if F[bx] > 0:
                T.copy(s, B[bx * 128, 0])

    return main


def _loop_branch_kernel():
    @T.prim_func
    def main(A: T.Tensor((128, 512), "float16"), B: T.Tensor((128, 64), "float16")):
        with T.Kernel(1, threads=128) as bx:
            s = T.alloc_shared((128, 64), "float16")
            for k in T.serial(8):
                half = k % 2
                if half == 0:
                    T.copy(A[bx * 128, k * 64], s)
            T.copy(s, B[bx * 128, 0])

    return main


def test_data_dependent_branch_names_the_buffer():
    with pytest.raises(UnsupportedOpError, match="if/else on data read from 'F'"):
        plan_prim_func(_data_branch_kernel(), HW)


def test_branch_on_a_loop_variable_through_let_bindings_runs_in_its_share():
    # ``half = k % 2; if half == 0:`` reads the counter through a let: the copy runs in half the iterations
    plan = plan_prim_func(_loop_branch_kernel(), HW)
    loop = next(n for n in plan.body if isinstance(n, Loop))
    guard = next(n for n in loop.body if isinstance(n, Loop))
    assert loop.trips == 8 and guard.work_trips == pytest.approx(0.5)
    assert any("runs in 50% of the iterations" in n for n in plan.notes)


def test_elementwise_global_access_names_the_buffer():
    # the error names the buffer and the index it could not read as a tile
    with pytest.raises(UnsupportedOpError, match=r"global buffer 'A' at \[bx \* 128 \+ i, j \* 3 % 64\]"):
        plan_prim_func(_global_elementwise_kernel(), HW)


def _scalar_global_read_kernel():
    @T.prim_func
    def main(A: T.Tensor((128,), "float32"), B: T.Tensor((128,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            acc = T.alloc_local((1,), "float32")
            for k in T.serial(128):
                acc[0] = acc[0] + A[k]
            f = T.alloc_fragment((128,), "float32")
            for i in T.Parallel(128):
                f[i] = acc[0]
            T.copy(f, B[bx * 128])

    return main


def test_scalar_store_reading_global_memory_loads_one_element_per_iteration():
    # a scalar accumulation over a global buffer (TileLang's split-KV combine reads its log-sum-exps so):
    # each of the 128 serial iterations loads the element A[k], a 4-byte tile of A; nvcc unrolls such a loop
    # and issues the loads ahead, so up to SCALAR_LOOP_UNROLL = 64 iterations' loads are in flight
    plan = plan_prim_func(_scalar_global_read_kernel(), HW)
    (load, loops) = next((a, lp) for a, lp in plan.actions() if a.kind is ActionKind.LOAD)
    assert load.tensor == "A" and plan.tensor("A").tile == (1,) and plan.tensor("A").tile_bytes == 4
    assert [lp.trips for lp in loops] == [128] and loops[0].stages == 64
    assert any("64 iterations' loads in flight" in n for n in plan.notes)


def test_not_a_prim_func():
    fe = TileLangFrontend()
    assert not fe.accepts(lambda: None)
    with pytest.raises(FrontendError, match="expected a TileLang PrimFunc"):
        plan_prim_func(object(), HW)


def test_a_construct_with_no_operator_position_names_the_kernels_line():
    @T.prim_func
    def main(A: T.Tensor((T.dynamic("m"), 64), "float16"), B: T.Tensor((128, 64), "float16")):
        with T.Kernel(1, threads=128) as bx:
            s = T.alloc_shared((128, 64), "float16")
            T.copy(A[bx * 128, 0], s)
            T.copy(s, B[bx * 128, 0])

    with pytest.raises(UnsupportedOpError, match="symbolic shape") as err:
        plan_prim_func(main, HW)
    assert "main (test_tilelang_errors.py:" in str(err.value)


def test_the_triton_register_option_is_refused_for_a_tilelang_program():
    import tilesight

    with pytest.raises(TypeError, match="registers= chooses a Triton kernel's register source"):
        tilesight.estimate(_branchy_kernel(), hw="h200", registers="ptxas")

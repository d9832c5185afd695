"""Dynamic shapes and scalar parameters: a TileLang program's open sizes bound from its launch arguments."""

import pytest

pytest.importorskip("tilelang")

import numpy as np  # noqa: E402
import tilelang  # noqa: E402
import tilelang.language as T  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from tilelang import tvm  # noqa: E402
from tilesight.frontends.tilelang import TileLangFrontend, plan_prim_func  # noqa: E402
from tilesight.frontends.tilelang.bind import bind_launch, open_sizes  # noqa: E402

import tilesight  # noqa: E402
from tilesight import TensorSpec  # noqa: E402
from tilesight.errors import FrontendError  # noqa: E402
from tilesight.hardware import load_profile  # noqa: E402
from tilesight.plan import ActionKind, Loop  # noqa: E402

pytestmark = pytest.mark.tilelang

HW = load_profile("h200")


def _gemm(M, N, K, block=(128, 128, 32)):
    """One GEMM program, with fixed sizes (ints) or open ones (symbolic variables)."""
    bm, bn, bk = block

    @T.prim_func
    def gemm(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            a = T.alloc_shared((bm, bk), "float16")
            b = T.alloc_shared((bk, bn), "float16")
            c = T.alloc_fragment((bm, bn), "float32")
            T.clear(c)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=3):
                T.copy(A[by * bm, k * bk], a)
                T.copy(B[k * bk, bx * bn], b)
                T.gemm(a, b, c)
            T.copy(c, C[by * bm, bx * bn])

    return gemm


def _dynamic_gemm():
    return _gemm(T.dynamic("m"), tvm.te.var("n"), T.dynamic("k"))


def _scaled_rows():
    """A scalar parameter ``rows`` sets the grid; a fixed 4096 x 256 buffer."""

    @T.prim_func
    def scale(X: T.Tensor((4096, 256), "float32"), Y: T.Tensor((4096, 256), "float32"), rows: T.int32):
        with T.Kernel(T.ceildiv(rows, 64), threads=128) as bx:
            f = T.alloc_fragment((64, 256), "float32")
            T.copy(X[bx * 64, 0], f)
            for i, j in T.Parallel(64, 256):
                f[i, j] = f[i, j] * 2.0
            T.copy(f, Y[bx * 64, 0])

    return scale


def test_open_sizes_name_each_variable_and_scalar_once():
    assert open_sizes(_dynamic_gemm()) == {
        "m": "the shape of buffer 'A'",
        "k": "the shape of buffer 'A'",
        "n": "the shape of buffer 'B'",
    }
    assert open_sizes(_scaled_rows()) == {"rows": "scalar parameter 'rows'"}
    assert open_sizes(_gemm(256, 256, 256)) == {}


def test_a_fixed_program_without_arguments_is_itself():
    func = _gemm(256, 256, 256)
    assert bind_launch(func) is func


@pytest.mark.parametrize("how", ["sizes", "tensor_specs", "meta_tensors", "numpy"])
def test_bound_dynamic_gemm_is_the_fixed_gemm(how):
    m, n, k = 1024, 2048, 512
    want = tilesight.estimate(_gemm(m, n, k), hw=HW)
    dyn = _dynamic_gemm()
    if how == "sizes":
        got = tilesight.estimate(dyn, hw=HW, m=m, n=n, k=k)
    elif how == "tensor_specs":
        got = tilesight.estimate(dyn, TensorSpec((m, k), "float16"), TensorSpec((k, n), "float16"), hw=HW)
    elif how == "meta_tensors":
        torch = pytest.importorskip("torch")
        a = torch.empty(m, k, dtype=torch.float16, device="meta")
        c = torch.empty(m, n, dtype=torch.float16, device="meta")
        got = tilesight.estimate(dyn, a, torch.empty(k, n, dtype=torch.float16, device="meta"), c, hw=HW)
    else:
        got = tilesight.estimate(dyn, np.empty((m, k), np.float16), hw=HW, n=n)
    assert got.latency_s == want.latency_s
    assert got.flops == want.flops
    assert got.flops >= 2 * m * n * k  # the dots' FLOPs, plus the accumulator's fill and cast


def test_a_scalar_parameter_sets_the_grid():
    x = TensorSpec((4096, 256), "float32")
    plan = plan_prim_func(bind_launch(_scaled_rows(), (x, x, 1000)), HW)
    assert plan.grid.blocks == 16  # ceil(1000 / 64)
    by_name = tilesight.estimate(_scaled_rows(), hw=HW, rows=1000)
    assert by_name.latency_s == tilesight.estimate(_scaled_rows(), x, x, 1000, hw=HW).latency_s
    loads = [a for a in plan.body if getattr(a, "kind", None) is ActionKind.LOAD]
    assert loads and plan.tensor(loads[0].tensor).tile_bytes == 64 * 256 * 4


def test_jit_builder_keywords_it_does_not_take_are_sizes():
    @tilelang.jit
    def build(block_M: int = 128):
        return _gemm(T.dynamic("m"), 4096, 4096, (block_M, 128, 32))

    want = tilesight.estimate(_gemm(2048, 4096, 4096, (64, 128, 32)), hw=HW)
    assert tilesight.estimate(build, hw=HW, block_M=64, m=2048).latency_s == want.latency_s


def test_an_open_size_left_unbound_is_named_with_the_fix():
    with pytest.raises(FrontendError, match=r"leaves k \(the shape of buffer 'A'\) open") as err:
        tilesight.estimate(_dynamic_gemm(), hw=HW, m=1024, n=1024)
    assert "k=..." in str(err.value)


def test_two_arguments_disagreeing_on_a_size_name_both():
    a, b = TensorSpec((1024, 512), "float16"), TensorSpec((256, 1024), "float16")
    with pytest.raises(FrontendError, match=r"k is 512 by argument 'A'.* but 256 by argument 'B'"):
        tilesight.estimate(_dynamic_gemm(), a, b, hw=HW)


def test_a_size_keyword_disagreeing_with_a_tensor_is_refused():
    with pytest.raises(FrontendError, match=r"m is 1024 by argument 'A'.* but 512 by m=512"):
        tilesight.estimate(_dynamic_gemm(), TensorSpec((1024, 512), "float16"), hw=HW, m=512, n=64)


def test_wrong_dtype_rank_and_fixed_extent_are_named():
    with pytest.raises(FrontendError, match="argument 'A' is float16, got a float32 tensor"):
        tilesight.estimate(_dynamic_gemm(), TensorSpec((64, 64), "float32"), hw=HW)
    with pytest.raises(FrontendError, match="argument 'A' has 2 dimensions"):
        tilesight.estimate(_dynamic_gemm(), TensorSpec((64,), "float16"), hw=HW)
    with pytest.raises(FrontendError, match=r"argument 'B' has shape \[256, 256\], got .*\[256, 128\]"):
        fixed = _gemm(256, 256, 256)
        tilesight.estimate(fixed, TensorSpec((256, 256), "float16"), TensorSpec((256, 128), "float16"), hw=HW)


def _unpack(dtype: str):
    """Sub-byte (or tfloat32) rows of ``m`` x 256 widened to float16: TileLang takes them packed in int8."""
    m = T.dynamic("m")
    dtype = getattr(T, dtype)

    @T.prim_func
    def unpack(X: T.Tensor((m, 256), dtype), Y: T.Tensor((m, 256), "float16")):
        with T.Kernel(T.ceildiv(m, 64), threads=128) as bx:
            x = T.alloc_fragment((64, 256), dtype)
            y = T.alloc_fragment((64, 256), "float16")
            T.copy(X[bx * 64, 0], x)
            for i, j in T.Parallel(64, 256):
                y[i, j] = T.cast(x[i, j], "float16")
            T.copy(y, Y[bx * 64, 0])

    return unpack


def test_packed_and_tf32_buffers_take_the_tensors_tilelang_takes():
    # int4 packed two to a byte: an int8 tensor of 512 x 128 bytes is the 512 x 256 int4 buffer
    y = TensorSpec((512, 256), "float16")
    plan = plan_prim_func(bind_launch(_unpack("int4"), (TensorSpec((512, 128), "int8"), y)), HW)
    assert plan.tensor("X").shape == (512, 256)
    assert plan.tensor("X").dtype == "int4"
    assert plan.grid.shape == (8,)
    tf32 = plan_prim_func(bind_launch(_unpack("tfloat32"), (TensorSpec((512, 256), "float32"), y)), HW)
    assert tf32.tensor("X").dtype == "tfloat32"
    with pytest.raises(FrontendError, match="argument 'X' is int4, got a float16 tensor"):
        bind_launch(_unpack("int4"), (TensorSpec((512, 128), "float16"), y))


def test_unknown_size_and_surplus_arguments_are_refused():
    with pytest.raises(
        FrontendError, match=r"no open size 'q' \(its symbolic sizes and scalar parameters: k, m, n\)"
    ):
        tilesight.estimate(_dynamic_gemm(), hw=HW, m=1, n=1, k=1, q=3)
    spec = TensorSpec((64, 64), "float16")
    with pytest.raises(FrontendError, match=r"takes 3 arguments \(A, B, C\), got 4"):
        tilesight.estimate(_dynamic_gemm(), spec, spec, spec, spec, hw=HW)
    with pytest.raises(FrontendError, match="argument 'B' is a float16 tensor, got int"):
        tilesight.estimate(_dynamic_gemm(), spec, 3, hw=HW)
    with pytest.raises(FrontendError, match=r"scalar parameter 'rows' \(int32\) takes a number, got str"):
        tilesight.estimate(
            _scaled_rows(), TensorSpec((4096, 256), "float32"), TensorSpec((4096, 256), "float32"), "x", hw=HW
        )


@settings(max_examples=8, deadline=None)
@given(
    m=st.integers(1, 64).map(lambda x: 64 * x),
    n=st.integers(1, 32).map(lambda x: 128 * x),
    k=st.integers(1, 128).map(lambda x: 32 * x),
)
def test_any_bound_size_predicts_as_the_fixed_program(m, n, k):
    # binding is exact: the dynamic program specialised to (m, n, k) is the program built with those sizes
    assert tilesight.estimate(_dynamic_gemm(), hw=HW, m=m, n=n, k=k).latency_s == (
        tilesight.estimate(_gemm(m, n, k), hw=HW).latency_s
    )


def test_an_eager_style_jit_kernel_takes_its_tensors():
    # TileLang's eager JIT style: the function annotates its tensor arguments and builds the kernel in place;
    # TileLang reads the shapes from the tensors it is given (TensorSpecs included)
    @tilelang.jit
    def gemm_eager(A, B, C):
        M, N, K = T.const("M N K")
        A: T.Tensor[[M, K], T.float16]
        B: T.Tensor[[K, N], T.float16]
        C: T.Tensor[[M, N], T.float16]
        with T.Kernel(T.ceildiv(N, 128), T.ceildiv(M, 128), threads=128) as (bx, by):
            a = T.alloc_shared((128, 32), T.float16)
            b = T.alloc_shared((32, 128), T.float16)
            c = T.alloc_fragment((128, 128), T.float32)
            T.clear(c)
            for k in T.Pipelined(T.ceildiv(K, 32), num_stages=3):
                T.copy(A[by * 128, k * 32], a)
                T.copy(B[k * 32, bx * 128], b)
                T.gemm(a, b, c)
            T.copy(c, C[by * 128, bx * 128])

    m, n, k = 1024, 2048, 512
    specs = (TensorSpec((m, k), "float16"), TensorSpec((k, n), "float16"), TensorSpec((m, n), "float16"))
    got = tilesight.estimate(gemm_eager, *specs, hw=HW)
    assert got.latency_s == tilesight.estimate(_gemm(m, n, k), hw=HW).latency_s


@pytest.mark.parametrize("rows", [0, -64])
def test_a_scalar_that_leaves_the_grid_empty_is_an_error_naming_the_extent(rows):
    # ceil(0 / 64) = 0 and ceil(-64 / 64) = -1 blocks: nothing to launch, said as such (not a numpy error from
    # the empty block coordinates)
    with pytest.raises(FrontendError, match=r"kernel 'scale': blockIdx.x extent .* launches no blocks"):
        tilesight.estimate(_scaled_rows(), hw=HW, rows=rows)


def test_a_dynamic_size_of_zero_is_an_error_naming_the_extent():
    with pytest.raises(FrontendError, match=r"kernel .gemm.: blockIdx.y extent 0 launches no blocks"):
        tilesight.estimate(_dynamic_gemm(), hw=HW, m=0, n=256, k=256)


def _eager_dynamic_gemm():
    # TileLang's eager style with sizes read at launch (T.dynamic): the tensors the builder is called with are
    # the program's tensor parameters of the same names
    @tilelang.jit
    def gemm_dynamic(A, B, block_M, block_N):
        M, N, K = T.dynamic("m"), T.dynamic("n"), T.dynamic("k")
        A: T.Tensor((M, K), "float16")
        B: T.Tensor((K, N), "float16")
        C = T.empty((M, N), "float16")
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            a = T.alloc_shared((block_M, 32), "float16")
            b = T.alloc_shared((32, block_N), "float16")
            c = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(c)
            for k in T.Pipelined(T.ceildiv(K, 32), num_stages=3):
                T.copy(A[by * block_M, k * 32], a)
                T.copy(B[k * 32, bx * block_N], b)
                T.gemm(a, b, c)
            T.copy(c, C[by * block_M, bx * block_N])
        return C

    return gemm_dynamic


def test_an_eager_style_kernel_with_dynamic_sizes_binds_them_from_its_tensors():
    # was: "leaves m, k, n open: pass its tensors to estimate in parameter order", with the tensors passed
    m, n, k = 1024, 2048, 512
    a, b = TensorSpec((m, k), "float16"), TensorSpec((k, n), "float16")
    got = tilesight.estimate(_eager_dynamic_gemm(), a, b, 128, 128, hw=HW)
    assert got.latency_s == tilesight.estimate(_gemm(m, n, k), hw=HW).latency_s
    # the sizes by name agree with the tensors; a size disagreeing with them is refused
    assert tilesight.estimate(_eager_dynamic_gemm(), a, b, 128, 128, hw=HW, m=m).latency_s == got.latency_s
    with pytest.raises(FrontendError, match="m"):
        tilesight.estimate(_eager_dynamic_gemm(), a, b, 128, 128, hw=HW, m=2 * m)


def test_an_eager_style_kernel_reads_the_contents_of_its_index_tensors():
    # each of the 4 blocks copies lens[b] / 64 tiles: with the contents 64, 128, 256, 512 the loop runs
    # 1, 2, 4 and 8 trips, a mean of 3.75; without them the read is refused naming the tensor
    @tilelang.jit
    def ragged(X, lens):
        X: T.Tensor((4096, 64), "float16")
        lens: T.Tensor((4,), "int32")
        Y = T.empty((256, 64), "float32")
        with T.Kernel(4, threads=128) as bz:
            acc = T.alloc_fragment((64, 64), "float32")
            xs = T.alloc_shared((64, 64), "float16")
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(lens[bz], 64), num_stages=2):
                T.copy(X[k * 64, 0], xs)
                for i, j in T.Parallel(64, 64):
                    acc[i, j] += xs[i, j]
            T.copy(acc, Y[bz * 64, 0])
        return Y

    x = TensorSpec((4096, 64), "float16")
    lens = np.array([64, 128, 256, 512], dtype=np.int32)
    plan = TileLangFrontend().plan(ragged, (x, lens), {}, HW)
    loop = next(n for n in plan.body if isinstance(n, Loop))
    assert loop.mean_trips == pytest.approx(3.75)
    with pytest.raises(FrontendError, match=r"pass 'lens' as an integer numpy array"):
        TileLangFrontend().plan(ragged, (x, TensorSpec((4,), "int32")), {}, HW)


def _scaled_rows_of_heads(w_rows_bind_m: bool):
    """Q is laid out [m * 4, 64] (a view of [m, 4, 64]); W is [m, 4], where m is an extent of its own, or a
    fixed [16, 4], where m is Q's arithmetic alone."""
    m = T.dynamic("m")
    w_rows = m if w_rows_bind_m else 16

    @T.prim_func
    def scale(Q: T.Tensor((m * 4, 64), "float32"), W: T.Tensor((w_rows, 4), "float32")):
        with T.Kernel(T.ceildiv(m, 16), threads=128) as bx:
            f = T.alloc_fragment((64, 64), "float32")
            T.copy(Q[bx * 64, 0], f)
            for i, j in T.Parallel(64, 64):
                f[i, j] = f[i, j] * 2.0
            T.copy(f, Q[bx * 64, 0])

    return scale


def test_a_layout_entry_of_arithmetic_follows_the_variable_another_buffer_binds():
    # TVM's specialisation refused Q's extent m * 4 ("expected an independent Var"); m is W's own extent, so
    # it binds there and Q's rows follow: m = 4096 gives Q 16384 rows, 256 blocks of 64 rows of 64 fp32
    plan = TileLangFrontend().plan(_scaled_rows_of_heads(True), (), {"m": 4096}, HW)
    assert plan.grid.blocks == 256
    q = next(t for t in plan.tensors if t.name == "Q")
    assert tuple(q.shape) == (16384, 64)
    assert tilesight.estimate(_scaled_rows_of_heads(True), hw=HW, m=4096).latency_s > 0


def test_a_variable_only_arithmetic_lays_out_is_named():
    with pytest.raises(FrontendError, match=r"buffer 'Q' is laid out by m \* 4, and m is no buffer's own"):
        tilesight.estimate(_scaled_rows_of_heads(False), hw=HW, m=4096)

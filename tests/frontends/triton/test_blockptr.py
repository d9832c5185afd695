"""Block pointers rewritten to pointer tensors where the installed Triton removed them
(frontends/triton/blockptr.py)."""

from __future__ import annotations

import pytest

triton = pytest.importorskip("triton")

import blockptr_kernels as K  # noqa: E402
from tilesight.frontends.triton import blockptr  # noqa: E402

import tilesight  # noqa: E402
from tilesight import TensorSpec  # noqa: E402

N = 4097 * 1024 - 5


def _rows_args(kernel):
    x, y = TensorSpec((N,), "float32"), TensorSpec((N,), "float32")
    return kernel, (4097,), x, y, N


def test_rewrite_of_a_one_dimensional_pointer_by_hand():
    src = """def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    xb = tl.make_block_ptr(x_ptr, (n,), (1,), (7,), (BLOCK,), (0,))
    x = tl.load(xb, boundary_check=(0,), padding_option="nan")
    xb = tl.advance(xb, (BLOCK,))
    tl.store(xb, x)
"""
    out = blockptr.rewrite_source(src, "k")
    lines = [ln.strip() for ln in out.splitlines()]
    assert lines[1:5] == [
        "xb__bp_base0 = x_ptr",
        "xb__bp_shape0 = n",
        "xb__bp_stride0 = 1",
        "xb__bp_off0 = 7",
    ]
    idx = "xb__bp_off0 + tl.arange(0, BLOCK)"
    assert lines[5] == (
        f"x = tl.load(xb__bp_base0 + ({idx}) * xb__bp_stride0, mask=({idx} >= 0) & ({idx} < xb__bp_shape0), "
        "other=float('nan'))"
    )
    assert lines[6] == "xb__bp_off0 = xb__bp_off0 + BLOCK"
    assert lines[7] == f"tl.store(xb__bp_base0 + ({idx}) * xb__bp_stride0, x)"  # no boundary_check: no mask


def test_a_rank_one_pointer_takes_plain_values_where_tuples_go():
    """``tl.advance(w, (i * BLOCK))`` (parentheses, not a tuple) as public kernels write it."""
    src = """def k(w_ptr, n, i, BLOCK: tl.constexpr):
    w = tl.make_block_ptr(w_ptr, n, 1, 0, BLOCK, 0)
    cur = tl.advance(w, (i * BLOCK))
    return tl.load(cur)
"""
    lines = [ln.strip() for ln in blockptr.rewrite_source(src, "k").splitlines()]
    assert "cur__bp_off0 = w__bp_off0 + i * BLOCK" in lines
    assert "cur__bp_base0 = w_ptr" not in lines and "cur__bp_base0 = w__bp_base0" in lines


def test_rewrite_of_a_two_dimensional_pointer_broadcasts_each_dimension():
    src = """def k(a, M, K, s0, s1, BM: tl.constexpr, BK: tl.constexpr):
    p = tl.make_block_ptr(base=a, shape=(M, K), strides=(s0, s1), offsets=(0, 0), block_shape=(BM, BK),
                          order=(1, 0))
    return tl.load(p, boundary_check=(1,))
"""
    out = blockptr.rewrite_source(src, "k")
    rows, cols = "(p__bp_off0 + tl.arange(0, BM))[:, None]", "(p__bp_off1 + tl.arange(0, BK))[None, :]"
    assert (
        f"return tl.load(p__bp_base0 + {rows} * p__bp_stride0 + {cols} * p__bp_stride1, "
        f"mask=({cols} >= 0) & ({cols} < p__bp_shape1))"
    ) in out


def test_a_kernel_without_block_pointers_is_left_alone():
    assert blockptr.compatible(K.mentions_block_pointers) == (K.mentions_block_pointers, None)
    src = "def k(x):\n    return x\n"
    assert blockptr.rewrite_source(src, "k") == src


def test_a_block_pointer_kernel_predicts_as_its_hand_written_twin():
    """Compiled by Triton itself (3.6-3.8) or rewritten (3.9): the prediction of the pointer tensors and masks
    3.6 lowers the block pointers to, written by hand."""
    report = tilesight.estimate(*_rows_args(K.scale_rows), hw="h200", BLOCK=1024, num_warps=4)
    twin = tilesight.estimate(*_rows_args(K.scale_rows_by_hand), hw="h200", BLOCK=1024, num_warps=4)
    assert report.latency_s == pytest.approx(twin.latency_s, rel=1e-9)
    assert any("block pointers" in n for n in report.notes) == blockptr.removed_here()
    # the decorator's options stay with the rewritten kernel
    assert blockptr.compatible(K.scale_rows)[0].do_not_specialize == ["n"] or not blockptr.removed_here()


@pytest.mark.skipif(blockptr.removed_here(), reason="the installed Triton compiles no block pointers")
def test_the_rewrite_predicts_as_triton_compiles_the_block_pointers():
    args = ((512,), TensorSpec((512, 3000), "float16"), TensorSpec((512,), "float32"), 3000, 3000)
    meta = dict(hw="h200", BLOCK=1024, num_warps=4)
    native = tilesight.estimate(K.row_sums, *args, **meta)
    rewritten = tilesight.estimate(blockptr._rewritten(K.row_sums), *args, **meta)
    assert rewritten.latency_s == pytest.approx(native.latency_s, rel=1e-9)


def test_a_block_pointer_handed_to_a_helper_reads_as_in_the_kernel():
    """The fused-attention tutorial's shape (``_attn_fwd_inner(..., K_block_ptr, V_block_ptr, ...)``): the
    helper is rewritten to take the pointer's parts and its block shape; the prediction is the one-function
    kernel's."""
    args = ((512,), TensorSpec((512, 3000), "float16"), TensorSpec((512,), "float32"), 3000, 3000)
    one, helper = (blockptr._rewritten(k) for k in (K.row_sums, K.row_sums_helper))
    assert "_sum_blocks__bp_x_block2(" in helper.src and "x_block__bp_block1=BLOCK" in helper.src
    meta = dict(hw="h200", BLOCK=1024, num_warps=4)
    assert tilesight.estimate(helper, *args, **meta).latency_s == pytest.approx(
        tilesight.estimate(one, *args, **meta).latency_s, rel=1e-9
    )


@pytest.mark.parametrize(
    ("kernel", "what"),
    [
        (K._block_of, "used other than by tl.load, tl.store, tl.advance"),
        (K.advances_inline, "tl.advance used inside an expression"),
    ],
)
def test_uses_the_rewrite_does_not_cover_are_refused_with_file_and_line(kernel, what):
    with pytest.raises(blockptr.BlockPointerError, match=what) as info:
        blockptr._rewritten(kernel)
    assert "blockptr_kernels.py:" in str(info.value)


@pytest.mark.skipif(not blockptr.removed_here(), reason="the installed Triton compiles block pointers itself")
def test_a_block_pointer_from_a_helper_is_refused_by_triton_naming_the_line():
    from tilesight.errors import KernelCompileError

    with pytest.raises(KernelCompileError, match="Block pointers have been removed") as info:
        tilesight.estimate(*_rows_args(K.returns_block_pointer), hw="h200", BLOCK=1024)
    assert "blockptr_kernels.py" in str(info.value)


@pytest.mark.parametrize("check_both", [True, False])
def test_a_boundary_check_of_constexpr_dimensions_predicts_as_its_literal_twin(check_both):
    # FlagGems' default element-wise code (boundary_check=(in0_stride_order0,)) was refused: the rewrite now
    # chooses the mask by the constexprs' values at compile time. ORD0 = 1: the columns alone, or both
    args = ((33, 17), TensorSpec((4097, 2050), "float16"), TensorSpec((4097, 2050), "float16"), 4097, 2050)
    meta = dict(hw="h200", ORD0=1, ORD1=0, CHECK_BOTH=check_both, BR=128, BC=128, num_warps=4)
    named = tilesight.estimate(K.tile_copy_ordered, *args, **meta)
    literal = tilesight.estimate(K.tile_copy_literal, *args, **meta)
    assert named.latency_s == pytest.approx(literal.latency_s, rel=1e-9)
    assert named.dram_bytes == pytest.approx(literal.dram_bytes, rel=1e-9)


def test_a_constexpr_boundary_check_becomes_a_static_choice_of_masks():
    src = """def k(x_ptr, n, ORD: tl.constexpr, BLOCK: tl.constexpr):
    xb = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (BLOCK,), (ORD,))
    x = tl.load(xb, boundary_check=(ORD,), padding_option="zero")
"""
    out = blockptr.rewrite_source(src, "k")
    idx = "xb__bp_off0 + tl.arange(0, BLOCK)"
    mask = f"({idx} >= 0) & ({idx} < xb__bp_shape0)"
    # dimension 0 checked when ORD == 0 (Triton resolves the conditional expressions at compile time)
    assert out.splitlines()[-1].strip() == (
        f"x = tl.load(xb__bp_base0 + ({idx}) * xb__bp_stride0, mask={mask} if (ORD == 0) == True else None, "
        "other=0.0 if (ORD == 0) == True else None)"
    )

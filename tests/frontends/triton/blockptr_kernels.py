"""Kernels over block pointers (``tl.make_block_ptr``), for tests/frontends/triton/test_blockptr.py."""

import triton
import triton.language as tl


@triton.jit(do_not_specialize=["n"])
def scale_rows(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    """A 1-D block pointer, bounds-checked and zero-padded (``n`` not specialised, as the decorator asks)."""
    pid = tl.program_id(0)
    xb = tl.make_block_ptr(x_ptr, (n,), (1,), (pid * BLOCK,), (BLOCK,), (0,))
    yb = tl.make_block_ptr(y_ptr, (n,), (1,), (pid * BLOCK,), (BLOCK,), (0,))
    x = tl.load(xb, boundary_check=(0,), padding_option="zero")
    tl.store(yb, x * 2, boundary_check=(0,))


@triton.jit(do_not_specialize=["n"])
def scale_rows_by_hand(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    """``scale_rows`` written with a pointer tensor and the mask Triton 3.6 lowers its block pointers to."""
    pid = tl.program_id(0)
    idx = pid * BLOCK + tl.arange(0, BLOCK)
    inside = (idx >= 0) & (idx < n)
    x = tl.load(x_ptr + idx * 1, mask=inside, other=0.0)
    tl.store(y_ptr + idx * 1, x * 2, mask=inside)


@triton.jit
def row_sums(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    """A 2-D block pointer advanced along its row in a loop (keywords, a transposed ``order``)."""
    row = tl.program_id(0)
    xb = tl.make_block_ptr(
        base=x_ptr, shape=(1, n_cols), strides=(stride, 1), offsets=(row, 0), block_shape=(1, BLOCK),
        order=(0, 1),
    )  # fmt: skip
    acc = tl.zeros((1, BLOCK), dtype=tl.float32)
    for _ in range(0, tl.cdiv(n_cols, BLOCK)):
        acc += tl.load(xb, boundary_check=(1,)).to(tl.float32)
        xb = tl.advance(xb, (0, BLOCK))
    tl.store(out_ptr + row, tl.sum(acc))


@triton.jit
def _block_of(x_ptr, n, BLOCK: tl.constexpr):
    xb = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (BLOCK,), (0,))
    return xb


@triton.jit
def returns_block_pointer(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    """A block pointer made in a helper and returned from it: not rewritten."""
    tl.store(y_ptr + tl.arange(0, BLOCK), tl.load(_block_of(x_ptr, n, BLOCK)))


@triton.jit
def advances_inline(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    """``tl.advance`` inside an expression: not rewritten."""
    xb = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (BLOCK,), (0,))
    tl.store(y_ptr + tl.arange(0, BLOCK), tl.load(tl.advance(xb, (BLOCK,))))


@triton.jit
def mentions_block_pointers(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    """No block pointer here, though this docstring says tl.make_block_ptr."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


@triton.jit
def _sum_blocks(acc, x_block, n_blocks, BLOCK: tl.constexpr):
    """The fused-attention tutorial's ``_attn_fwd_inner`` shape: a block pointer handed in, advanced here."""
    for _ in range(0, n_blocks):
        acc += tl.load(x_block, boundary_check=(1,)).to(tl.float32)
        x_block = tl.advance(x_block, (0, BLOCK))
    return acc


@triton.jit
def row_sums_helper(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    """``row_sums`` with its loop in a helper that takes the block pointer."""
    row = tl.program_id(0)
    xb = tl.make_block_ptr(x_ptr, (1, n_cols), (stride, 1), (row, 0), (1, BLOCK), (0, 1))
    acc = _sum_blocks(tl.zeros((1, BLOCK), dtype=tl.float32), xb, tl.cdiv(n_cols, BLOCK), BLOCK)
    tl.store(out_ptr + row, tl.sum(acc))


@triton.jit
def tile_copy_ordered(x_ptr, y_ptr, rows, cols, ORD0: tl.constexpr, ORD1: tl.constexpr,
                      CHECK_BOTH: tl.constexpr, BR: tl.constexpr, BC: tl.constexpr):  # fmt: skip
    """FlagGems' generated element-wise form: ``boundary_check`` names dimensions by constexpr parameters (the
    stride order), and each stored value is cast to the block pointer's ``.type.element_ty``. With
    ``CHECK_BOTH`` both dimensions are checked, else the one ``ORD0`` names."""
    r0, c0 = tl.program_id(0) * BR, tl.program_id(1) * BC
    xb = tl.make_block_ptr(x_ptr, (rows, cols), (cols, 1), (r0, c0), (BR, BC), order=(ORD0, ORD1))
    yb = tl.make_block_ptr(y_ptr, (rows, cols), (cols, 1), (r0, c0), (BR, BC), order=(ORD0, ORD1))
    if CHECK_BOTH:
        x = tl.load(xb, boundary_check=(ORD0, ORD1), padding_option="zero")
        tl.store(yb, (x * 2).to(yb.type.element_ty), boundary_check=(ORD0, ORD1))
    else:
        x = tl.load(xb, boundary_check=(ORD0,), padding_option="zero")
        tl.store(yb, (x * 2).to(yb.type.element_ty), boundary_check=(ORD0,))


@triton.jit
def tile_copy_literal(x_ptr, y_ptr, rows, cols, ORD0: tl.constexpr, ORD1: tl.constexpr,
                      CHECK_BOTH: tl.constexpr, BR: tl.constexpr, BC: tl.constexpr):  # fmt: skip
    """``tile_copy_ordered`` with literal dimensions, at ORD0 = 1 (the rows checked alone: dimension 1 is the
    columns)."""
    r0, c0 = tl.program_id(0) * BR, tl.program_id(1) * BC
    xb = tl.make_block_ptr(x_ptr, (rows, cols), (cols, 1), (r0, c0), (BR, BC), order=(ORD0, ORD1))
    yb = tl.make_block_ptr(y_ptr, (rows, cols), (cols, 1), (r0, c0), (BR, BC), order=(ORD0, ORD1))
    if CHECK_BOTH:
        x = tl.load(xb, boundary_check=(0, 1), padding_option="zero")
        tl.store(yb, (x * 2).to(y_ptr.dtype.element_ty), boundary_check=(0, 1))
    else:
        x = tl.load(xb, boundary_check=(1,), padding_option="zero")
        tl.store(yb, (x * 2).to(y_ptr.dtype.element_ty), boundary_check=(1,))

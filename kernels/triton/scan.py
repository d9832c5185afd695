"""Prefix scans: ``tl.cumsum`` along a row and along a sequence, and a linear recurrence through
``tl.associative_scan`` with a tuple combine function (h_t = a_t h_{t-1} + x_t, as Mamba-style kernels scan).

Every program owns a whole scan line in one block (no carry between programs), so the launch's cost is the
loads, the scan the compiler lowers for the block's layout, and the stores."""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def cumsum_rows_kernel(x_ptr, y_ptr, n_rows, n_cols, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    """Inclusive prefix sum of each row of an ``[n_rows, n_cols]`` row-major tensor (``n_cols <= BLOCK_C``),
    ``BLOCK_R`` rows a program, accumulated in fp32."""
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.arange(0, BLOCK_C)
    inside = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offs = rows[:, None] * n_cols + cols[None, :]
    x = tl.load(x_ptr + offs, mask=inside, other=0.0).to(tl.float32)
    y = tl.cumsum(x, axis=1)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=inside)


@triton.jit
def cumsum_seq_kernel(x_ptr, y_ptr, seq_len, dim, BLOCK_L: tl.constexpr, BLOCK_D: tl.constexpr):
    """Inclusive prefix sum along the sequence of a ``[batch, seq_len, dim]`` tensor (``seq_len <= BLOCK_L``):
    program ``(b, j)`` scans columns ``j * BLOCK_D ...`` of sequence ``b``, accumulated in fp32."""
    b = tl.program_id(0)
    d = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    t = tl.arange(0, BLOCK_L)
    inside = (t[:, None] < seq_len) & (d[None, :] < dim)
    offs = b * seq_len * dim + t[:, None] * dim + d[None, :]
    x = tl.load(x_ptr + offs, mask=inside, other=0.0).to(tl.float32)
    y = tl.cumsum(x, axis=0)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=inside)


@triton.jit
def _recurrence_step(a1, x1, a2, x2):
    return a1 * a2, x1 * a2 + x2


@triton.jit
def linear_recurrence_kernel(a_ptr, x_ptr, h_ptr, seq_len, dim, BLOCK_L: tl.constexpr, BLOCK_D: tl.constexpr):
    """h_t = a_t h_{t-1} + x_t (h_{-1} = 0) along the sequence of ``[batch, seq_len, dim]`` tensors
    (``seq_len <= BLOCK_L``), program ``(b, j)`` on columns ``j * BLOCK_D ...`` of sequence ``b``."""
    b = tl.program_id(0)
    d = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    t = tl.arange(0, BLOCK_L)
    inside = (t[:, None] < seq_len) & (d[None, :] < dim)
    offs = b * seq_len * dim + t[:, None] * dim + d[None, :]
    a = tl.load(a_ptr + offs, mask=inside, other=1.0).to(tl.float32)
    x = tl.load(x_ptr + offs, mask=inside, other=0.0).to(tl.float32)
    _, h = tl.associative_scan((a, x), axis=0, combine_fn=_recurrence_step)
    tl.store(h_ptr + offs, h.to(h_ptr.dtype.element_ty), mask=inside)

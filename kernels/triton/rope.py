"""Rotary position embedding (the half-split, "NeoX" form), out of place.

``x`` is ``(tokens, heads, head_dim)``; token ``t`` sits at position ``t % seq_len`` and is rotated by the
``(seq_len, head_dim / 2)`` cos / sin tables: ``out[..., :h] = x1 cos - x2 sin``, ``out[..., h:] = x2 cos + x1
sin`` with ``x1, x2`` the halves. One program per (token, block of ``BLOCK_H`` heads): every head of the block
shares the token's cos / sin row.
"""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def rope_kernel(
    x_ptr, cos_ptr, sin_ptr, out_ptr, seq_len, n_heads, HEAD_DIM: tl.constexpr, BLOCK_H: tl.constexpr
):
    token = tl.program_id(0)
    heads = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    half = tl.arange(0, HEAD_DIM // 2)
    pos = token % seq_len
    cos = tl.load(cos_ptr + pos * (HEAD_DIM // 2) + half).to(tl.float32)
    sin = tl.load(sin_ptr + pos * (HEAD_DIM // 2) + half).to(tl.float32)
    base = token * n_heads * HEAD_DIM + heads[:, None] * HEAD_DIM + half[None, :]
    inside = heads[:, None] < n_heads
    x1 = tl.load(x_ptr + base, mask=inside, other=0.0).to(tl.float32)
    x2 = tl.load(x_ptr + base + HEAD_DIM // 2, mask=inside, other=0.0).to(tl.float32)
    dtype = out_ptr.dtype.element_ty
    tl.store(out_ptr + base, (x1 * cos[None, :] - x2 * sin[None, :]).to(dtype), mask=inside)
    tl.store(out_ptr + base + HEAD_DIM // 2, (x2 * cos[None, :] + x1 * sin[None, :]).to(dtype), mask=inside)


def rope(x, cos, sin, *, block_h=8, num_warps=4):
    """Rotate ``x`` (tokens, heads, head_dim) by the (seq_len, head_dim / 2) tables; returns a new tensor."""
    import torch

    tokens, heads, dim = x.shape
    if cos.shape != sin.shape or cos.shape[1] * 2 != dim or not x.is_contiguous():
        raise ValueError(f"rope: x {tuple(x.shape)}, cos {tuple(cos.shape)}, sin {tuple(sin.shape)}")
    out = torch.empty_like(x)
    grid = (tokens, triton.cdiv(heads, block_h))
    rope_kernel[grid](
        x, cos, sin, out, cos.shape[0], heads, HEAD_DIM=dim, BLOCK_H=block_h, num_warps=num_warps
    )
    return out

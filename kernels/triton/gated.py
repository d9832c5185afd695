"""Gated activation ``out = silu(x[:, :d]) * x[:, d:]`` (a SwiGLU MLP's activation on the fused up/gate
projection): one program per row and ``BLOCK``-wide column block, both halves read from the one input tensor
through a scalar offset of ``d`` elements."""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def silu_mul_kernel(x_ptr, out_ptr, d, stride_x, stride_out, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    inside = cols < d
    x_ptr += row * stride_x
    gate = tl.load(x_ptr + cols, mask=inside).to(tl.float32)
    up = tl.load(x_ptr + d + cols, mask=inside).to(tl.float32)
    out = gate * tl.sigmoid(gate) * up
    tl.store(out_ptr + row * stride_out + cols, out.to(out_ptr.dtype.element_ty), mask=inside)


def silu_mul(x, *, block=1024, num_warps=4):
    """``silu(x[:, :d]) * x[:, d:]`` for a contiguous ``[rows, 2 d]`` tensor (launches the kernel)."""
    import torch

    if x.dim() != 2 or x.shape[1] % 2 or not x.is_contiguous():
        raise ValueError(f"silu_mul: needs a contiguous [rows, 2 d] tensor, got {tuple(x.shape)}")
    rows, d = x.shape[0], x.shape[1] // 2
    out = torch.empty(rows, d, device=x.device, dtype=x.dtype)
    silu_mul_kernel[(rows, triton.cdiv(d, block))](
        x, out, d, x.stride(0), out.stride(0), BLOCK=block, num_warps=num_warps
    )
    return out

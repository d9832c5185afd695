"""Element-wise ``out = x + y`` over flat tensors, ``BLOCK`` elements per program."""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = offs < n_elements
    x = tl.load(x_ptr + offs, mask=inside)
    y = tl.load(y_ptr + offs, mask=inside)
    tl.store(out_ptr + offs, x + y, mask=inside)


def add_grid(n_elements: int, meta: dict) -> tuple[int]:
    return (triton.cdiv(n_elements, meta["BLOCK"]),)


def add(x, y, *, block=1024, num_warps=4):
    import torch

    if x.shape != y.shape or not (x.is_contiguous() and y.is_contiguous()):
        raise ValueError(
            f"add: needs two contiguous tensors of one shape: {tuple(x.shape)}, {tuple(y.shape)}"
        )
    out = torch.empty_like(x)
    n = x.numel()
    add_kernel[add_grid(n, {"BLOCK": block})](x, y, out, n, BLOCK=block, num_warps=num_warps)
    return out

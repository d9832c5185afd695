"""Seeded dropout over a flat tensor: each element is kept where ``tl.rand(seed, offset)`` (Philox, drawn
from the element's own offset, so no mask is ever stored) exceeds ``p``, and kept elements are scaled by
``1 / (1 - p)`` (the low-memory dropout of Triton's tutorials, ``BLOCK`` elements a program)."""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def seeded_dropout_kernel(x_ptr, out_ptr, n_elements, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = offs < n_elements
    x = tl.load(x_ptr + offs, mask=inside)
    keep = tl.rand(seed, offs) > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=inside)

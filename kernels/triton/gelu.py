"""GELU over a flat tensor in fp32 arithmetic: the exact form ``x / 2 * (1 + erf(x / sqrt(2)))`` through
libdevice's ``erf``, or (``APPROX``) the tanh form ``x / 2 * (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))``."""

from __future__ import annotations

import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr, APPROX: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = offs < n_elements
    x = tl.load(x_ptr + offs, mask=inside).to(tl.float32)
    if APPROX:
        inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        y = 0.5 * x * (1.0 + libdevice.tanh(inner))
    else:
        y = 0.5 * x * (1.0 + libdevice.erf(x * 0.7071067811865476))
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=inside)

"""Row-wise symmetric int8 quantisation: one program a row finds the row's largest magnitude, stores the row's
scale ``amax / 127`` and the row rounded to the nearest integer in that unit (``q = rint(x / scale)``)."""

from __future__ import annotations

import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def quant_rows_kernel(x_ptr, q_ptr, scale_ptr, n_cols, stride_x, stride_q, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=inside, other=0.0).to(tl.float32)
    scale = tl.maximum(tl.max(tl.abs(x), axis=0), 1e-8) / 127.0
    q = libdevice.rint(x / scale)
    tl.store(q_ptr + row * stride_q + cols, q.to(tl.int8), mask=inside)
    tl.store(scale_ptr + row, scale)

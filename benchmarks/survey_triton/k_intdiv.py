"""Element-wise kernels that index a flat tensor through integer division and remainder (``i // N``,
``i % N``), a construct no earlier set timed: the frontend takes integer tensor math as address generation at
no cost, which holds for adds and multiplies, but a division by a runtime value is a multiply-high sequence
per element (and a reciprocal per thread), and by a constant that is not a power of two a multiply-high and
shifts. Controls index the same data with a 2-D ``tl.arange`` tile (no division). Names end in ``_d``;
family ``memory``."""

import triton
import triton.language as tl
from harness import Case, T

ROWS, COLS = 8192, 8192
PROB = ROWS * COLS


@triton.jit
def flat_rowcol(x_ptr, scale_ptr, bias_ptr, y_ptr, total, n_cols, BLOCK: tl.constexpr):
    # y[r, c] = x[r, c] * scale[r] + bias[c] over the flat index: r = i // n_cols, c = i % n_cols
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < total
    r = i // n_cols
    c = i % n_cols
    x = tl.load(x_ptr + i, mask=m).to(tl.float32)
    s = tl.load(scale_ptr + r, mask=m).to(tl.float32)
    b = tl.load(bias_ptr + c, mask=m).to(tl.float32)
    tl.store(y_ptr + i, (x * s + b).to(tl.float16), mask=m)


@triton.jit
def flat_rowcol_const(x_ptr, scale_ptr, bias_ptr, y_ptr, total, N_COLS: tl.constexpr, BLOCK: tl.constexpr):
    # the same with the row length a compile-time constant
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < total
    r = i // N_COLS
    c = i % N_COLS
    x = tl.load(x_ptr + i, mask=m).to(tl.float32)
    s = tl.load(scale_ptr + r, mask=m).to(tl.float32)
    b = tl.load(bias_ptr + c, mask=m).to(tl.float32)
    tl.store(y_ptr + i, (x * s + b).to(tl.float16), mask=m)


@triton.jit
def tile_rowcol(x_ptr, scale_ptr, bias_ptr, y_ptr, n_cols, BLOCK_C: tl.constexpr):
    # the control: one program per row, the columns a tl.arange (no division)
    r = tl.program_id(0)
    for c0 in range(0, n_cols, BLOCK_C):
        c = c0 + tl.arange(0, BLOCK_C)
        m = c < n_cols
        x = tl.load(x_ptr + r * n_cols + c, mask=m).to(tl.float32)
        s = tl.load(scale_ptr + r).to(tl.float32)
        b = tl.load(bias_ptr + c, mask=m).to(tl.float32)
        tl.store(y_ptr + r * n_cols + c, (x * s + b).to(tl.float16), mask=m)


@triton.jit
def flat_nchw_channel(x_ptr, g_ptr, y_ptr, total, hw, channels, BLOCK: tl.constexpr):
    # a per-channel scale over an NCHW tensor: channel = (i // hw) % channels (two divisions an element)
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < total
    ch = (i // hw) % channels
    x = tl.load(x_ptr + i, mask=m).to(tl.float32)
    g = tl.load(g_ptr + ch, mask=m).to(tl.float32)
    tl.store(y_ptr + i, (x * g).to(tl.float16), mask=m)


def intdiv_cases():
    f16 = "float16"
    x, y = T((PROB,), f16), T((PROB,), f16)
    scale, bias = T((ROWS,), f16), T((COLS,), f16)
    rowcol_bytes = 2 * PROB * 2 + (ROWS + COLS) * 2
    out = []
    for block, warps in ((1024, 4), (4096, 8)):
        out.append(
            Case(
                f"flat_rowcol_runtime_b{block}w{warps}_d",
                "i // n, i % n by a runtime n (flat 2-D broadcast)",
                flat_rowcol,
                (triton.cdiv(PROB, block),),
                (x, scale, bias, y, PROB, COLS),
                dict(BLOCK=block, num_warps=warps),
                rowcol_bytes,
            )
        )
    out.append(
        Case(
            "flat_rowcol_const3000_d",
            "i // 3000, i % 3000 by a constexpr (not a power of two)",
            flat_rowcol_const,
            (triton.cdiv(ROWS * 3000, 1024),),
            (T((ROWS * 3000,), f16), scale, T((3000,), f16), T((ROWS * 3000,), f16), ROWS * 3000),
            dict(N_COLS=3000, BLOCK=1024, num_warps=4),
            2 * ROWS * 3000 * 2 + (ROWS + 3000) * 2,
        )
    )
    out.append(
        Case(
            "tile_rowcol_control_d",
            "the same broadcast, a program per row (no division)",
            tile_rowcol,
            (ROWS,),
            (x, scale, bias, y, COLS),
            dict(BLOCK_C=2048, num_warps=4),
            rowcol_bytes,
        )
    )
    n, c, hw = 32, 256, 96 * 96
    total = n * c * hw
    out.append(
        Case(
            "flat_nchw_channel_d",
            "(i // hw) % channels by runtime values (two divisions an element)",
            flat_nchw_channel,
            (triton.cdiv(total, 1024),),
            (T((total,), f16), T((c,), f16), T((total,), f16), total, hw, c),
            dict(BLOCK=1024, num_warps=4),
            2 * total * 2 + c * 2,
        )
    )
    return out

"""The small autotuned Triton kernel the CLI tests predict (written to a temporary file by conftest)."""

from __future__ import annotations

import textwrap

SCALE_KERNEL = textwrap.dedent(
    """
    import triton
    import triton.language as tl


    @triton.autotune(
        configs=[triton.Config({"BLOCK": 128}, num_warps=4), triton.Config({"BLOCK": 1024}, num_warps=4)],
        key=["n"],
    )
    @triton.jit
    def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        tl.store(y_ptr + offs, x * 2.0, mask=mask)
    """
)
SCALE_ARGS = "x_ptr=f32[n] y_ptr=f32[n] n=1048576"
SCALE_GRID = "cdiv(n, BLOCK)"

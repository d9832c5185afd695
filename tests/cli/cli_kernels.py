"""The small Triton kernel the CLI tests predict, autotuned and under a library's wrapper (written to
temporary files by the tests)."""

from __future__ import annotations

_IMPORTS = """
import triton
import triton.language as tl
"""
_SCALE_DEF = """
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 2.0, mask=mask)
"""
SCALE_KERNEL = (
    _IMPORTS
    + """

@triton.autotune(
    configs=[triton.Config({"BLOCK": 128}, num_warps=4), triton.Config({"BLOCK": 1024}, num_warps=4)],
    key=["n"],
)
@triton.jit"""
    + _SCALE_DEF
)
# the same kernel under a library's wrapper (FlagGems' ``@libentry()``: a cache keeping the kernel in ``.fn``)
WRAPPED_KERNEL = (
    _IMPORTS
    + """

class LibEntry:
    def __init__(self, fn):
        self.fn = fn


def libentry():
    return LibEntry


@libentry()
@triton.jit"""
    + _SCALE_DEF
)
SCALE_ARGS = "x_ptr=f32[n] y_ptr=f32[n] n=1048576"
SCALE_GRID = "cdiv(n, BLOCK)"

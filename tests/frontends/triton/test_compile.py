"""Compiling a bound kernel to TTIR/TTGIR on the CPU: what a kernel Triton refuses turns into."""

from __future__ import annotations

import inspect

import pytest

pytest.importorskip("triton")

import triton_fe_kernels as K

import tilesight
from tilesight import TensorSpec
from tilesight.errors import FrontendError, KernelCompileError, TileSightError


def _line_of(fn, text: str) -> int:
    """The file line of the first source line of ``fn`` containing ``text``."""
    lines, first = inspect.getsourcelines(fn.fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def test_code_generator_error_names_kernel_line_and_reason() -> None:
    x, y = TensorSpec((256,), "float32"), TensorSpec((512,), "float32")
    with pytest.raises(KernelCompileError) as info:
        tilesight.estimate(K.shape_mismatch, (1,), x, y, hw="h200", BLOCK=256)
    err = info.value
    line = _line_of(K.shape_mismatch, "x + tl.arange(0, 2 * BLOCK)")
    assert err.location == f"triton_fe_kernels.py:{line}"
    assert err.kernel == "shape_mismatch" and err.compiler_error == "CompilationError"
    assert "incompatible dimensions" in err.reason and "256 and 512" in err.reason
    text = str(err)
    assert text.startswith("Triton ") and f"kernel 'shape_mismatch' at triton_fe_kernels.py:{line}" in text
    assert "(in `tl.store(y_ptr + offs, x + tl.arange(0, 2 * BLOCK))`)" in text and "\n" not in text
    # the excerpt keeps Triton's caret under the failing column
    assert err.excerpt.splitlines()[-1].strip() == "^"
    assert isinstance(err, FrontendError) and isinstance(err, TileSightError)
    assert isinstance(err.__cause__, Exception) and type(err.__cause__).__name__ == "CompilationError"


def test_static_assert_is_named_as_such() -> None:
    x = TensorSpec((128,), "float32")
    with pytest.raises(KernelCompileError) as info:
        tilesight.estimate(K.bounded_block, (1,), x, hw="h200", BLOCK=128)
    err = info.value
    assert err.compiler_error == "CompileTimeAssertionFailure"
    assert err.reason == "BLOCK must be at most 64"
    assert err.location == f"triton_fe_kernels.py:{_line_of(K.bounded_block, 'tl.static_assert')}"
    # the same kernel within its bound compiles and predicts
    assert tilesight.estimate(K.bounded_block, (1,), x, hw="h200", BLOCK=64).latency_s > 0

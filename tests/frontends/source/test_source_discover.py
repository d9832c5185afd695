"""Source discovery reads kernels with libcst and never imports the file."""

from __future__ import annotations

import keyword
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tilesight.frontends.source import (
    KernelKind,
    KernelNotFoundError,
    SourceError,
    discover,
    discover_source,
    find_kernel,
)

from tilesight.errors import TileSightError

TRITON_FILE = textwrap.dedent(
    """
    import triton
    import triton.language as tl
    from triton import jit as J
    import tilesight

    CONFIGS = [
        triton.Config({"BLOCK": 64}, num_warps=4),
        triton.Config({"BLOCK": 128}, num_warps=8, num_stages=4),
    ]

    @triton.autotune(configs=CONFIGS, key=["n"])
    @triton.heuristics({"EVEN": lambda a: a["n"] % a["BLOCK"] == 0})
    @tilesight.predict(hw="h200")
    @J
    def scale(x_ptr, n, alpha=2.0, BLOCK: tl.constexpr = 64, EVEN: "tl.constexpr" = False):
        pass

    @triton.autotune(configs=[triton.Config({"BLOCK": b}) for b in (32, 64)], key=("n",))
    @triton.jit
    def computed(x_ptr, n, BLOCK: tl.constexpr):
        pass

    def helper(x):
        return x
    """
)

TILELANG_FILE = textwrap.dedent(
    """
    import tilelang
    import tilelang.language as T

    def gemm(M, N, block_M=128):
        @T.prim_func
        def main(A: T.Tensor((M, N), "float16")):
            pass

        return main

    @tilelang.jit(out_idx=[-1])
    def jitted(M, N):
        @T.prim_func
        def kernel(A: T.Tensor((M, N), "float16")):
            pass

        return kernel
    """
)


def test_triton_kernel_with_autotune_heuristics_and_predict() -> None:
    kernels = discover_source(TRITON_FILE, "k.py")
    assert [k.qualname for k in kernels] == ["scale", "computed"]
    scale = kernels[0]
    assert scale.kind is KernelKind.TRITON
    # `def scale` is line 16 of the dedented text (line 1 is the blank after the opening quotes), its first
    # decorator line 12, the `pass` line 17.
    assert (scale.first_line, scale.line, scale.end_line) == (12, 16, 17)
    assert scale.runtime_params == ("x_ptr", "n", "alpha")
    assert scale.constexprs == ("BLOCK", "EVEN")  # the string annotation counts too
    assert scale.params[2].default == "2.0"
    assert scale.heuristics == ("EVEN",)
    assert dict(scale.predict) == {"hw": '"h200"'}
    tune = scale.autotune
    assert tune is not None and tune.static and tune.key == ("n",)
    assert [c.as_config() for c in tune.configs] == [
        {"BLOCK": 64, "num_warps": 4},
        {"BLOCK": 128, "num_warps": 8, "num_stages": 4},
    ]
    assert tune.configs[1].line == 9


def test_computed_configs_are_kept_as_source() -> None:
    computed = discover_source(TRITON_FILE, "k.py")[1]
    assert computed.autotune is not None
    assert not computed.autotune.static and computed.autotune.configs == ()
    assert computed.autotune.configs_source == '[triton.Config({"BLOCK": b}) for b in (32, 64)]'
    assert computed.autotune.key == ("n",)


def test_tilelang_factories_and_prim_funcs() -> None:
    kernels = discover_source(TILELANG_FILE, "t.py")
    assert [(k.qualname, k.kind) for k in kernels] == [
        ("gemm.main", KernelKind.TILELANG_PRIM_FUNC),
        ("jitted", KernelKind.TILELANG_JIT),
        ("jitted.kernel", KernelKind.TILELANG_PRIM_FUNC),
    ]
    assert kernels[0].params[0].annotation == 'T.Tensor((M, N), "float16")'
    assert kernels[1].runtime_params == ("M", "N")


def test_discovery_never_imports(tmp_path: Path) -> None:
    src = tmp_path / "k.py"
    src.write_text("import no_such_module_anywhere\nraise SystemExit(3)\n" + TRITON_FILE)
    assert [k.name for k in discover(src)] == ["scale", "computed"]


def test_reference_gemm_kernel() -> None:
    path = Path(__file__).parents[3] / "kernels" / "triton" / "gemm.py"
    (kernel,) = discover(path)
    assert kernel.name == "matmul_kernel"
    assert kernel.constexprs == ("BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M")
    assert len(kernel.runtime_params) == 12


def test_syntax_error_names_file_line_and_column() -> None:
    # column 10 (1-based) is the stray ":" in "def f(a, :"
    with pytest.raises(SourceError, match=r"^bad\.py:2:10: syntax error: "):
        discover_source("import triton\ndef f(a, :\n    pass\n", "bad.py")


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="cannot read"):
        discover(tmp_path / "nope.py")


def test_kernel_not_found_lists_the_kernels() -> None:
    kernels = discover_source(TRITON_FILE, "k.py")
    assert find_kernel(kernels, "computed", "k.py").name == "computed"
    with pytest.raises(
        KernelNotFoundError, match=r"k\.py: no kernel named 'helper'; kernels found: scale, computed"
    ):
        find_kernel(kernels, "helper", "k.py")
    assert issubclass(KernelNotFoundError, TileSightError)


_names = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True).filter(lambda s: not keyword.iskeyword(s))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(_names, st.booleans()), min_size=1, max_size=6, unique_by=lambda t: t[0]))
def test_parameters_round_trip(params: list[tuple[str, bool]]) -> None:
    """Whatever the parameter list, discovery reports each name, in order, with its constexpr flag."""
    sig = ", ".join(f"{n}: tl.constexpr" if c else n for n, c in params)
    src = f"import triton\nimport triton.language as tl\n\n@triton.jit\ndef k({sig}):\n    pass\n"
    (kernel,) = discover_source(src)
    assert [(p.name, p.constexpr) for p in kernel.params] == params

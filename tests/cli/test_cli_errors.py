"""Every bad input ends in one line on stderr and exit code 2, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_kernels import SCALE_ARGS, SCALE_GRID

from tilesight.cli import main


def fails(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    assert rc == 2, (out, err)
    assert out == ""
    assert err.startswith("tilesight: error: ") and err.count("\n") == 1 and "Traceback" not in err
    return err


def test_file_that_does_not_parse(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import triton\n\ndef k(x:\n    pass\n")
    err = fails(capsys, "predict", f"{bad}::k", "--args", "x=f16[4]")
    assert f"{bad}:3:" in err and "syntax error" in err  # file and line of the unclosed parenthesis
    err = fails(capsys, "kernels", str(bad))
    assert f"{bad}:3:" in err


def test_kernel_not_found_lists_found(scale_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = fails(capsys, "predict", f"{scale_file}::nope", "--args", SCALE_ARGS, "--grid", SCALE_GRID)
    assert "no kernel named 'nope'; kernels found: scale_kernel" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ("x_ptr=f32[n", "is not a tensor"),
        ("x_ptr", "is not NAME=VALUE"),
        ('{"x_ptr": ', "invalid JSON"),
        ("x_ptr=f99[4]", "unknown element type"),
        ("x_ptr=f32[4] y_ptr=f32[4] n=4 z=1", "'z' is not a parameter of scale_kernel, and no shape"),
        ("x_ptr=f32[4] n=4", "needs y_ptr"),
    ],
)
def test_malformed_args(
    scale_file: Path, capsys: pytest.CaptureFixture[str], args: str, message: str
) -> None:
    err = fails(capsys, "predict", f"{scale_file}::scale_kernel", "--args", args, "--grid", SCALE_GRID)
    assert message in err


def test_bad_config_and_grid(scale_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = f"{scale_file}::scale_kernel"
    err = fails(capsys, "predict", target, "--args", SCALE_ARGS, "--grid", SCALE_GRID, "--config", "BLOK=4")
    assert "'BLOK' is neither a constexpr of scale_kernel" in err
    err = fails(capsys, "predict", target, "--args", SCALE_ARGS, "--config", "BLOCK=128")
    assert "--grid" in err
    err = fails(
        capsys, "predict", target, "--args", SCALE_ARGS, "--config", "BLOCK=128", "--grid", "import os"
    )
    assert "--grid" in err


def test_unknown_gpu(scale_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = fails(capsys, "predict", f"{scale_file}::scale_kernel", "--args", SCALE_ARGS, "--hw", "h999")
    assert "unknown hardware profile 'h999'; known profiles: " in err and "h200" in err


def test_missing_baseline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    toml = tmp_path / "tilesight.toml"
    toml.write_text('[[kernel]]\nname = "a"\ntarget = "a.py::k"\n')
    err = fails(capsys, "check", "--config-file", str(toml))
    assert "tilesight-baseline.json: no baseline file; create it with `tilesight check --update`" in err


def test_missing_file_and_usage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "no such file" in fails(capsys, "predict", f"{tmp_path}/none.py::k")
    assert "expected FILE.py::KERNEL" in fails(capsys, "predict", "notpython::k")
    assert "invalid choice" in fails(capsys, "frobnicate")
    assert "required" in fails(capsys)


def test_kernel_triton_cannot_compile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "mismatch.py"
    src.write_text(
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef k(x_ptr, BLOCK: tl.constexpr):\n"
        "    offs = tl.arange(0, BLOCK)\n"
        "    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + tl.arange(0, 2 * BLOCK))\n"
    )
    err = fails(capsys, "predict", f"{src}::k", "--args", "x_ptr=f32[256] BLOCK=128", "--grid", "1")
    assert "could not compile kernel 'k' at mismatch.py:8 with these arguments and config" in err
    assert "128 and 256" in err and "tl.arange(0, 2 * BLOCK)" in err


TILELANG_BAD_FACTORY = """import tilelang.language as T


def gemm_bad(M=256, N=256, K=256, block_M=128, block_N=128, block_K=32):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_s = T.alloc_shared((block_M, block_K), "float16")
            B_s = T.alloc_shared((block_N, block_K), "float16")
            C_l = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[by * block_M, k * block_K], A_s)
                T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C[by * block_M, bx * block_N])

    return main
"""


def test_tilelang_factory_that_tilelang_refuses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("tilelang")
    src = tmp_path / "bad_gemm.py"
    src.write_text(TILELANG_BAD_FACTORY)
    err = fails(capsys, "predict", f"{src}::gemm_bad", "--hw", "h200")
    # TileLang's own shape check, at the T.gemm line (14) of the factory, in one line
    assert "TileLang " in err and "could not compile kernel 'gemm_bad' at bad_gemm.py:14" in err
    assert "AssertionError: T.gemm K shape check failed" in err and "(in `T.gemm(A_s, B_s, C_l)`)" in err


def test_usage_errors_name_the_command_once(capsys: pytest.CaptureFixture[str]) -> None:
    err = fails(capsys)
    assert err == (
        "tilesight: error: the following arguments are required: COMMAND (see `tilesight --help`)\n"
    )
    err = fails(capsys, "estimate")
    assert err.startswith("tilesight: error: argument COMMAND: invalid choice: 'estimate'")
    assert err.count("tilesight") == 2  # the prefix and the pointer to --help, not a second prefix
    err = fails(capsys, "predict", "--no-such-flag")
    assert err.startswith("tilesight: error: predict: ") and "(see `tilesight predict --help`)" in err
    err = fails(capsys, "profiles", "--no-such-flag")  # a subcommand whose own arguments are all met
    assert err == (
        "tilesight: error: profiles: unrecognized arguments: --no-such-flag"
        " (see `tilesight profiles --help`)\n"
    )

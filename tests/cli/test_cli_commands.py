"""Every command, text and --json, run in-process through ``tilesight.cli.main`` on a real (small) kernel."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_kernels import SCALE_ARGS, SCALE_GRID, WRAPPED_KERNEL

from tilesight.cli import main

pytest.importorskip("triton")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def launch(path: Path, *extra: str) -> list[str]:
    return [f"{path}::scale_kernel", "--args", SCALE_ARGS, "--grid", SCALE_GRID, *extra]


def test_predict_text_and_json(scale_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "predict", *launch(scale_file, "--config", "BLOCK=1024 num_warps=4"))
    assert rc == 0 and "scale_kernel on h200" in out
    rc, out, _ = run(capsys, "predict", *launch(scale_file, "--config", "BLOCK=1024", "--json"))
    doc = json.loads(out)
    assert rc == 0 and doc["config"] == {"BLOCK": 1024}
    assert doc["report"]["latency_s"] > 0 and doc["report"]["hw"] == "h200"
    # 1048576 elements / 1024 per block = 1024 blocks
    assert doc["report"]["occupancy"]["blocks"] == 1024


def test_size_variables_the_kernel_does_not_take(
    scale_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``L`` is no parameter of scale_kernel: the shapes, the alias ``n=L`` and the grid use it, and the
    prediction is the one the kernel's own ``n`` gives."""
    config = ["--config", "BLOCK=1024", "--json"]
    rc, out, _ = run(capsys, "predict", *launch(scale_file, *config))
    assert rc == 0
    direct = json.loads(out)["report"]
    argv = ["--args", "x_ptr=f32[L] y_ptr=f32[L] n=L L=1048576", "--grid", "cdiv(L, BLOCK)", *config]
    rc, out, err = run(capsys, "predict", f"{scale_file}::scale_kernel", *argv)
    assert rc == 0, err
    sized = json.loads(out)["report"]
    assert sized["latency_s"] == direct["latency_s"] and sized["occupancy"]["blocks"] == 1024


def test_registers_option_reaches_the_frontend(scale_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a 1024-element block on 4 warps is far from the register limit: "auto" leaves ptxas out, "ptxas" asks it
    notes = {}
    for mode in ("auto", "ptxas"):
        argv = launch(scale_file, "--config", "BLOCK=1024", "--registers", mode, "--json")
        rc, out, _ = run(capsys, "predict", *argv)
        assert rc == 0
        notes[mode] = [n for n in json.loads(out)["report"]["notes"] if n.startswith("registers per thread")]
    assert "ptxas not run" in notes["auto"][0]
    assert notes["ptxas"][0].startswith("registers per thread from ptxas")
    rc, _, err = run(capsys, "predict", *launch(scale_file, "--config", "BLOCK=1024", "--registers", "fast"))
    assert rc == 2 and "invalid choice: 'fast'" in err


def test_rank_settles_its_best_with_ptxas_registers(
    scale_file: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # say ptxas's registers make the estimate's best 1 s slow: the best is predicted again with
    # registers="auto", the rows re-sorted, and the new best predicted again too; then it stops
    import dataclasses
    from types import SimpleNamespace

    import tilesight.cli.rank as cli_rank

    real, modes = cli_rank.predict, []

    def predict(kernel, launch):
        modes.append((launch.registers, launch.config["BLOCK"]))
        got = real(kernel, launch)
        if [m for m in modes if m[0] == "auto"] == [modes[-1]] and launch.registers == "auto":
            return SimpleNamespace(report=dataclasses.replace(got.report, latency_s=1.0))
        return got

    monkeypatch.setattr(cli_rank, "predict", predict)
    rc, out, _ = run(capsys, "rank", *launch(scale_file, "--sweep", "BLOCK=256,512", "--json"))
    ranking = json.loads(out)["ranking"]
    first, second = (m[1] for m in modes if m[0] == "auto")
    assert rc == 0 and [r["config"]["BLOCK"] for r in ranking] == [second, first] and first != second
    assert ranking[1]["latency_s"] == 1.0 and modes[0][0] == "estimate"


def test_rank_autotune_configs_and_sweep(scale_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "rank", *launch(scale_file, "--json"))
    ranking = json.loads(out)["ranking"]
    assert rc == 0 and sorted(r["config"]["BLOCK"] for r in ranking) == [128, 1024]
    latencies = [r["latency_s"] for r in ranking]
    assert latencies == sorted(latencies) and [r["rank"] for r in ranking] == [1, 2]
    rc, out, _ = run(capsys, "rank", *launch(scale_file, "--sweep", "BLOCK=256,512 num_warps=2,4", "--json"))
    assert rc == 0 and len(json.loads(out)["ranking"]) == 4  # 2 x 2
    rc, out, _ = run(capsys, "rank", *launch(scale_file))
    assert rc == 0 and "2 configs, fastest first" in out


def test_explain(scale_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "explain", *launch(scale_file, "--config", "BLOCK=128 num_warps=4", "--json"))
    d = json.loads(out)["diagnosis"]
    assert rc == 0 and d["kernel"] == "scale_kernel" and isinstance(d["findings"], list)
    rc, out, _ = run(capsys, "explain", *launch(scale_file, "--config", "BLOCK=128 num_warps=4"))
    assert rc == 0 and "tilesight explain" in out


def test_timeline_png_and_json(scale_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    png = tmp_path / "t.png"
    rc, out, _ = run(
        capsys, "timeline", *launch(scale_file, "--config", "BLOCK=1024", "-o", str(png), "--json")
    )
    assert rc == 0 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    doc = json.loads(out)
    assert doc["output"] == str(png) and doc["timeline"]["lanes"]
    rc, out, _ = run(capsys, "timeline", *launch(scale_file, "--config", "BLOCK=1024", "-o", str(png)))
    assert rc == 0 and out.startswith(f"wrote {png}")


def test_kernels_and_profiles(scale_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "kernels", str(scale_file), "--json")
    (k,) = json.loads(out)["kernels"]
    assert rc == 0 and k["name"] == "scale_kernel" and k["constexprs"] == ["BLOCK"]
    assert len(k["autotune"]["configs"]) == 2
    rc, out, _ = run(capsys, "kernels", str(scale_file))
    assert rc == 0 and "scale_kernel" in out
    rc, out, _ = run(capsys, "profiles", "--json")
    assert rc == 0 and "h200" in [p["name"] for p in json.loads(out)["profiles"]]
    rc, out, _ = run(capsys, "profiles")
    assert rc == 0 and "h200" in out


def test_check_update_pass_and_regress(
    scale_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    toml = tmp_path / "tilesight.toml"
    entry = f'[[kernel]]\nname = "scale"\ntarget = "scale.py::scale_kernel"\nargs = "{SCALE_ARGS}"\n'
    entry += f'grid = "{SCALE_GRID}"\n'
    toml.write_text(entry + 'config = "BLOCK=1024 num_warps=4"\n')
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    rc, out, _ = run(capsys, "check", "--update")
    assert rc == 0 and "1 entries" in out and (tmp_path / "tilesight-baseline.json").is_file()
    rc, out, _ = run(capsys, "check", "--json")
    assert rc == 0 and json.loads(out)["rows"][0]["status"] == "ok"
    toml.write_text(entry + 'config = "BLOCK=32 num_warps=4"\n')  # 32x more blocks: slower
    rc, out, _ = run(capsys, "check")
    assert rc == 1 and "regressed" in out and "scale@h200" in out
    rc, out, _ = run(capsys, "check", "--json")
    doc = json.loads(out)
    assert rc == 1 and doc["failed"] and doc["rows"][0]["ratio"] > 1.05


def test_tilelang_factory_through_its_prim_func(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("tilelang")
    gemm = Path(__file__).parents[2] / "kernels" / "tilelang" / "gemm.py"
    argv = [f"{gemm}::gemm", "--args", "M=256 N=256 K=256", "--config", "block_M=64 block_N=64", "--json"]
    rc, out, _ = run(capsys, "predict", *argv)
    report = json.loads(out)["report"]
    # 256 / 64 = 4 tiles per side: 16 blocks
    assert rc == 0 and report["occupancy"]["blocks"] == 16


DYNAMIC_GEMM = """
import tilelang.language as T

M, K = T.dynamic("m"), T.dynamic("k")


@T.prim_func
def gemm(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, 256), "float16"), C: T.Tensor((M, 256), "float16")):
    with T.Kernel(4, T.ceildiv(M, 64), threads=128) as (bx, by):
        a = T.alloc_shared((64, 32), "float16")
        b = T.alloc_shared((32, 64), "float16")
        c = T.alloc_fragment((64, 64), "float32")
        T.clear(c)
        for k in T.Pipelined(T.ceildiv(K, 32), num_stages=2):
            T.copy(A[by * 64, k * 32], a)
            T.copy(B[k * 32, bx * 64], b)
            T.gemm(a, b, c)
        T.copy(c, C[by * 64, bx * 64])
"""


def test_tilelang_dynamic_shapes_bound_by_args(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("tilelang")
    src = tmp_path / "dyn_gemm.py"
    src.write_text(DYNAMIC_GEMM)
    rc, out, _ = run(capsys, "predict", f"{src}::gemm", "--args", "m=512 k=128", "--json")
    report = json.loads(out)["report"]
    assert rc == 0 and report["occupancy"]["blocks"] == 4 * 8  # 256 / 64 by 512 / 64
    rc, _, err = run(capsys, "predict", f"{src}::gemm", "--args", "m=512")
    assert rc != 0 and "leaves k (the shape of buffer 'A') open" in err


def test_tilelang_varlen_offsets_by_their_contents(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("tilelang")
    fa = Path(__file__).parents[2] / "kernels" / "tilelang" / "flash_attention.py"
    config = "batch=2 total_q=300 total_kv=300 heads=4 dim=64"
    offsets = "cu_seqlens_q=int32{0,100,300} cu_seqlens_k=int32{0,100,300} max_seqlen_q=200"
    rc, out, _ = run(
        capsys,
        "predict",
        f"{fa}::flash_attention_varlen_fwd",
        "--config",
        config,
        "--args",
        offsets,
        "--json",
    )
    report = json.loads(out)["report"]
    # ceil(200 / 64) = 4 query blocks per (head, sequence): 4 x 4 heads x 2 sequences
    assert rc == 0 and report["occupancy"]["blocks"] == 32
    rc, _, err = run(
        capsys,
        "predict",
        f"{fa}::flash_attention_varlen_fwd",
        "--config",
        config,
        "--args",
        "max_seqlen_q=200",
    )
    assert rc != 0 and "cu_seqlens_q" in err


def test_ptxas_option_names_the_ptxas_the_registers_come_from(
    scale_file: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from tilesight.frontends.triton import ptxas
    from triton import knobs

    monkeypatch.setenv(ptxas.PTXAS_ENV, "")  # unset (empty) now; what the option sets here is undone after
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    bundled = knobs.nvidia.ptxas.path
    argv = launch(scale_file, "--config", "BLOCK=1024", "--registers", "ptxas", "--ptxas", bundled, "--json")
    rc, out, _ = run(capsys, "predict", *argv)
    assert rc == 0
    note = next(n for n in json.loads(out)["report"]["notes"] if n.startswith("registers per thread"))
    release = ptxas.target_ptxas().release
    assert f"compiled on the CPU by the $TILESIGHT_PTXAS ptxas, release {release})" in note
    rc, _, err = run(capsys, "predict", *launch(scale_file, "--ptxas", str(tmp_path / "nowhere")))
    assert rc == 2 and "$TILESIGHT_PTXAS=" in err and "no executable file" in err


def test_predict_reads_a_kernel_under_a_library_wrapper(
    scale_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # was "'scale_kernel' is a LibEntry, not a triton JITFunction"; the prediction is the plain kernel's
    path = tmp_path / "wrapped.py"
    path.write_text(WRAPPED_KERNEL)
    rc, out, _ = run(capsys, "predict", *launch(path, "--config", "BLOCK=1024 num_warps=4", "--json"))
    assert rc == 0
    wrapped = json.loads(out)["report"]
    rc, out, _ = run(capsys, "predict", *launch(scale_file, "--config", "BLOCK=1024 num_warps=4", "--json"))
    plain = json.loads(out)["report"]
    assert wrapped["latency_s"] == plain["latency_s"]
    # and says what it read, as the API's report does: the wrapper's own work is not in the prediction
    note = (
        "read the @triton.jit kernel wrapped.py's LibEntry wraps (its .fn); the wrapper itself is not "
        "modelled"
    )
    assert note in wrapped["notes"] and note not in plain["notes"]

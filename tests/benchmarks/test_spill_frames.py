"""benchmarks/spill_frames.py: the SASS loop reader, on hand-written cuobjdump lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SASS = """
        /*0000*/                   MOV R1, c[0x0][0x28] ;
        /*0010*/                   STL [R1], R4 ;
        /*0020*/                   LDL.LU R8, [R1] ;
        /*0030*/                   LDL.64 R10, [R1+0x8] ;
        /*0040*/                   HGMMA.64x128x16.F32 R24, gdesc[UR4], R24 ;
        /*0050*/                   STL.128 [R1+0x10], R12 ;
        /*0060*/              @!P0 BRA 0x20 ;
        /*0070*/                   LDL R2, [R1+0x20] ;
        /*0080*/              @P1 BRA 0x60 ;
        /*0090*/                   EXIT ;
"""


@pytest.fixture(scope="module")
def spill_frames(load_script):
    pytest.importorskip("triton")
    return load_script("benchmarks/spill_frames.py")


def test_loop_local_bytes_reads_the_longest_loop(spill_frames):
    # loops: 0x20..0x60 (5 instructions) and 0x60..0x80 (3); the longer one loads LDL.LU 4 + LDL.64 8 = 12
    # bytes and stores STL.128 16; the STL before it and the LDL after it are outside
    assert spill_frames.loop_local_bytes(SASS) == (12, 16)
    assert spill_frames.loop_local_bytes("        /*0000*/   EXIT ;") == (0, 0)


def test_loop_local_bytes_can_read_the_innermost_loop_of_matrix_instructions(spill_frames):
    # a loop over tiles (0x10..0x90) around a K loop (0x30..0x70) that holds the HGMMA: the K loop's LDL 4 and
    # STL.64 8 bytes, not the outer loop's too; a loop with no matrix instruction is no K loop
    sass = """
        /*0000*/                   MOV R1, c[0x0][0x28] ;
        /*0010*/                   LDL.128 R4, [R1+0x40] ;
        /*0020*/                   STL [R1+0x50], R4 ;
        /*0030*/                   LDL R8, [R1] ;
        /*0040*/                   HGMMA.64x128x16.F32 R24, gdesc[UR4], R24 ;
        /*0050*/                   STL.64 [R1+0x8], R10 ;
        /*0070*/              @P0 BRA 0x30 ;
        /*0080*/                   STL [R1+0x60], R2 ;
        /*0090*/              @P1 BRA 0x10 ;
        /*00a0*/                   EXIT ;
"""
    assert spill_frames.loop_local_bytes(sass, innermost_mma=True) == (4, 8)
    assert spill_frames.loop_local_bytes(sass) == (4 + 16, 8 + 4 + 4)
    assert spill_frames.loop_local_bytes(SASS.replace("HGMMA", "IADD3"), innermost_mma=True) == (0, 0)


def test_reload_runs_are_counted_in_the_k_loop(spill_frames):
    # the K loop of SASS (0x20..0x60): LDL.LU then LDL.64 back to back (a run of 2) before the HGMMA; the LDL
    # after the loop is outside it; no loop of matrix instructions, no runs
    assert spill_frames.loop_reload_runs(SASS) == [2]
    assert spill_frames.loop_reload_runs(SASS.replace("HGMMA", "IADD3")) == []


def test_load_stops_are_counted_in_the_k_loop(spill_frames):
    # a K loop (0x10..0x60) that stores each element-wide load as it arrives (two stops for an LDG), then
    # reloads a spilled address and uses it (one reload stop) before its HGMMA
    sass = "\n".join(
        f"        /*{16 * i:04x}*/   {text} ;"
        for i, text in enumerate([
            "MOV R1, c[0x0][0x28]",
            "LDG.E.U16 R10, desc[UR4][R2.64]",
            "STS.U16 [R20], R10",
            "LDG.E.U16 R11, desc[UR4][R4.64]",
            "STS.U16 [R20+0x2], R11",
            "LDL R6, [R1+0x8]",
            "IMAD R7, R6, R6, RZ",
            "HGMMA.64x128x16.F32 R24, gdesc[UR4], R24",
            "@!P0 BRA 0x10",
            "EXIT",
        ])
    )  # fmt: skip
    assert spill_frames.loop_load_stops(sass) == (2, 2, 1)
    assert spill_frames.loop_load_stops(sass.replace("HGMMA", "IADD3")) == (0, 0, 0)


def test_spill_rate_is_the_loop_traffic_over_the_measured_time(spill_frames):
    # 100 + 28 bytes a thread an iteration x 128 threads x 132 tiles x 10 iterations in 10 us over 132 SMs:
    # 128 x 128 x 10 / 10e-6 = 16.384 GB/s an SM
    row = {"loop_ldl_bytes": 100, "loop_stl_bytes": 28, "num_warps": 4, "tiles": 132, "k_iterations": 10,
           "measured_us": 10.0}  # fmt: skip
    assert spill_frames.rate_gb_s(row) == pytest.approx(16.384)


def test_config_key_drops_only_the_shape(spill_frames):
    a = {"id": "gemm/grouped/float16/sq4096/m128n64k128w2s4g8"}
    b = {"id": "gemm/grouped/float16/llm_up/m128n64k128w2s4g8"}
    c = {"id": "gemm/grouped/float16/unaligned/m128n64k128w2s4g8"}
    assert (
        spill_frames._config_key(a)
        == spill_frames._config_key(b)
        == "grouped/float16/m128n64k128w2s4g8/aligned"
    )
    assert spill_frames._config_key(c).endswith("/unaligned")


def test_recipes_report_counts_exact_matches_of_the_gpu_s_registers_and_frame(spill_frames, tmp_path, capsys):
    rows = [
        {"id": "a", "gpu": [168, 8], "here": [176, 0], "ptxas": [168, 8]},
        {"id": "b", "gpu": [255, 2856], "here": [255, 2856], "ptxas": [255, 2856]},
        {"id": "c", "gpu": [109, 0], "here": [116, 0], "ptxas": [116, 0]},
    ]
    path = tmp_path / "recipes.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert spill_frames.report_recipes(path) == 0
    out = capsys.readouterr().out
    assert "3 GEMM launches" in out and "compile 1, from the PTX" in out and "Triton 3.6 runs it 2" in out
    # only the launch the other ptxas alone gets right is listed
    assert "  a: GPU [168, 8], here [176, 0], other ptxas [168, 8]" in out and "  c:" not in out


def test_the_cubin_is_assembled_by_the_ptxas_the_setting_names(spill_frames, monkeypatch, tmp_path):
    # a ptxas that only answers --version stands in; the compile is stopped where it would start, and the
    # path it was handed is the one $TILESIGHT_PTXAS names
    from tilesight.frontends.triton import ptxas

    from tilesight.hardware import load_profile

    fake = tmp_path / "ptxas"
    fake.write_text(
        "#!/bin/sh\necho 'ptxas: NVIDIA (R) Ptx optimizing assembler'\n"
        "echo 'Cuda compilation tools, release 12.8, V12.8.93'\n"
    )
    fake.chmod(0o755)
    monkeypatch.setenv(ptxas.PTXAS_ENV, str(fake))
    handed = []

    class Stop(Exception):
        pass

    def compile_cubin(fn, binding, hw, ptxas_path=None):
        handed.append(ptxas_path)
        raise Stop

    monkeypatch.setattr(ptxas, "_compile_cubin", compile_cubin)
    path = ROOT / "benchmarks" / "data" / "triton_gemm.jsonl"
    record = json.loads(path.read_text().splitlines()[0])
    launch = spill_frames.accuracy.rebuild(record, f"{path}:1")
    with pytest.raises(Stop):
        spill_frames._cubin_sass(launch, load_profile("h200"))
    assert handed == [str(fake)]

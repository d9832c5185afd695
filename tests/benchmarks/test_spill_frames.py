"""benchmarks/spill_frames.py: the SASS loop reader, on hand-written cuobjdump lines."""

from __future__ import annotations

import importlib.util
import sys
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
def spill_frames():
    pytest.importorskip("triton")
    sys.path.insert(0, str(ROOT / "benchmarks"))
    spec = importlib.util.spec_from_file_location("spill_frames", ROOT / "benchmarks" / "spill_frames.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_loop_local_bytes_reads_the_longest_loop(spill_frames):
    # loops: 0x20..0x60 (5 instructions) and 0x60..0x80 (3); the longer one loads LDL.LU 4 + LDL.64 8 = 12
    # bytes and stores STL.128 16; the STL before it and the LDL after it are outside
    assert spill_frames.loop_local_bytes(SASS) == (12, 16)
    assert spill_frames.loop_local_bytes("        /*0000*/   EXIT ;") == (0, 0)


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

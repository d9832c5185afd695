"""benchmarks/calibrate/math_sass.py: the main path through a function's SASS, on hand-written lines."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "benchmarks" / "calibrate"))

import math_sass  # noqa: E402

# 0x00-0x20 arithmetic and a branch at 0x20 over a loop (0x30-0x50, back edge at 0x50: a slow path) to 0x60;
# at 0x70 a special value's early exit to out-of-line code (0xc0: no loop between, so it falls through); the
# main path ends at 0xb0
SASS = """
        /*0000*/                   FFMA R0, R1, R2, R3 ;
        /*0010*/                   IMAD.MOV.U32 R4, RZ, RZ, 0x3f800000 ;
        /*0020*/              @!P1 BRA 0x60 ;
        /*0030*/                   IADD3 R6, R6, 0x1, RZ ;
        /*0040*/                   ISETP.NE.AND P2, PT, R6, R7, PT ;
        /*0050*/              @P2 BRA 0x30 ;
        /*0060*/                   LOP3.LUT R5, R0, 0x7fffffff, RZ, 0xc0, !PT ;
        /*0070*/                   FSETP.GT.AND P0, PT, R0, 1, PT ;
        /*0080*/              @P0 BRA 0xc0 ;
        /*0090*/                   MUFU.EX2 R8, R5 ;
        /*00a0*/                   FMUL R9, R8, R4 ;
        /*00b0*/                   EXIT ;
        /*00c0*/                   FADD R9, R0, R0 ;
        /*00d0*/                   EXIT ;
"""


def test_main_path_by_hand():
    path = math_sass.main_path(SASS)
    # FFMA, the move, the BRA over the loop (taken), LOP3, FSETP, the early-exit BRA (falls through), MUFU,
    # FMUL, EXIT; the loop's IADD3 / ISETP and the special value's FADD are not on it
    assert path == {
        "FFMA": 1, "IMAD.MOV": 1, "FSETP": 1, "BRA": 2, "LOP3": 1, "MUFU": 1, "FMUL": 1, "EXIT": 1,
    }  # fmt: skip
    assert math_sass.by_unit(path) == {"fp": 3, "int": 1, "mufu": 1}  # the move counts in neither

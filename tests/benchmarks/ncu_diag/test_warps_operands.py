"""benchmarks/ncu_diag/warps.py's operand table: the data stage's wavefronts beside the warpgroup MMAs'
operand reads counted per instruction and once per tile, on hand-made counters."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def warps(load_script):
    return load_script("benchmarks/ncu_diag/warps.py")


def test_operand_rows_count_each_instruction_s_operands(warps):
    # 1024^3 fp16 = 2147.48 MFLOP on m64n128k16 instructions (262,144 FLOP each): 8192 of them, 32,768 warp
    # instructions. Each reads A 64 x 16 and B 16 x 128 at 2 bytes: 6144 B, 48 wavefronts of 128 B, so
    # 393,216 wavefronts, 183.1 a MFLOP. A 128 x 128 tile reading each operand once moves 1024^3 x (1/128 +
    # 1/128) x 2 B = 33.5 MB: 262,144 wavefronts, 122.1 a MFLOP. 419,430 measured wavefronts: 195.3 a MFLOP.
    ncu = {
        "m128n128k64w8s3g8": {warps.WAVEFRONTS: 419_430.0, warps.GMMA_WARP_INSTRUCTIONS: 32_768.0},
        "m64n64k64w4s3g8": {warps.WAVEFRONTS: 1.0},  # no instruction count: left out
    }
    ((case, n, waves, per_instruction, once),) = warps.operand_rows(ncu, size=1024)
    assert case == "m128n128k64w8s3g8" and n == 128
    assert waves == pytest.approx(195.31, abs=0.01)
    assert per_instruction == pytest.approx(183.11, abs=0.01)
    assert once == pytest.approx(122.07, abs=0.01)

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


def test_copy_wavefronts_solve_recovers_hand_made_costs(warps):
    # steps built from 4 / 6 wavefronts an LDSM (plain / transposed), 5.5 an 8-byte copy and none a 16-byte
    # one: the solve gives them back and the fitted totals
    cost = dict(zip(warps.COPY_COLUMNS, (4.0, 6.0, 5.5, 0.0), strict=True))
    steps = [
        {"LDSM.16.M88.4": 16, "LDSM.16.MT88.4": 8, "LDGSTS.E.64": 16, "HMMA.16816.F32": 16},
        {"LDSM.16.M88.4": 8, "LDSM.16.MT88.4": 8, "LDGSTS.E.BYPASS.128": 8},
        {"LDSM.16.M88.4": 16, "LDSM.16.MT88.4": 16, "LDGSTS.E.64": 8, "LDGSTS.E.BYPASS.128": 8},
        {"LDSM.16.M88.4": 16, "LDSM.16.MT88.4": 8, "LDGSTS.E.BYPASS.128": 12},
        {"LDSM.16.M88.4": 64, "LDSM.16.MT88.4": 32, "LDGSTS.E.BYPASS.128": 64},
    ]
    rows = [(s, sum(cost[c] * s.get(c, 0) for c in warps.COPY_COLUMNS)) for s in steps]
    solution, fitted = warps.solve_copy_wavefronts(rows)
    assert solution == pytest.approx(cost, abs=1e-9)
    assert fitted == pytest.approx([w for _, w in rows])
    # steps that would need a negative cost (the 16-byte-only ones 30 wavefronts under what their LDSMs take
    # elsewhere): no cost comes out negative
    lower = [(s, w - (30.0 if "LDGSTS.E.64" not in s else 0.0)) for s, w in rows]
    assert min(warps.solve_copy_wavefronts(lower)[0].values()) >= 0.0


def test_copy_width_rows_per_instruction_and_per_warp_step(warps):
    # 1024^3 with 32 x 32 x 32 tiles: 32 x 32 x 32 = 32,768 block K steps; 8 warps. 100,000 8-byte copies
    # taking 400,000 wavefronts (4 each, 200,000 of them conflicts), 50,000 LDSM at 200,000 (4 each), no
    # 16-byte copies (NaN); 6,553,600 wavefronts in all (200 a step), 917,504 misc (28 a step: 3.5 a warp)
    cw = warps.COPY_WIDTH_METRICS
    ncu = {
        "m32n32k32w8s5g8": {
            warps.WAVEFRONTS: 6_553_600.0,
            warps.MISC_WAVEFRONTS: 917_504.0,
            cw["ca"][0]: 100_000.0,
            cw["ca"][1]: 400_000.0,
            warps.CA_CONFLICTS: 200_000.0,
            cw["ldsm"][0]: 50_000.0,
            cw["ldsm"][1]: 200_000.0,
        },
        "not_a_case": {warps.WAVEFRONTS: 1.0},
    }
    (row,) = warps.copy_width_rows(ncu, size=1024)
    assert row["case"] == "m32n32k32w8s5g8"
    assert (row["ca"], row["ca_conflicts"], row["ldsm"]) == pytest.approx((4.0, 2.0, 4.0))
    assert row["cg"] != row["cg"]  # NaN: no 16-byte copies
    assert (row["step"], row["misc_per_warp"]) == pytest.approx((200.0, 3.5))

"""benchmarks/ncu_l2: case generation, the driver's dry run and launch path, and the ncu CSV parser (CPU)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _scripts import load_script

HARNESS = Path(__file__).resolve().parents[2] / "benchmarks" / "ncu_l2"


def _load(name: str):
    return load_script(f"benchmarks/ncu_l2/{name}.py", on_path=False, name=f"tilesight_bench_{name}")


cases_mod = _load("ncu_cases")
parse_mod = _load("ncu_parse")


def test_cases_cover_the_study():
    cases = cases_mod.build_cases()
    assert len(cases) >= 180
    assert len({c["case_id"] for c in cases}) == len(cases)
    dims = {d for c in cases for d in (c["M"], c["N"], c["K"])}
    assert min(dims) <= 1024 and max(dims) >= 16384
    assert {c["group_m"] for c in cases} == {1, 4, 8}
    assert {c["block_m"] for c in cases} >= {64, 128, 256} and {c["block_k"] for c in cases} == {32, 64}
    persistent = [c for c in cases if c["kernel"] == "persistent"]
    assert len({c["programs"] for c in persistent}) >= 3
    assert any(c["M"] % c["block_m"] for c in cases)  # ragged shapes exercise masking
    for c in cases:
        smem = cases_mod.smem_bytes(c["block_m"], c["block_n"], c["block_k"], c["num_stages"])
        assert smem <= cases_mod.SMEM_PER_BLOCK_MAX_BYTES


def test_blind56_holds_shapes_no_other_set_has():
    cases = cases_mod.cases_of("blind56")
    assert len(cases) == 36 and len({c["case_id"] for c in cases}) == 36
    assert {c["group_m"] for c in cases} == {1, 4, 8} and {c["kernel"] for c in cases} == {"grouped"}
    shapes = {(c["M"], c["N"], c["K"]) for c in cases}
    others = {(c["M"], c["N"], c["K"]) for s in ("main", "narrow", "blind36") for c in cases_mod.cases_of(s)}
    assert len(shapes) == 4 and not shapes & others
    # the small tiles that hold several blocks an SM, where the per-block skew acts, are in it
    tiles = {(c["block_m"], c["block_n"], c["block_k"]) for c in cases}
    assert {(64, 64, 32), (64, 128, 64), (128, 64, 32)} <= tiles
    with pytest.raises(ValueError, match="unknown NCU case set"):
        cases_mod.cases_of("blind99")


def test_crowded_holds_configs_no_other_set_has():
    cases = cases_mod.cases_of("crowded")
    assert len(cases) == 16 and len({c["case_id"] for c in cases}) == 16
    assert {c["group_m"] for c in cases} == {1, 8} and {c["kernel"] for c in cases} == {"grouped"}
    others = {c["case_id"] for s in ("main", "narrow", "blind36", "blind56") for c in cases_mod.cases_of(s)}
    assert not {c["case_id"] for c in cases} & others
    # every tile fits a block's shared memory; 16 x 64 x 32 at 2 stages takes 2 x (16 x 32 + 32 x 64) x 2 B
    assert cases_mod.smem_bytes(16, 64, 32, 2) == 10240
    assert all(cases_mod.smem_bytes(*[c[k] for k in ("block_m", "block_n", "block_k", "num_stages")])
               <= cases_mod.SMEM_PER_BLOCK_MAX_BYTES for c in cases)  # fmt: skip


def test_held_out_split_is_a_fixed_third():
    ids = [c["case_id"] for c in cases_mod.build_cases()]
    held = [i for i in ids if cases_mod.is_held_out(i)]
    assert 0.25 < len(held) / len(ids) < 0.42
    assert held == [i for i in ids if cases_mod.is_held_out(i)]  # deterministic


def test_driver_dry_run_prints_markers():
    out = subprocess.run(
        [sys.executable, str(HARNESS / "driver.py"), "--dry-run", "--limit", "4"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert parse_mod.markers(out.stdout) == [c["case_id"] for c in cases_mod.build_cases()[:4]]


# A fake ncu --csv output: the driver's markers and ncu's log lines interleave with the CSV; values carry
# units (Mbyte, Kbyte with a thousands separator, usecond, %).
FAKE_NCU = (Path(__file__).parent / "data" / "ncu_l2_fake.csv").read_text()


def _doc(grid_b=132):
    return {
        "meta": {"gpu": "NVIDIA H200"},
        "cases": [
            {"case_id": "caseA", "grid": [64], "threads": 128, "M": 1024},
            {"case_id": "caseB", "grid": [grid_b], "threads": 256, "M": 4096},
        ],
    }


def test_parse_fake_ncu_csv():
    ncu = parse_mod.parse_ncu_csv(FAKE_NCU)
    assert sorted(ncu) == [0, 1]
    # 6.29 Mbyte = 6.29e6 bytes; "2,097.15" Kbyte = 2.09715e6 bytes; 12.48 us = 1.248e-5 s
    assert ncu[0]["dram_read_bytes"] == pytest.approx(6.29e6)
    assert ncu[0]["dram_write_bytes"] == pytest.approx(2.09715e6)
    assert ncu[0]["time_s"] == pytest.approx(1.248e-5)
    assert ncu[1]["l2_hit_pct"] == pytest.approx(88.1) and ncu[1]["dram_read_bytes"] == pytest.approx(1.5e9)
    rows = parse_mod.join(_doc(), ncu, parse_mod.markers(FAKE_NCU))
    assert [r["case_id"] for r in rows] == ["caseA", "caseB"]
    assert rows[0]["l2_hit_pct"] == pytest.approx(93.75) and rows[1]["kernel"] == "matmul_persistent_kernel"


def test_parse_detects_misalignment():
    ncu = parse_mod.parse_ncu_csv(FAKE_NCU)
    with pytest.raises(parse_mod.NcuParseError, match="caseB"):
        parse_mod.join(_doc(grid_b=100), ncu)
    with pytest.raises(parse_mod.NcuParseError, match="launch order"):
        parse_mod.join(_doc(), ncu, ["caseB", "caseA"])
    with pytest.raises(parse_mod.NcuParseError, match="header"):
        parse_mod.parse_ncu_csv("no csv here")


def test_parse_main_writes_json_and_csv(tmp_path):
    (tmp_path / "raw.csv").write_text(FAKE_NCU)
    (tmp_path / "cases.json").write_text(json.dumps(_doc()))
    out = tmp_path / "ncu_l2_h200.json"
    parse_mod.main(
        ["--raw", str(tmp_path / "raw.csv"), "--cases", str(tmp_path / "cases.json"), "--out", str(out)]
    )
    doc = json.loads(out.read_text())
    assert len(doc["cases"]) == 2 and doc["meta"]["gpu"] == "NVIDIA H200"
    assert out.with_suffix(".csv").read_text().startswith("case_id")


def test_driver_signature_matches_kernels():
    pytest.importorskip("triton")
    driver = _load("driver")
    matmul, persistent = driver._kernels()
    for c in cases_mod.build_cases()[:1] + [c for c in cases_mod.build_cases() if c["programs"]][:1]:
        fn = persistent if c["programs"] else matmul
        names = list(fn.arg_names)
        consts = {k for k in driver._constexprs(c) if k not in ("num_warps", "num_stages")}
        assert names[: len(driver._args(c, 1, 2, 3))] == names[: -len(consts)]
        assert set(names[-len(consts) :]) == consts


def test_driver_launch_path_in_interpreter(tmp_path, check_interpreted):
    pytest.importorskip("triton")
    pytest.importorskip("torch")
    tiny = [
        cases_mod._case("grouped", (64, 96, 80), (32, 32, 32, 2, 4), 2),
        cases_mod._case("persistent", (64, 96, 80), (32, 32, 32, 2, 4), 2, 3),
    ]
    (tmp_path / "cases.json").write_text(json.dumps(tiny))
    env = dict(os.environ, TRITON_INTERPRET="1")
    cmd = [
        sys.executable,
        str(HARNESS / "driver.py"),
        "--cases",
        str(tmp_path / "cases.json"),
        "--device",
        "cpu",
    ]
    out = subprocess.run([*cmd, "--out", str(tmp_path)], capture_output=True, text=True, env=env, check=True)
    # the driver reports a failed launch on stderr and goes on to the next case
    check_interpreted(out, "the NCU driver", ok="launch failed" not in out.stderr)
    assert parse_mod.markers(out.stdout) == [c["case_id"] for c in tiny]
    doc = json.loads((tmp_path / "ncu_l2_cases.json").read_text())
    # 64/32 x 96/32 = 6 tiles; the persistent kernel launches min(3 programs, 6 tiles) = 3
    assert [c["grid"] for c in doc["cases"]] == [[6], [3]]


def test_parse_keeps_extra_metrics_by_name():
    # counters in sectors (the L2 source-unit split) are kept under their ncu name only when asked for
    extra_row = (
        '"0","123","python3","h","matmul_kernel","1","7","(128, 1, 1)","(64, 1, 1)","0","9.0",'
        '"Command line profiler metrics","lts__t_sectors_srcunit_ltcfabric.sum","sector","1,234"\n'
    )
    text = FAKE_NCU.rstrip("\n") + "\n" + extra_row
    assert "lts__t_sectors_srcunit_ltcfabric.sum" not in parse_mod.parse_ncu_csv(text)[0]
    ncu = parse_mod.parse_ncu_csv(text, frozenset({"lts__t_sectors_srcunit_ltcfabric.sum"}))
    assert ncu[0]["lts__t_sectors_srcunit_ltcfabric.sum"] == 1234.0

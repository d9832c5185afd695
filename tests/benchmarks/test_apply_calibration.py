"""benchmarks/apply_calibration.py with a fixture JSON: only calibrated fields and [calibration] change."""

from __future__ import annotations

import json

import pytest

import tilesight as ts
from tilesight.hardware import _profile_dir, parse_profile

# The shipped profile without its [calibration] table (the last table in the file): the tests apply a
# calibration to a profile that has none yet, whatever the shipped one carries.
H200 = (_profile_dir() / "h200.toml").read_text().split("\n[calibration]\n")[0].rstrip("\n") + "\n"
DATA = "benchmarks/data/calibration_h200.json"


@pytest.fixture(scope="module")
def apply_calibration(load_script):
    return load_script("benchmarks/apply_calibration.py", on_path=False)


def _doc(**fields):
    return {
        "meta": {
            "date": "2026-11-30",
            "command": "python3 benchmarks/calibrate/run.py --out /o/calibration_h200.json",
            "gpu": "NVIDIA H200",
            "torch": "2.11.0",
            "triton": "3.6.0",
            "nvidia_smi_end": {"clocks.max.sm": "1980 MHz"},
        },
        "measurements": {"sfu": {"error": "x"}},
        "profile_fields": {k: {"value": v, "note": "n"} for k, v in fields.items()},
    }


def test_rewrites_only_the_calibrated_fields(apply_calibration):
    doc = _doc(ddr_bw_bytes_per_s=4.3e12, l2_effective_bytes=48.7e6, **{"tensor_core_legacy.float16": 6.1e14})
    text, changes = apply_calibration.apply(H200, doc, DATA)
    p = parse_profile(text)
    assert p.ddr_bw_bytes_per_s == 4.3e12
    assert p.l2_effective_bytes == 48_700_000  # written as an integer
    assert p.tc_legacy_flops_per_s["float16"] == 6.1e14
    src = p.source("ddr_bw_bytes_per_s")
    assert src.startswith("calibrated 2026-11-30 by `python3 benchmarks/calibrate/run.py")
    assert src.endswith(f"on NVIDIA H200 (n); data: {DATA}")
    assert p.calibration["triton"] == "3.6.0" and p.calibration["sm_clock_max"] == "1980 MHz"
    # every other line is untouched: the diff is exactly the three field lines plus the appended table
    old, new = H200.splitlines(), text.splitlines()
    changed = [a for a, b in zip(old, new, strict=False) if a != b]
    assert len(changed) == 3 and len(changes) == 3
    assert new[: len(old)][0] == old[0]


def test_applying_twice_keeps_one_calibration_table(apply_calibration):
    text, _ = apply_calibration.apply(H200, _doc(ddr_bw_bytes_per_s=4.3e12), DATA)
    text2, _ = apply_calibration.apply(text, _doc(ddr_bw_bytes_per_s=4.25e12), DATA)
    assert text2.count("\n[calibration]\n") == 1
    assert parse_profile(text2).ddr_bw_bytes_per_s == 4.25e12


def test_a_value_above_the_datasheet_is_refused(apply_calibration):
    with pytest.raises(ts.ProfileError, match="ddr_bw_bytes_per_s=.*exceeds ddr_bw_spec_bytes_per_s"):
        apply_calibration.apply(H200, _doc(ddr_bw_bytes_per_s=6e12), DATA)


def test_empty_fields_and_missing_meta_are_refused(apply_calibration):
    with pytest.raises(ts.ProfileError, match="profile_fields is empty"):
        apply_calibration.apply(H200, _doc(), DATA)
    doc = _doc(ddr_bw_bytes_per_s=4.3e12)
    del doc["meta"]["gpu"]
    with pytest.raises(ts.ProfileError, match="meta.gpu is missing"):
        apply_calibration.apply(H200, doc, DATA)


def test_unknown_field_is_skipped_not_invented(apply_calibration):
    text, changes = apply_calibration.apply(H200, _doc(**{"tensor_core.float64": 1e14}), DATA)
    assert "float64" not in parse_profile(text).tc_flops_per_s
    assert changes == ["skip tensor_core.float64: not in <profile> [tensor_core]"]


def test_main_writes_the_file(apply_calibration, tmp_path):
    prof = tmp_path / "h200.toml"
    prof.write_text(H200)
    data = tmp_path / "cal.json"
    data.write_text(json.dumps(_doc(launch_overhead_s=3.7e-6)))
    assert apply_calibration.main(["--data", str(data), "--profile", str(prof)]) == 0
    assert parse_profile(prof.read_text()).launch_overhead_s == 3.7e-6

"""benchmarks/device/wave_tail_probe.py: its scoring of a timed file, with a stand-in model, by hand."""

from __future__ import annotations

import json

import pytest


@pytest.fixture(scope="module")
def probe(load_script):
    return load_script("benchmarks/device/wave_tail_probe.py", on_path=False, name="wave_tail_probe")


def test_each_grid_is_set_against_its_two_whole_waves(probe, tmp_path, capsys, monkeypatch):
    def row(tiles, us):
        return {
            "config": [64, 128, 64, 4, 2],
            "tiles": tiles,
            "M": 64 * tiles,
            "N": 128,
            "K": 4096,
            "p50_us": us,
        }

    path = tmp_path / "t.json"
    path.write_text(json.dumps({"meta": {"gpu": "test GPU"}, "rows": [row(528, 100.0), row(527, 98.0)]}))
    # the stand-in predicts 110 us for 528 tiles and 121 for 527: 10% and 23.5% slow, 1.1x of 528
    monkeypatch.setattr(probe, "predict_us", lambda r, hw: 110.0 if r["tiles"] == 528 else 121.0)
    assert probe.score(path, "h100") == 0
    out = capsys.readouterr().out
    assert "527 tiles: measured    98.0 us (0.980 of 528), predicted   121.0 (1.100), error +23.5%" in out
    assert "528 tiles: measured   100.0 us (1.000 of 528), predicted   110.0 (1.000), error +10.0%" in out
    assert "MAPE 16.7% over 2" in out

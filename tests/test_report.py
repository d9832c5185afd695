"""Report: JSON round trip through to_dict, and the terminal renderings (smoke)."""

from __future__ import annotations

import io
import json

from rich.console import Console

from tilesight.hardware import load_profile
from tilesight.library.gemm import gemm_plan
from tilesight.model.evaluate import evaluate
from tilesight.plan import PIPELINES
from tilesight.render import report_text


def _report():
    return evaluate(gemm_plan(2048, 2048, 2048, 128, 128, 64, group_m=8), load_profile("h200"))


def test_to_dict_json_round_trip():
    r = _report()
    d = json.loads(json.dumps(r.to_dict()))
    assert d["latency_s"] == r.latency_s and d["latency_us"] == r.latency_us
    assert set(d["busy_s"]) == {p.value for p in PIPELINES}
    assert [p["phase"] for p in d["phases"]] == ["prologue", "steady", "epilogue", "tail"]
    assert d["occupancy"]["resident_blocks"] == r.occupancy.resident_blocks
    assert {a["name"] for a in d["actions"]} == {"load_a", "load_b", "dot", "store_c"}
    assert 0.0 <= d["l2_hit_rate"] <= 1.0 and d["bottleneck"] in d["busy_s"]
    assert d["extras"]["best_orders"]["k_loop"][-1] == "dot"


def test_text_rendering():
    r = _report()
    text = report_text(r)
    assert text == str(r)
    assert r.kernel in text and "phases:" in text and "steady" in text and "us" in text


def test_rich_rendering():
    buf = io.StringIO()
    Console(file=buf, width=160, force_terminal=False).print(_report())
    out = buf.getvalue()
    assert "pipelines" in out and "load_a" in out

"""benchmarks/calibrate/smem_transform.py: the probe's chain table is what the TileLang walker reads from its
expressions, and the walker's vector width is what TileLang 0.1.15 lowers them to (CPU: lowering only)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

pytest.importorskip("tilelang")

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from tilesight.frontends.tilelang.walker import walk  # noqa: E402

from benchmarks import probe_report  # noqa: E402
from benchmarks.calibrate import analysis, smem_transform  # noqa: E402
from tilesight.hardware import load_profile  # noqa: E402

pytestmark = pytest.mark.tilelang


def _chain(name, rows=128, cols=64, threads=128):
    dtype, div, expr = smem_transform._expressions()[name]
    func = smem_transform.transform(132, rows, cols, threads, dtype, div, expr, 4)
    (loop,) = [n for n in walk(func).body if hasattr(n, "body")]
    (node,) = [n for n in loop.body if n.op == "parallel"]
    return func, node.chain


@pytest.mark.parametrize("name", sorted(smem_transform.CHAINS))
def test_chain_table_matches_the_walker(name):
    _, ch = _chain(name)
    assert (ch.alu, ch.cvt, ch.packed, ch.serial, ch.packed_cvt, ch.narrow_cvt) == smem_transform.CHAINS[name]


@pytest.mark.parametrize("name", ["packed3", "int3"])
def test_walker_lanes_match_tilelang_lowering(name):
    import tilelang
    from tilelang import tvm

    func, ch = _chain(name, threads=256)
    target = tvm.target.Target(smem_transform.TARGET)
    with target:
        source = tilelang.lower(func, target=target).kernel_source
    facts = smem_transform.source_facts(source)
    assert facts["lanes"] == ch.lanes
    assert facts["vec_iters"] == math.ceil(128 * 64 / (256 * ch.lanes))


def test_committed_fit_is_the_profile():
    hw = load_profile("h200")
    f = analysis.smem_chain_fields(probe_report.smem_transform_points(), smem_transform.CHAINS, hw)
    for key in ("smem_chain_latency_s", "alu_latency_s", "cvt_latency_s"):
        assert getattr(hw, key) == pytest.approx(f[key]["value"], rel=1e-4)
    # every fitted point within 9% of its measurement (cast_f8 is the worst: 8.3%)
    for row in f["_fit"]:
        assert row["fitted_s"] == pytest.approx(row["measured_s"], rel=0.09)


def test_committed_feed_fit_is_the_profile():
    data = json.loads((ROOT / "benchmarks/data/calibration_smem_feed.json").read_text())
    f = analysis.smem_feed_fields(data["measurements"]["smem_feed"]["points"])
    assert load_profile("h200").smem_feed_step_s == pytest.approx(f["smem_feed_step_s"]["value"], rel=1e-4)

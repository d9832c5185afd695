"""CacheTraffic's derived figures (tilesight/cache/base.py), worked by hand."""

from __future__ import annotations

import pytest

from tilesight.cache.base import CacheTraffic, TensorTraffic


def test_dram_read_share_counts_reads_only():
    # reads of 1000 + 3000 requested bytes, 1000 of them from DRAM: 0.25; the written tensor's requested bytes
    # and its DRAM writes do not count
    a = TensorTraffic("a", 10, 1000.0, 0.0, 0.5, 500.0)
    b = TensorTraffic("b", 10, 3000.0, 0.0, 0.8333, 500.0)
    c = TensorTraffic("c", 10, 2000.0, 0.0, 1.0, 2000.0, write=True)
    traffic = CacheTraffic({"a": a, "b": b, "c": c}, 0.8, None, 1000.0, 2000.0, "test")
    assert traffic.dram_read_share == pytest.approx(0.25)
    assert CacheTraffic({"c": c}, 1.0, None, 0.0, 2000.0, "test").dram_read_share == 0.0

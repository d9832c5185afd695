"""benchmarks/ncu_diag/sync_operands.py: the synchronous elements a case loads and the instruction count the
profile's sync_load_issue_per_element is read from, on the committed ncu data."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "benchmarks" / "data" / "ncu_sync_operands"


@pytest.fixture(scope="module")
def sync(load_script):
    return load_script("benchmarks/ncu_diag/sync_operands.py")


def test_sync_elements_per_thread_by_hand(sync):
    # K odd: A's 128 x 64 tile over 8 warps' 256 threads, 32 a thread; N odd too: B's 64 x 128 as well, 64
    assert sync.sync_elements_per_thread(sync.parse("M4096_N4096_K4095_m128n128k64w8s3g8")) == 32
    assert sync.sync_elements_per_thread(sync.parse("M4097_N3001_K2999_m128n128k64w8s3g8")) == 64
    assert sync.sync_elements_per_thread(sync.parse("M4096_N4096_K4096_m128n128k32w8s4g1")) == 0


def test_issue_per_sync_element_is_the_profiles(sync):
    from tilesight.hardware import load_profile

    median, values = sync.issue_per_sync_element(DATA)
    assert len(values) == 20  # every case with a synchronous operand
    assert median == pytest.approx(load_profile("h200").sync_load_issue_per_element, abs=0.005)
    assert all(3.5 < v < 9.5 for _, v in values)

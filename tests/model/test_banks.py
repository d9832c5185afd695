"""Shared-memory wavefronts of warp instructions (tilesight/model/banks.py), worked out by hand."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from tilesight.model.banks import BANKS, WAVEFRONT_BYTES, WORD_BYTES, wavefronts, wavefronts_many


def _reference(addresses: np.ndarray, access_bytes: int) -> int:
    """The rule spelled out lane by lane: per phase, per bank, the distinct words."""
    per_phase = 32 if access_bytes <= 4 else 32 * 4 // access_bytes
    total = 0
    for lo in range(0, len(addresses), per_phase):
        banks: dict[int, set[int]] = {}
        for a in addresses[lo : lo + per_phase]:
            for w in range(max(1, access_bytes // WORD_BYTES)):
                word = int(a) // WORD_BYTES + w
                banks.setdefault(word % BANKS, set()).add(word)
        total += max(len(v) for v in banks.values())
    return total


def test_simple_warp_accesses():
    lanes = np.arange(32)
    assert wavefronts(lanes * 4, 4) == 1  # 32 consecutive words: one per bank
    assert wavefronts(lanes * 128, 4) == 32  # every lane in bank 0, 32 distinct words
    assert wavefronts(lanes * 128, 2) == 32  # 2-byte reads down a column of a 64-wide fp16 tile: the same
    assert wavefronts(np.zeros(32, dtype=np.int64), 4) == 1  # one word: served at once
    assert wavefronts(lanes, 1) == 1  # 32 bytes of 8 words
    assert wavefronts(lanes * 2, 2) == 1  # 64 bytes: one wavefront, half used
    assert wavefronts(lanes * 16, 16) == 4  # 512 bytes in 16-byte vectors: 4 phases of 8 lanes, 1 each
    assert wavefronts(lanes * 8, 8) == 2  # 256 bytes in 8-byte vectors: 2 phases of 16 lanes
    # 16-byte vectors 256 bytes apart: each phase's 8 lanes all in banks 0-3, 8 words a bank
    assert wavefronts(lanes * 256, 16) == 4 * 8
    assert wavefronts(lanes * 8, 4) == 2  # every other word: banks 0, 2, ..., 30 hold two words each


def test_many_is_the_sum_over_rows():
    lanes = np.arange(32)
    rows = np.stack([lanes * 4, lanes * 128, lanes * 2])
    assert wavefronts_many(rows, 4) == 1 + 32 + 1
    assert wavefronts_many(np.zeros((0, 32), dtype=np.int64), 4) == 0


@given(
    st.lists(st.integers(0, 1 << 14), min_size=32, max_size=32),
    st.sampled_from([1, 2, 4, 8, 16]),
)
def test_matches_the_lane_by_lane_rule(addrs, access):
    a = np.asarray(addrs, dtype=np.int64) // access * access  # aligned, as the hardware requires
    n = wavefronts(a, access)
    assert n == _reference(a, access)
    # at least the bytes moved over 128 per wavefront, at most one wavefront per word accessed
    assert n >= max(1, -(-len(np.unique(a)) * access // WAVEFRONT_BYTES))
    assert n <= 32 * max(1, access // 4)

"""Shared-memory bank conflicts: the wavefronts a warp instruction takes, from its lanes' byte addresses.

Shared memory serves 32 banks of 4-byte words per wavefront. The lanes of one instruction (all 32 for
accesses up to 4 bytes; 8-byte accesses in two phases of 16 lanes, 16-byte ones in four of 8) whose words sit
in one bank take one wavefront per distinct word; lanes reading the same word are served together. A warp
instruction therefore takes, per phase, the most distinct words any one bank holds. The engine prices
shared-memory traffic in bytes at the profile's shared-memory bandwidth (one 128-byte wavefront a clock), so a
frontend states an access's cost as its wavefronts times :data:`WAVEFRONT_BYTES`.

Frontends supply the addresses from their layouts (Triton's register and shared layouts read from the TTGIR,
TileLang's loop partition of a ``T.Parallel`` nest); this module knows nothing of either.
"""

from __future__ import annotations

import numpy as np

WAVEFRONT_BYTES = 128  # 32 banks x 4-byte words served per shared-memory wavefront
BANKS = 32
WORD_BYTES = 4
MAX_VECTOR_BYTES = 16  # ld/st.shared.v4.b32
WARP_SIZE = 32


def _phase_lanes(access_bytes: int) -> int:
    """Lanes served in one phase of an access of ``access_bytes`` per lane."""
    return max(1, min(WARP_SIZE, WARP_SIZE * WORD_BYTES // max(access_bytes, WORD_BYTES)))


def wavefronts(addresses: np.ndarray, access_bytes: int) -> int:
    """Shared-memory wavefronts of one warp instruction whose lanes access ``access_bytes`` at
    ``addresses`` (up to 32 byte addresses): per phase of lanes, the most distinct 4-byte words any one
    bank holds."""
    return wavefronts_many(np.asarray(addresses, dtype=np.int64)[None, :], access_bytes)


def wavefronts_many(addresses: np.ndarray, access_bytes: int) -> int:
    """Total wavefronts of many warp instructions at once: ``addresses`` is (instructions, lanes) of byte
    addresses, every lane accessing ``access_bytes``. The same count as :func:`wavefronts` summed over the
    rows, vectorised."""
    addr = np.asarray(addresses, dtype=np.int64)
    access_bytes = int(access_bytes)
    if addr.ndim != 2 or addr.size == 0:
        return 0
    n, lanes = addr.shape
    per_phase = _phase_lanes(access_bytes)
    phases = -(-lanes // per_phase)
    words_per_lane = max(1, access_bytes // WORD_BYTES)
    words = addr // WORD_BYTES
    if phases * per_phase != lanes:  # a short last phase: padded with copies of its last lane (no new words)
        words = np.pad(words, ((0, 0), (0, phases * per_phase - lanes)), mode="edge")
    words = words.reshape(n * phases, per_phase)
    if words_per_lane > 1:
        words = (words[:, :, None] + np.arange(words_per_lane)[None, None, :]).reshape(n * phases, -1)
    # distinct words per (instruction, phase): sort each row, keep the first of each run
    words = np.sort(words, axis=1)
    new = np.ones(words.shape, dtype=bool)
    new[:, 1:] = words[:, 1:] != words[:, :-1]
    rows = np.broadcast_to(np.arange(words.shape[0])[:, None], words.shape)
    counts = np.bincount((rows[new] * BANKS + words[new] % BANKS), minlength=words.shape[0] * BANKS)
    return int(counts.reshape(-1, BANKS).max(axis=1).sum())

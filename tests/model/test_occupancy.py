"""Resident blocks per SM limited by each resource in turn (round-number GPU: 100 KiB smem, 1 KiB reserved
and 1 KiB allocation unit, 64K registers in 256-register units, 2048 threads = 64 warps, 32 blocks, 4 SMs)."""

from __future__ import annotations

import pytest

from tilesight.errors import LaunchError
from tilesight.model.occupancy import residency, waves
from tilesight.plan import BlockResources

MANY = 10_000  # blocks launched: the grid limit ceil(10000 / 4) = 2500 never binds


@pytest.mark.parametrize(
    ("res", "blocks", "expected", "limiter"),
    [
        # smem: 30,000 + 1,024 = 31,024 -> 31,744 (31 KiB units); 102,400 // 31,744 = 3
        (BlockResources(128, smem_bytes=30_000), MANY, 3, "smem"),
        # registers: 100/thread x 32 = 3,200 -> 3,328 per warp; 65,536 // 3,328 = 19 warps; // 8 warps = 2
        (BlockResources(256, regs_per_thread=100), MANY, 2, "registers"),
        # threads: 2,048 // 1,024 = 2 (warps 64 // 32 = 2 ties; threads is named first)
        (BlockResources(1024), MANY, 2, "threads"),
        # warps: 80 threads = 3 warps (one partial): 64 // 3 = 21 < threads 2,048 // 80 = 25
        (BlockResources(80), MANY, 21, "warps"),
        # blocks: 32 threads: threads 64, warps 64, smem 102,400 // 1,024 = 100 -> max_blocks_per_sm 32
        (BlockResources(32), MANY, 32, "blocks"),
        # grid: 5 blocks on 4 SMs -> never more than ceil(5 / 4) = 2
        (BlockResources(32), 5, 2, "grid"),
    ],
)
def test_each_limiter_in_turn(round_hw, res, blocks, expected, limiter):
    occ = residency(res, round_hw, blocks)
    assert (occ.resident_blocks, occ.limiter) == (expected, limiter)


def test_launch_limits(round_hw):
    with pytest.raises(LaunchError, match=r"resources.smem_bytes=102401 exceeds round's limit of 102400"):
        residency(BlockResources(32, smem_bytes=102_401), round_hw, 4)
    with pytest.raises(LaunchError, match="resources.threads=2048"):
        residency(BlockResources(2048), round_hw, 4)
    with pytest.raises(LaunchError, match="resources.regs_per_thread=256"):
        residency(BlockResources(32, regs_per_thread=256), round_hw, 4)
    # 255 regs x 32 = 8,160 -> 8,192 per warp: 8 warps fit, a 32-warp block does not
    with pytest.raises(LaunchError, match="regs_per_thread x threads"):
        residency(BlockResources(1024, regs_per_thread=255), round_hw, 4)


def test_smem_limit_counts_the_reserved_kilobyte(round_hw):
    # 101,376 + 1,024 = 102,400 fits exactly once; one more byte rounds up to 103,424 and cannot reside
    assert residency(BlockResources(32, smem_bytes=101_376), round_hw, 4).resident_blocks == 1
    with pytest.raises(LaunchError):
        residency(BlockResources(32, smem_bytes=101_377), round_hw, 4)


@pytest.mark.parametrize(
    ("blocks", "resident", "expected"),
    [
        (8, 2, (1, 0, 0, 0)),  # exactly one full wave of 4 x 2
        (9, 2, (1, 1, 1, 1)),  # one block left on one SM
        (133, 1, (33, 1, 1, 1)),
        (3, 1, (0, 3, 3, 1)),  # a single partial wave
        (14, 2, (1, 6, 4, 2)),  # 6 left: 4 SMs active, 2 on the busiest
    ],
)
def test_waves(blocks, resident, expected):
    w = waves(blocks, 4, resident)
    assert (w.full_waves, w.tail_blocks, w.tail_active_sms, w.tail_per_sm) == expected


def test_h200_tail_of_133_blocks():
    from tilesight.hardware import load_profile

    w = waves(133, load_profile("h200").sm_count, 1)
    assert (w.full_waves, w.tail_blocks, w.tail_active_sms) == (1, 1, 1)


def test_no_shared_memory_and_no_reservation_is_not_smem_limited(round_hw):
    """Regression: a GPU reserving no shared memory per block (MI210) divided by zero for smem-free blocks."""
    from dataclasses import replace

    hw = replace(round_hw, smem_reserved_per_block_bytes=0)
    occ = residency(BlockResources(32), hw, MANY)
    assert "smem" not in occ.limits and (occ.resident_blocks, occ.limiter) == (32, "blocks")

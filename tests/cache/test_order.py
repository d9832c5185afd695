"""tilesight.cache.order: residency, waves and positions of the tile execution order."""

from __future__ import annotations

import numpy as np

from tilesight.cache.order import execution_order, resident_blocks
from tilesight.hardware import load_profile
from tilesight.library.gemm import gemm_plan

H200 = load_profile("h200")


def test_resident_blocks_smem_and_registers():
    # 3 stages x (128*64 + 64*128) fp16 = 98304 B, + 1024 reserved = 99328 (776 x 128-B units);
    # 233472 // 99328 = 2 blocks; threads (2048/128 = 16), warps (64/4 = 16) and blocks (32) allow more
    assert resident_blocks(gemm_plan(4096, 4096, 4096, 128, 128, 64), H200) == 2
    # 168 regs x 32 threads = 5376 regs per warp (21 x 256); 65536 // 5376 = 12 warps -> 3 blocks of 4 warps;
    # shared memory (64x64x32 x 2 stages = 16 KiB) is no longer the limit
    plan = gemm_plan(4096, 4096, 4096, 64, 64, 32, num_stages=2, regs_per_thread=168)
    assert resident_blocks(plan, H200) == 3


def test_waves_non_persistent():
    plan = gemm_plan(4096, 4096, 4096, 128, 128, 64)  # 1024 tiles, 132 x 2 = 264 slots
    eo = execution_order(plan, H200)
    assert eo.concurrency == 264 and eo.waves == 4  # ceil(1024 / 264)
    assert eo.wave[263] == 0 and eo.wave[264] == 1 and eo.pos[264] == 0
    # position 133 -> second block on the SM that took position 1 (the profile's measured dispatch order)
    assert eo.sm[133] == eo.sm[1] == H200.sm_dispatch_order[1]


def test_waves_persistent():
    plan = gemm_plan(4096, 4096, 4096, 128, 128, 64, programs=132)
    eo = execution_order(plan, H200)
    # program p handles launch indices p, p + 132, ...: launch 132 is program 0's second tile
    assert eo.concurrency == 132 and eo.waves == 8  # ceil(1024 / 132)
    assert eo.wave[132] == 1 and eo.pos[132] == 0


def test_more_programs_than_slots_run_in_batches():
    plan = gemm_plan(4096, 4096, 4096, 128, 128, 64, programs=300)
    eo = execution_order(plan, H200, resident=1)  # 132 slots
    # programs 0..131 run first, each over ceil(1024/300) = 4 steps; program 150 (batch 1) starts at wave 4
    assert eo.concurrency == 132
    assert np.all(np.diff(eo.wave) >= 0)
    # launch index 150 is program 150's first tile: wave 4, slot 150 - 132 = 18
    row = np.nonzero((eo.coords == plan.grid.coordinates()[150]).all(axis=1))[0][0]
    assert eo.wave[row] == 4 and eo.pos[row] == 18

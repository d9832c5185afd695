"""A synthetic GPU with round numbers, so model tests can work their expected values out by hand.

Per-SM shares with all 4 SMs active and one resident block:
  CUDA 8e12 / 4 = 2e12 FLOP/s = 1e12 element op/s (an op is 2 FLOP: FLOP_PER_OP), SFU 4e11 / 4 = 1e11 op/s,
  TC fp16 4e13 / 4 = 1e13 FLOP/s,
  SMEM 1e12 B/s, DDR 4e11 / 4 = 1e11 B/s, L2 min(8e11 / 4, 2e11) = 2e11 B/s.
Latencies: DDR 1 us, L2 0.5 us; launch overhead 2 us.
Occupancy: 100 KiB shared memory per SM (1 KiB reserved per block, 1 KiB allocation unit), 64K registers
(256-register allocation unit), 2048 threads = 64 warps, 32 blocks per SM.
"""

from __future__ import annotations

import pytest

from tilesight.hardware import HardwareProfile, parse_profile

ROUND_TOML = """
name = "round"
display_name = "round-number test GPU"
vendor = "test"
arch = "sm_test"
triton_backend = "cuda"
triton_arch = 90

[fields]
sm_count = { value = 4, source = "test" }
sm_clock_hz = { value = 1e9, source = "test" }
warp_size = { value = 32, source = "test" }
max_threads_per_block = { value = 1024, source = "test" }
max_threads_per_sm = { value = 2048, source = "test" }
max_warps_per_sm = { value = 64, source = "test" }
max_blocks_per_sm = { value = 32, source = "test" }
regs_per_sm = { value = 65536, source = "test" }
regs_per_thread_max = { value = 255, source = "test" }
reg_alloc_unit_regs = { value = 256, source = "test" }
smem_per_sm_bytes = { value = 102400, source = "test" }
smem_per_block_max_bytes = { value = 102400, source = "test" }
smem_reserved_per_block_bytes = { value = 1024, source = "test" }
smem_alloc_unit_bytes = { value = 1024, source = "test" }
l2_bytes = { value = 1000000, source = "test" }
l2_effective_bytes = { value = 1000000, source = "test" }
l2_associativity = { value = 16, source = "test" }
l2_line_bytes = { value = 128, source = "test" }
l2_sector_bytes = { value = 32, source = "test" }
ddr_bytes = { value = 1e10, source = "test" }
ddr_bw_spec_bytes_per_s = { value = 4e11, source = "test" }
ddr_bw_bytes_per_s = { value = 4e11, source = "test" }
l2_bw_bytes_per_s = { value = 8e11, source = "test" }
l2_bw_per_sm_bytes_per_s = { value = 2e11, source = "test" }
smem_bw_per_sm_bytes_per_s = { value = 1e12, source = "test" }
cuda_flops_per_s = { value = 8e12, source = "test" }
sfu_ops_per_s = { value = 4e11, source = "test" }
ddr_latency_s = { value = 1e-6, source = "test" }
l2_latency_s = { value = 5e-7, source = "test" }
launch_overhead_s = { value = 2e-6, source = "test" }

[tensor_core]
float16 = { value = 4e13, source = "test" }
"""


@pytest.fixture(scope="session")
def round_hw() -> HardwareProfile:
    return parse_profile(ROUND_TOML, origin="tests/model/conftest.py")

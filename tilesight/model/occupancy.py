"""Resident blocks per SM and the wave decomposition (paper section 3.4, "Resident tiles and waves").

Resident blocks ``p`` = the minimum of what each resource allows one SM:

* ``smem``: ``smem_per_sm // round_up(smem + smem_reserved_per_block, smem_alloc_unit)``;
* ``registers``: registers are allocated per warp, ``round_up(regs_per_thread x warp_size, reg_alloc_unit)``;
  ``(regs_per_sm // regs_per_warp) // warps_per_block`` (absent when the plan does not give registers);
* ``threads``: ``max_threads_per_sm // threads``; ``warps``: ``max_warps_per_sm // ceil(threads / warp_size)``
  (differs from ``threads`` when a block ends in a partial warp);
* ``blocks``: ``max_blocks_per_sm``; ``grid``: ``ceil(blocks launched / sm_count)``.

Ties name the first resource in that order. A block that cannot launch at all (shared memory, threads or
registers beyond the per-block limits, or no block fitting one SM) raises
:class:`~tilesight.errors.LaunchError`.

Waves: with ``p`` resident, a full wave holds ``sm_count x p`` blocks; ``full_waves = blocks // (sm_count p)``
and the ``tail = blocks - full_waves sm_count p`` remaining blocks run on ``min(sm_count, tail)`` SMs,
``ceil(tail / sm_count)`` of them on the busiest SM.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import LaunchError
from ..hardware import HardwareProfile
from ..plan import BlockResources

LIMITERS = ("smem", "registers", "threads", "warps", "blocks", "grid")


def _round_up(x: int, unit: int) -> int:
    return -(-x // unit) * unit


@dataclass(frozen=True)
class Residency:
    resident_blocks: int
    limiter: str
    limits: dict[str, int]


@dataclass(frozen=True)
class Waves:
    """How blocks spread over SMs: full waves of ``sm_count x resident`` blocks, then a partial tail."""

    full_waves: int
    tail_blocks: int
    tail_active_sms: int
    tail_per_sm: int  # blocks on the busiest SM of the tail


def check_launch(res: BlockResources, hw: HardwareProfile) -> None:
    """Raise LaunchError if one block exceeds a per-block limit of ``hw``."""
    if res.smem_bytes > hw.smem_per_block_max_bytes:
        raise LaunchError("resources.smem_bytes", res.smem_bytes, hw.smem_per_block_max_bytes, hw.name)
    if res.threads > hw.max_threads_per_block:
        raise LaunchError("resources.threads", res.threads, hw.max_threads_per_block, hw.name)
    if res.regs_per_thread is not None and res.regs_per_thread > hw.regs_per_thread_max:
        raise LaunchError("resources.regs_per_thread", res.regs_per_thread, hw.regs_per_thread_max, hw.name)


def residency(res: BlockResources, hw: HardwareProfile, blocks: int) -> Residency:
    """Resident blocks per SM and the limiting resource (module docstring); raises LaunchError."""
    check_launch(res, hw)
    warps = -(-res.threads // hw.warp_size)
    limits: dict[str, int] = {}
    smem_block = _round_up(res.smem_bytes + hw.smem_reserved_per_block_bytes, hw.smem_alloc_unit_bytes)
    if smem_block > 0:  # a block with no shared memory on a GPU that reserves none is not smem-limited
        limits["smem"] = hw.smem_per_sm_bytes // smem_block
    if res.regs_per_thread is not None:
        regs_warp = _round_up(res.regs_per_thread * hw.warp_size, hw.reg_alloc_unit_regs)
        limits["registers"] = (hw.regs_per_sm // regs_warp) // warps
    limits["threads"] = hw.max_threads_per_sm // res.threads
    limits["warps"] = hw.max_warps_per_sm // warps
    limits["blocks"] = hw.max_blocks_per_sm
    limits["grid"] = max(1, math.ceil(blocks / hw.sm_count))
    limiter = min(limits, key=lambda k: (limits[k], LIMITERS.index(k)))
    p = limits[limiter]
    if p < 1:
        value = {
            "smem": res.smem_bytes,
            "registers": (res.regs_per_thread or 0) * res.threads,
        }.get(limiter, res.threads)
        field = {"smem": "resources.smem_bytes", "registers": "resources.regs_per_thread x threads"}.get(
            limiter, "resources.threads"
        )
        limit = {"smem": hw.smem_per_sm_bytes, "registers": hw.regs_per_sm}.get(
            limiter, hw.max_threads_per_sm
        )
        raise LaunchError(field, value, f"{limit} per SM", hw.name)
    return Residency(p, limiter, limits)


def waves(blocks: int, sm_count: int, resident: int) -> Waves:
    """The wave decomposition of ``blocks`` over ``sm_count`` SMs holding ``resident`` blocks each."""
    per_wave = sm_count * resident
    full = blocks // per_wave
    tail = blocks - full * per_wave
    return Waves(full, tail, min(sm_count, tail), math.ceil(tail / sm_count))

"""Kernels whose programs take a spin lock, measured after their predictions were recorded: an out-of-sample
check of the lock rule (``tilesight.plan.LockSection``, the engine's lock floor) read from the survey's
layer-norm backward alone.

* The layer-norm tutorial's backward (``k_mem.layernorm_bwd_dx_fused``) at other row counts, widths, lock
  counts (``GROUP_SIZE_M``) and warps.
* ``locked_accumulate``: written for this set, not a tutorial's; each program adds its row into accumulator
  row ``pid % LOCKS`` (fp32, no counter, no branch) under that row's lock.

Names end in ``_l``; all are memory-bound kernels (family ``memory``). ``lock2_cases``: a second set predicted
after the handoff probe and the store rule were in the model (sections from 4 to 64 KB, masked widths).
"""

import triton
import triton.language as tl
from harness import Case, T, nbytes
from k_mem import layernorm_bwd_dx_fused


@triton.jit
def locked_accumulate(x_ptr, acc_ptr, lock_ptr, N, LOCKS: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
    slot = row % LOCKS
    while tl.atomic_cas(lock_ptr + slot, 0, 1) == 1:
        pass
    acc = tl.load(acc_ptr + slot * N + cols, mask=mask, other=0.0)
    tl.store(acc_ptr + slot * N + cols, acc + x, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(lock_ptr + slot, 0)


def _pow2(n: int) -> int:
    return 1 << (n - 1).bit_length()


def _layernorm_bwd(rows: int, width: int, locks: int, warps: int) -> Case:
    f16, f32 = "float16", "float32"
    return Case(
        f"layernorm_bwd_r{rows}_h{width}_g{locks}_w{warps}_l",
        "layer-norm backward, spin lock per GROUP_SIZE_M slot",
        layernorm_bwd_dx_fused,
        (rows,),
        (
            T((rows, width), f16),
            T((rows, width), f16),
            T((locks, width), f16),
            T((locks, width), f16),
            T((rows, width), f16),
            T((width,), f16),
            T((rows,), f32),
            T((rows,), f32),
            T((2 * locks,), "int32"),
            width,
            width,
        ),  # fmt: skip
        dict(GROUP_SIZE_M=locks, BLOCK_SIZE_N=_pow2(width), num_warps=warps),
        3 * nbytes((rows, width), f16),
    )


def _locked_accumulate(rows: int, width: int, locks: int, warps: int) -> Case:
    f32 = "float32"
    return Case(
        f"locked_accumulate_r{rows}_h{width}_g{locks}_w{warps}_l",
        "fp32 rows added into pid % LOCKS accumulators under a spin lock",
        locked_accumulate,
        (rows,),
        (T((rows, width), f32), T((locks, width), f32), T((locks,), "int32"), width),
        dict(LOCKS=locks, BLOCK=_pow2(width), num_warps=warps),
        nbytes((rows, width), f32),
    )


def lock_cases() -> list[Case]:
    layernorm = (
        (4096, 1024, 16, 4),
        (4096, 4096, 32, 8),
        (8192, 2048, 64, 4),
        (8192, 8192, 64, 8),
        (16384, 4096, 128, 8),
        (16384, 1024, 32, 4),
        (8192, 4096, 16, 8),
        (32768, 2048, 64, 8),
    )
    accumulate = ((8192, 1024, 16, 4), (8192, 4096, 64, 8), (16384, 2048, 32, 4))
    return [_layernorm_bwd(*c) for c in layernorm] + [_locked_accumulate(*c) for c in accumulate]


def lock2_cases() -> list[Case]:
    """New widths, lock counts and warps of the two kernels, after the lock rule's constants were set."""
    layernorm = ((8192, 6144, 48, 8), (4096, 16384, 64, 16), (16384, 512, 8, 2))
    accumulate = ((8192, 8192, 64, 8), (4096, 16384, 32, 8), (16384, 4096, 256, 4))
    return [_layernorm_bwd(*c) for c in layernorm] + [_locked_accumulate(*c) for c in accumulate]

"""Persistent GEMM through device-side tensor descriptors (TMA on Hopper), optionally with the tile and K
loops flattened into one by the compiler.

``min(NUM_SMS, tiles)`` programs stride over the output tiles in GROUP_M-swizzled order, as
:mod:`kernels.triton.persistent_gemm` does, and move every tile with a descriptor, as
:mod:`kernels.triton.tma_gemm` does: the shape of the persistent-matmul tutorial's descriptor kernel. The
tile loop is ``tl.range(..., flatten=FLATTEN)``: with ``FLATTEN`` Triton fuses it with the K loop inside, so
the pipeliner runs the next tile's first loads under this tile's last steps. A, B and C row-major with
16-byte aligned rows; install a scratch allocator once (:func:`kernels.triton.tma_gemm.install_allocator`).
"""

from __future__ import annotations

import triton
import triton.language as tl

from .tma_gemm import install_allocator


@triton.jit
def matmul_tma_persistent_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_bk,
    stride_cm,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    NUM_SMS: tl.constexpr,
    FLATTEN: tl.constexpr,
):
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [stride_am, 1], [BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [stride_bk, 1], [BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [stride_cm, 1], [BLOCK_M, BLOCK_N])
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    k_steps = tl.cdiv(K, BLOCK_K)
    launches_per_group = GROUP_M * tiles_n
    for launch in tl.range(tl.program_id(0), tiles_m * tiles_n, NUM_SMS, flatten=FLATTEN):
        group_row0 = (launch // launches_per_group) * GROUP_M
        rows_here = tl.minimum(tiles_m - group_row0, GROUP_M)
        in_group = launch % launches_per_group
        row0 = (group_row0 + in_group % rows_here) * BLOCK_M
        col0 = (in_group // rows_here) * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k_step in range(0, k_steps):
            # out-of-bounds parts of a descriptor block read as zero: the K tail needs no mask
            a = a_desc.load([row0, k_step * BLOCK_K])
            b = b_desc.load([k_step * BLOCK_K, col0])
            acc = tl.dot(a, b, acc)
        c_desc.store([row0, col0], acc.to(c_desc.dtype))


def matmul_tma_persistent(
    a, b, *, block_m, block_n, block_k, group_m, num_warps, num_stages, num_sms, flatten=True, out_dtype=None
):
    """``a @ b`` for row-major ``a`` and ``b``; ``num_sms`` is the device's SM count (the caller reads it)."""
    import torch

    from .gemm import output_dtype

    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"matmul_tma_persistent: shapes {tuple(a.shape)} @ {tuple(b.shape)} do not chain")
    M, K = a.shape
    N = b.shape[1]
    install_allocator()
    c = torch.empty((M, N), device=a.device, dtype=out_dtype or output_dtype(a.dtype))
    tiles = triton.cdiv(M, block_m) * triton.cdiv(N, block_n)
    matmul_tma_persistent_kernel[(min(num_sms, tiles),)](
        a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), BLOCK_M=block_m, BLOCK_N=block_n,
        BLOCK_K=block_k, GROUP_M=group_m, NUM_SMS=num_sms, FLATTEN=flatten, num_warps=num_warps,
        num_stages=num_stages,
    )  # fmt: skip
    return c

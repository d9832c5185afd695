"""GEMM through device-side tensor descriptors (TMA on Hopper), GROUP_M-swizzled, one program per C tile.

A, B and C must be row-major (unit last stride) with 16-byte aligned row strides, as TMA requires. The
descriptors are built on the device, so the host must install a scratch allocator once
(:func:`install_allocator`) before the first launch. The builder is ``tl.make_tensor_descriptor`` in Triton
3.4 and later (every version the project supports, 3.6 to 3.9); 3.3 called it
``tl._experimental_make_tensor_descriptor``, which the interpreter and the JIT only recognise under its own
name, so on such a version importing this module raises an ImportError that says so.
"""

from __future__ import annotations

import triton
import triton.language as tl

if not hasattr(tl, "make_tensor_descriptor"):
    _has_old = hasattr(tl, "_experimental_make_tensor_descriptor")
    _what = (
        "has only tl._experimental_make_tensor_descriptor" if _has_old else "has no device-side descriptors"
    )
    raise ImportError(
        f"kernels.triton.tma_gemm needs tl.make_tensor_descriptor (Triton >= 3.4); "
        f"triton {triton.__version__} {_what}"
    )


@triton.jit
def matmul_tma_kernel(
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
):
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [stride_am, 1], [BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [stride_bk, 1], [BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [stride_cm, 1], [BLOCK_M, BLOCK_N])

    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    launches_per_group = GROUP_M * tiles_n
    group_row0 = (pid // launches_per_group) * GROUP_M
    rows_here = tl.minimum(tiles_m - group_row0, GROUP_M)
    in_group = pid % launches_per_group
    row0 = (group_row0 + in_group % rows_here) * BLOCK_M
    col0 = (in_group // rows_here) * BLOCK_N

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k_step in range(0, tl.cdiv(K, BLOCK_K)):
        # out-of-bounds parts of a descriptor block read as zero, so the K tail needs no mask
        a = a_desc.load([row0, k_step * BLOCK_K])
        b = b_desc.load([k_step * BLOCK_K, col0])
        acc = tl.dot(a, b, acc)
    c_desc.store([row0, col0], acc.to(c_desc.dtype))


def install_allocator() -> None:
    """Give Triton a CUDA scratch allocator for device-side descriptors (needed once per process)."""
    import torch

    def alloc(size: int, alignment: int, stream):
        return torch.empty(size, device="cuda", dtype=torch.int8)

    triton.set_allocator(alloc)


def matmul_tma(a, b, *, block_m, block_n, block_k, group_m, num_warps, num_stages, out_dtype=None):
    """``a @ b`` for row-major ``a`` and ``b``; returns a new row-major C."""
    import torch

    from .gemm import matmul_grid, output_dtype

    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"matmul_tma: shapes {tuple(a.shape)} @ {tuple(b.shape)} do not chain")
    if a.stride(1) != 1 or b.stride(1) != 1:
        raise ValueError(f"matmul_tma: A and B must be row-major, got strides {a.stride()} and {b.stride()}")
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=out_dtype or output_dtype(a))
    matmul_tma_kernel[matmul_grid(M, N, {"BLOCK_M": block_m, "BLOCK_N": block_n})](
        a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0),
        BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, GROUP_M=group_m,
        num_warps=num_warps, num_stages=num_stages,
    )  # fmt: skip
    return c

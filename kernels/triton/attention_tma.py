"""Fused attention forward through device-side tensor descriptors (TMA on Hopper), causal as two loops.

The staged kernel of :mod:`kernels.triton.attention_staged` with every tile moved by a descriptor instead of a
pointer tensor, the way Triton's fused-attention tutorial runs on Hopper: Q, K, V and O are seen as one
``(batch * heads * n_ctx, head_dim)`` matrix each, a program's rows start at ``(z * H + h) * n_ctx``, K is
loaded as ``BLOCK_N x head_dim`` rows and transposed for ``Q K^T``. ``STAGE = 1`` is the full attention,
``STAGE = 3`` causal (an unmasked loop below the diagonal, then a masked one over it). Tensors must be
contiguous ``(batch, heads, n_ctx, head_dim)``; ``n_ctx`` a multiple of ``BLOCK_M``, and ``BLOCK_M`` of
``BLOCK_N``. The descriptors are built on the device: install a scratch allocator once
(:func:`kernels.triton.tma_gemm.install_allocator`).
"""

from __future__ import annotations

import math

import triton
import triton.language as tl

from .tma_gemm import install_allocator

LOG2E = tl.constexpr(1 / math.log(2))


@triton.jit
def _tma_stage_loop(
    acc,
    row_sum,
    row_max,
    q,
    k_desc,
    v_desc,
    kv_row0,
    rows,
    lo,
    hi,
    scale,
    BLOCK_N: tl.constexpr,
    MASKED: tl.constexpr,
):
    """Key blocks ``lo .. hi`` of one query block (online softmax in base 2, ``acc += P V``)."""
    for start in tl.range(lo, hi, BLOCK_N):
        start = tl.multiple_of(start, BLOCK_N)
        k = k_desc.load([kv_row0 + start, 0])
        s = tl.dot(q, k.T)
        if MASKED:
            keys = start + tl.arange(0, BLOCK_N)
            s = s * scale + tl.where(rows[:, None] >= keys[None, :], 0.0, -1.0e6)
            m_new = tl.maximum(row_max, tl.max(s, 1))
            s = s - m_new[:, None]
        else:
            m_new = tl.maximum(row_max, tl.max(s, 1) * scale)
            s = s * scale - m_new[:, None]
        p = tl.math.exp2(s)
        alpha = tl.math.exp2(row_max - m_new)
        row_sum = row_sum * alpha + tl.sum(p, 1)
        v = v_desc.load([kv_row0 + start, 0])
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        row_max = m_new
    return acc, row_sum, row_max


@triton.jit
def attention_tma_kernel(
    q_ptr,
    k_ptr,
    v_ptr,
    o_ptr,
    sm_scale,
    Z,
    H,
    N_CTX,
    HEAD_DIM: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    STAGE: tl.constexpr,
):
    rows_total = Z * H * N_CTX
    q_desc = tl.make_tensor_descriptor(q_ptr, [rows_total, HEAD_DIM], [HEAD_DIM, 1], [BLOCK_M, HEAD_DIM])
    k_desc = tl.make_tensor_descriptor(k_ptr, [rows_total, HEAD_DIM], [HEAD_DIM, 1], [BLOCK_N, HEAD_DIM])
    v_desc = tl.make_tensor_descriptor(v_ptr, [rows_total, HEAD_DIM], [HEAD_DIM, 1], [BLOCK_N, HEAD_DIM])
    o_desc = tl.make_tensor_descriptor(o_ptr, [rows_total, HEAD_DIM], [HEAD_DIM, 1], [BLOCK_M, HEAD_DIM])
    q_block = tl.program_id(0)
    kv_row0 = tl.program_id(1) * N_CTX  # the (z, h) head's first row
    q_row0 = kv_row0 + q_block * BLOCK_M
    rows = q_block * BLOCK_M + tl.arange(0, BLOCK_M)
    q = q_desc.load([q_row0, 0])
    scale = sm_scale * LOG2E
    row_max = tl.full((BLOCK_M,), -float("inf"), dtype=tl.float32)
    row_sum = tl.full((BLOCK_M,), 1.0, dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    if STAGE == 1:
        hi = N_CTX
    else:
        hi = q_block * BLOCK_M
    acc, row_sum, row_max = _tma_stage_loop(
        acc, row_sum, row_max, q, k_desc, v_desc, kv_row0, rows, 0, hi, scale, BLOCK_N, False
    )
    if STAGE == 3:
        acc, row_sum, row_max = _tma_stage_loop(
            acc, row_sum, row_max, q, k_desc, v_desc, kv_row0, rows, hi, hi + BLOCK_M, scale, BLOCK_N, True
        )
    o_desc.store([q_row0, 0], (acc / row_sum[:, None]).to(o_desc.dtype))


def attention_tma(q, k, v, *, causal, sm_scale=None, block_m=128, block_n=64, num_warps=8, num_stages=3):
    """Attention forward for contiguous ``(batch, heads, n_ctx, head_dim)`` tensors; returns O."""
    import torch

    if not (q.shape == k.shape == v.shape) or q.ndim != 4 or not all(t.is_contiguous() for t in (q, k, v)):
        raise ValueError(f"attention_tma: q, k, v need one contiguous 4-D shape, got {tuple(q.shape)}")
    batch, heads, n_ctx, head_dim = q.shape
    if n_ctx % block_m or block_m % block_n:
        raise ValueError(
            f"attention_tma: n_ctx ({n_ctx}) must be a multiple of block_m ({block_m}), "
            f"and block_m of block_n ({block_n})"
        )
    install_allocator()
    o = torch.empty_like(q)
    scale = sm_scale if sm_scale is not None else head_dim**-0.5
    attention_tma_kernel[(n_ctx // block_m, batch * heads)](
        q, k, v, o, scale, batch, heads, n_ctx, HEAD_DIM=head_dim, BLOCK_M=block_m, BLOCK_N=block_n,
        STAGE=3 if causal else 1, num_warps=num_warps, num_stages=num_stages,
    )  # fmt: skip
    return o

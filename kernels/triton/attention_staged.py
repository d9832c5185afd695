"""Fused attention forward with the causal case split in two loops, as Triton's fused-attention tutorial
writes it: blocks strictly below the diagonal run without a mask, and only the diagonal block pays for one.

``O = softmax(Q K^T * sm_scale) V`` for ``(batch, heads, n_ctx, head_dim)`` tensors sharing one set of
strides; grid ``(n_ctx / BLOCK_M, batch * heads)``. ``STAGE = 1`` is the full (non-causal) attention, one
unmasked loop over every key block; ``STAGE = 3`` is causal: an unmasked loop over the key blocks before the
program's query block, then a masked loop over the ``BLOCK_M`` keys of the diagonal. The inner loop is one
``@triton.jit`` helper called once per stage, so the kernel has two sibling loops (the shape that differs
from :mod:`kernels.triton.attention`, whose single loop masks every block). ``n_ctx`` must be a multiple of
``BLOCK_M``, and ``BLOCK_M`` of ``BLOCK_N``.
"""

from __future__ import annotations

import math

import triton
import triton.language as tl

LOG2E = tl.constexpr(1 / math.log(2))


@triton.jit
def _stage_loop(
    acc,
    row_sum,
    row_max,
    q,
    k_base,
    v_base,
    rows,
    dims,
    lo,
    hi,
    scale,
    stride_n,
    stride_d,
    BLOCK_N: tl.constexpr,
    MASKED: tl.constexpr,
):
    """Key blocks ``lo .. hi`` of one query block: online softmax in base 2, ``acc += P V``."""
    for start in range(lo, hi, BLOCK_N):
        start = tl.multiple_of(start, BLOCK_N)
        keys = start + tl.arange(0, BLOCK_N)
        kt = tl.load(k_base + keys[None, :] * stride_n + dims[:, None] * stride_d)
        s = tl.dot(q, kt)
        if MASKED:
            s = s * scale + tl.where(rows[:, None] >= keys[None, :], 0.0, -1.0e6)
            m_new = tl.maximum(row_max, tl.max(s, 1))
            s = s - m_new[:, None]
        else:
            m_new = tl.maximum(row_max, tl.max(s, 1) * scale)
            s = s * scale - m_new[:, None]
        p = tl.math.exp2(s)
        alpha = tl.math.exp2(row_max - m_new)
        row_sum = row_sum * alpha + tl.sum(p, 1)
        v = tl.load(v_base + keys[:, None] * stride_n + dims[None, :] * stride_d)
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        row_max = m_new
    return acc, row_sum, row_max


@triton.jit
def attention_staged_kernel(
    q_ptr,
    k_ptr,
    v_ptr,
    o_ptr,
    sm_scale,
    stride_z,
    stride_h,
    stride_n,
    stride_d,
    H,
    N_CTX,
    HEAD_DIM: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    STAGE: tl.constexpr,
):
    q_block = tl.program_id(0)
    zh = tl.program_id(1)
    base = (zh // H).to(tl.int64) * stride_z + (zh % H).to(tl.int64) * stride_h
    rows = q_block * BLOCK_M + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + base + rows[:, None] * stride_n + dims[None, :] * stride_d)
    scale = sm_scale * LOG2E
    row_max = tl.full((BLOCK_M,), -float("inf"), dtype=tl.float32)
    row_sum = tl.full((BLOCK_M,), 1.0, dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    k_base = k_ptr + base
    v_base = v_ptr + base
    if STAGE == 1:
        hi = N_CTX
    else:
        hi = q_block * BLOCK_M
    acc, row_sum, row_max = _stage_loop(
        acc, row_sum, row_max, q, k_base, v_base, rows, dims, 0, hi, scale, stride_n, stride_d, BLOCK_N, False
    )
    if STAGE == 3:
        acc, row_sum, row_max = _stage_loop(
            acc, row_sum, row_max, q, k_base, v_base, rows, dims, hi, hi + BLOCK_M, scale, stride_n, stride_d,
            BLOCK_N, True,
        )  # fmt: skip
    out = (acc / row_sum[:, None]).to(o_ptr.dtype.element_ty)
    tl.store(o_ptr + base + rows[:, None] * stride_n + dims[None, :] * stride_d, out)


def attention_staged(q, k, v, *, causal, sm_scale=None, block_m=128, block_n=64, num_warps=8, num_stages=3):
    """Attention forward for contiguous ``(batch, heads, n_ctx, head_dim)`` tensors; returns O."""
    import torch

    if not (q.shape == k.shape == v.shape) or q.ndim != 4 or not (q.stride() == k.stride() == v.stride()):
        raise ValueError(
            f"attention_staged: q, k, v need one 4-D shape and layout, got {tuple(q.shape)}, {q.stride()}"
        )
    batch, heads, n_ctx, head_dim = q.shape
    if n_ctx % block_m or block_m % block_n:
        raise ValueError(
            f"attention_staged: n_ctx ({n_ctx}) must be a multiple of block_m ({block_m}), "
            f"and block_m of block_n ({block_n})"
        )
    o = torch.empty_like(q)
    scale = sm_scale if sm_scale is not None else head_dim**-0.5
    attention_staged_kernel[(n_ctx // block_m, batch * heads)](
        q, k, v, o, scale, q.stride(0), q.stride(1), q.stride(2), q.stride(3), heads, n_ctx,
        HEAD_DIM=head_dim, BLOCK_M=block_m, BLOCK_N=block_n, STAGE=3 if causal else 1, num_warps=num_warps,
        num_stages=num_stages,
    )  # fmt: skip
    return o

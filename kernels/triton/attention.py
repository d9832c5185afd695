"""Fused attention forward, ``O = softmax(Q K^T * sm_scale) V``, with an online softmax in base 2.

Q, K, V and O are ``(batch, heads, n_ctx, head_dim)`` tensors sharing one set of strides. A program owns
``BLOCK_M`` query rows of one (batch, head) and streams K/V in ``BLOCK_N`` blocks, keeping the running row max
``m``, row sum ``l`` and the unnormalised output in fp32; grid ``(cdiv(N_CTX, BLOCK_M), batch * heads)``. With
``CAUSAL`` a program stops after the block holding its last query row and masks keys after each query.

``CAUSAL_MASK=False`` (a timing ablation, never for results: the output is then not causal attention) keeps
the causal loop bounds and skips the per-element mask, so that a launch's mask cost and its triangular
schedule can be timed apart (``benchmarks/autotune/causal_mask.py --ablation``).

``FOLD_SCALE=True`` computes the same attention with the score scale folded into the exponent, as the
tutorial's staged kernel does (the row maximum of the unscaled scores times the scale, then
``exp2(s * scale - m)``, one fused multiply-add an element), instead of scaling every score before its mask
and maximum: the same output with one multiply an element fewer, and none of it between the wait for ``S``
and the row maximum (validation 87 times the two apart).
"""

from __future__ import annotations

import math

import triton
import triton.language as tl

# exp(x) = exp2(x * log2(e)): folding log2(e) into the softmax scale lets the loop use the cheaper exp2.
LOG2E = tl.constexpr(1 / math.log(2))


@triton.jit
def attention_fwd_kernel(
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
    CAUSAL: tl.constexpr,
    CAUSAL_MASK: tl.constexpr = True,
    FOLD_SCALE: tl.constexpr = False,
):
    q_block = tl.program_id(0)
    zh = tl.program_id(1)
    base = (zh // H).to(tl.int64) * stride_z + (zh % H).to(tl.int64) * stride_h
    rows = q_block * BLOCK_M + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, HEAD_DIM)
    row_ok = rows < N_CTX
    q = tl.load(
        q_ptr + base + rows[:, None] * stride_n + dims[None, :] * stride_d, mask=row_ok[:, None], other=0.0
    )
    scale = sm_scale * LOG2E

    row_max = tl.full((BLOCK_M,), -float("inf"), dtype=tl.float32)
    row_sum = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    if CAUSAL:
        kv_end = tl.minimum((q_block + 1) * BLOCK_M, N_CTX)
    else:
        kv_end = N_CTX
    for kv_start in range(0, kv_end, BLOCK_N):
        keys = kv_start + tl.arange(0, BLOCK_N)
        key_ok = keys < N_CTX
        kt = tl.load(
            k_ptr + base + keys[None, :] * stride_n + dims[:, None] * stride_d,
            mask=key_ok[None, :],
            other=0.0,
        )
        s = tl.dot(q, kt)
        if not FOLD_SCALE:
            s = s * scale
        keep = key_ok[None, :]
        if CAUSAL and CAUSAL_MASK:
            keep = keep & (rows[:, None] >= keys[None, :])
        s = tl.where(keep, s, -float("inf"))
        if FOLD_SCALE:
            m_new = tl.maximum(row_max, tl.max(s, axis=1) * scale)
            p = tl.math.exp2(s * scale - m_new[:, None])
        else:
            m_new = tl.maximum(row_max, tl.max(s, axis=1))
            p = tl.math.exp2(s - m_new[:, None])
        rescale = tl.math.exp2(row_max - m_new)
        row_sum = row_sum * rescale + tl.sum(p, axis=1)
        v = tl.load(
            v_ptr + base + keys[:, None] * stride_n + dims[None, :] * stride_d,
            mask=key_ok[:, None],
            other=0.0,
        )
        acc = acc * rescale[:, None] + tl.dot(p.to(v.dtype), v)
        row_max = m_new
    out = acc / row_sum[:, None]
    o = o_ptr + base + rows[:, None] * stride_n + dims[None, :] * stride_d
    tl.store(o, out.to(o_ptr.dtype.element_ty), mask=row_ok[:, None])


def attention_grid(n_ctx: int, batch_heads: int, meta: dict) -> tuple[int, int]:
    return (triton.cdiv(n_ctx, meta["BLOCK_M"]), batch_heads)


def attention(
    q, k, v, *, causal, sm_scale=None, block_m=128, block_n=64, num_warps=4, num_stages=2, causal_mask=True
):
    """Attention forward for ``(batch, heads, n_ctx, head_dim)`` tensors of one layout; returns O.
    ``causal_mask=False`` keeps a causal launch's loop bounds and skips its per-element mask: a timing
    ablation (validation 84, the ``attn_issue`` probe's mask set) whose output is not causal attention."""
    import torch

    if not (q.shape == k.shape == v.shape) or q.ndim != 4 or not (q.stride() == k.stride() == v.stride()):
        raise ValueError(
            f"attention: q, k, v need one 4-D shape and layout, got {tuple(q.shape)}, {q.stride()}"
        )
    batch, heads, n_ctx, head_dim = q.shape
    o = torch.empty_like(q)
    if o.stride() != q.stride():
        raise ValueError(
            f"attention: output layout {o.stride()} differs from q's {q.stride()}; pass contiguous q"
        )
    scale = sm_scale if sm_scale is not None else head_dim**-0.5
    attention_fwd_kernel[attention_grid(n_ctx, batch * heads, {"BLOCK_M": block_m})](
        q, k, v, o, scale, q.stride(0), q.stride(1), q.stride(2), q.stride(3), heads, n_ctx,
        HEAD_DIM=head_dim, BLOCK_M=block_m, BLOCK_N=block_n, CAUSAL=causal, CAUSAL_MASK=causal_mask,
        num_warps=num_warps, num_stages=num_stages,
    )  # fmt: skip
    return o

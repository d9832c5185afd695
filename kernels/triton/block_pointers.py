"""The reference GEMM and attention written over block pointers (``tl.make_block_ptr`` / ``tl.advance``).

Triton 3.6 to 3.8 compile block pointers (the H200 that times the committed data runs 3.6); 3.9 removed them,
and TileSight predicts such kernels there through :mod:`tilesight.frontends.triton.blockptr`, which rewrites
them to the pointer tensors 3.6 lowers them to. These kernels measure that path: the same tiles and launch
as :mod:`.gemm` and :mod:`.attention`, every edge bounds-checked by ``boundary_check`` instead of a mask, and
the attention's K/V loop in a helper that takes the block pointers (as Triton's fused-attention tutorial
did).
"""

from __future__ import annotations

import math

import triton
import triton.language as tl

# exp(x) = exp2(x * log2(e))
LOG2E = tl.constexpr(1 / math.log(2))


@triton.jit
def matmul_block_ptr_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
):
    """``C = A @ B`` with :func:`.gemm.matmul_kernel`'s GROUP_M launch order, over block pointers."""
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    launches_per_group = GROUP_M * tiles_n
    group_row0 = (pid // launches_per_group) * GROUP_M
    rows_here = tl.minimum(tiles_m - group_row0, GROUP_M)
    in_group = pid % launches_per_group
    tile_m = group_row0 + in_group % rows_here
    tile_n = in_group // rows_here
    a_block = tl.make_block_ptr(
        base=a_ptr, shape=(M, K), strides=(stride_am, stride_ak), offsets=(tile_m * BLOCK_M, 0),
        block_shape=(BLOCK_M, BLOCK_K), order=(1, 0),
    )  # fmt: skip
    b_block = tl.make_block_ptr(
        base=b_ptr, shape=(K, N), strides=(stride_bk, stride_bn), offsets=(0, tile_n * BLOCK_N),
        block_shape=(BLOCK_K, BLOCK_N), order=(1, 0),
    )  # fmt: skip
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_block, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_block, boundary_check=(0, 1), padding_option="zero")
        acc = tl.dot(a, b, acc)
        a_block = tl.advance(a_block, (0, BLOCK_K))
        b_block = tl.advance(b_block, (BLOCK_K, 0))
    c_block = tl.make_block_ptr(
        base=c_ptr, shape=(M, N), strides=(stride_cm, stride_cn),
        offsets=(tile_m * BLOCK_M, tile_n * BLOCK_N), block_shape=(BLOCK_M, BLOCK_N), order=(1, 0),
    )  # fmt: skip
    tl.store(c_block, acc.to(c_ptr.dtype.element_ty), boundary_check=(0, 1))


@triton.jit
def _attend(q, k_block, v_block, rows, kv_end, scale, BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr,
            BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):  # fmt: skip
    """The K/V loop of :func:`attention_block_ptr_kernel`: the block pointers come in, advance here."""
    row_max = tl.full((BLOCK_M,), -float("inf"), dtype=tl.float32)
    row_sum = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    for kv_start in range(0, kv_end, BLOCK_N):
        kt = tl.load(k_block, boundary_check=(1,), padding_option="zero")
        s = tl.dot(q, kt) * scale
        if CAUSAL:
            keys = kv_start + tl.arange(0, BLOCK_N)
            s = tl.where(rows[:, None] >= keys[None, :], s, -float("inf"))
        m_new = tl.maximum(row_max, tl.max(s, axis=1))
        p = tl.math.exp2(s - m_new[:, None])
        rescale = tl.math.exp2(row_max - m_new)
        row_sum = row_sum * rescale + tl.sum(p, axis=1)
        v = tl.load(v_block, boundary_check=(0,), padding_option="zero")
        acc = acc * rescale[:, None] + tl.dot(p.to(v.dtype), v)
        row_max = m_new
        k_block = tl.advance(k_block, (0, BLOCK_N))
        v_block = tl.advance(v_block, (BLOCK_N, 0))
    return acc / row_sum[:, None]


@triton.jit
def attention_block_ptr_kernel(
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
):
    """:func:`.attention.attention_fwd_kernel` over block pointers (K read transposed through its strides);
    ``N_CTX`` a multiple of ``BLOCK_N`` (the key loop's last block is bounds-checked, not masked)."""
    q_block = tl.program_id(0)
    zh = tl.program_id(1)
    base = (zh // H).to(tl.int64) * stride_z + (zh % H).to(tl.int64) * stride_h
    q_ptrs = tl.make_block_ptr(
        base=q_ptr + base, shape=(N_CTX, HEAD_DIM), strides=(stride_n, stride_d),
        offsets=(q_block * BLOCK_M, 0), block_shape=(BLOCK_M, HEAD_DIM), order=(1, 0),
    )  # fmt: skip
    k_block = tl.make_block_ptr(
        base=k_ptr + base, shape=(HEAD_DIM, N_CTX), strides=(stride_d, stride_n), offsets=(0, 0),
        block_shape=(HEAD_DIM, BLOCK_N), order=(0, 1),
    )  # fmt: skip
    v_block = tl.make_block_ptr(
        base=v_ptr + base, shape=(N_CTX, HEAD_DIM), strides=(stride_n, stride_d), offsets=(0, 0),
        block_shape=(BLOCK_N, HEAD_DIM), order=(1, 0),
    )  # fmt: skip
    q = tl.load(q_ptrs, boundary_check=(0,), padding_option="zero")
    rows = q_block * BLOCK_M + tl.arange(0, BLOCK_M)
    if CAUSAL:
        kv_end = tl.minimum((q_block + 1) * BLOCK_M, N_CTX)
    else:
        kv_end = N_CTX
    out = _attend(q, k_block, v_block, rows, kv_end, sm_scale * LOG2E, BLOCK_M, HEAD_DIM, BLOCK_N, CAUSAL)
    o_ptrs = tl.make_block_ptr(
        base=o_ptr + base, shape=(N_CTX, HEAD_DIM), strides=(stride_n, stride_d),
        offsets=(q_block * BLOCK_M, 0), block_shape=(BLOCK_M, HEAD_DIM), order=(1, 0),
    )  # fmt: skip
    tl.store(o_ptrs, out.to(o_ptr.dtype.element_ty), boundary_check=(0,))

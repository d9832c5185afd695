"""A second blind survey (stop 50): kernels written the way public Triton code writes them that the model had
not read before (a batched GEMM with a fused bias and ReLU on a 3-D grid, split-K with fp32 atomics, an fp8
GEMM with B stored K-major, an online cross-entropy over a vocabulary, an arg-max through ``tl.reduce`` with a
tuple combine function, SwiGLU, a tiled transpose through ``tl.trans``), and the survey's FlashAttention
forward at shapes it was never timed at. Predicted at the commit that adds them, before they ran."""

from __future__ import annotations

import math

import triton
import triton.language as tl
from harness import Case, T, nbytes
from k_attn import _cd, attn_flops, flash_fwd

F16, BF16, F32 = "float16", "bfloat16", "float32"


@triton.jit
def bmm_bias_relu(
    a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr
):
    # one program per (row block, column block, batch): C[z] = relu(A[z] @ B[z] + bias)
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    bz = tl.program_id(2).to(tl.int64)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + bz * M * K + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + bz * K * N + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), tl.float32)
    for _ in tl.range(0, K, BK):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BK
        b_ptrs += BK * N
    acc = tl.maximum(acc + tl.load(bias_ptr + rn)[None, :], 0.0)
    tl.store(c_ptr + bz * M * N + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def splitk_atomic(
    a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, SPLIT: tl.constexpr
):
    # each of SPLIT programs per tile sums its share of K and adds it into an fp32 C with atomics
    pid = tl.program_id(0)
    pk = tl.program_id(1)
    npn = tl.cdiv(N, BN)
    pm = pid // npn
    pn = pid % npn
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), tl.float32)
    share = K // SPLIT
    for k in range(pk * share, (pk + 1) * share, BK):
        rk = k + tl.arange(0, BK)
        acc += tl.dot(
            tl.load(a_ptr + rm[:, None] * K + rk[None, :]), tl.load(b_ptr + rk[:, None] * N + rn[None, :])
        )
    tl.atomic_add(c_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def fp8_gemm_kmajor(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # A row-major [M, K], B given as [N, K] (K-major): C = A @ B^T in bf16
    pid = tl.program_id(0)
    npn = tl.cdiv(N, BN)
    pm = pid // npn
    pn = pid % npn
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + rn[:, None] * K + (k + rk)[None, :])
        acc = tl.dot(a, tl.trans(b), acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16))


@triton.jit
def cross_entropy_online(logits_ptr, labels_ptr, loss_ptr, V, BLOCK: tl.constexpr):
    # loss = logsumexp(row) - row[label], the log-sum-exp accumulated online over blocks of the vocabulary
    row = tl.program_id(0).to(tl.int64)
    base = logits_ptr + row * V
    m = -float("inf")
    s = 0.0
    for start in range(0, V, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(base + cols, mask=cols < V, other=-float("inf")).to(tl.float32)
        new_m = tl.maximum(m, tl.max(x, 0))
        s = s * tl.exp(m - new_m) + tl.sum(tl.exp(x - new_m), 0)
        m = new_m
    label = tl.load(labels_ptr + row)
    tl.store(loss_ptr + row, tl.log(s) + m - tl.load(base + label).to(tl.float32))


@triton.jit
def _max_and_index(v1, i1, v2, i2):
    pick = v1 > v2
    return tl.where(pick, v1, v2), tl.where(pick, i1, i2)


@triton.jit
def row_argmax_tuple(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=-float("inf"))
    _, i = tl.reduce((x, cols), 0, _max_and_index)
    tl.store(out_ptr + row, i)


@triton.jit
def swiglu(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = offs < n
    a = tl.load(a_ptr + offs, mask=inside).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=inside)
    tl.store(c_ptr + offs, (a * tl.sigmoid(a)).to(b.dtype) * b, mask=inside)


@triton.jit
def transpose_tiles(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    tl.store(y_ptr + rn[:, None] * M + rm[None, :], tl.trans(x))


def _gemm_flops(m, n, k, batch=1):
    return 2.0 * m * n * k * batch


def other_cases() -> list[Case]:
    out: list[Case] = []
    for z, m, n, k, bm, bn, bk, w, s in (
        (8, 2048, 2048, 1024, 128, 128, 64, 4, 3),
        (16, 1024, 1536, 2048, 64, 128, 64, 4, 4),
    ):
        out.append(
            Case(
                f"gemm_bmm_bias_relu_{z}x{m}x{n}x{k}",
                "3-D grid (batch on axis 2), tl.range, bias + ReLU epilogue",
                bmm_bias_relu,
                (m // bm, n // bn, z),
                (T((z, m, k), F16), T((z, k, n), F16), T((n,), F32), T((z, m, n), F16), m, n, k),
                dict(BM=bm, BN=bn, BK=bk, num_warps=w, num_stages=s),
                nbytes((z, m, k), F16) + nbytes((z, k, n), F16) + nbytes((z, m, n), F16),
                _gemm_flops(m, n, k, z),
            )
        )
    for m, n, k, split, bm, bn in ((1024, 1024, 8192, 4, 128, 128), (512, 2048, 16384, 8, 64, 128)):
        out.append(
            Case(
                f"gemm_splitk_atomic_{m}x{n}x{k}_s{split}",
                "split-K over a 2-D grid, fp32 tl.atomic_add of the partial tiles",
                splitk_atomic,
                ((m // bm) * (n // bn), split),
                (T((m, k), F16), T((k, n), F16), T((m, n), F32), m, n, k),
                dict(BM=bm, BN=bn, BK=64, SPLIT=split, num_warps=4, num_stages=3),
                nbytes((m, k), F16) + nbytes((k, n), F16) + 2 * nbytes((m, n), F32),
                _gemm_flops(m, n, k),
            )
        )
    for m, n, k in ((4096, 4096, 4096), (2048, 7168, 2048)):
        out.append(
            Case(
                f"gemm_fp8_kmajor_{m}x{n}x{k}",
                "float8e4 operands, B K-major through tl.trans, bf16 out",
                fp8_gemm_kmajor,
                ((m // 128) * (n // 128),),
                (T((m, k), "float8_e4m3fn"), T((n, k), "float8_e4m3fn"), T((m, n), BF16), m, n, k),
                dict(BM=128, BN=128, BK=128, num_warps=8, num_stages=3),
                nbytes((m, k), "float8_e4m3fn") + nbytes((n, k), "float8_e4m3fn") + nbytes((m, n), BF16),
                _gemm_flops(m, n, k),
                peak=1979e12,
            )
        )
    for rows, vocab, block, w in ((4096, 32000, 4096, 8), (2048, 128256, 8192, 16)):
        out.append(
            Case(
                f"cross_entropy_online_{rows}x{vocab}",
                "online log-sum-exp loop over the vocabulary, scalar loop-carried state, label gather",
                cross_entropy_online,
                (rows,),
                (T((rows, vocab), BF16), T((rows,), "int64"), T((rows,), F32), vocab),
                dict(BLOCK=block, num_warps=w),
                nbytes((rows, vocab), BF16),
            )
        )
    for rows, cols, block, w in ((16384, 3000, 4096, 8), (65536, 512, 512, 4)):
        out.append(
            Case(
                f"row_argmax_tuple_{rows}x{cols}",
                "tl.reduce over a (value, index) tuple with a @jit combine function",
                row_argmax_tuple,
                (rows,),
                (T((rows, cols), F32), T((rows,), "int32"), cols),
                dict(BLOCK=block, num_warps=w),
                nbytes((rows, cols), F32),
            )
        )
    for n, block, w in ((50_000_000, 1024, 4), (12_582_912, 4096, 8)):
        out.append(
            Case(
                f"swiglu_{n}",
                "sigmoid in fp32, a cast back, a product in bf16",
                swiglu,
                (_cd(n, block),),
                (T((n,), BF16), T((n,), BF16), T((n,), BF16), n),
                dict(BLOCK=block, num_warps=w),
                3 * nbytes((n,), BF16),
            )
        )
    for m, n, bm, bn, w in ((8192, 8192, 64, 64, 4), (4096, 12288, 32, 128, 4)):
        out.append(
            Case(
                f"transpose_tiles_{m}x{n}",
                "2-D tiles transposed in registers (tl.trans) and stored column-wise",
                transpose_tiles,
                (m // bm, n // bn),
                (T((m, n), F16), T((n, m), F16), m, n),
                dict(BM=bm, BN=bn, num_warps=w),
                2 * nbytes((m, n), F16),
            )
        )
    for b, h, s_, d, causal, bm, bn, w, st in (
        (2, 16, 4096, 128, False, 128, 64, 8, 3),
        (1, 32, 8192, 64, True, 128, 64, 4, 3),
        (8, 8, 1024, 128, True, 64, 64, 4, 2),
        (4, 24, 2048, 64, False, 64, 64, 4, 3),
    ):
        q = T((b, h, s_, d), F16)
        out.append(
            Case(
                f"flash_fwd_b{b}h{h}s{s_}d{d}{'_causal' if causal else ''}",
                "the survey's FlashAttention forward at a shape it was not timed at",
                flash_fwd,
                (_cd(s_, bm), b * h),
                (
                    q,
                    T((b, h, s_, d), F16),
                    T((b, h, s_, d), F16),
                    T((b, h, s_, d), F16),
                    T((b * h, s_), F32),
                    1 / math.sqrt(d),
                    h * s_ * d,
                    s_ * d,
                    d,
                    h,
                    s_,
                ),  # fmt: skip
                dict(
                    HEAD_DIM=d,
                    BLOCK_M=bm,
                    BLOCK_N=bn,
                    CAUSAL=causal,
                    WINDOW=0,
                    KV_GROUP=1,
                    num_warps=w,
                    num_stages=st,
                ),
                4 * b * h * s_ * d * 2,
                attn_flops(b, h, s_, d, causal),
            )
        )
    return out

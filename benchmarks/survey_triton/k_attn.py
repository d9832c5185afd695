"""Attention variants."""

import math

import triton
import triton.language as tl
from harness import Case, T

B_, H_, S_, D_ = 4, 32, 2048, 128
LOG2E = 1.4426950408889634


@triton.jit
def _attn_inner(
    acc,
    l_i,
    m_i,
    q,
    k_base,
    v_base,
    stride_n,
    offs_m,
    start,
    end,
    qk_scale,
    BLOCK_N: tl.constexpr,
    HEAD_DIM: tl.constexpr,
    MASK: tl.constexpr,
    WINDOW: tl.constexpr,
):
    d = tl.arange(0, HEAD_DIM)
    for start_n in tl.range(start, end, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        offs_n = start_n + tl.arange(0, BLOCK_N)
        k = tl.load(k_base + offs_n[None, :] * stride_n + d[:, None])
        qk = tl.dot(q, k)
        if MASK:
            keep = offs_m[:, None] >= offs_n[None, :]
            if WINDOW > 0:
                keep = keep & (offs_m[:, None] - offs_n[None, :] < WINDOW)
            qk = qk * qk_scale + tl.where(keep, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(v_base + offs_n[:, None] * stride_n + d[None, :])
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def flash_fwd(
    Q,
    K,
    V,
    O,
    LSE,
    sm_scale,
    stride_z,
    stride_h,
    stride_n,
    H,
    N_CTX,
    HEAD_DIM: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    CAUSAL: tl.constexpr,
    WINDOW: tl.constexpr,
    KV_GROUP: tl.constexpr,
):
    # tutorial-shaped: off-band unmasked loop + masked diagonal loop (causal), GQA via KV_GROUP,
    # sliding window via WINDOW>0 (loop start moved forward)
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    kv_h = off_h // KV_GROUP
    H_KV = H // KV_GROUP
    q_off = off_z.to(tl.int64) * stride_z + off_h.to(tl.int64) * stride_h
    q_base = Q + q_off
    kv_off = off_z.to(tl.int64) * (H_KV * N_CTX * HEAD_DIM) + kv_h.to(tl.int64) * (N_CTX * HEAD_DIM)
    k_base = K + kv_off
    v_base = V + kv_off
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_base + offs_m[:, None] * stride_n + d[None, :])
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    if CAUSAL:
        lo = 0
        if WINDOW > 0:
            lo = tl.maximum(0, (start_m * BLOCK_M - WINDOW) // BLOCK_N * BLOCK_N)
            acc, l_i, m_i = _attn_inner(
                acc,
                l_i,
                m_i,
                q,
                k_base,
                v_base,
                stride_n,
                offs_m,
                lo,
                (start_m + 1) * BLOCK_M,
                qk_scale,
                BLOCK_N,
                HEAD_DIM,
                True,
                WINDOW,
            )
        else:
            acc, l_i, m_i = _attn_inner(
                acc,
                l_i,
                m_i,
                q,
                k_base,
                v_base,
                stride_n,
                offs_m,
                lo,
                start_m * BLOCK_M,
                qk_scale,
                BLOCK_N,
                HEAD_DIM,
                False,
                0,
            )
            acc, l_i, m_i = _attn_inner(
                acc,
                l_i,
                m_i,
                q,
                k_base,
                v_base,
                stride_n,
                offs_m,
                start_m * BLOCK_M,
                (start_m + 1) * BLOCK_M,
                qk_scale,
                BLOCK_N,
                HEAD_DIM,
                True,
                0,
            )
    else:
        acc, l_i, m_i = _attn_inner(
            acc,
            l_i,
            m_i,
            q,
            k_base,
            v_base,
            stride_n,
            offs_m,
            0,
            N_CTX,
            qk_scale,
            BLOCK_N,
            HEAD_DIM,
            False,
            0,
        )
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    tl.store(LSE + off_hz * N_CTX + offs_m, m_i)
    tl.store(O + q_off + offs_m[:, None] * stride_n + d[None, :], acc.to(O.type.element_ty))


@triton.jit
def flash_fwd_desc(
    Q, K, V, O, sm_scale, Z, H, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr
):
    # device tensor descriptors over (Z*H*N_CTX, HEAD_DIM) flattened views (tutorial's TMA path), non-causal
    y_dim = Z * H * N_CTX
    dq = tl.make_tensor_descriptor(
        Q, shape=[y_dim, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_M, HEAD_DIM]
    )
    dk = tl.make_tensor_descriptor(
        K, shape=[y_dim, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_N, HEAD_DIM]
    )
    dv = tl.make_tensor_descriptor(
        V, shape=[y_dim, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_N, HEAD_DIM]
    )
    do = tl.make_tensor_descriptor(
        O, shape=[y_dim, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_M, HEAD_DIM]
    )
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    row0 = off_hz * N_CTX
    q = dq.load([row0 + start_m * BLOCK_M, 0])
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    for start_n in tl.range(0, N_CTX, BLOCK_N, num_stages=2):
        k = dk.load([row0 + start_n, 0]).T
        qk = tl.dot(q, k)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        p = tl.math.exp2(qk * qk_scale - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = dv.load([row0 + start_n, 0])
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        m_i = m_ij
    do.store([row0 + start_m * BLOCK_M, 0], (acc / l_i[:, None]).to(tl.float16))


@triton.jit
def flash_fwd_alibi_softcap(
    Q,
    K,
    V,
    O,
    slopes_ptr,
    sm_scale,
    softcap,
    stride_z,
    stride_h,
    stride_n,
    H,
    N_CTX,
    HEAD_DIM: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    USE_ASM_TANH: tl.constexpr,
):
    # causal, single masked loop; ALiBi bias from per-head slope; optional Gemma-2 softcap via inline PTX tanh
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_h = off_hz % H
    base = (off_hz // H).to(tl.int64) * stride_z + off_h.to(tl.int64) * stride_h
    slope = tl.load(slopes_ptr + off_h)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + base + offs_m[:, None] * stride_n + d[None, :])
    m_i = tl.full([BLOCK_M], -float("inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    hi = tl.minimum((start_m + 1) * BLOCK_M, N_CTX)
    for start_n in tl.range(0, hi, BLOCK_N, num_stages=3):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        k = tl.load(K + base + offs_n[None, :] * stride_n + d[:, None])
        s = tl.dot(q, k) * sm_scale
        if USE_ASM_TANH:
            s = softcap * tl.inline_asm_elementwise(
                "tanh.approx.f32 $0, $1;", "=r,r", [s / softcap], dtype=tl.float32, is_pure=True, pack=1
            )
        s = s + slope * (offs_n[None, :] - offs_m[:, None]).to(tl.float32)
        s = tl.where(offs_m[:, None] >= offs_n[None, :], s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(V + base + offs_n[:, None] * stride_n + d[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    tl.store(O + base + offs_m[:, None] * stride_n + d[None, :], (acc / l_i[:, None]).to(O.dtype.element_ty))


@triton.jit
def decode_splitk(
    Q,
    K,
    V,
    Mid_O,
    Mid_LSE,
    sm_scale,
    seq_len,
    H,
    H_KV,
    stride_kb,
    stride_kh,
    stride_kn,
    HEAD_DIM: tl.constexpr,
    BLOCK_N: tl.constexpr,
    NUM_SPLITS: tl.constexpr,
    GROUP: tl.constexpr,
):
    # flash-decoding stage 1: one program per (batch, kv head, split); GROUP query heads share the KV head
    bid = tl.program_id(0)
    kvh = tl.program_id(1)
    sid = tl.program_id(2)
    g = tl.arange(0, GROUP)
    d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + (bid * H + kvh * GROUP + g)[:, None] * HEAD_DIM + d[None, :])
    split_len = tl.cdiv(seq_len, NUM_SPLITS)
    start = sid * split_len
    end = tl.minimum(start + split_len, seq_len)
    kbase = bid.to(tl.int64) * stride_kb + kvh.to(tl.int64) * stride_kh
    m_i = tl.full([GROUP], -float("inf"), tl.float32)
    l_i = tl.zeros([GROUP], tl.float32)
    acc = tl.zeros([GROUP, HEAD_DIM], tl.float32)
    for n0 in range(start, end, BLOCK_N):
        offs_n = n0 + tl.arange(0, BLOCK_N)
        nmask = offs_n < end
        k = tl.load(K + kbase + offs_n[None, :] * stride_kn + d[:, None], mask=nmask[None, :], other=0.0)
        s = tl.dot(q, k) * sm_scale
        s = tl.where(nmask[None, :], s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(V + kbase + offs_n[:, None] * stride_kn + d[None, :], mask=nmask[:, None], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    heads = bid * H + kvh * GROUP + g
    tl.store(Mid_O + (heads[:, None] * NUM_SPLITS + sid) * HEAD_DIM + d[None, :], acc / l_i[:, None])
    tl.store(Mid_LSE + heads * NUM_SPLITS + sid, m_i + tl.log(l_i))


@triton.jit
def decode_reduce(Mid_O, Mid_LSE, O, HEAD_DIM: tl.constexpr, NUM_SPLITS: tl.constexpr):
    head = tl.program_id(0)
    s = tl.arange(0, NUM_SPLITS)
    d = tl.arange(0, HEAD_DIM)
    lse = tl.load(Mid_LSE + head * NUM_SPLITS + s)
    o = tl.load(Mid_O + (head * NUM_SPLITS + s)[:, None] * HEAD_DIM + d[None, :])
    m = tl.max(lse, 0)
    w = tl.exp(lse - m)
    out = tl.sum(o * w[:, None], 0) / tl.sum(w, 0)
    tl.store(O + head * HEAD_DIM + d, out.to(O.dtype.element_ty))


@triton.jit
def attn_bwd_preprocess(O, DO, Delta, N_CTX, BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    off_hz = tl.program_id(1)
    d = tl.arange(0, HEAD_DIM)
    o = tl.load(O + off_hz * HEAD_DIM * N_CTX + off_m[:, None] * HEAD_DIM + d[None, :])
    do = tl.load(DO + off_hz * HEAD_DIM * N_CTX + off_m[:, None] * HEAD_DIM + d[None, :]).to(tl.float32)
    tl.store(Delta + off_hz * N_CTX + off_m, tl.sum(o * do, axis=1))


@triton.jit
def attn_bwd_dkdv(
    Q,
    K,
    V,
    DO,
    LSE,
    Delta,
    DK,
    DV,
    sm_scale,
    N_CTX,
    HEAD_DIM: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    # non-causal dK/dV: a program owns BLOCK_N keys and loops over all queries (tl.trans, 4 dots/iter)
    start_n = tl.program_id(0) * BLOCK_N
    off_hz = tl.program_id(1)
    base = off_hz.to(tl.int64) * N_CTX * HEAD_DIM
    offs_n = start_n + tl.arange(0, BLOCK_N)
    d = tl.arange(0, HEAD_DIM)
    k = tl.load(K + base + offs_n[:, None] * HEAD_DIM + d[None, :])
    v = tl.load(V + base + offs_n[:, None] * HEAD_DIM + d[None, :])
    dk = tl.zeros([BLOCK_N, HEAD_DIM], tl.float32)
    dv = tl.zeros([BLOCK_N, HEAD_DIM], tl.float32)
    for start_m in range(0, N_CTX, BLOCK_M):
        offs_m = start_m + tl.arange(0, BLOCK_M)
        qT = tl.load(Q + base + offs_m[None, :] * HEAD_DIM + d[:, None])
        m = tl.load(LSE + off_hz * N_CTX + offs_m)
        qkT = tl.dot(k, qT)
        pT = tl.math.exp2(qkT - m[None, :])
        do = tl.load(DO + base + offs_m[:, None] * HEAD_DIM + d[None, :])
        dv += tl.dot(pT.to(tl.float16), do)
        Di = tl.load(Delta + off_hz * N_CTX + offs_m)
        dpT = tl.dot(v, tl.trans(do)).to(tl.float32)
        dsT = (pT * (dpT - Di[None, :])).to(tl.float16)
        dk += tl.dot(dsT, tl.trans(qT))
    tl.store(DV + base + offs_n[:, None] * HEAD_DIM + d[None, :], dv.to(tl.float16))
    tl.store(DK + base + offs_n[:, None] * HEAD_DIM + d[None, :], (dk * sm_scale).to(tl.float16))


@triton.jit
def varlen_fwd(
    Q, K, V, O, cu_seqlens, sm_scale, H, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr
):
    # variable-length batch: sequence bounds read from cu_seqlens (packed tokens x heads x dim)
    start_m = tl.program_id(0)
    off_h = tl.program_id(1)
    bid = tl.program_id(2)
    seq_start = tl.load(cu_seqlens + bid)
    seq_end = tl.load(cu_seqlens + bid + 1)
    seq_len = seq_end - seq_start
    if start_m * BLOCK_M >= seq_len:
        return
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    d = tl.arange(0, HEAD_DIM)
    stride_t = H * HEAD_DIM
    q = tl.load(
        Q + (seq_start + offs_m[:, None]) * stride_t + off_h * HEAD_DIM + d[None, :],
        mask=offs_m[:, None] < seq_len,
        other=0.0,
    )
    m_i = tl.full([BLOCK_M], -float("inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    for start_n in range(0, seq_len, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        k = tl.load(
            K + (seq_start + offs_n[None, :]) * stride_t + off_h * HEAD_DIM + d[:, None],
            mask=offs_n[None, :] < seq_len,
            other=0.0,
        )
        s = tl.dot(q, k) * sm_scale
        s = tl.where(offs_n[None, :] < seq_len, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(
            V + (seq_start + offs_n[:, None]) * stride_t + off_h * HEAD_DIM + d[None, :],
            mask=offs_n[:, None] < seq_len,
            other=0.0,
        )
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    tl.store(
        O + (seq_start + offs_m[:, None]) * stride_t + off_h * HEAD_DIM + d[None, :],
        (acc / l_i[:, None]).to(O.dtype.element_ty),
        mask=offs_m[:, None] < seq_len,
    )


def _cd(a, b):
    return (a + b - 1) // b


def attn_flops(b, h, s, d, causal, window=0):
    pairs = s * s / 2 if causal else s * s
    if window:
        pairs = s * window
    return 4.0 * b * h * pairs * d


def decode_splitk_case(name, constructs, Bd, Hq, Hkv, L, NS, note=""):
    """Flash-decoding stage 1 (``decode_splitk``): batch ``Bd``, ``Hq`` query heads over ``Hkv`` KV heads of
    ``L`` keys, head dim 128, ``NS`` splits."""
    f16, f32 = "float16", "float32"
    return Case(
        name,
        constructs,
        decode_splitk,
        (Bd, Hkv, NS),
        (
            T((Bd, Hq, 128), f16),
            T((Bd, Hkv, L, 128), f16),
            T((Bd, Hkv, L, 128), f16),
            T((Bd * Hq, NS, 128), f32),
            T((Bd * Hq, NS), f32),
            0.088,
            L,
            Hq,
            Hkv,
            Hkv * L * 128,
            L * 128,
            128,
        ),  # fmt: skip
        dict(HEAD_DIM=128, BLOCK_N=64, NUM_SPLITS=NS, GROUP=Hq // Hkv, num_warps=4, num_stages=2),
        2 * Bd * Hkv * L * 128 * 2,
        4.0 * Bd * Hq * L * 128,
        note=note,
    )


def cases():
    f16, f32 = "float16", "float32"
    out = []

    def qkv(d, hkv=H_):
        q = T((B_, H_, S_, d), f16)
        kv = T((B_, hkv, S_, d), f16)
        return q, kv, T((B_, hkv, S_, d), f16), T((B_, H_, S_, d), f16)

    def add_flash(name, constructs, d, causal, window=0, group=1, bm=128, bn=64, nw=8, ns=3):
        q, k, v, o = qkv(d, H_ // group)
        byts = 2 * B_ * H_ * S_ * d * 2 + 2 * B_ * (H_ // group) * S_ * d * 2
        out.append(
            Case(
                name,
                constructs,
                flash_fwd,
                (_cd(S_, bm), B_ * H_),
                (q, k, v, o, T((B_ * H_, S_), f32), 1 / math.sqrt(d), H_ * S_ * d, S_ * d, d, H_, S_),
                dict(
                    HEAD_DIM=d,
                    BLOCK_M=bm,
                    BLOCK_N=bn,
                    CAUSAL=causal,
                    WINDOW=window,
                    KV_GROUP=group,
                    num_warps=nw,
                    num_stages=ns,
                ),
                byts,
                attn_flops(B_, H_, S_, d, causal, window),
            )
        )

    add_flash("flash_fwd_d128", "non-causal, @jit helper fn, tl.range, tl.multiple_of", 128, False)
    add_flash("flash_fwd_causal_d128", "causal 2-stage (off-band + masked diag) loops", 128, True)
    add_flash("flash_fwd_d64", "head dim 64", 64, False, bm=128, bn=64, nw=4)
    add_flash("flash_fwd_d256", "head dim 256 (smem/register heavy)", 256, False, bm=64, bn=32, nw=8, ns=2)
    add_flash("flash_fwd_gqa8", "GQA kv_head = h // 8", 128, True, group=8)
    add_flash("flash_fwd_swa1024", "sliding window 1024, runtime max() loop start", 128, True, window=1024)

    Z = B_
    y = Z * H_ * S_
    out.append(
        Case(
            "flash_fwd_device_desc",
            "make_tensor_descriptor on flattened view, .T on loaded tile",
            flash_fwd_desc,
            (_cd(S_, 128), Z * H_),
            (T((y, 128), f16), T((y, 128), f16), T((y, 128), f16), T((y, 128), f16), 0.088, Z, H_, S_),
            dict(HEAD_DIM=128, BLOCK_M=128, BLOCK_N=64, num_warps=8, num_stages=3),
            4 * y * 128 * 2,
            attn_flops(B_, H_, S_, 128, False),
        )
    )
    q, k, v, o = qkv(128)
    for asm in (False, True):
        out.append(
            Case(
                "flash_alibi" + ("_asm_softcap" if asm else ""),
                "ALiBi slope bias, causal 1-loop" + (" + tl.inline_asm_elementwise tanh" if asm else ""),
                flash_fwd_alibi_softcap,
                (_cd(S_, 128), B_ * H_),
                (q, k, v, o, T((H_,), f32), 0.088, 50.0, H_ * S_ * 128, S_ * 128, 128, H_, S_),
                dict(HEAD_DIM=128, BLOCK_M=128, BLOCK_N=64, USE_ASM_TANH=asm, num_warps=8, num_stages=3),
                4 * B_ * H_ * S_ * 128 * 2,
                attn_flops(B_, H_, S_, 128, True),
            )
        )
    # decode: batch 32, 32 q heads, 8 kv heads, kv len 8192, d 128, 16 splits
    Bd, Hq, Hkv, L, NS = 32, 32, 8, 8192, 16
    out.append(
        decode_splitk_case(
            "decode_splitk_stage1",
            "flash-decoding split-K, GQA group dot (M=4), masked tails, 3-D grid",
            Bd,
            Hq,
            Hkv,
            L,
            NS,
            note="GROUP=4 rows < 16 for tl.dot",
        )  # fmt: skip
    )
    out.append(
        Case(
            "decode_splitk_reduce",
            "LSE-weighted combine of splits",
            decode_reduce,
            (Bd * Hq,),
            (T((Bd * Hq, NS, 128), f32), T((Bd * Hq, NS), f32), T((Bd * Hq, 128), f16)),
            dict(HEAD_DIM=128, NUM_SPLITS=NS, num_warps=4),
            Bd * Hq * NS * 128 * 4,
            note="2 MB total: launch-bound",
        )
    )
    n = B_ * H_ * S_ * 128
    out.append(
        Case(
            "attn_bwd_preprocess",
            "rowwise o*do sum (Delta)",
            attn_bwd_preprocess,
            (S_ // 128, B_ * H_),
            (T((B_ * H_, S_, 128), f16), T((B_ * H_, S_, 128), f16), T((B_ * H_, S_), f32), S_),
            dict(BLOCK_M=128, HEAD_DIM=128, num_warps=4),
            2 * n * 2,
        )
    )
    out.append(
        Case(
            "attn_bwd_dkdv",
            "4 dots/iter, tl.trans of loaded tiles, exp2",
            attn_bwd_dkdv,
            (S_ // 64, B_ * H_),
            (
                T((B_ * H_, S_, 128), f16),
                T((B_ * H_, S_, 128), f16),
                T((B_ * H_, S_, 128), f16),
                T((B_ * H_, S_, 128), f16),
                T((B_ * H_, S_), f32),
                T((B_ * H_, S_), f32),
                T((B_ * H_, S_, 128), f16),
                T((B_ * H_, S_, 128), f16),
                0.088,
                S_,
            ),
            dict(HEAD_DIM=128, BLOCK_M=64, BLOCK_N=64, num_warps=4, num_stages=2),
            6 * n * 2,
            8.0 * B_ * H_ * S_ * S_ * 128,
        )
    )
    import numpy as np

    lens = [512, 1024, 2048, 1536, 300, 4096, 700, 2000]
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    tot = int(cu[-1])
    out.append(
        Case(
            "varlen_fwd_cu_seqlens",
            "cu_seqlens loads -> loop bound + early return (values given)",
            varlen_fwd,
            (_cd(max(lens), 128), H_, len(lens)),
            (
                T((tot, H_, 128), f16),
                T((tot, H_, 128), f16),
                T((tot, H_, 128), f16),
                T((tot, H_, 128), f16),
                T((len(cu),), "int32", values=cu),
                0.088,
                H_,
            ),
            dict(HEAD_DIM=128, BLOCK_M=128, BLOCK_N=64, num_warps=8, num_stages=3),
            4 * tot * H_ * 128 * 2,
            4.0 * H_ * sum(l * l for l in lens) * 128,
        )
    )
    out.append(
        Case(
            "varlen_fwd_no_values",
            "same, cu_seqlens without values (expect clear refusal)",
            varlen_fwd,
            (_cd(max(lens), 128), H_, len(lens)),
            (
                T((tot, H_, 128), f16),
                T((tot, H_, 128), f16),
                T((tot, H_, 128), f16),
                T((tot, H_, 128), f16),
                T((len(cu),), "int32"),
                0.088,
                H_,
            ),
            dict(HEAD_DIM=128, BLOCK_M=128, BLOCK_N=64, num_warps=8, num_stages=3),
            4 * tot * H_ * 128 * 2,
            4.0 * H_ * sum(l * l for l in lens) * 128,
        )
    )
    return out

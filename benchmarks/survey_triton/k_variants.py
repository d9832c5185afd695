"""Diagnostic variants that narrow the root cause of refusals, plus a few more real-world idioms
(fused MoE, paged decode, w4a16 dequant GEMM, autotune/heuristics wrappers, callable grid)."""

import numpy as np
import triton
import triton.language as tl
from harness import Case, T

VOCAB = 32000


@triton.jit
def ce_return_only(logits_ptr, labels_ptr, loss_ptr, stride, V, ignore_index, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    logits_ptr += row * stride
    label = tl.load(labels_ptr + row)
    if label == ignore_index:
        return
    m = float("-inf")
    d = 0.0
    for off in range(0, V, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(logits_ptr + cols, mask=cols < V, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x))
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new))
        m = m_new
    lse = m + tl.log(d)
    for off in range(0, V, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(logits_ptr + cols, mask=cols < V, other=float("-inf")).to(tl.float32)
        g = tl.exp(x - lse)
        g = tl.where(cols == label, g - 1.0, g)
        tl.store(logits_ptr + cols, g.to(logits_ptr.dtype.element_ty), mask=cols < V)
    tl.store(loss_ptr + row, lse - tl.load(logits_ptr + label).to(tl.float32))


@triton.jit
def ce_where_ignore(logits_ptr, labels_ptr, loss_ptr, stride, V, ignore_index, BLOCK: tl.constexpr):
    # branch-free: ignore handled with a scale factor
    row = tl.program_id(0).to(tl.int64)
    logits_ptr += row * stride
    label = tl.load(labels_ptr + row)
    valid = (label != ignore_index).to(tl.float32)
    m = float("-inf")
    d = 0.0
    for off in range(0, V, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(logits_ptr + cols, mask=cols < V, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x))
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new))
        m = m_new
    lse = m + tl.log(d)
    for off in range(0, V, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(logits_ptr + cols, mask=cols < V, other=float("-inf")).to(tl.float32)
        g = (tl.exp(x - lse) - (cols == label).to(tl.float32)) * valid
        tl.store(logits_ptr + cols, g.to(logits_ptr.dtype.element_ty), mask=cols < V)
    tl.store(loss_ptr + row, valid * lse)


@triton.jit
def if_else_on_pid(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    # a plain if/else on program id (both sides do work): "branching other than an early return"
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + pid * N + cols)
    if pid % 2 == 0:
        y = x * 2.0
    else:
        y = x + 1.0
    tl.store(y_ptr + pid * N + cols, y)


@triton.jit
def if_on_scalar_arg(x_ptr, y_ptr, N, has_scale, scale, BLOCK: tl.constexpr):
    # runtime scalar flag (not constexpr): `if has_scale:` uniform across programs
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + pid * N + cols).to(tl.float32)
    if has_scale:
        x = x * scale
    tl.store(y_ptr + pid * N + cols, x)


@triton.jit
def varlen_lens_sum(x_ptr, cu_ptr, out_ptr, D: tl.constexpr, BLOCK: tl.constexpr, DIFF: tl.constexpr):
    seq = tl.program_id(0)
    start = tl.load(cu_ptr + seq)
    if DIFF:
        n = tl.load(cu_ptr + seq + 1) - start  # cu_seqlens idiom
    else:
        n = tl.load(cu_ptr + seq + 1)  # (loads a length directly)
    acc = tl.zeros((D,), dtype=tl.float32)
    for i in range(0, n, BLOCK):
        rows = start + i + tl.arange(0, BLOCK)
        x = tl.load(
            x_ptr + rows[:, None] * D + tl.arange(0, D)[None, :],
            mask=(i + tl.arange(0, BLOCK))[:, None] < n,
            other=0.0,
        )
        acc += tl.sum(x.to(tl.float32), axis=0)
    tl.store(out_ptr + seq * D + tl.arange(0, D), acc)


@triton.jit
def varlen_lens_return(x_ptr, lens_ptr, out_ptr, D: tl.constexpr, BLOCK: tl.constexpr):
    # 2-D grid over (row-block, seq): early return on a loaded length (flash varlen idiom)
    pb = tl.program_id(0)
    seq = tl.program_id(1)
    n = tl.load(lens_ptr + seq)
    if pb * BLOCK >= n:
        return
    rows = pb * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + seq * 4096 * D + rows[:, None] * D + tl.arange(0, D)[None, :], mask=rows[:, None] < n)
    tl.store(
        out_ptr + seq * 4096 * D + rows[:, None] * D + tl.arange(0, D)[None, :], x * 2, mask=rows[:, None] < n
    )


@triton.jit
def fused_moe_gemm(
    a_ptr,
    b_ptr,
    c_ptr,
    sorted_token_ids_ptr,
    expert_ids_ptr,
    num_tokens_post_padded_ptr,
    N,
    K,
    num_valid_tokens,
    stride_am,
    stride_be,
    stride_bk,
    stride_bn,
    stride_cm,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    TOP_K: tl.constexpr,
):
    # vLLM fused_moe: rows gathered through sorted_token_ids, expert chosen per M-block
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BN)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n
    num_tokens_post_padded = tl.load(num_tokens_post_padded_ptr)
    if pid_m * BM >= num_tokens_post_padded:
        return
    offs_token_id = pid_m * BM + tl.arange(0, BM)
    offs_token = tl.load(sorted_token_ids_ptr + offs_token_id).to(tl.int64)
    token_mask = offs_token < num_valid_tokens
    offs_bn = (pid_n * BN + tl.arange(0, BN)) % N
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + (offs_token[:, None] // TOP_K * stride_am + offs_k[None, :])
    off_expert = tl.load(expert_ids_ptr + pid_m).to(tl.int64)
    b_ptrs = b_ptr + off_expert * stride_be + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=token_mask[:, None] & (offs_k[None, :] < K - k * BK), other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    offs_cn = pid_n * BN + tl.arange(0, BN)
    c_ptrs = c_ptr + stride_cm * offs_token[:, None] + offs_cn[None, :]
    tl.store(c_ptrs, acc.to(tl.bfloat16), mask=token_mask[:, None] & (offs_cn[None, :] < N))


@triton.jit
def paged_decode(
    Q,
    K_cache,
    V_cache,
    block_tables,
    seq_lens,
    O,
    sm_scale,
    max_blocks,
    H: tl.constexpr,
    H_KV: tl.constexpr,
    HEAD_DIM: tl.constexpr,
    PAGE: tl.constexpr,
):
    # vLLM-style paged attention decode: page table read inside the KV loop; GQA group as the dot's M
    b = tl.program_id(0)
    kvh = tl.program_id(1)
    GROUP: tl.constexpr = H // H_KV
    g = tl.arange(0, GROUP)
    d = tl.arange(0, HEAD_DIM)
    q = tl.load(Q + (b * H + kvh * GROUP + g)[:, None] * HEAD_DIM + d[None, :])
    seq_len = tl.load(seq_lens + b)
    m_i = tl.full([GROUP], -float("inf"), tl.float32)
    l_i = tl.zeros([GROUP], tl.float32)
    acc = tl.zeros([GROUP, HEAD_DIM], tl.float32)
    for j in range(0, tl.cdiv(seq_len, PAGE)):
        page = tl.load(block_tables + b * max_blocks + j).to(tl.int64)
        offs = tl.arange(0, PAGE)
        base = page * (H_KV * PAGE * HEAD_DIM) + kvh * PAGE * HEAD_DIM
        k = tl.load(K_cache + base + offs[None, :] * HEAD_DIM + d[:, None])
        s = tl.dot(q, k) * sm_scale
        s = tl.where((j * PAGE + offs)[None, :] < seq_len, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(V_cache + base + offs[:, None] * HEAD_DIM + d[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    tl.store(
        O + (b * H + kvh * GROUP + g)[:, None] * HEAD_DIM + d[None, :], (acc / l_i[:, None]).to(tl.float16)
    )


@triton.jit
def w4a16_gemm(
    a_ptr,
    qw_ptr,
    scales_ptr,
    c_ptr,
    M,
    N,
    K,
    GROUP_SIZE: tl.constexpr,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
):
    # weight-only int4: qw is (K//2, N) uint8, two nibbles along K; group-wise fp16 scales; tl.join+reshape
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    rk2 = tl.arange(0, BK // 2)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        q = tl.load(qw_ptr + (k // 2 + rk2)[:, None] * N + rn[None, :])
        lo = (q & 0xF).to(tl.int8) - 8
        hi = (q >> 4).to(tl.int8) - 8
        w = tl.reshape(tl.join(lo, hi).permute(0, 2, 1), (BK, BN)).to(tl.float16)
        s = tl.load(scales_ptr + (k // GROUP_SIZE) * N + rn)
        acc = tl.dot(a, w * s[None, :], acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


@triton.autotune(
    configs=[triton.Config({"BLOCK": 1024}, num_warps=4), triton.Config({"BLOCK": 4096}, num_warps=8)],
    key=["n"],
)
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def autotuned_heuristic_axpy(x_ptr, y_ptr, n, a, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        x = tl.load(x_ptr + offs)
        y = tl.load(y_ptr + offs)
        tl.store(y_ptr + offs, a * x + y)
    else:
        x = tl.load(x_ptr + offs, mask=offs < n)
        y = tl.load(y_ptr + offs, mask=offs < n)
        tl.store(y_ptr + offs, a * x + y, mask=offs < n)


@triton.jit
def atomic_max_absmax(x_ptr, amax_ptr, n, BLOCK: tl.constexpr):
    # tensor-wide amax for fp8 scaling: block reduce + scalar tl.atomic_max
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
    tl.atomic_max(amax_ptr, tl.max(tl.abs(x), axis=0))


@triton.jit
def dot_scaled_mxfp8(
    a_ptr, as_ptr, b_ptr, bs_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr
):
    # microscaling fp8 GEMM (tl.dot_scaled, e8m0 scales per 32 elements along K)
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    rs = tl.arange(0, BK // 32)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        sa = tl.load(as_ptr + rm[:, None] * (K // 32) + (k // 32 + rs)[None, :])
        sb = tl.load(bs_ptr + rn[:, None] * (K // 32) + (k // 32 + rs)[None, :])
        acc = tl.dot_scaled(a, sa, "e4m3", b, sb, "e4m3", acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16))


def _cd(a, b):
    return (a + b - 1) // b


def paged_decode_case(name, constructs, Bd, H, Hkv, L, PAGE, rng, note=""):
    """vLLM-style paged decode (``paged_decode``): batch ``Bd`` of ``L`` keys in pages of ``PAGE``, ``H``
    query heads over ``Hkv`` KV heads, head dim 128; the page table a random permutation from ``rng``."""
    f16 = "float16"
    nblk = L // PAGE
    tables = rng.permutation(Bd * nblk).astype(np.int32).reshape(Bd, nblk)
    return Case(
        name,
        constructs,
        paged_decode,
        (Bd, Hkv),
        (
            T((Bd, H, 128), f16),
            T((Bd * nblk, Hkv, PAGE, 128), f16),
            T((Bd * nblk, Hkv, PAGE, 128), f16),
            T((Bd, nblk), "int32", values=tables),
            T((Bd,), "int32", values=np.full(Bd, L, np.int32)),
            T((Bd, H, 128), f16),
            0.088,
            nblk,
        ),  # fmt: skip
        dict(H=H, H_KV=Hkv, HEAD_DIM=128, PAGE=PAGE, num_warps=4, num_stages=2),
        2 * Bd * Hkv * L * 128 * 2,
        4.0 * Bd * H * L * 128,
        note=note,
    )


def cases():
    f16, bf, f32 = "float16", "bfloat16", "float32"
    out = []
    nr = 8192
    ce_args = (T((nr, VOCAB), bf), T((nr,), "int64"), T((nr,), f32), VOCAB, VOCAB, -100)
    out.append(
        Case(
            "ce_early_return_only",
            "variant: `if label==ignore: return` (no body)",
            ce_return_only,
            (nr,),
            ce_args,
            dict(BLOCK=4096, num_warps=16),
            2 * nr * VOCAB * 2,
        )
    )
    out.append(
        Case(
            "ce_branch_free",
            "variant: ignore via multiply, no if",
            ce_where_ignore,
            (nr,),
            ce_args,
            dict(BLOCK=4096, num_warps=16),
            2 * nr * VOCAB * 2,
        )
    )
    X = T((8192, 4096), f16)
    out.append(
        Case(
            "if_else_on_pid",
            "if/else on program_id (both arms work)",
            if_else_on_pid,
            (8192,),
            (X, X, 4096),
            dict(BLOCK=4096, num_warps=8),
            2 * 8192 * 4096 * 2,
        )
    )
    out.append(
        Case(
            "if_on_runtime_flag",
            "`if has_scale:` on a runtime int arg",
            if_on_scalar_arg,
            (8192,),
            (X, T((8192, 4096), f32), 4096, 1, 0.5),
            dict(BLOCK=4096, num_warps=8),
            8192 * 4096 * 6,
        )
    )
    lens = np.array([512, 1024, 2048, 1536, 300, 4096, 700, 2000])
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    tot = int(cu[-1])
    xs = T((tot, 128), f16)
    out.append(
        Case(
            "varlen_cu_diff",
            "variant: n = load(cu+s+1) - load(cu+s) loop bound (values given)",
            varlen_lens_sum,
            (8,),
            (xs, T((9,), "int32", values=cu), T((8, 128), f32)),
            dict(D=128, BLOCK=64, DIFF=True, num_warps=4),
            tot * 256,
        )
    )
    out.append(
        Case(
            "varlen_cu_direct",
            "variant: n = load(cu+s+1) loop bound (values given)",
            varlen_lens_sum,
            (8,),
            (xs, T((9,), "int32", values=cu), T((8, 128), f32)),
            dict(D=128, BLOCK=64, DIFF=False, num_warps=4),
            tot * 256,
        )
    )
    out.append(
        Case(
            "varlen_lens_early_return",
            "variant: `if pb*BLOCK >= load(lens+s): return` (values given)",
            varlen_lens_return,
            (4096 // 64, 8),
            (T((8, 4096, 128), f16), T((8,), "int32", values=lens.astype(np.int32)), T((8, 4096, 128), f16)),
            dict(D=128, BLOCK=64, num_warps=4),
            2 * tot * 256,
        )
    )
    # fused MoE: 8192 tokens, top-2 of 8 experts, hidden 4096 -> 14336
    Mt, E, TOPK, Kh, Nf, BM = 8192, 8, 2, 4096, 14336, 64
    padded = Mt * TOPK + E * BM
    rng = np.random.default_rng(0)
    sorted_ids = np.arange(padded, dtype=np.int32) % (Mt * TOPK)
    expert_ids = (np.arange(padded // BM) * E // (padded // BM)).astype(np.int32)
    out.append(
        Case(
            "fused_moe_vllm",
            "indirect A rows via loaded token ids, per-block expert id, early return",
            fused_moe_gemm,
            (_cd(padded, BM) * _cd(Nf, 128),),
            (
                T((Mt, Kh), bf),
                T((E, Nf, Kh), bf),
                T((Mt * TOPK, Nf), bf),
                T((padded,), "int32", values=sorted_ids),
                T((padded // BM,), "int32", values=expert_ids),
                T((1,), "int32", values=np.array([padded], np.int32)),
                Nf,
                Kh,
                Mt * TOPK,
                Kh,
                Nf * Kh,
                1,
                Kh,
                Nf,
            ),
            dict(BM=BM, BN=128, BK=64, TOP_K=TOPK, num_warps=4, num_stages=3),
            Mt * Kh * 2 + E * Nf * Kh * 2 + Mt * TOPK * Nf * 2,
            2.0 * Mt * TOPK * Nf * Kh,
        )
    )
    out.append(
        paged_decode_case(
            "paged_decode_vllm",
            "page-table load in KV loop, seq_lens bound (values given), GQA dot M=4",
            32,
            32,
            8,
            8192,
            64,
            rng,
            note="only 256 programs on 132 SMs, one long loop each",
        )  # fmt: skip
    )
    Mw, Nw, Kw = 4096, 4096, 4096
    out.append(
        Case(
            "w4a16_dequant_gemm",
            "int4 unpack (&, >>), tl.join+permute+reshape, group scales",
            w4a16_gemm,
            (_cd(Mw, 128), _cd(Nw, 128)),
            (
                T((Mw, Kw), f16),
                T((Kw // 2, Nw), "uint8"),
                T((Kw // 128, Nw), f16),
                T((Mw, Nw), f16),
                Mw,
                Nw,
                Kw,
            ),
            dict(GROUP_SIZE=128, BM=128, BN=128, BK=64, num_warps=8, num_stages=3),
            Mw * Kw * 2 + Kw * Nw // 2 + Mw * Nw * 2,
            2.0 * Mw * Nw * Kw,
        )
    )
    n = 8192 * 4096
    out.append(
        Case(
            "autotune_heuristics_axpy",
            "@triton.autotune over @triton.heuristics, callable grid",
            autotuned_heuristic_axpy,
            lambda meta: (triton.cdiv(n, meta["BLOCK"]),),
            (T((n,), f32), T((n,), f32), n, 2.0),
            dict(),
            3 * n * 4,
        )
    )
    out.append(
        Case(
            "atomic_max_amax",
            "scalar tl.atomic_max from every program",
            atomic_max_absmax,
            (_cd(n, 4096),),
            (T((n,), bf), T((1,), f32), n),
            dict(BLOCK=4096, num_warps=8),
            n * 2,
        )
    )
    f8 = "float8_e4m3fn"
    out.append(
        Case(
            "dot_scaled_mxfp8",
            "tl.dot_scaled e4m3 with e8m0 scales (Blackwell-native; Hopper emulates)",
            dot_scaled_mxfp8,
            (32, 32),
            (
                T((4096, 4096), f8),
                T((4096, 128), "uint8"),
                T((4096, 4096), f8),
                T((4096, 128), "uint8"),
                T((4096, 4096), bf),
                4096,
                4096,
                4096,
            ),
            dict(BM=128, BN=128, BK=128, num_warps=8, num_stages=3),
            2 * 4096 * 4096 + 4096 * 4096 * 2,
            2.0 * 4096**3,
            peak=1979e12,
        )
    )
    return out

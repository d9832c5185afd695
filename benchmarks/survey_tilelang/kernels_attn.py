"""Attention-family survey kernels (FlashAttention fwd/bwd, GQA, decoding)."""

import math

import tilelang.language as T
from common import Case, case

LOG2E = 1.44269504
B0, H0, S0 = 4, 32, 2048


def _attn_flops(b, h, sq, sk, d, causal):
    f = 4 * b * h * sq * sk * d
    return f / 2 if causal else f


def _fa_fwd(
    batch, heads, kv_heads, seq, dim, causal, bm, bn, stages, threads, layout="bshd", order=None, stage=None
):
    scale = LOG2E / math.sqrt(dim)
    groups = heads // kv_heads
    if layout == "bshd":
        q_shape, kv_shape = (batch, seq, heads, dim), (batch, seq, kv_heads, dim)
    else:
        q_shape, kv_shape = (batch, heads, seq, dim), (batch, kv_heads, seq, dim)
    dt, acc = "float16", "float32"
    pip_kw = dict(num_stages=stages)
    if order is not None:
        pip_kw.update(order=order, stage=stage)

    def qslice(buf, b, h, r0, r1):
        return buf[b, r0:r1, h, :] if layout == "bshd" else buf[b, h, r0:r1, :]

    @T.prim_func
    def main(
        Q: T.Tensor(q_shape, dt),
        K: T.Tensor(kv_shape, dt),
        V: T.Tensor(kv_shape, dt),
        Output: T.Tensor(q_shape, dt),
    ):
        with T.Kernel(T.ceildiv(seq, bm), heads, batch, threads=threads) as (bx, by, bz):
            Q_s = T.alloc_shared((bm, dim), dt)
            K_s = T.alloc_shared((bn, dim), dt)
            V_s = T.alloc_shared((bn, dim), dt)
            O_s = T.alloc_shared((bm, dim), dt)
            acc_s = T.alloc_fragment((bm, bn), acc)
            acc_s_cast = T.alloc_fragment((bm, bn), dt)
            acc_o = T.alloc_fragment((bm, dim), acc)
            m = T.alloc_fragment((bm,), acc)
            m_prev = T.alloc_fragment((bm,), acc)
            sc = T.alloc_fragment((bm,), acc)
            ssum = T.alloc_fragment((bm,), acc)
            l = T.alloc_fragment((bm,), acc)
            hk = by // groups
            T.copy(qslice(Q, bz, by, bx * bm, (bx + 1) * bm), Q_s)
            T.fill(acc_o, 0)
            T.fill(l, 0)
            T.fill(m, -T.infinity(acc))
            loop_range = (
                T.min(T.ceildiv(seq, bn), T.ceildiv((bx + 1) * bm, bn)) if causal else T.ceildiv(seq, bn)
            )
            for k in T.Pipelined(loop_range, **pip_kw):
                T.copy(qslice(K, bz, hk, k * bn, (k + 1) * bn), K_s)
                if causal:
                    for i, j in T.Parallel(bm, bn):
                        acc_s[i, j] = T.if_then_else(bx * bm + i >= k * bn + j, 0, -T.infinity(acc))
                else:
                    T.clear(acc_s)
                T.gemm(Q_s, K_s, acc_s, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)
                T.copy(m, m_prev)
                T.fill(m, -T.infinity(acc))
                T.reduce_max(acc_s, m, dim=1, clear=False)
                for i in T.Parallel(bm):
                    m[i] = T.max(m[i], m_prev[i])
                for i in T.Parallel(bm):
                    sc[i] = T.exp2(m_prev[i] * scale - m[i] * scale)
                for i, j in T.Parallel(bm, bn):
                    acc_s[i, j] = T.exp2(acc_s[i, j] * scale - m[i] * scale)
                T.reduce_sum(acc_s, ssum, dim=1)
                for i in T.Parallel(bm):
                    l[i] = l[i] * sc[i] + ssum[i]
                T.copy(acc_s, acc_s_cast)
                for i, j in T.Parallel(bm, dim):
                    acc_o[i, j] *= sc[i]
                T.copy(qslice(V, bz, hk, k * bn, (k + 1) * bn), V_s)
                T.gemm(acc_s_cast, V_s, acc_o, policy=T.GemmWarpPolicy.FullRow)
            for i, j in T.Parallel(bm, dim):
                acc_o[i, j] /= l[i]
            T.copy(acc_o, O_s)
            T.copy(O_s, qslice(Output, bz, by, bx * bm, (bx + 1) * bm))

    byts = 2 * batch * seq * (2 * heads + 2 * kv_heads) * dim
    return Case(main, bytes=byts, flops=_attn_flops(batch, heads, seq, seq, dim, causal), peak="tc16")


@case(
    "fa_fwd_noncausal_d128",
    "FA fwd bshd, non-causal, d=128, 128x128 tiles, 256 thr, Pipelined num_stages=2, FullRow policy",
)
def fa_fwd_noncausal_d128():
    return _fa_fwd(B0, H0, H0, S0, 128, False, 128, 128, 2, 256)


@case(
    "fa_fwd_causal_d64_bhsd",
    "FA fwd bhsd layout, causal (T.min loop bound + T.if_then_else mask), d=64, num_stages=1",
)
def fa_fwd_causal_d64():
    return _fa_fwd(B0, H0, H0, S0, 64, True, 128, 64, 1, 128, layout="bhsd")


@case("fa_fwd_gqa_d128", "FA fwd GQA (32 q heads / 8 kv heads, by // groups), causal, d=128")
def fa_fwd_gqa():
    return _fa_fwd(B0, H0, 8, S0, 128, True, 128, 128, 2, 256)


@case("fa_fwd_d256", "FA fwd d=256, non-causal, 64x64 tiles, 128 thr, num_stages=1")
def fa_fwd_d256():
    return _fa_fwd(B0, 16, 16, S0, 256, False, 64, 64, 1, 128)


# 15 top-level statements in the non-causal loop body -> order/stage per statement (the upstream example's
# group= was removed from T.Pipelined; expand its groups by hand).
_ORDER = [-1, 0, 0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, -1, 2]
_STAGE = [-1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, -1, 1]


@case(
    "fa_fwd_pipelined_order_stage",
    "FA fwd with T.Pipelined(num_stages=2, order=[...], stage=[...]) "
    "(wgmma_pipelined example; group= no longer exists in 0.1.15)",
)
def fa_fwd_order_stage():
    return _fa_fwd(B0, H0, H0, S0, 128, False, 128, 128, 2, 256, order=_ORDER, stage=_STAGE)


def _decode_parts(batch, heads, kv_heads, seqkv, dim, bn, num_split, threads):
    groups = heads // kv_heads
    block_H = 64  # padded head block for tensor cores (upstream default)
    valid_H = min(block_H, groups)
    scale = LOG2E / math.sqrt(dim)
    part_len = seqkv // num_split
    return groups, block_H, valid_H, scale, part_len


@case(
    "flash_decode_split_combine_1func",
    "flash decoding: split-KV kernel + combine kernel as two T.Kernel in one "
    "prim_func, T.alloc_global workspaces, GQA 32/8, kv 8192, num_split=8",
)
def flash_decode_split_combine():
    batch, heads, kvh, seqkv, dim, bn, ns, thr = 8, 32, 8, 8192, 128, 64, 8, 128
    groups, block_H, valid_H, scale, part_len = _decode_parts(batch, heads, kvh, seqkv, dim, bn, ns, thr)
    dt, acc = "float16", "float32"

    @T.prim_func
    def main(
        Q: T.Tensor((batch, heads, dim), dt),
        K: T.Tensor((batch, seqkv, kvh, dim), dt),
        V: T.Tensor((batch, seqkv, kvh, dim), dt),
        Output: T.Tensor((batch, heads, dim), dt),
    ):
        glse = T.alloc_global((batch, heads, ns), acc)
        Opart = T.alloc_global((batch, heads, ns, dim), acc)
        with T.Kernel(batch, heads // valid_H, ns, threads=thr) as (bx, by, bz):
            Q_s = T.alloc_shared((block_H, dim), dt)
            K_s = T.alloc_shared((bn, dim), dt)
            V_s = T.alloc_shared((bn, dim), dt)
            acc_s = T.alloc_fragment((block_H, bn), acc)
            acc_s_cast = T.alloc_fragment((block_H, bn), dt)
            acc_o = T.alloc_fragment((block_H, dim), acc)
            m = T.alloc_fragment((block_H,), acc)
            m_prev = T.alloc_fragment((block_H,), acc)
            sc = T.alloc_fragment((block_H,), acc)
            ssum = T.alloc_fragment((block_H,), acc)
            l = T.alloc_fragment((block_H,), acc)
            hk = by
            T.copy(Q[bx, by * valid_H : by * valid_H + block_H, :], Q_s)
            T.fill(acc_o, 0)
            T.fill(l, 0)
            T.fill(m, -T.infinity(acc))
            for k in T.Pipelined(T.ceildiv(part_len, bn), num_stages=2):
                T.copy(K[bx, bz * part_len + k * bn : bz * part_len + (k + 1) * bn, hk, :], K_s)
                T.clear(acc_s)
                T.gemm(Q_s, K_s, acc_s, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)
                T.copy(m, m_prev)
                T.fill(m, -T.infinity(acc))
                T.reduce_max(acc_s, m, dim=1, clear=False)
                for i in T.Parallel(block_H):
                    m[i] = T.max(m[i], m_prev[i])
                for i in T.Parallel(block_H):
                    sc[i] = T.exp2(m_prev[i] * scale - m[i] * scale)
                for i, j in T.Parallel(block_H, bn):
                    acc_s[i, j] = T.exp2(acc_s[i, j] * scale - m[i] * scale)
                T.reduce_sum(acc_s, ssum, dim=1)
                for i in T.Parallel(block_H):
                    l[i] = l[i] * sc[i] + ssum[i]
                T.copy(acc_s, acc_s_cast)
                for i, j in T.Parallel(block_H, dim):
                    acc_o[i, j] *= sc[i]
                T.copy(V[bx, bz * part_len + k * bn : bz * part_len + (k + 1) * bn, hk, :], V_s)
                T.gemm(acc_s_cast, V_s, acc_o, policy=T.GemmWarpPolicy.FullRow)
            for i, j in T.Parallel(block_H, dim):
                acc_o[i, j] /= l[i]
            for i in T.Parallel(block_H):
                l[i] = T.log2(l[i]) + m[i] * scale
            for i in T.Parallel(block_H):
                if i < valid_H:
                    glse[bx, by * valid_H + i, bz] = l[i]
            for i, j in T.Parallel(block_H, dim):
                if i < valid_H:
                    Opart[bx, by * valid_H + i, bz, j] = acc_o[i, j]

        with T.Kernel(heads, batch, threads=128) as (hy, bb):
            lse_l = T.alloc_fragment((ns,), acc)
            lse_max = T.alloc_fragment((1,), acc)
            o_acc = T.alloc_fragment((dim,), acc)
            lse_sum = T.alloc_var(acc)
            scale_v = T.alloc_var(acc)
            T.clear(o_acc)
            for s in T.Parallel(ns):
                lse_l[s] = glse[bb, hy, s]
            T.reduce_max(lse_l, lse_max, dim=0, clear=True)
            lse_sum = 0.0
            for s in T.serial(ns):
                lse_sum += T.exp2(lse_l[s] - lse_max[0])
            lse_sum = T.log2(lse_sum) + lse_max[0]
            for s in T.serial(ns):
                scale_v = T.exp2(lse_l[s] - lse_sum)
                for d in T.Parallel(dim):
                    o_acc[d] += Opart[bb, hy, s, d] * scale_v
            for d in T.Parallel(dim):
                Output[bb, hy, d] = o_acc[d]

    byts = 2 * batch * seqkv * kvh * dim * 2 + 2 * batch * heads * dim * 2
    return Case(main, bytes=byts, flops=4 * batch * heads * seqkv * dim, peak="tc16")


@case(
    "flash_decode_combine_separate",
    "flash-decoding combine as its own prim_func: T.alloc_var, T.serial, "
    "T.exp2/T.log2, reduce_max over splits (b=8,h=32,splits=8,d=128)",
)
def flash_decode_combine():
    return combine_case(8, 32, 8, 128)


def combine_case(batch, heads, ns, dim):
    """A split-KV combine: each (head, batch) block reduces its ``ns`` splits' partial outputs by their
    log-sum-exp weights, one thread per element of the head dim (the survey's case, and kernels_recheck's)."""
    acc = "float32"

    @T.prim_func
    def main(
        glse: T.Tensor((batch, heads, ns), acc),
        Opart: T.Tensor((batch, heads, ns, dim), acc),
        Output: T.Tensor((batch, heads, dim), "float16"),
    ):
        with T.Kernel(heads, batch, threads=dim) as (hy, bb):
            lse_l = T.alloc_fragment((ns,), acc)
            lse_max = T.alloc_fragment((1,), acc)
            o_acc = T.alloc_fragment((dim,), acc)
            lse_sum = T.alloc_var(acc)
            scale_v = T.alloc_var(acc)
            T.clear(o_acc)
            T.copy(glse[bb, hy, :], lse_l)
            T.reduce_max(lse_l, lse_max, dim=0, clear=True)
            lse_sum = 0.0
            for s in T.serial(ns):
                lse_sum += T.exp2(lse_l[s] - lse_max[0])
            lse_sum = T.log2(lse_sum) + lse_max[0]
            for s in T.serial(ns):
                scale_v = T.exp2(lse_l[s] - lse_sum)
                for d in T.Parallel(dim):
                    o_acc[d] += Opart[bb, hy, s, d] * scale_v
            for d in T.Parallel(dim):
                Output[bb, hy, d] = o_acc[d]

    return Case(
        main,
        bytes=batch * heads * ns * (dim + 1) * 4 + batch * heads * dim * 2,
        flops=2 * batch * heads * ns * dim,
        peak="fp32",
    )


@case(
    "fa_bwd_preprocess",
    "FA bwd preprocess Delta = rowsum(O*dO): T.Kernel w/o threads=, python range loop, "
    "reduce_sum (b4 h32 s2048 d128)",
)
def fa_bwd_pre():
    batch, heads, seq, dim, blk = B0, H0, S0, 128, 32
    shape = (batch, seq, heads, dim)

    @T.prim_func
    def main(
        O: T.Tensor(shape, "float16"),
        dO: T.Tensor(shape, "float16"),
        Delta: T.Tensor((batch, heads, seq), "float32"),
    ):
        with T.Kernel(heads, T.ceildiv(seq, blk), batch) as (bx, by, bz):
            o = T.alloc_fragment((blk, blk), "float16")
            do = T.alloc_fragment((blk, blk), "float16")
            a = T.alloc_fragment((blk, blk), "float32")
            delta = T.alloc_fragment((blk,), "float32")
            T.clear(a)
            for k in range(T.ceildiv(dim, blk)):
                T.copy(O[bz, by * blk : (by + 1) * blk, bx, k * blk : (k + 1) * blk], o)
                T.copy(dO[bz, by * blk : (by + 1) * blk, bx, k * blk : (k + 1) * blk], do)
                for i, j in T.Parallel(blk, blk):
                    a[i, j] += o[i, j] * do[i, j]
            T.reduce_sum(a, delta, 1)
            T.copy(delta, Delta[bz, bx, by * blk : (by + 1) * blk])

    return Case(
        main,
        bytes=2 * batch * seq * heads * dim * 2 + batch * heads * seq * 4,
        flops=2 * batch * seq * heads * dim,
        peak="fp32",
    )


def _make_dq_layout(dQ):
    return T.Layout(dQ.shape, lambda b, l, h, d: [b, l // 8, h, d // 8, (d % 2), 4 * (l % 8) + (d % 8) // 2])


def _fa_bwd(causal, with_layout):
    batch, heads, seq, dim, bm, bn = B0, H0, S0, 128, 64, 64
    sm_scale = (1.0 / dim) ** 0.5
    scale = sm_scale * LOG2E
    shape = (batch, seq, heads, dim)
    dt, acc = "float16", "float32"

    @T.prim_func
    def main(
        Q: T.Tensor(shape, dt),
        K: T.Tensor(shape, dt),
        V: T.Tensor(shape, dt),
        dO: T.Tensor(shape, dt),
        lse: T.Tensor((batch, heads, seq), acc),
        Delta: T.Tensor((batch, heads, seq), acc),
        dQ: T.Tensor(shape, acc),
        dK: T.Tensor(shape, dt),
        dV: T.Tensor(shape, dt),
    ):
        with T.Kernel(heads, T.ceildiv(seq, bm), batch, threads=128) as (bx, by, bz):
            K_s = T.alloc_shared((bm, dim), dt)
            dsT_s = T.alloc_shared((bm, bn), dt)
            q = T.alloc_shared((bn, dim), dt)
            V_s = T.alloc_shared((bm, dim), dt)
            qkT = T.alloc_fragment((bm, bn), acc)
            dsT = T.alloc_fragment((bm, bn), acc)
            qkT_cast = T.alloc_fragment((bm, bn), dt)
            dsT_cast = T.alloc_fragment((bm, bn), dt)
            lse_s = T.alloc_shared((bn,), acc)
            delta = T.alloc_shared((bn,), acc)
            do = T.alloc_shared((bn, dim), dt)
            dv = T.alloc_fragment((bm, dim), acc)
            dk = T.alloc_fragment((bm, dim), acc)
            dq = T.alloc_fragment((bn, dim), acc)
            dv_s = T.alloc_shared((bm, dim), dt)
            dk_s = T.alloc_shared((bm, dim), dt)
            if with_layout:
                T.annotate_layout({dQ: _make_dq_layout(dQ)})
            T.copy(K[bz, by * bm : (by + 1) * bm, bx, :], K_s)
            T.copy(V[bz, by * bm : (by + 1) * bm, bx, :], V_s)
            T.clear(dv)
            T.clear(dk)
            loop_st = T.floordiv(by * bm, bn) if causal else 0
            loop_ed = T.ceildiv(seq, bn)
            for k in T.Pipelined(loop_st, loop_ed, num_stages=2):
                T.copy(Q[bz, k * bn : (k + 1) * bn, bx, :], q)
                T.clear(qkT)
                T.gemm(K_s, q, qkT, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)
                T.copy(lse[bz, bx, k * bn : (k + 1) * bn], lse_s)
                for i, j in T.Parallel(bm, bn):
                    qkT[i, j] = T.exp2(qkT[i, j] * scale - lse_s[j])
                if causal:
                    for i, j in T.Parallel(bm, bn):
                        qkT[i, j] = T.if_then_else(by * bm + i <= k * bn + j, qkT[i, j], 0)
                T.copy(dO[bz, k * bn : (k + 1) * bn, bx, :], do)
                T.clear(dsT)
                T.gemm(V_s, do, dsT, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)
                T.copy(qkT, qkT_cast)
                T.gemm(qkT_cast, do, dv, policy=T.GemmWarpPolicy.FullRow)
                T.copy(Delta[bz, bx, k * bn : (k + 1) * bn], delta)
                for i, j in T.Parallel(bm, bn):
                    dsT_cast[i, j] = qkT[i, j] * (dsT[i, j] - delta[j]) * sm_scale
                T.gemm(dsT_cast, q, dk, policy=T.GemmWarpPolicy.FullRow)
                T.copy(dsT_cast, dsT_s)
                T.clear(dq)
                T.gemm(dsT_s, K_s, dq, transpose_A=True)
                for i, j in T.Parallel(bn, dim):
                    T.atomic_add(dQ[bz, k * bn + i, bx, j], dq[i, j])
            T.copy(dv, dv_s)
            T.copy(dk, dk_s)
            T.copy(dv_s, dV[bz, by * bm : (by + 1) * bm, bx, :])
            T.copy(dk_s, dK[bz, by * bm : (by + 1) * bm, bx, :])

    n = batch * seq * heads * dim
    byts = 4 * n * 2 + 2 * batch * heads * seq * 4 + n * 4 + 2 * n * 2
    return Case(main, bytes=byts, flops=2.5 * _attn_flops(batch, heads, seq, seq, dim, causal), peak="tc16")


@case(
    "fa_bwd_dkdv_atomic_dq_layout",
    "FA bwd (dK,dV in regs; dQ via T.atomic_add in T.Parallel), "
    "T.annotate_layout with custom T.Layout on a global dQ, T.Pipelined(start, stop), causal, 5 gemms incl. "
    "transpose_A",
)
def fa_bwd_causal_layout():
    return _fa_bwd(True, True)


@case("fa_bwd_noncausal_nolayout", "FA bwd non-causal, atomic_add dQ, no layout annotation")
def fa_bwd_noncausal():
    return _fa_bwd(False, False)


@case(
    "fa_bwd_postprocess_layout",
    "dQ fp32->fp16 copy kernel with T.annotate_layout(custom T.Layout) on a global tensor",
)
def fa_bwd_post():
    batch, heads, seq, dim, blk = B0, H0, S0, 128, 64
    shape = (batch, seq, heads, dim)

    @T.prim_func
    def main(dQ: T.Tensor(shape, "float32"), dQ_out: T.Tensor(shape, "float16")):
        with T.Kernel(T.ceildiv(seq, blk), heads, batch, threads=128) as (bx, by, bz):
            T.annotate_layout({dQ: _make_dq_layout(dQ)})
            T.copy(dQ[bz, bx * blk : (bx + 1) * blk, by, :], dQ_out[bz, bx * blk : (bx + 1) * blk, by, :])

    n = batch * seq * heads * dim
    return Case(main, bytes=n * 6, flops=0, peak="fp32")


@case(
    "sliding_window_attn",
    "FA fwd causal sliding window (window 512): loop start T.max(0, ...) via "
    "T.Pipelined(start, stop), mask with two conditions",
)
def sliding_window():
    batch, heads, seq, dim, bm, bn, W = B0, H0, S0, 128, 128, 64, 512
    scale = LOG2E / math.sqrt(dim)
    shape = (batch, seq, heads, dim)
    dt, acc = "float16", "float32"

    @T.prim_func
    def main(
        Q: T.Tensor(shape, dt), K: T.Tensor(shape, dt), V: T.Tensor(shape, dt), Output: T.Tensor(shape, dt)
    ):
        with T.Kernel(T.ceildiv(seq, bm), heads, batch, threads=256) as (bx, by, bz):
            Q_s = T.alloc_shared((bm, dim), dt)
            K_s = T.alloc_shared((bn, dim), dt)
            V_s = T.alloc_shared((bn, dim), dt)
            acc_s = T.alloc_fragment((bm, bn), acc)
            acc_s_cast = T.alloc_fragment((bm, bn), dt)
            acc_o = T.alloc_fragment((bm, dim), acc)
            m = T.alloc_fragment((bm,), acc)
            m_prev = T.alloc_fragment((bm,), acc)
            sc = T.alloc_fragment((bm,), acc)
            ssum = T.alloc_fragment((bm,), acc)
            l = T.alloc_fragment((bm,), acc)
            T.copy(Q[bz, bx * bm : (bx + 1) * bm, by, :], Q_s)
            T.fill(acc_o, 0)
            T.fill(l, 0)
            T.fill(m, -T.infinity(acc))
            start = T.max(0, (bx * bm - W) // bn)
            end = T.ceildiv((bx + 1) * bm, bn)
            for k in T.Pipelined(start, end, num_stages=2):
                T.copy(K[bz, k * bn : (k + 1) * bn, by, :], K_s)
                for i, j in T.Parallel(bm, bn):
                    acc_s[i, j] = T.if_then_else(
                        (bx * bm + i >= k * bn + j) & (bx * bm + i - (k * bn + j) < W), 0, -T.infinity(acc)
                    )
                T.gemm(Q_s, K_s, acc_s, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)
                T.copy(m, m_prev)
                T.reduce_max(acc_s, m, dim=1, clear=False)
                for i in T.Parallel(bm):
                    sc[i] = T.exp2(m_prev[i] * scale - m[i] * scale)
                for i, j in T.Parallel(bm, bn):
                    acc_s[i, j] = T.exp2(acc_s[i, j] * scale - m[i] * scale)
                T.reduce_sum(acc_s, ssum, dim=1)
                for i in T.Parallel(bm):
                    l[i] = l[i] * sc[i] + ssum[i]
                T.copy(acc_s, acc_s_cast)
                for i, j in T.Parallel(bm, dim):
                    acc_o[i, j] *= sc[i]
                T.copy(V[bz, k * bn : (k + 1) * bn, by, :], V_s)
                T.gemm(acc_s_cast, V_s, acc_o, policy=T.GemmWarpPolicy.FullRow)
            for i, j in T.Parallel(bm, dim):
                acc_o[i, j] /= l[i]
            T.copy(acc_o, Output[bz, bx * bm : (bx + 1) * bm, by, :])

    n = batch * seq * heads * dim
    flops = 4 * batch * heads * seq * (W + bm) * dim
    return Case(main, bytes=4 * n * 2, flops=flops, peak="tc16")

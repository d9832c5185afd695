"""Elementwise / reduction / norm survey kernels."""

import tilelang.language as T
from common import Case, case, nbytes


@case(
    "vec_add_parallel_2d",
    "elementwise add, 2-D T.Parallel tile with direct global loads/stores, fp16 8192x8192",
)
def vec_add_parallel_2d():
    M, N, bm, bn = 8192, 8192, 32, 256

    @T.prim_func
    def main(A: T.Tensor((M, N), "float16"), B: T.Tensor((M, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=256) as (bx, by):
            for i, j in T.Parallel(bm, bn):
                C[by * bm + i, bx * bn + j] = A[by * bm + i, bx * bn + j] + B[by * bm + i, bx * bn + j]

    return Case(main, bytes=3 * M * N * 2, flops=M * N, peak="fp32")


@case(
    "elementwise_vectorized_unroll",
    "per-thread: get_thread_binding, T.unroll outer, T.vectorized(8) inner, "
    "alloc_local, SiLU with T.exp, T.Cast (1-D 64M elems)",
)
def elementwise_vectorized_unroll():
    N, thr, VEC, UNR = 64 * 1024 * 1024, 256, 8, 4
    per_block = thr * VEC * UNR

    @T.prim_func
    def main(X: T.Tensor((N,), "bfloat16"), Y: T.Tensor((N,), "bfloat16")):
        with T.Kernel(T.ceildiv(N, per_block), threads=thr) as bx:
            tx = T.get_thread_binding(0)
            x_l = T.alloc_local((VEC,), "float32")
            for u in T.unroll(UNR):
                base = bx * per_block + u * thr * VEC + tx * VEC
                for v in T.vectorized(VEC):
                    x_l[v] = T.Cast("float32", X[base + v])
                for v in T.vectorized(VEC):
                    Y[base + v] = T.Cast("bfloat16", x_l[v] / (1.0 + T.exp(-x_l[v])))

    return Case(main, bytes=2 * N * 2, flops=5 * N, peak="fp32")


@case(
    "softmax_row",
    "row softmax: T.copy to fragment, T.reduce_max, T.exp2, T.reduce_sum, 1 row/block (4096 x 8192 fp16)",
)
def softmax_row():
    M, N, bm = 4096, 8192, 1
    scale = 1.44269504

    @T.prim_func
    def main(X: T.Tensor((M, N), "float16"), Y: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(M, bm), threads=256) as bx:
            x = T.alloc_fragment((bm, N), "float32")
            mx = T.alloc_fragment((bm,), "float32")
            sm = T.alloc_fragment((bm,), "float32")
            T.copy(X[bx * bm, 0], x)
            T.reduce_max(x, mx, dim=1)
            for i, j in T.Parallel(bm, N):
                x[i, j] = T.exp2(x[i, j] * scale - mx[i] * scale)
            T.reduce_sum(x, sm, dim=1)
            for i, j in T.Parallel(bm, N):
                x[i, j] = x[i, j] / sm[i]
            T.copy(x, Y[bx * bm, 0])

    return Case(main, bytes=2 * M * N * 2, flops=5 * M * N, peak="fp32")


def online_softmax_case(m: int, n: int, bn: int, threads: int) -> Case:
    """Online softmax over fp32 rows in chunks of ``bn``: a running max and sum (an ``exp`` in the loop),
    then a second pass writing the probabilities."""
    nt = n // bn

    @T.prim_func
    def main(X: T.Tensor((m, n), "float32"), Y: T.Tensor((m, n), "float32")):
        with T.Kernel(m, threads=threads) as bx:
            x = T.alloc_fragment((bn,), "float32")
            mx = T.alloc_fragment((1,), "float32")
            mx_prev = T.alloc_fragment((1,), "float32")
            s = T.alloc_fragment((1,), "float32")
            s_t = T.alloc_fragment((1,), "float32")
            T.fill(mx, -T.infinity("float32"))
            T.fill(s, 0)
            for t in T.serial(nt):
                T.copy(X[bx, t * bn], x)
                T.copy(mx, mx_prev)
                T.reduce_max(x, mx, dim=0, clear=False)
                for i in T.Parallel(bn):
                    x[i] = T.exp(x[i] - mx[0])
                T.reduce_sum(x, s_t, dim=0)
                s[0] = s[0] * T.exp(mx_prev[0] - mx[0]) + s_t[0]
            for t in T.serial(nt):
                T.copy(X[bx, t * bn], x)
                for i in T.Parallel(bn):
                    x[i] = T.exp(x[i] - mx[0]) / s[0]
                T.copy(x, Y[bx, t * bn])

    return Case(main, bytes=3 * m * n * 4, flops=6 * m * n, peak="fp32")


@case(
    "softmax_online_tiled",
    "online softmax over column tiles: T.serial x2 passes, T.max, alloc_fragment, "
    "reduce_max clear=False (4096 x 32768 fp32)",
)
def softmax_online_tiled():
    return online_softmax_case(4096, 32768, 4096, 256)


@case(
    "layernorm",
    "LayerNorm: mean/var via 2x T.reduce_sum, T.rsqrt, gamma/beta, bf16 in/out, 4 rows/block (8192 x 4096)",
)
def layernorm():
    return layernorm_case(8192, 4096, 4, 256, "bfloat16")


@case(
    "rmsnorm_splitk_serial",
    "RMSNorm (TileLang example): T.Serial over K tiles twice, shared staging, T.rsqrt, fp32 (8192 x 8192)",
)
def rmsnorm_splitk():
    M, N, bm, bk = 8192, 8192, 1, 512

    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(M, bm), threads=128) as bx:
            A_s = T.alloc_shared((bm, bk), "float32")
            A_l = T.alloc_fragment((bm, bk), "float32")
            A_ps = T.alloc_fragment((bm,), "float32")
            nk = T.ceildiv(N, bk)
            T.clear(A_l)
            for k in T.Serial(nk):
                T.copy(A[bx * bm, k * bk], A_s)
                for i, j in T.Parallel(bm, bk):
                    A_l[i, j] += A_s[i, j] * A_s[i, j]
            T.reduce_sum(A_l, A_ps, dim=1)
            for i in T.Parallel(bm):
                A_ps[i] = T.rsqrt(A_ps[i] / N + 1e-12)
            for k in T.Serial(nk):
                T.copy(A[bx * bm, (nk - 1 - k) * bk], A_s)
                for i, j in T.Parallel(bm, bk):
                    A_s[i, j] *= A_ps[i]
                T.copy(A_s, B[bx * bm, (nk - 1 - k) * bk])

    return Case(main, bytes=2 * M * N * 4, flops=3 * M * N, peak="fp32")


@case("rmsnorm_weight_fp16", "RMSNorm with weight, whole row in fragment, fp16, 16 rows/block (16384 x 4096)")
def rmsnorm_weight():
    M, N, bm = 16384, 4096, 16

    @T.prim_func
    def main(X: T.Tensor((M, N), "float16"), W: T.Tensor((N,), "float16"), Y: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(M, bm), threads=256) as bx:
            x = T.alloc_fragment((bm, N), "float32")
            sq = T.alloc_fragment((bm, N), "float32")
            ss = T.alloc_fragment((bm,), "float32")
            T.copy(X[bx * bm, 0], x)
            for i, j in T.Parallel(bm, N):
                sq[i, j] = x[i, j] * x[i, j]
            T.reduce_sum(sq, ss, dim=1)
            for i in T.Parallel(bm):
                ss[i] = T.rsqrt(ss[i] / N + 1e-6)
            for i, j in T.Parallel(bm, N):
                Y[bx * bm + i, j] = T.Cast("float16", x[i, j] * ss[i] * T.Cast("float32", W[j]))

    return Case(main, bytes=2 * M * N * 2 + N * 2, flops=4 * M * N, peak="fp32")


@case(
    "cumsum_chunk",
    "T.cumsum on a fragment (chunked gate cumsum, GDN example style), B*H x S/64 grid, "
    "[B,H,S] fp32 (8x32x8192)",
)
def cumsum_chunk():
    Bt, H, S, bs = 8, 32, 8192, 64

    @T.prim_func
    def main(G: T.Tensor((Bt, H, S), "float32"), Gn: T.Tensor((Bt, H, S), "float32")):
        with T.Kernel(T.ceildiv(S, bs), Bt * H, threads=64) as (bx, bbh):
            bb, bh = bbh // H, bbh % H
            g_s = T.alloc_shared((1, bs), "float32")
            g_f = T.alloc_fragment((1, bs), "float32")
            T.copy(G[bb, bh, bx * bs : (bx + 1) * bs], g_s)
            T.copy(g_s, g_f)
            T.cumsum(g_f, dim=1)
            T.copy(g_f, Gn[bb, bh, bx * bs : (bx + 1) * bs])

    return Case(main, bytes=2 * Bt * H * S * 4, flops=Bt * H * S, peak="fp32")


@case("cumsum_shared_reverse", "T.cumsum on shared memory, reverse=True, 2-D tile (4096 rows x 1024)")
def cumsum_shared_reverse():
    M, N, bm = 4096, 1024, 8

    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(M, bm), threads=128) as bx:
            s = T.alloc_shared((bm, N), "float32")
            T.copy(X[bx * bm, 0], s)
            T.cumsum(s, dim=1, reverse=True)
            T.copy(s, Y[bx * bm, 0])

    return Case(main, bytes=2 * M * N * 4, flops=M * N, peak="fp32")


@case(
    "per_token_cast_fp8",
    "T.reduce_absmax, T.max, T.clamp, cast fragment to float8_e4m3, scale store in "
    "T.Parallel (8192 x 7168 fp32 -> fp8)",
)
def per_token_cast_fp8():
    M, N, blk_m, gs = 8192, 7168, 32, 128

    @T.prim_func
    def main(
        X: T.Tensor((M, N), "float32"),
        X_fp8: T.Tensor((M, N), "float8_e4m3"),
        X_amax: T.Tensor((M, N // gs), "float32"),
    ):
        with T.Kernel(T.ceildiv(M, blk_m), T.ceildiv(N, gs), threads=128) as (bx, by):
            y = T.alloc_fragment((blk_m, gs), "float32")
            amax = T.alloc_fragment((blk_m,), "float32")
            sc = T.alloc_fragment((blk_m,), "float32")
            yq = T.alloc_fragment((blk_m, gs), "float32")
            yq8 = T.alloc_fragment((blk_m, gs), "float8_e4m3")
            T.copy(X[bx * blk_m : (bx + 1) * blk_m, by * gs : (by + 1) * gs], y)
            T.reduce_absmax(y, amax, dim=1)
            for i in T.Parallel(blk_m):
                amax[i] = T.max(amax[i], 1e-4)
                sc[i] = amax[i] / 448.0
            for i, j in T.Parallel(blk_m, gs):
                yq[i, j] = T.clamp(y[i, j] / sc[i], -448.0, 448.0)
            T.copy(yq, yq8)
            for i in T.Parallel(blk_m):
                X_amax[bx * blk_m + i, by] = sc[i]
            T.copy(yq8, X_fp8[bx * blk_m : (bx + 1) * blk_m, by * gs : (by + 1) * gs])

    return Case(main, bytes=M * N * 4 + M * N + M * (N // gs) * 4, flops=3 * M * N, peak="fp32")


@case(
    "logsumexp_ce",
    "cross-entropy style logsumexp: reduce_max, T.exp2, reduce_sum, T.log2, T.if_then_else "
    "label pick (4096 x 32768 bf16 logits)",
)
def logsumexp_ce():
    return cross_entropy_case(4096, 32768, 4096, 256, log2=True)


@case(
    "transpose_shared",
    "transpose via shared tile: T.copy global->shared, T.Parallel transposed write (8192 x 8192 fp16)",
)
def transpose_shared():
    M, N, b = 8192, 8192, 64

    @T.prim_func
    def main(X: T.Tensor((M, N), "float16"), Y: T.Tensor((N, M), "float16")):
        with T.Kernel(T.ceildiv(N, b), T.ceildiv(M, b), threads=256) as (bx, by):
            s = T.alloc_shared((b, b), "float16")
            T.copy(X[by * b, bx * b], s)
            for i, j in T.Parallel(b, b):
                Y[bx * b + i, by * b + j] = s[j, i]

    return Case(main, bytes=2 * M * N * 2, flops=0, peak="fp32")


@case(
    "warp_shfl_reduce",
    "row-sum via per-thread partials + T.shfl_xor butterfly, shared cross-warp "
    "combine, T.sync_threads, alloc_local (8192 x 8192 fp32)",
)
def warp_shfl_reduce():
    M, N, thr = 8192, 8192, 256
    per = N // thr

    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M,), "float32")):
        with T.Kernel(M, threads=thr) as bx:
            tx = T.get_thread_binding(0)
            acc = T.alloc_local((1,), "float32")
            red = T.alloc_shared((thr // 32,), "float32")
            acc[0] = 0.0
            for i in T.serial(per):
                acc[0] += X[bx, i * thr + tx]
            for o in T.unroll(5):
                acc[0] += T.shfl_xor(acc[0], 16 >> o)
            if tx % 32 == 0:
                red[tx // 32] = acc[0]
            T.sync_threads()
            if tx == 0:
                tot = T.alloc_local((1,), "float32")
                tot[0] = 0.0
                for w in T.serial(thr // 32):
                    tot[0] += red[w]
                Y[bx] = tot[0]

    return Case(main, bytes=M * N * 4 + M * 4, flops=M * N, peak="fp32")


@case(
    "reducer_colsum", "T.alloc_reducer('sum') + T.finalize_reducer, column sums over rows (16384 x 4096 fp32)"
)
def reducer_colsum():
    M, N, bm, bn = 16384, 4096, 64, 128

    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, bn), threads=128) as bx:
            r = T.alloc_reducer((bn,), "float32", op="sum", replication="all")
            xs = T.alloc_shared((bm, bn), "float32")
            T.fill(r, 0)
            for k in T.serial(T.ceildiv(M, bm)):
                T.copy(X[k * bm, bx * bn], xs)
                for i, j in T.Parallel(bm, bn):
                    r[j] += xs[i, j]
            T.finalize_reducer(r)
            T.copy(r, Y[bx * bn])

    return Case(main, bytes=M * N * 4 + N * 4, flops=M * N, peak="fp32")


@case(
    "gelu_tanh_minmax",
    "GeLU-tanh + T.min/T.max saturation, T.tanh, T.if_then_else, 2-D T.Parallel with "
    "shared staging via T.copy (coalesced_width=8) (8192 x 14336 fp16)",
)
def gelu_tanh_minmax():
    M, N, bm, bn = 8192, 14336, 32, 512

    @T.prim_func
    def main(X: T.Tensor((M, N), "float16"), Y: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=256) as (bx, by):
            xs = T.alloc_shared((bm, bn), "float16")
            y = T.alloc_fragment((bm, bn), "float32")
            T.copy(X[by * bm, bx * bn], xs, coalesced_width=8)
            for i, j in T.Parallel(bm, bn):
                v = T.Cast("float32", xs[i, j])
                g = 0.5 * v * (1.0 + T.tanh(0.7978845608 * (v + 0.044715 * v * v * v)))
                y[i, j] = T.if_then_else(v > 10.0, v, T.max(T.min(g, 65504.0), -65504.0))
            T.copy(y, Y[by * bm, bx * bn])

    return Case(main, bytes=2 * M * N * 2, flops=10 * M * N, peak="fp32")


@case(
    "rope_half_rotate",
    "rotary embedding (non-interleaved halves), cos/sin tables, [B*S, H, D] fp16, "
    "T.Parallel with index split (4x2048 tokens, 32 heads, d 128)",
)
def rope():
    T_, H, D, bt = 4 * 2048, 32, 128, 16
    half = D // 2

    @T.prim_func
    def main(
        X: T.Tensor((T_, H, D), "float16"),
        cos: T.Tensor((T_, half), "float32"),
        sin: T.Tensor((T_, half), "float32"),
        Y: T.Tensor((T_, H, D), "float16"),
    ):
        with T.Kernel(T.ceildiv(T_, bt), H, threads=128) as (bx, by):
            for i, j in T.Parallel(bt, half):
                x1 = T.Cast("float32", X[bx * bt + i, by, j])
                x2 = T.Cast("float32", X[bx * bt + i, by, j + half])
                c = cos[bx * bt + i, j]
                s = sin[bx * bt + i, j]
                Y[bx * bt + i, by, j] = T.Cast("float16", x1 * c - x2 * s)
                Y[bx * bt + i, by, j + half] = T.Cast("float16", x2 * c + x1 * s)

    return Case(main, bytes=2 * T_ * H * D * 2 + 2 * T_ * half * 4, flops=6 * T_ * H * half, peak="fp32")


def layernorm_case(m: int, n: int, bm: int, threads: int, dtype: str) -> Case:
    """LayerNorm with weight and bias staged in shared memory; ``xc`` (the squared deviations) feeds the
    variance's reduce only."""
    eps = 1e-5

    @T.prim_func
    def main(
        X: T.Tensor((m, n), dtype),
        G: T.Tensor((n,), dtype),
        Bt: T.Tensor((n,), dtype),
        Y: T.Tensor((m, n), dtype),
    ):
        with T.Kernel(T.ceildiv(m, bm), threads=threads) as bx:
            x = T.alloc_fragment((bm, n), "float32")
            xc = T.alloc_fragment((bm, n), "float32")
            mean = T.alloc_fragment((bm,), "float32")
            var = T.alloc_fragment((bm,), "float32")
            g_s = T.alloc_shared((n,), dtype)
            b_s = T.alloc_shared((n,), dtype)
            T.copy(G, g_s)
            T.copy(Bt, b_s)
            T.copy(X[bx * bm, 0], x)
            T.reduce_sum(x, mean, dim=1)
            for i in T.Parallel(bm):
                mean[i] = mean[i] / n
            for i, j in T.Parallel(bm, n):
                xc[i, j] = (x[i, j] - mean[i]) * (x[i, j] - mean[i])
            T.reduce_sum(xc, var, dim=1)
            for i in T.Parallel(bm):
                var[i] = T.rsqrt(var[i] / n + eps)
            for i, j in T.Parallel(bm, n):
                x[i, j] = (x[i, j] - mean[i]) * var[i] * T.Cast("float32", g_s[j]) + T.Cast("float32", b_s[j])
            T.copy(x, Y[bx * bm, 0])

    eb = nbytes(dtype)
    return Case(main, bytes=2 * m * n * eb + 2 * n * eb, flops=8 * m * n, peak="fp32")


def cross_entropy_case(m: int, v: int, bv: int, threads: int, log2: bool = False) -> Case:
    """Online log-sum-exp over vocabulary chunks with the label's logit picked out (``pick`` feeds its sum
    only); the loss takes ``T.log`` of the sum, or ``T.log2`` over log2(e) with ``log2`` (the survey's
    ``logsumexp_ce``)."""
    nt = v // bv
    log2e = 1.44269504

    @T.prim_func
    def main(
        L: T.Tensor((m, v), "bfloat16"), labels: T.Tensor((m,), "int32"), loss: T.Tensor((m,), "float32")
    ):
        with T.Kernel(m, threads=threads) as bx:
            x = T.alloc_fragment((bv,), "float32")
            pick = T.alloc_fragment((bv,), "float32")
            mx = T.alloc_fragment((1,), "float32")
            mprev = T.alloc_fragment((1,), "float32")
            s = T.alloc_fragment((1,), "float32")
            st = T.alloc_fragment((1,), "float32")
            tgt = T.alloc_fragment((1,), "float32")
            tt = T.alloc_fragment((1,), "float32")
            lab = T.alloc_var("int32")
            lab = labels[bx]
            T.fill(mx, -T.infinity("float32"))
            T.fill(s, 0)
            T.fill(tgt, 0)
            for t in T.serial(nt):
                T.copy(L[bx, t * bv], x)
                for i in T.Parallel(bv):
                    pick[i] = T.if_then_else(t * bv + i == lab, x[i], 0.0)
                T.reduce_sum(pick, tt, dim=0)
                tgt[0] += tt[0]
                T.copy(mx, mprev)
                T.reduce_max(x, mx, dim=0, clear=False)
                for i in T.Parallel(bv):
                    x[i] = T.exp2((x[i] - mx[0]) * log2e)
                T.reduce_sum(x, st, dim=0)
                s[0] = s[0] * T.exp2((mprev[0] - mx[0]) * log2e) + st[0]
            if log2:
                loss[bx] = T.log2(s[0]) / log2e + mx[0] - tgt[0]
            else:
                loss[bx] = T.log(s[0]) + mx[0] - tgt[0]

    return Case(main, bytes=m * v * 2 + m * 8, flops=6 * m * v, peak="fp32")

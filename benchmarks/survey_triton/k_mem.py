"""Memory-bound / row kernels."""

import triton
import triton.language as tl
from harness import Case, T, nbytes
from triton.language.extra import libdevice

R, H = 8192, 4096  # batch*seq x hidden
VOCAB = 32000


@triton.jit
def softmax_online(x_ptr, y_ptr, n_cols, sx, sy, BLOCK: tl.constexpr):
    # wide-row online softmax: pass 1 running max/sum, pass 2 normalise
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * sx
    m = tl.full((BLOCK,), -float("inf"), tl.float32)
    l = tl.zeros((BLOCK,), tl.float32)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        l = l * tl.exp(m - m_new) + tl.exp(x - m_new)
        m = m_new
    m_row = tl.max(m, 0)
    l_row = tl.sum(l * tl.exp(m - m_row), 0)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        y = tl.exp(x - m_row) / l_row
        tl.store(y_ptr + row * sy + cols, y.to(y_ptr.dtype.element_ty), mask=cols < n_cols)


@triton.jit
def softmax_fused_rows(
    out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols, BLOCK: tl.constexpr, num_stages: tl.constexpr
):
    # the fused-softmax tutorial: programs stride over rows with tl.range(num_stages=...)
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        cols = tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row_idx * in_stride + cols, mask=cols < n_cols, other=-float("inf"))
        x = x - tl.max(x, axis=0)
        num = tl.exp(x)
        y = num / tl.sum(num, axis=0)
        tl.store(out_ptr + row_idx * out_stride + cols, y, mask=cols < n_cols)


@triton.jit
def layernorm_fwd(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_ptr += row * stride
    y_ptr += row * stride
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + cols, mask=cols < N, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / N
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + cols, mask=cols < N, other=0.0).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.0)
        acc += x * x
    var = tl.sum(acc, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < N
        w = tl.load(w_ptr + cols, mask=mask)
        b = tl.load(b_ptr + cols, mask=mask)
        x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(y_ptr + cols, y, mask=mask)


@triton.jit
def layernorm_bwd_dx_fused(
    DX, DY, DW, DB, X, W, Mean, Rstd, Lock, stride, N, GROUP_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr
):
    # layer-norm tutorial backward: spin lock with atomic_cas/atomic_xchg over partial dW/dB buffers
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    X += row * stride
    DY += row * stride
    DX += row * stride
    lock_id = row % GROUP_SIZE_M
    Lock += lock_id
    Count = Lock + GROUP_SIZE_M
    DW = DW + lock_id * N + cols
    DB = DB + lock_id * N + cols
    x = tl.load(X + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(DY + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = (x - mean) * rstd
    wdy = w * dy
    xhat = tl.where(mask, xhat, 0.0)
    wdy = tl.where(mask, wdy, 0.0)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(DX + cols, dx, mask=mask)
    partial_dw = (dy * xhat).to(w.dtype)
    partial_db = (dy).to(w.dtype)
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    count = tl.load(Count)
    if count == 0:
        tl.atomic_xchg(Count, 1)
    else:
        partial_dw += tl.load(DW, mask=mask)
        partial_db += tl.load(DB, mask=mask)
    tl.store(DW, partial_dw, mask=mask)
    tl.store(DB, partial_db, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(Lock, 0)


@triton.jit
def layernorm_bwd_dwdb(
    DW, DB, FINAL_DW, FINAL_DB, M, N, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr
):
    pid = tl.program_id(0)
    cols = pid * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    dw = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for i in range(0, M, BLOCK_SIZE_M):
        rows = i + tl.arange(0, BLOCK_SIZE_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        offs = rows[:, None] * N + cols[None, :]
        dw += tl.load(DW + offs, mask=mask, other=0.0)
        db += tl.load(DB + offs, mask=mask, other=0.0)
    sum_dw = tl.sum(dw, axis=0)
    sum_db = tl.sum(db, axis=0)
    tl.store(FINAL_DW + cols, sum_dw, mask=cols < N)
    tl.store(FINAL_DB + cols, sum_db, mask=cols < N)


@triton.jit
def rmsnorm_fwd(x_ptr, w_ptr, y_ptr, rstd_ptr, sx, sy, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * sx + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = libdevice.rsqrt(tl.sum(x * x, axis=0) / N + eps)
    tl.store(rstd_ptr + row, rstd)
    tl.store(y_ptr + row * sy + cols, (x * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def rmsnorm_bwd(
    dy_ptr,
    x_ptr,
    w_ptr,
    rstd_ptr,
    dx_ptr,
    dw_part_ptr,
    n_rows,
    N,
    ROWS_PER_PROG: tl.constexpr,
    BLOCK: tl.constexpr,
):
    # Liger-style: each program handles ROWS_PER_PROG rows and writes a partial dW row
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    dw = tl.zeros((BLOCK,), tl.float32)
    row0 = pid * ROWS_PER_PROG
    row1 = tl.minimum(row0 + ROWS_PER_PROG, n_rows)
    for r in range(row0, row1):
        dy = tl.load(dy_ptr + r * N + cols, mask=mask, other=0.0).to(tl.float32)
        x = tl.load(x_ptr + r * N + cols, mask=mask, other=0.0).to(tl.float32)
        rstd = tl.load(rstd_ptr + r)
        m = dy * w
        dx = rstd * m - rstd * rstd * rstd / N * tl.sum(m * x, axis=0) * x
        dw += dy * x * rstd
        tl.store(dx_ptr + r * N + cols, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    tl.store(dw_part_ptr + pid * N + cols, dw, mask=mask)


@triton.jit
def vec_where_clamp(x_ptr, y_ptr, out_ptr, n, lo, hi, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    z = tl.where(x > 0, x * y, 0.01 * x)
    z = tl.where(z > hi, hi, tl.where(z < lo, lo, z))
    z = tl.clamp(z, lo, hi)
    tl.store(out_ptr + offs, z, mask=mask)


@triton.jit
def row_cumsum(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0).to(tl.float32)
    y = tl.cumsum(x, axis=0)
    tl.store(y_ptr + row * N + cols, y, mask=cols < N)


@triton.jit
def _linrec_combine(a1, b1, a2, b2):
    return a1 * a2, b1 * a2 + b2


@triton.jit
def linear_recurrence_scan(a_ptr, x_ptr, h_ptr, L, D, BLOCK_L: tl.constexpr, BLOCK_D: tl.constexpr):
    # h_t = a_t * h_{t-1} + x_t along the sequence, tl.associative_scan with a tuple combine fn (Mamba-like)
    b = tl.program_id(0)
    pd = tl.program_id(1)
    t = tl.arange(0, BLOCK_L)
    d = pd * BLOCK_D + tl.arange(0, BLOCK_D)
    offs = b * L * D + t[:, None] * D + d[None, :]
    a = tl.load(a_ptr + offs).to(tl.float32)
    x = tl.load(x_ptr + offs).to(tl.float32)
    _, h = tl.associative_scan((a, x), axis=0, combine_fn=_linrec_combine)
    tl.store(h_ptr + offs, h.to(h_ptr.dtype.element_ty))


@triton.jit
def row_sort_topk(x_ptr, vals_ptr, N, K: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=-float("inf"))
    s = tl.sort(x, dim=0, descending=True)
    tl.store(vals_ptr + row * BLOCK + cols, s)


@triton.jit
def topk_builtin(x_ptr, vals_ptr, N, K: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + cols)
    v = tl.topk(x, K, dim=0)
    tl.store(vals_ptr + row * K + tl.arange(0, K), v)


@triton.jit
def expert_histogram(ids_ptr, counts_ptr, n, NUM_EXPERTS: tl.constexpr, BLOCK: tl.constexpr):
    # MoE routing: count tokens per expert, histogram per block + atomic_add into global counts
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    ids = tl.load(ids_ptr + offs, mask=offs < n, other=0)
    h = tl.histogram(ids, NUM_EXPERTS, mask=offs < n)
    tl.atomic_add(counts_ptr + tl.arange(0, NUM_EXPERTS), h)


@triton.jit
def _absmax_combine(a, b):
    return tl.maximum(tl.abs(a), tl.abs(b))


@triton.jit
def fp8_quant_rowwise(x_ptr, q_ptr, s_ptr, N, BLOCK: tl.constexpr):
    # per-row fp8 quantisation with tl.reduce + custom combine (absmax)
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0).to(tl.float32)
    amax = tl.reduce(x, 0, _absmax_combine)
    scale = tl.maximum(amax, 1e-12) / 448.0
    q = (x / scale).to(tl.float8e4nv)
    tl.store(q_ptr + row * N + cols, q, mask=cols < N)
    tl.store(s_ptr + row, scale)


@triton.jit
def greedy_argmax(logits_ptr, out_ptr, V, BLOCK: tl.constexpr):
    # argmax over the vocab in blocks, keeping (max, idx)
    row = tl.program_id(0).to(tl.int64)
    best_v = tl.full((BLOCK,), -float("inf"), tl.float32)
    best_i = tl.zeros((BLOCK,), tl.int32)
    for off in range(0, V, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(logits_ptr + row * V + cols, mask=cols < V, other=-float("inf")).to(tl.float32)
        upd = x > best_v
        best_v = tl.where(upd, x, best_v)
        best_i = tl.where(upd, cols, best_i)
    v, i = tl.max(best_v, axis=0, return_indices=True)
    idx = tl.sum(tl.where(tl.arange(0, BLOCK) == i, best_i, 0), axis=0)
    tl.store(out_ptr + row, idx)


@triton.jit
def row_argmax_small(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=-float("inf"))
    tl.store(out_ptr + row, tl.argmax(x, axis=0))


@triton.jit
def gather_in_tile(x_ptr, idx_ptr, y_ptr, N, BLOCK: tl.constexpr):
    # permute columns within a row tile via tl.gather (e.g. applying a head permutation)
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + cols)
    idx = tl.load(idx_ptr + cols)
    y = tl.gather(x, idx, axis=0)
    tl.store(y_ptr + row * N + cols, y)


@triton.jit
def transpose_trans(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=(rm[:, None] < M) & (rn[None, :] < N))
    tl.store(y_ptr + rn[:, None] * M + rm[None, :], tl.trans(x), mask=(rn[:, None] < N) & (rm[None, :] < M))


@triton.jit
def rope_split_join(x_ptr, cos_ptr, sin_ptr, y_ptr, S, H, D: tl.constexpr, BLOCK_S: tl.constexpr):
    # interleaved RoPE (GPT-J style): reshape [S, D] -> [S, D/2, 2], split, rotate, join, reshape back
    pid_s = tl.program_id(0)
    bh = tl.program_id(1)
    s = pid_s * BLOCK_S + tl.arange(0, BLOCK_S)
    d = tl.arange(0, D)
    base = bh.to(tl.int64) * S * D
    x = tl.load(x_ptr + base + s[:, None] * D + d[None, :]).to(tl.float32)
    x1, x2 = tl.split(tl.reshape(x, (BLOCK_S, D // 2, 2)))
    dh = tl.arange(0, D // 2)
    c = tl.load(cos_ptr + s[:, None] * (D // 2) + dh[None, :])
    sn = tl.load(sin_ptr + s[:, None] * (D // 2) + dh[None, :])
    y = tl.join(x1 * c - x2 * sn, x1 * sn + x2 * c)
    y = tl.reshape(y, (BLOCK_S, D))
    tl.store(y_ptr + base + s[:, None] * D + d[None, :], y.to(y_ptr.dtype.element_ty))


@triton.jit
def interleave_complex(re_ptr, im_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # pack re/im planes into interleaved complex layout with tl.interleave
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    re = tl.load(re_ptr + offs)
    im = tl.load(im_ptr + offs)
    z = tl.interleave(re, im)
    o = pid * 2 * BLOCK + tl.arange(0, 2 * BLOCK)
    tl.store(out_ptr + o, z)


@triton.jit
def hadamard_dot(x_ptr, h_ptr, y_ptr, n_rows, D: tl.constexpr, BLOCK_M: tl.constexpr):
    # memory-bound rotation: y = x @ H (D x D Hadamard matrix) with tl.dot, as in QuaRot-style kernels
    pid = tl.program_id(0)
    r = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    d = tl.arange(0, D)
    x = tl.load(x_ptr + r[:, None] * D + d[None, :], mask=r[:, None] < n_rows, other=0.0)
    h = tl.load(h_ptr + d[:, None] * D + d[None, :])
    y = tl.dot(x, h)
    tl.store(y_ptr + r[:, None] * D + d[None, :], y.to(tl.float16), mask=r[:, None] < n_rows)


@triton.jit
def cross_entropy_fwd_bwd(logits_ptr, labels_ptr, loss_ptr, stride, V, ignore_index, BLOCK: tl.constexpr):
    # Liger-style: online logsumexp over the vocab, then gradient written in place
    row = tl.program_id(0).to(tl.int64)
    logits_ptr += row * stride
    label = tl.load(labels_ptr + row)
    if label == ignore_index:
        for off in range(0, V, BLOCK):
            cols = off + tl.arange(0, BLOCK)
            tl.store(logits_ptr + cols, 0.0, mask=cols < V)
        return
    m = float("-inf")
    d = 0.0
    ori_x_y = tl.load(logits_ptr + label).to(tl.float32)
    for off in range(0, V, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(logits_ptr + cols, mask=cols < V, other=float("-inf")).to(tl.float32)
        blk_max = tl.max(x)
        m_new = tl.maximum(m, blk_max)
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new))
        m = m_new
    lse = m + tl.log(d)
    for off in range(0, V, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(logits_ptr + cols, mask=cols < V, other=float("-inf")).to(tl.float32)
        g = tl.exp(x - lse)
        g = tl.where(cols == label, g - 1.0, g)
        tl.store(logits_ptr + cols, g.to(logits_ptr.dtype.element_ty), mask=cols < V)
    tl.store(loss_ptr + row, lse - ori_x_y)


@triton.jit
def embedding_fwd(
    ids_ptr, w_ptr, out_ptr, n_tokens, V, D: tl.constexpr, BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr
):
    pid_t = tl.program_id(0)
    pid_d = tl.program_id(1)
    t = pid_t * BLOCK_T + tl.arange(0, BLOCK_T)
    d = pid_d * BLOCK_D + tl.arange(0, BLOCK_D)
    ids = tl.load(ids_ptr + t, mask=t < n_tokens, other=0)  # int64 ids
    tl.device_assert((ids >= 0) & (ids < V), "token id out of range")
    row = tl.load(w_ptr + ids[:, None] * D + d[None, :], mask=t[:, None] < n_tokens)
    tl.store(out_ptr + t[:, None].to(tl.int64) * D + d[None, :], row, mask=t[:, None] < n_tokens)


@triton.jit
def dropout_rand(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    r = tl.rand(seed, offs)
    keep = r > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


@triton.jit
def sum_static_range(x_ptr, out_ptr, n, NUM_IN: tl.constexpr, BLOCK: tl.constexpr):
    # sum NUM_IN stacked tensors (e.g. gradient accumulation over micro-batches), unrolled with static_range
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    acc = tl.zeros((BLOCK,), tl.float32)
    for i in tl.static_range(NUM_IN):
        acc += tl.load(x_ptr + i * n + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + offs, acc, mask=mask)


@triton.jit
def debug_print_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    if pid == 0:
        tl.device_print("first x", x)
    tl.device_assert(x == x, "nan found")
    tl.store(out_ptr + offs, x * 2, mask=offs < n)


@triton.jit
def swiglu_fwd(g_ptr, u_ptr, o_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    g = tl.load(g_ptr + offs, mask=m).to(tl.float32)
    u = tl.load(u_ptr + offs, mask=m)
    o = (g * tl.sigmoid(g)).to(u.dtype) * u
    tl.store(o_ptr + offs, o, mask=m)


def _cd(a, b):
    return (a + b - 1) // b


def cases():
    f16, bf, f32 = "float16", "bfloat16", "float32"
    out = []
    X = T((R, H), f16)
    rowbytes = 2 * nbytes((R, H), f16)
    out.append(
        Case(
            "softmax_online_2pass",
            "online max/sum loop + 2nd normalise loop, other=-inf",
            softmax_online,
            (R,),
            (X, T((R, H), f16), H, H, H),
            dict(BLOCK=1024, num_warps=4),
            2 * nbytes((R, H), f16),
            note="2nd pass re-reads an 8 KB row just read: L2 hit expected",
        )
    )
    out.append(
        Case(
            "softmax_fused_rows",
            "tutorial: tl.range(num_stages=) over rows, num_stages param",
            softmax_fused_rows,
            (132 * 4,),
            (T((R, H), f32), T((R, H), f32), H, H, R, H),
            dict(BLOCK=4096, num_stages=2, num_warps=8),
            2 * nbytes((R, H), f32),
        )
    )
    out.append(
        Case(
            "layernorm_fwd",
            "3-loop layernorm, mean/rstd stores",
            layernorm_fwd,
            (R,),
            (X, T((R, H), f16), T((H,), f16), T((H,), f16), T((R,), f32), T((R,), f32), H, H, 1e-5),
            dict(BLOCK=1024, num_warps=8),
            rowbytes,
        )
    )
    GS = 64
    out.append(
        Case(
            "layernorm_bwd_dx_lock",
            "while atomic_cas spin lock, atomic_xchg, if on loaded value",
            layernorm_bwd_dx_fused,
            (R,),
            (
                T((R, H), f16),
                T((R, H), f16),
                T((GS, H), f16),
                T((GS, H), f16),
                X,
                T((H,), f16),
                T((R,), f32),
                T((R,), f32),
                T((2 * GS,), "int32"),
                H,
                H,
            ),
            dict(GROUP_SIZE_M=GS, BLOCK_SIZE_N=4096, num_warps=8),
            3 * nbytes((R, H), f16),
        )
    )
    out.append(
        Case(
            "layernorm_bwd_dwdb",
            "column reduction over partial dW/dB",
            layernorm_bwd_dwdb,
            (_cd(H, 128),),
            (T((GS, H), f16), T((GS, H), f16), T((H,), f16), T((H,), f16), GS, H),
            dict(BLOCK_SIZE_M=32, BLOCK_SIZE_N=128, num_warps=4),
            2 * GS * H * 2,
            note="tiny (1 MB) launch-bound",
        )
    )
    out.append(
        Case(
            "rmsnorm_fwd",
            "one-block row, libdevice.rsqrt, int64 row",
            rmsnorm_fwd,
            (R,),
            (T((R, H), bf), T((H,), bf), T((R, H), bf), T((R,), f32), H, H, H, 1e-6),
            dict(BLOCK=4096, num_warps=8),
            rowbytes,
        )
    )
    out.append(
        Case(
            "rmsnorm_bwd_rows",
            "per-program row loop with runtime min() bound, partial dW",
            rmsnorm_bwd,
            (_cd(R, 64),),
            (
                T((R, H), bf),
                T((R, H), bf),
                T((H,), bf),
                T((R,), f32),
                T((R, H), bf),
                T((_cd(R, 64), H), f32),
                R,
                H,
            ),
            dict(ROWS_PER_PROG=64, BLOCK=4096, num_warps=8),
            3 * nbytes((R, H), bf),
        )
    )
    n = R * H
    out.append(
        Case(
            "vec_where_clamp",
            "tl.where chains, tl.clamp, scalar args",
            vec_where_clamp,
            (_cd(n, 1024),),
            (T((n,), f16), T((n,), f16), T((n,), f16), n, -6.0, 6.0),
            dict(BLOCK=1024, num_warps=4),
            3 * n * 2,
        )
    )
    out.append(
        Case(
            "row_cumsum",
            "tl.cumsum along a 4096 row",
            row_cumsum,
            (R,),
            (X, T((R, H), f32), H),
            dict(BLOCK=4096, num_warps=8),
            R * H * 6,
        )
    )
    B, L, D = 16, 1024, 2048
    out.append(
        Case(
            "linrec_assoc_scan",
            "tl.associative_scan tuple combine fn (a,x) along axis 0",
            linear_recurrence_scan,
            (B, _cd(D, 32)),
            (T((B, L, D), bf), T((B, L, D), bf), T((B, L, D), bf), L, D),
            dict(BLOCK_L=1024, BLOCK_D=32, num_warps=8),
            3 * B * L * D * 2,
        )
    )
    out.append(
        Case(
            "row_sort_desc",
            "tl.sort(descending=True) on 1024-wide rows",
            row_sort_topk,
            (R,),
            (T((R, 1024), f32), T((R, 1024), f32), 1024),
            dict(K=16, BLOCK=1024, num_warps=4),
            2 * R * 1024 * 4,
        )
    )
    out.append(
        Case(
            "row_topk",
            "tl.topk(K=16)",
            topk_builtin,
            (R,),
            (T((R, 1024), f32), T((R, 16), f32), 1024),
            dict(K=16, BLOCK=1024, num_warps=4),
            R * 1024 * 4 + R * 16 * 4,
        )
    )
    ntok = R * 8
    out.append(
        Case(
            "moe_histogram",
            "tl.histogram + vector atomic_add (int32)",
            expert_histogram,
            (_cd(ntok, 4096),),
            (T((ntok,), "int32"), T((64,), "int32"), ntok),
            dict(NUM_EXPERTS=64, BLOCK=4096, num_warps=8),
            ntok * 4,
        )
    )
    out.append(
        Case(
            "fp8_quant_rowwise",
            "tl.reduce custom combine (absmax), cast to float8e4nv",
            fp8_quant_rowwise,
            (R,),
            (T((R, H), bf), T((R, H), "float8_e4m3fn"), T((R,), f32), H),
            dict(BLOCK=4096, num_warps=8),
            R * H * 3,
        )
    )
    out.append(
        Case(
            "greedy_argmax_vocab",
            "blocked argmax over vocab, tl.max(return_indices=True)",
            greedy_argmax,
            (256,),
            (T((256, VOCAB), f32), T((256,), "int32"), VOCAB),
            dict(BLOCK=2048, num_warps=8),
            256 * VOCAB * 4,
        )
    )
    out.append(
        Case(
            "row_argmax",
            "tl.argmax one block",
            row_argmax_small,
            (R,),
            (T((R, 1024), f16), T((R,), "int32"), 1024),
            dict(BLOCK=1024, num_warps=4),
            R * 1024 * 2,
        )
    )
    out.append(
        Case(
            "gather_in_tile",
            "tl.gather(axis=0) with loaded int32 index",
            gather_in_tile,
            (R,),
            (T((R, 1024), f16), T((1024,), "int32"), T((R, 1024), f16), 1024),
            dict(BLOCK=1024, num_warps=4),
            2 * R * 1024 * 2,
        )
    )
    out.append(
        Case(
            "transpose_trans",
            "tl.trans 2-D tile transpose, masked",
            transpose_trans,
            (_cd(R, 64), _cd(H, 64)),
            (X, T((H, R), f16), R, H),
            dict(BM=64, BN=64, num_warps=4),
            rowbytes,
        )
    )
    S_, BH, Dh = 2048, 4 * 32, 128
    out.append(
        Case(
            "rope_reshape_split_join",
            "tl.reshape + tl.split + tl.join (interleaved RoPE)",
            rope_split_join,
            (_cd(S_, 32), BH),
            (T((BH, S_, Dh), bf), T((S_, Dh // 2), f32), T((S_, Dh // 2), f32), T((BH, S_, Dh), bf), S_, 32),
            dict(D=Dh, BLOCK_S=32, num_warps=4),
            2 * BH * S_ * Dh * 2 + 2 * S_ * Dh // 2 * 4,
        )
    )
    out.append(
        Case(
            "interleave_complex",
            "tl.interleave",
            interleave_complex,
            (_cd(n, 1024),),
            (T((n,), f32), T((n,), f32), T((2 * n,), f32), n),
            dict(BLOCK=1024, num_warps=4),
            4 * n * 4,
        )
    )
    out.append(
        Case(
            "hadamard_dot_mem",
            "tl.dot 128x128 in a memory-bound row kernel",
            hadamard_dot,
            (_cd(R * 32, 128),),
            (T((R * 32, 128), f16), T((128, 128), f16), T((R * 32, 128), f16), R * 32),
            dict(D=128, BLOCK_M=128, num_warps=4),
            2 * R * 32 * 128 * 2,
            2.0 * R * 32 * 128 * 128,
        )
    )
    nr = 8192
    out.append(
        Case(
            "cross_entropy_liger",
            "if on loaded label + early return, online lse, in-place grad",
            cross_entropy_fwd_bwd,
            (nr,),
            (T((nr, VOCAB), bf), T((nr,), "int64"), T((nr,), f32), VOCAB, VOCAB, -100),
            dict(BLOCK=4096, num_warps=16),
            2 * nr * VOCAB * 2,
        )
    )
    ntk = 8192
    out.append(
        Case(
            "embedding_int64_assert",
            "int64 ids gather rows, tl.device_assert",
            embedding_fwd,
            (_cd(ntk, 32), _cd(H, 256)),
            (T((ntk,), "int64"), T((128256, H), bf), T((ntk, H), bf), ntk, 128256),
            dict(D=H, BLOCK_T=32, BLOCK_D=256, num_warps=4),
            2 * ntk * H * 2,
        )
    )
    out.append(
        Case(
            "dropout_rand",
            "tl.rand(seed, offs) philox",
            dropout_rand,
            (_cd(n, 1024),),
            (T((n,), f16), T((n,), f16), n, 0.1, 1234),
            dict(BLOCK=1024, num_warps=4),
            2 * n * 2,
        )
    )
    out.append(
        Case(
            "sum_static_range",
            "tl.static_range(8) unrolled loads",
            sum_static_range,
            (_cd(H * 1024, 1024),),
            (T((8, H * 1024), bf), T((H * 1024,), f32), H * 1024),
            dict(NUM_IN=8, BLOCK=1024, num_warps=4),
            8 * H * 1024 * 2 + H * 1024 * 4,
        )
    )
    out.append(
        Case(
            "device_print_assert",
            "tl.device_print under if pid==0, tl.device_assert",
            debug_print_kernel,
            (_cd(n, 1024),),
            (T((n,), f32), T((n,), f32), n),
            dict(BLOCK=1024, num_warps=4),
            2 * n * 4,
        )
    )
    out.append(
        Case(
            "swiglu_fwd",
            "sigmoid, dtype casts, int64 pid",
            swiglu_fwd,
            (_cd(R * 14336, 1024),),
            (T((R * 14336,), bf), T((R * 14336,), bf), T((R * 14336,), bf), R * 14336),
            dict(BLOCK=1024, num_warps=4),
            3 * R * 14336 * 2,
        )
    )
    return out

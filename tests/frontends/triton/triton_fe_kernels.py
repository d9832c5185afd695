"""Small Triton kernels the frontend tests extract (defined here so tests do not track kernels/ edits)."""

import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def gemm(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    sam,
    sak,
    sbk,
    sbn,
    scm,
    scn,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    GROUP_M: tl.constexpr,
):
    pid = tl.program_id(0)
    npm = tl.cdiv(M, BM)
    npn = tl.cdiv(N, BN)
    in_group = GROUP_M * npn
    first_m = (pid // in_group) * GROUP_M
    gsize = min(npm - first_m, GROUP_M)
    pid_m = first_m + (pid % in_group) % gsize
    pid_n = (pid % in_group) // gsize
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(
            tl.load(a, mask=rk[None, :] < K - k * BK, other=0.0),
            tl.load(b, mask=rk[:, None] < K - k * BK, other=0.0),
            acc,
        )
        a += BK * sak
        b += BK * sbk
    c = c_ptr + rm[:, None] * scm + rn[None, :] * scn
    tl.store(c, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def gemm_block_ptr(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    sam,
    sak,
    sbk,
    sbn,
    scm,
    scn,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    GROUP_M: tl.constexpr,
):
    """``gemm`` over block pointers (``tl.make_block_ptr`` / ``tl.advance``, Triton 3.8 and earlier; 3.9
    removed them), edges bounds-checked instead of masked."""
    pid = tl.program_id(0)
    npm = tl.cdiv(M, BM)
    npn = tl.cdiv(N, BN)
    in_group = GROUP_M * npn
    first_m = (pid // in_group) * GROUP_M
    gsize = min(npm - first_m, GROUP_M)
    pid_m = first_m + (pid % in_group) % gsize
    pid_n = (pid % in_group) // gsize
    a = tl.make_block_ptr(a_ptr, (M, K), (sam, sak), (pid_m * BM, 0), (BM, BK), (1, 0))
    b = tl.make_block_ptr(b_ptr, (K, N), (sbk, sbn), (0, pid_n * BN), (BK, BN), (1, 0))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(tl.load(a, boundary_check=(0, 1)), tl.load(b, boundary_check=(0, 1)), acc)
        a = tl.advance(a, (0, BK))
        b = tl.advance(b, (BK, 0))
    c = tl.make_block_ptr(c_ptr, (M, N), (scm, scn), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    tl.store(c, acc.to(c_ptr.dtype.element_ty), boundary_check=(0, 1))


@triton.jit
def gemm_assumed(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    sam,
    sak,
    sbk,
    sbn,
    scm,
    scn,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    GROUP_M: tl.constexpr,
):
    # ``gemm`` with the compiler hints current Triton GEMMs state (``tl.assume``), and row and column offsets
    # wrapped modulo the extents instead of masked
    pid = tl.program_id(0)
    npm = tl.cdiv(M, BM)
    npn = tl.cdiv(N, BN)
    in_group = GROUP_M * npn
    first_m = (pid // in_group) * GROUP_M
    gsize = min(npm - first_m, GROUP_M)
    pid_m = first_m + (pid % in_group) % gsize
    pid_n = (pid % in_group) // gsize
    tl.assume(pid_m >= 0)
    tl.assume(pid_n >= 0)
    tl.assume(sam > 0)
    tl.assume(sbn > 0)
    tl.assume(scm > 0)
    rm = (pid_m * BM + tl.arange(0, BM)) % M
    rn = (pid_n * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(
            tl.load(a, mask=rk[None, :] < K - k * BK, other=0.0),
            tl.load(b, mask=rk[:, None] < K - k * BK, other=0.0),
            acc,
        )
        a += BK * sak
        b += BK * sbk
    cm = pid_m * BM + tl.arange(0, BM)
    cn = pid_n * BN + tl.arange(0, BN)
    c = c_ptr + cm[:, None] * scm + cn[None, :] * scn
    tl.store(c, acc.to(c_ptr.dtype.element_ty), mask=(cm[:, None] < M) & (cn[None, :] < N))


@triton.jit
def softmax(x_ptr, y_ptr, n_cols, sx, sy, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * sx + cols, mask=cols < n_cols, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(y_ptr + row * sy + cols, e / tl.sum(e, axis=0), mask=cols < n_cols)


@triton.jit
def persistent_copy(x_ptr, y_ptr, n_tiles, BLOCK: tl.constexpr, NUM_PROGS: tl.constexpr):
    for t in range(tl.program_id(0), n_tiles, NUM_PROGS):
        offs = t * BLOCK + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs))


@triton.jit
def gather(table_ptr, idx_ptr, out_ptr, D, BLOCK_D: tl.constexpr):
    r = tl.program_id(0)
    row = tl.load(idx_ptr + r)
    d = tl.arange(0, BLOCK_D)
    tl.store(out_ptr + r * D + d, tl.load(table_ptr + row * D + d, mask=d < D), mask=d < D)


@triton.jit
def uses_histogram(x_ptr, y_ptr, BLOCK: tl.constexpr, BINS: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(y_ptr + tl.arange(0, BINS), tl.histogram(x, BINS))


@triton.jit
def _double(a):
    return a * 2.0


@triton.jit
def uses_map_elementwise(x_ptr, y_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(y_ptr + tl.arange(0, BLOCK), tl.map_elementwise(_double, x))


@triton.jit
def triangular(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(0, n):
        for j in range(0, i + 1):
            acc += tl.load(x_ptr + j * BLOCK + tl.arange(0, BLOCK))
    tl.store(y_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK), acc)


@triton.jit
def desc_scale(in_desc, out_desc, BM: tl.constexpr, BN: tl.constexpr):
    row, col = tl.program_id(0) * BM, tl.program_id(1) * BN
    out_desc.store([row, col], in_desc.load([row, col]) * 2)


@triton.jit
def batched_copy(x_ptr, y_ptr, sb, sr, BR: tl.constexpr, BC: tl.constexpr):
    r = tl.program_id(0) * BR + tl.arange(0, BR)
    c = tl.program_id(1) * BC + tl.arange(0, BC)
    off = tl.program_id(2) * sb + r[:, None] * sr + c[None, :]
    tl.store(y_ptr + off, tl.load(x_ptr + off))


@triton.jit
def split_k_gemm(
    a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, SPLIT: tl.constexpr
):
    """Split-K: program (tile, s) sums K blocks s, s + SPLIT, ... and atomically adds its partial C tile."""
    pid = tl.program_id(0)
    pk = tl.program_id(1)
    nn = tl.cdiv(N, BN)
    rm = (pid // nn) * BM + tl.arange(0, BM)
    rn = (pid % nn) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(pk * BK, K, BK * SPLIT):
        rk = k + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
        acc += tl.dot(a, b)
    tl.atomic_add(c_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def gemv(a_ptr, x_ptr, y_ptr, M, K, BM: tl.constexpr, BK: tl.constexpr):
    """y = A x with both loads of a step on one source line (their widths differ: A's rows are 16-byte
    vectors, x is spread one element per thread)."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    acc = tl.zeros((BM,), tl.float32)
    for k in range(0, K, BK):
        rk = k + tl.arange(0, BK)
        acc += tl.sum(
            tl.load(a_ptr + rm[:, None] * K + rk[None, :]).to(tl.float32) * tl.load(x_ptr + rk)[None, :], 1
        )
    tl.store(y_ptr + rm, acc)


@triton.jit
def rows_with_stages(x_ptr, y_ptr, n_rows, n_cols, BLOCK: tl.constexpr, num_stages: tl.constexpr):
    """A program per SM-slot striding over rows, its pipelining depth a kernel parameter named like the
    launch option (the fused-softmax tutorial's signature)."""
    cols = tl.arange(0, BLOCK)
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=num_stages):
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
        tl.store(y_ptr + row * n_cols + cols, x * 2.0, mask=cols < n_cols)


@triton.jit
def gated(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    """y = x[:n] * x[n:]: two regions of one argument, the second through a scalar offset ``x_ptr + n``."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    g = tl.load(x_ptr + offs, mask=m)
    u = tl.load(x_ptr + n + offs, mask=m)
    tl.store(y_ptr + offs, g * u, mask=m)


@triton.jit
def row_offset(x_ptr, y_ptr, stride, BLOCK: tl.constexpr):
    """A pointer advanced by a program-dependent scalar (``x_ptr += row * stride``), loaded twice."""
    row = tl.program_id(0)
    x_ptr += row * stride
    cols = tl.arange(0, BLOCK)
    a = tl.load(x_ptr + cols)
    b = tl.load(x_ptr + cols)
    tl.store(y_ptr + row * stride + cols, a + b)


@triton.jit
def gated_rows(x_ptr, y_ptr, d, BLOCK: tl.constexpr):
    """y[row] = x[row, :d] * x[row, d:]: a row offset by the program, then the second half by ``d``."""
    row = tl.program_id(0)
    x_ptr += row * 2 * d
    cols = tl.arange(0, BLOCK)
    m = cols < d
    g = tl.load(x_ptr + cols, mask=m)
    u = tl.load(x_ptr + d + cols, mask=m)
    tl.store(y_ptr + row * d + cols, g * u, mask=m)


@triton.jit
def gemm_precision(
    a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, PREC: tl.constexpr
):
    """A square-tile fp32 GEMM (row-major, K columns / rows) whose dot runs in ``PREC`` ("ieee" or "tf32")."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * K + rn[None, :])
        acc = tl.dot(a, b, acc, input_precision=PREC)
    tl.store(c_ptr + rm[:, None] * K + rn[None, :], acc)


@triton.jit
def gemm_int8(a_ptr, b_ptr, c_ptr, K, sbk, sbn, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """An int8 GEMM (int32 accumulator) whose B is read with strides ``(sbk, sbn)``: row-major ``(K, 1)`` or
    K-major ``(1, K)``; A row-major, square ``K`` x ``K`` operands."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.int32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * sbk + rn[None, :] * sbn)
        acc = tl.dot(a, b, acc, out_dtype=tl.int32)
    tl.store(c_ptr + rm[:, None] * K + rn[None, :], acc)


@triton.jit
def score_then_value(q_ptr, k_ptr, v_ptr, o_ptr, n_keys, BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr):
    """One query block against ``n_keys`` keys (row-major q, k, v of ``D`` columns): S = Q K^T, P = exp(S),
    O += P V; no softmax bookkeeping, just the two dots of an attention step."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])
    acc = tl.zeros((BM, D), dtype=tl.float32)
    for start in range(0, n_keys, BN):
        kt = tl.load(k_ptr + (start + rn)[None, :] * D + rd[:, None])
        p = tl.exp(tl.dot(q, kt))
        v = tl.load(v_ptr + (start + rn)[:, None] * D + rd[None, :])
        acc += tl.dot(p.to(tl.float16), v)
    tl.store(o_ptr + rm[:, None] * D + rd[None, :], acc)


@triton.jit
def locked_row_sum(x_ptr, acc_ptr, lock_ptr, N, LOCKS: tl.constexpr, BLOCK: tl.constexpr):
    """Each program adds its row of ``x`` into accumulator row ``pid % LOCKS`` under that row's spin lock (the
    layer-norm backward's partial-sum pattern): acquire by compare-and-swap, read-add-write, release."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)
    slot = row % LOCKS
    while tl.atomic_cas(lock_ptr + slot, 0, 1) == 1:
        pass
    acc = tl.load(acc_ptr + slot * N + cols, mask=mask, other=0.0)
    tl.store(acc_ptr + slot * N + cols, acc + x, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(lock_ptr + slot, 0)


@triton.jit
def locked_never_released(x_ptr, lock_ptr, BLOCK: tl.constexpr):
    """Takes a spin lock and never gives it back (refused: no section to time)."""
    cols = tl.arange(0, BLOCK)
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    tl.store(x_ptr + cols, tl.load(x_ptr + cols) + 1.0)


@triton.jit
def while_with_work(x_ptr, n, BLOCK: tl.constexpr):
    """A data-dependent ``while`` that does work every trip (refused: not a spin lock)."""
    cols = tl.arange(0, BLOCK)
    i = 0
    while i < n:
        tl.store(x_ptr + i * BLOCK + cols, tl.load(x_ptr + i * BLOCK + cols) * 2.0)
        i += tl.load(x_ptr + i * BLOCK).to(tl.int32) + 1


@triton.jit
def row_sum_while(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    """A row sum over ``while off < N: ...; off += BLOCK``: a counted loop written with ``while``."""
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), tl.float32)
    off = 0
    while off < N:
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0).to(tl.float32)
        off += BLOCK
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def row_sum_for(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    """:func:`row_sum_while` with a ``for`` loop."""
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0).to(tl.float32)
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def row_sum_while_loaded(x_ptr, y_ptr, n_ptr, BLOCK: tl.constexpr):
    """:func:`row_sum_while` whose bound is read from memory."""
    row = tl.program_id(0)
    n = tl.load(n_ptr)
    acc = tl.zeros((BLOCK,), tl.float32)
    off = 0
    while off < n:
        acc += tl.load(x_ptr + off + tl.arange(0, BLOCK)).to(tl.float32)
        off += BLOCK
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def rows_partial_sum(x_ptr, w_ptr, y_ptr, part_ptr, n_rows, N, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    # each program scales ROWS rows by a weight row it loads once, and stores its partial column sum once
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    w = tl.load(w_ptr + cols)
    acc = tl.zeros((BLOCK,), tl.float32)
    for r in range(pid * ROWS, tl.minimum(pid * ROWS + ROWS, n_rows)):
        x = tl.load(x_ptr + r * N + cols)
        tl.store(y_ptr + r * N + cols, x * w)
        acc += x
    tl.store(part_ptr + pid * N + cols, acc)


@triton.jit
def permute_row(x_ptr, idx_ptr, y_ptr, N, BLOCK: tl.constexpr):
    # y[row, j] = x[row, idx[j]]: a gather inside the row's tile
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + cols)
    idx = tl.load(idx_ptr + cols)
    tl.store(y_ptr + row * N + cols, tl.gather(x, idx, axis=0))


@triton.jit
def permute_columns(x_ptr, idx_ptr, y_ptr, N, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    # the same column permutation applied to ROWS rows: Triton's layout pass keeps each row in one warp
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)[:, None]
    cols = tl.arange(0, BLOCK)[None, :]
    x = tl.load(x_ptr + rows * N + cols)
    idx = tl.broadcast_to(tl.load(idx_ptr + cols), (ROWS, BLOCK))
    tl.store(y_ptr + rows * N + cols, tl.gather(x, idx, axis=1))


@triton.jit
def clamp_relu(x_ptr, y_ptr, BLOCK: tl.constexpr):
    """y = min(where(x > 0, x, 0), 6) * 2: a compare, a select and a minimum (ALU ops) and a multiply an
    element."""
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, tl.minimum(tl.where(x > 0, x, 0.0), 6.0) * 2.0)


@triton.jit
def axpb(x_ptr, y_ptr, z_ptr, a, b, BLOCK: tl.constexpr):
    """y = x * a + b (one fused multiply-add an element); z = p - p * a with p = x * b (the product p is used
    twice: its multiply stays separate, and the multiply by a contracts into the subtract)."""
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, x * a + b)
    p = x * b
    tl.store(z_ptr + offs, p - p * a)


@triton.jit
def shape_mismatch(x_ptr, y_ptr, BLOCK: tl.constexpr):
    """Does not compile: adds a BLOCK-long tile to a 2 BLOCK-long one (Triton's code generator refuses it)."""
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, x + tl.arange(0, 2 * BLOCK))


@triton.jit
def bounded_block(x_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK <= 64, "BLOCK must be at most 64")
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) * 2.0)


@triton.jit
def channel_groups(x_ptr, w_ptr, dw_ptr, y_ptr, C: tl.constexpr, CPG: tl.constexpr, BLOCK: tl.constexpr):
    """Program (row, group) walks its group's CPG channels twice: a first loop (from a program-dependent
    start, with an atomic store: the walker distributes it like a tile loop) reads each channel's weight
    through a scalar pointer and sums the channel, a second one rescales the channels by the group total."""
    row, group = tl.program_id(0), tl.program_id(1)
    x_ptr += row * C * BLOCK
    y_ptr += row * C * BLOCK
    total = 0.0
    for c in range(group * CPG, (group + 1) * CPG):
        w = tl.load(w_ptr + c)
        s = tl.sum(tl.load(x_ptr + c * BLOCK + tl.arange(0, BLOCK)) * w)
        total += s
        tl.atomic_add(dw_ptr + c, s)
    for c in range(group * CPG, (group + 1) * CPG):
        x = tl.load(x_ptr + c * BLOCK + tl.arange(0, BLOCK))
        tl.store(y_ptr + c * BLOCK + tl.arange(0, BLOCK), x - total)


@triton.jit
def row_sum_minus_label(x_ptr, label_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    """Per row: the sum of the row (BLOCK-wide tiles) less the row's element at its label (one element read
    through a loaded index, as a cross-entropy loss reads the target logit)."""
    row = tl.program_id(0).to(tl.int64)
    x_ptr += row * n_cols
    acc = 0.0
    for i in range(0, n_cols, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        acc += tl.sum(tl.load(x_ptr + offs, mask=offs < n_cols, other=0.0).to(tl.float32))
    label = tl.load(label_ptr + row)
    acc -= tl.load(x_ptr + label).to(tl.float32)
    tl.store(out_ptr + row, acc)


@triton.jit
def unrolled_row_sums(x_ptr, out_ptr, K: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """Row sums over a K loop unrolled by ``tl.static_range``: step ``k0`` reads the columns from k0."""
    rows = tl.program_id(0) * BN + tl.arange(0, BN)
    s = tl.zeros((BN,), tl.float32)
    for k0 in tl.static_range(0, K, BK):
        cols = k0 + tl.arange(0, BK)
        s += tl.sum(tl.load(x_ptr + rows[:, None] * K + cols[None, :]).to(tl.float32), axis=1)
    tl.store(out_ptr + rows, s)


@triton.jit
def rotate_halves(x_ptr, y_ptr, H: tl.constexpr, D: tl.constexpr):
    """A rotary-style kernel: the first and second halves of each of H rows of D, the second half's offsets
    the first's plus D // 2 (added to the index tensor, not to the pointer)."""
    x_ptr += tl.program_id(0) * H * D
    y_ptr += tl.program_id(0) * H * D
    first = tl.arange(0, H)[:, None] * D + tl.arange(0, D // 2)[None, :]
    second = first + D // 2
    a = tl.load(x_ptr + first)
    b = tl.load(x_ptr + second)
    tl.store(y_ptr + first, a - b)
    tl.store(y_ptr + second, a + b)


@triton.jit
def double_or_zero(x_ptr, label_ptr, n_cols, BLOCK: tl.constexpr):
    """Rows whose label is -100 are zeroed and the program returns; the others are doubled in place."""
    row = tl.program_id(0).to(tl.int64)
    x_ptr += row * n_cols
    if tl.load(label_ptr + row) == -100:
        for i in range(0, n_cols, BLOCK):
            offs = i + tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, 0.0, mask=offs < n_cols)
        return
    for i in range(0, n_cols, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n_cols) * 2, mask=offs < n_cols)


@triton.jit
def guarded_unrolled_max(v_ptr, out_ptr, n_blocks, n_tokens, D, NB: tl.constexpr, BD: tl.constexpr):
    """The max over up to NB stacked [n_tokens, D] slabs of a token's row, a ``tl.static_range`` step a slab,
    each under ``if i < n_blocks`` (the printed IR names each step's values alike in its own region)."""
    tok = tl.program_id(0)
    cols = tl.arange(0, BD)
    m = tl.full((), float("-inf"), dtype=tl.float32)
    for i in tl.static_range(0, NB):
        if i < n_blocks:
            off = i * n_tokens * D + tok * D
            m = tl.maximum(m, tl.max(tl.load(v_ptr + off + cols).to(tl.float32)))
    tl.store(out_ptr + tok, m)


@triton.jit
def gather_sum_tiles(y_ptr, idx_ptr, out_ptr, H: tl.constexpr, K: tl.constexpr, BLOCK_H: tl.constexpr):
    """Token t sums the K rows of y its index list names, BLOCK_H columns at a time over a static_range loop
    (a mixture-of-experts' gather and weighted sum, unweighted)."""
    t = tl.program_id(0)
    rows = tl.load(idx_ptr + t * K + tl.arange(0, K)).to(tl.int64)
    for h in tl.static_range(H // BLOCK_H):
        cols = h * BLOCK_H + tl.arange(0, BLOCK_H)
        acc = tl.sum(tl.load(y_ptr + rows[:, None] * H + cols[None, :]).to(tl.float32), axis=0)
        tl.store(out_ptr + t * H + cols, acc)


@triton.jit
def chunk_column_sums(x_ptr, out_ptr, n, D: tl.constexpr, BLOCK: tl.constexpr):
    """Column sums of an ``n x D`` matrix, one ``BLOCK``-row chunk an iteration, each chunk reduced over its
    rows inside the loop (a varlen row-sum kernel's ``acc += tl.sum(x, axis=0)``)."""
    acc = tl.zeros((D,), tl.float32)
    for i in range(0, n, BLOCK):
        rows = i + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + rows[:, None] * D + tl.arange(0, D)[None, :], mask=rows[:, None] < n, other=0.0)
        acc += tl.sum(x.to(tl.float32), axis=0)
    tl.store(out_ptr + tl.arange(0, D), acc)


@triton.jit
def online_softmax_stats(x_ptr, m_ptr, s_ptr, n, BLOCK: tl.constexpr):
    """The max-and-sum pass of an online softmax over one row of ``n``: an ``exp`` in every loop trip."""
    row = tl.program_id(0)
    m = tl.full((BLOCK,), -float("inf"), tl.float32)
    s = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n + cols, mask=cols < n, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        s = s * tl.exp(m - m_new) + tl.exp(x - m_new)
        m = m_new
    mx = tl.max(m, axis=0)
    tl.store(m_ptr + row, mx)
    tl.store(s_ptr + row, tl.sum(s * tl.exp(m - mx), axis=0))


@triton.jit
def row_sum_of_squares(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """An RMSNorm's first pass: the sum of squares over one row of ``n``, loads and FMAs only."""
    row = tl.program_id(0)
    sq = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n + cols, mask=cols < n, other=0.0).to(tl.float32)
        sq += x * x
    tl.store(out_ptr + row, tl.sum(sq, axis=0))


@triton.jit
def expert_weight_blocks(w_ptr, expert_ptr, out_ptr, N, K: tl.constexpr, BN: tl.constexpr):
    """Program (m, n) copies column block ``n`` of the ``K x N`` weight of expert ``expert[m]`` (a MoE block
    reading its expert's weights: the block is chosen by the index tensor, not by ``m`` itself)."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    e = tl.load(expert_ptr + pid_m).to(tl.int64)
    rows = tl.arange(0, K)
    cols = pid_n * BN + tl.arange(0, BN)
    w = tl.load(w_ptr + e * K * N + rows[:, None] * N + cols[None, :])
    tl.store(out_ptr + (pid_m * K + rows[:, None]) * N + cols[None, :], w)


@triton.jit
def expert_weight_rows(w_ptr, expert_ptr, out_ptr, N, K: tl.constexpr, BN: tl.constexpr):
    """Like :func:`expert_weight_blocks`, but row block ``m`` of its expert's weight (``pid_m`` reaches the
    address directly as well as through the loaded expert id): no two programs share a block."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    e = tl.load(expert_ptr + pid_m).to(tl.int64)
    rows = tl.arange(0, K)
    cols = pid_n * BN + tl.arange(0, BN)
    w = tl.load(w_ptr + e * 64 * K * N + (pid_m * K + rows[:, None]) * N + cols[None, :])
    tl.store(out_ptr + (pid_m * K + rows[:, None]) * N + cols[None, :], w)


@triton.jit
def step_loads(x_ptr, w_ptr, v_ptr, out_ptr, n_iter, period, BLOCK: tl.constexpr):
    # per step: x, a new block; w, the program's own block again; v, one of `period` blocks in turn
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(n_iter):
        x = tl.load(x_ptr + pid * n_iter * BLOCK + i * BLOCK + offs)
        w = tl.load(w_ptr + pid * BLOCK + offs)
        v = tl.load(v_ptr + pid * period * BLOCK + (i % period) * BLOCK + offs)
        acc += x * w + v
    tl.store(out_ptr + pid * BLOCK + offs, acc)


@triton.jit
def carried_step_loads(x_ptr, out_ptr, n_iter, BLOCK: tl.constexpr):
    # the pointer is advanced by the loop itself (a carried value): a new block every step
    pid = tl.program_id(0)
    ptrs = x_ptr + pid * n_iter * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for _ in range(n_iter):
        acc += tl.load(ptrs)
        ptrs += BLOCK
    tl.store(out_ptr + pid * BLOCK + tl.arange(0, BLOCK), acc)


@triton.jit
def bias_rows(x_ptr, w_ptr, y_ptr, n_rows, BLOCK: tl.constexpr):
    # adds n_rows rows of w to each program's block of x; n_rows may be 0 (no row: the loop never runs)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.load(x_ptr + offs)
    for i in range(0, n_rows):
        acc += tl.load(w_ptr + i * BLOCK + tl.arange(0, BLOCK))
    tl.store(y_ptr + offs, acc)


@triton.jit
def late_rows(x_ptr, w_ptr, y_ptr, first, BLOCK: tl.constexpr):
    # program p adds rows first .. p - 1 of w: only the programs past ``first`` enter the loop
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    acc = tl.load(x_ptr + offs)
    for i in range(first, pid):
        acc += tl.load(w_ptr + i * BLOCK + tl.arange(0, BLOCK))
    tl.store(y_ptr + offs, acc)


@triton.jit
def erf_map(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, libdevice.erf(x), mask=offs < n)


@triton.jit
def log_map(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, tl.log(x), mask=offs < n)


@triton.jit
def exp_map(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, tl.exp(x), mask=offs < n)


@triton.jit
def chunk_loop_copy(src, dst, n, chunks, BLOCK: tl.constexpr):
    # each program copies `chunks` consecutive BLOCK-wide chunks: the address multiplies the runtime `chunks`
    # (no divisibility Triton can specialise) by BLOCK, which keeps it aligned
    pid = tl.program_id(0)
    for i in range(chunks):
        offs = (pid * chunks + i) * BLOCK + tl.arange(0, BLOCK)
        inside = offs < n
        tl.store(dst + offs, tl.load(src + offs, mask=inside), mask=inside)


@triton.jit
def masked_row_copy(src, dst, stride, n_cols, row_mask, BLOCK: tl.constexpr):
    # a row chosen through `& row_mask` (no known divisibility) and then scaled by the row stride
    row = tl.program_id(0) & row_mask
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    tl.store(dst + row * stride + cols, tl.load(src + row * stride + cols, mask=inside), mask=inside)


@triton.jit
def printing_copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    if tl.program_id(0) == 0:
        tl.device_print("x", x)
    tl.store(out_ptr + offs, x, mask=offs < n)


@triton.jit
def rows_at_loaded_start(x_ptr, starts_ptr, out_ptr, H, D: tl.constexpr, BLOCK: tl.constexpr):
    """Program (b, h) copies ``BLOCK`` rows of head ``h`` from row ``starts[b]`` of a packed
    ``(tokens, H, D)`` tensor (a varlen batch's sequence start read from ``cu_seqlens``)."""
    b = tl.program_id(0)
    h = tl.program_id(1)
    start = tl.load(starts_ptr + b)
    rows = start + tl.arange(0, BLOCK)
    d = tl.arange(0, D)
    offs = rows[:, None] * (H * D) + h * D + d[None, :]
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))


@triton.jit
def gathered_rows(x_ptr, idx_ptr, out_ptr, D: tl.constexpr, BLOCK: tl.constexpr):
    """Program ``p`` gathers the ``BLOCK`` rows of ``x`` that ``idx[p * BLOCK:]`` names (an embedding or a MoE
    block's tokens)."""
    p = tl.program_id(0)
    rows = tl.load(idx_ptr + p * BLOCK + tl.arange(0, BLOCK))
    d = tl.arange(0, D)
    x = tl.load(x_ptr + rows[:, None] * D + d[None, :])
    tl.store(out_ptr + (p * BLOCK + tl.arange(0, BLOCK))[:, None] * D + d[None, :], x)


@triton.jit
def gemm_past_a_return(
    a_ptr,
    b_ptr,
    c_ptr,
    rows_ptr,
    scale_ptr,
    N,
    K,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    EARLY: tl.constexpr,
):
    """A row-major GEMM (``C = A @ B`` scaled by a per-row-block factor, ``N`` columns, ``K`` deep, one
    program a tile, row by row) whose programs past the row count ``rows`` (read from memory, as a MoE
    GEMM's padded token count) return at once when ``EARLY``."""
    pid = tl.program_id(0)
    pid_m = pid // tl.cdiv(N, BN)
    pid_n = pid % tl.cdiv(N, BN)
    if EARLY:
        if pid_m * BM >= tl.load(rows_ptr):
            return
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc)
    acc *= tl.load(scale_ptr + pid_m)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


@triton.jit
def gemm_range_stages(
    a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, S: tl.constexpr
):
    """A ``(BM * programs) x BN`` GEMM whose K loop names its own pipeline depth,
    ``tl.range(..., num_stages=S)`` (as the Triton tutorials' attention and persistent GEMM do)."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, K, BK, num_stages=S):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc.to(tl.float16))


@triton.jit
def rows_to_loaded_length(x_ptr, y_ptr, lens_ptr, N, LOADED: tl.constexpr, BLOCK: tl.constexpr):
    """Each program scales a row of ``N`` fp16 elements, masked either at a length read from memory (a
    ragged batch's sequence length) or at the argument ``N`` (specialised as divisible by 16)."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    n = tl.load(lens_ptr + row) if LOADED else N
    m = cols < n
    x = tl.load(x_ptr + row * N + cols, mask=m, other=0.0)
    tl.store(y_ptr + row * N + cols, x * 2, mask=m)


@triton.jit
def rows_masked_by_row(x_ptr, y_ptr, n_rows, ROWS: tl.constexpr, N: tl.constexpr):
    """Each program scales ``ROWS`` rows of ``N`` fp16 elements one after another, each row's load and store
    masked by one scalar test of its row index (``mask=r < n_rows``: the same value for every column)."""
    cols = tl.arange(0, N)
    for i in range(ROWS):
        r = tl.program_id(0) * ROWS + i
        m = r < n_rows
        x = tl.load(x_ptr + r * N + cols, mask=m)
        tl.store(y_ptr + r * N + cols, x * 2, mask=m)


@triton.jit
def flat_bias_add(x_ptr, bias_ptr, y_ptr, total, n_cols, BLOCK: tl.constexpr):
    """``y = x + bias[i % n_cols]`` over a flat index: the bias column of each element is a remainder."""
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < total
    b = tl.load(bias_ptr + i % n_cols, mask=m)
    tl.store(y_ptr + i, tl.load(x_ptr + i, mask=m) + b, mask=m)


@triton.jit
def row_loop_then_sum(x_ptr, dx_ptr, out_ptr, stride, V, BLOCK: tl.constexpr):
    """A loop over a row's chunks that loads and stores (the JSD / cross-entropy backward idiom), then a
    reduction after the loop, whose combiner's values the TTGIR printer names like the loop body's."""
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros((BLOCK,), tl.float32)
    for off in range(0, V, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        m = cols < V
        x = tl.load(x_ptr + row * stride + cols, mask=m, other=0.0).to(tl.float32)
        e = tl.exp(x)
        acc += tl.where(m, e, 0.0)
        tl.store(dx_ptr + row * stride + cols, (e * 0.5).to(tl.float16), mask=m)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def scatter_add(idx_ptr, src_ptr, out_ptr, H, BLOCK: tl.constexpr, ROWS: tl.constexpr):
    """Atomic adds at loaded indices: with ROWS, each program adds a row of ``H`` at the row its loaded index
    names (an embedding backward: the lanes contiguous along the row); without, each lane adds one element at
    the bin its own loaded index names (a bincount: the lanes scattered)."""
    pid = tl.program_id(0)
    if ROWS:
        row = tl.load(idx_ptr + pid)
        cols = tl.arange(0, BLOCK)
        g = tl.load(src_ptr + pid * H + cols, mask=cols < H, other=0.0)
        tl.atomic_add(out_ptr + row * H + cols, g, mask=cols < H)
    else:
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        i = tl.load(idx_ptr + offs)
        tl.atomic_add(out_ptr + i, tl.load(src_ptr + offs))


@triton.jit
def scatter_add_2d(idx_ptr, src_ptr, out_ptr, H, BR: tl.constexpr, BH: tl.constexpr, LANES: tl.constexpr):
    """A block of ``BR`` rows of ``BH`` added at loaded rows (``idx[:, None] * H + cols[None, :]``: lanes
    contiguous along each row) or, with LANES, at loaded columns of fixed rows (``rows[:, None] * H +
    idx[None, :]``: lanes scattered along the fastest axis)."""
    pid = tl.program_id(0)
    rows = pid * BR + tl.arange(0, BR)
    cols = tl.arange(0, BH)
    g = tl.load(src_ptr + rows[:, None] * H + cols[None, :])
    if LANES:
        i = tl.load(idx_ptr + cols)
        tl.atomic_add(out_ptr + rows[:, None] * H + i[None, :], g)
    else:
        i = tl.load(idx_ptr + rows)
        tl.atomic_add(out_ptr + i[:, None] * H + cols[None, :], g)


@triton.jit
def block_amax(x_ptr, amax_ptr, BLOCK: tl.constexpr):
    """Each program folds its block's largest magnitude into one word with a float ``tl.atomic_max`` (an fp8
    scale's amax)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_max(amax_ptr, tl.max(tl.abs(tl.load(x_ptr + offs)), axis=0))


@triton.jit
def shifted_tap(x_ptr, y_ptr, L, SHIFT: tl.constexpr, BD: tl.constexpr, BL: tl.constexpr):
    """A causal convolution's tap: rows of ``L`` fp16 read ``SHIFT`` columns back, the columns before the
    row's start masked off (``src[None, :] >= 0``, along the tile's fastest axis), written in place."""
    rd = tl.arange(0, BD)
    rl = tl.program_id(0) * BL + tl.arange(0, BL)
    src = rl - SHIFT
    x = tl.load(
        x_ptr + rd[:, None] * L + src[None, :], mask=(src[None, :] >= 0) & (rd[:, None] < BD), other=0.0
    )
    tl.store(y_ptr + rd[:, None] * L + rl[None, :], x, mask=rd[:, None] < BD)


@triton.jit
def register_a_dot_chain(a_ptr, b_ptr, out_ptr, iters, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """``iters`` dependent dots whose A is a float16 cast of float32 data computed in registers before the
    loop (the ``regs_a`` probe's chain): Triton 3.9 runs each as warpgroup MMAs over K slices of B."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :]).to(tl.float16)
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(iters):
        acc = tl.dot(a, b, acc)
    tl.store(out_ptr + tl.program_id(0) * BM * BN + rm[:, None] * BN + rn[None, :], acc)


@triton.jit
def unrolled_dots(a_ptr, b_ptr, out_ptr, K, N, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                  DOTS: tl.constexpr):  # fmt: skip
    """Each K step's tiles feed ``DOTS`` dots that a ``tl.static_range`` unrolls at one source location (the
    ``tile_loop`` probe's form): as many dots, each one pass."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        for _ in tl.static_range(DOTS):
            acc = tl.dot(a, b, acc)
    tl.store(out_ptr + rm[:, None] * BN + rn[None, :], acc)


@triton.jit
def scale_unless_zero(x_ptr, y_ptr, n, f, BLOCK: tl.constexpr):
    """``if f != 0:`` on a float argument (FlagGems' avg_pool2d ``divisor_override``): ``arith.cmpf une``."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    if f != 0:
        x = x / f
    tl.store(y_ptr + offs, x, mask=offs < n)


@triton.jit
def pick_rows(x_ptr, y_ptr, off_a, off_b, n_a, n_b, BLOCK: tl.constexpr):
    """Each ``pid_y`` picks its own offset and size by an ``if`` (FlagGems' cat picks its input's): the
    branches only choose values, and the arguments get the local variables' SSA names (``%off``,
    ``%off_0``), not their own."""
    pid_x = tl.program_id(0)
    pid_y = tl.program_id(1)
    if pid_y == 0:
        off = off_a
        n = n_a
    else:
        off = off_b
        n = n_b
    idx = pid_x * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + off + idx, mask=idx < n)
    tl.store(y_ptr + off + idx, x, mask=idx < n)


@triton.jit
def pick_rows_direct(x_ptr, y_ptr, off_a, off_b, n_a, n_b, BLOCK: tl.constexpr):
    """``pick_rows`` with its offset computed (off_a 0, off_b the row length)."""
    pid_x = tl.program_id(0)
    pid_y = tl.program_id(1)
    idx = pid_x * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + pid_y * off_b + idx, mask=idx < n_a)
    tl.store(y_ptr + pid_y * off_b + idx, x, mask=idx < n_a)


@triton.jit
def pick_input(a_ptr, b_ptr, y_ptr, n, use_b, BLOCK: tl.constexpr):
    """Programs at ``pid_y`` 0 copy ``a``, the others ``b`` where ``use_b`` says so: one of two pointer
    arguments chosen per program (or, with ``use_b`` 0, ``a`` for every program)."""
    pid_x = tl.program_id(0)
    pid_y = tl.program_id(1)
    if (pid_y > 0) & (use_b != 0):
        src = b_ptr
    else:
        src = a_ptr
    idx = pid_x * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + pid_y * n + idx, tl.load(src + idx, mask=idx < n), mask=idx < n)


@triton.jit
def add_rows(x_ptr, b_ptr, y_ptr, xs0, bs0, ys0, N, BLOCK: tl.constexpr):
    """``y = x + b`` row by row, ``b``'s row stride a runtime argument: 0 broadcasts one row to all (FlagGems'
    element-wise kernels take a broadcast operand's stride 0 so)."""
    pid = tl.program_id(0)
    row = pid // (N // BLOCK)
    col = (pid % (N // BLOCK)) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * xs0 + col)
    b = tl.load(b_ptr + row * bs0 + col)
    tl.store(y_ptr + row * ys0 + col, x + b)

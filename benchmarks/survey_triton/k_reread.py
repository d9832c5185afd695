"""Kernels whose loads come back within their loops, a construct no earlier set timed: a tile re-loaded
every step (an address free of the loop's counter) and a loop that re-walks a few blocks (``(i % p) * B``):
the blind check of stop 40's loop periods (``Walker.address_period``: such a load is a re-read of its own,
served from L2). Predicted before they were timed, with the rule and (``reread_predicted_without_rule.json``,
from a committed copy of b89a50a) without it. Names end in ``_p``."""

import triton
import triton.language as tl
from harness import Case, T


@triton.jit
def rows_weight_reload(x_ptr, w_ptr, y_ptr, n_rows, ROWS_PER_PROG: tl.constexpr, N: tl.constexpr):
    # y[r] = x[r] * w over a program's rows, w loaded again for every row (the same block every step)
    pid = tl.program_id(0)
    cols = tl.arange(0, N)
    for i in range(ROWS_PER_PROG):
        r = pid * ROWS_PER_PROG + i
        m = r < n_rows
        w = tl.load(w_ptr + cols).to(tl.float32)
        x = tl.load(x_ptr + r * N + cols, mask=m).to(tl.float32)
        tl.store(y_ptr + r * N + cols, (x * w).to(tl.float16), mask=m)


@triton.jit
def ring_panel_sum(x_ptr, y_ptr, steps, PERIOD: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    # a program sums `steps` tiles of its own panel of PERIOD tiles, walking it round and round
    pid = tl.program_id(0)
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for i in range(steps):
        base = (pid * PERIOD + i % PERIOD) * BM * BN
        acc += tl.load(x_ptr + base + rows[:, None] * BN + cols[None, :]).to(tl.float32)
    tl.store(y_ptr + pid * BM * BN + rows[:, None] * BN + cols[None, :], acc)


@triton.jit
def ring_panel_dot(a_ptr, b_ptr, c_ptr, steps, PERIOD: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                   BK: tl.constexpr):  # fmt: skip
    # a 128-row dot chain fed by the program's own A panel of PERIOD K-steps, walked round and round; one B
    pid = tl.program_id(0)
    rows = tl.arange(0, BM)
    ks = tl.arange(0, BK)
    cols = tl.arange(0, BN)
    b = tl.load(b_ptr + ks[:, None] * BN + cols[None, :])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for i in range(steps):
        a = tl.load(a_ptr + (pid * BM + rows[:, None]) * (PERIOD * BK) + (i % PERIOD) * BK + ks[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + (pid * BM + rows[:, None]) * BN + cols[None, :], acc.to(tl.float16))


@triton.jit
def scores_q_reload(q_ptr, k_ptr, m_ptr, n_kv, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    # the running row max of Q K^T over the key blocks, Q's tile loaded again in every step
    pid_m = tl.program_id(0)
    head = tl.program_id(1)
    rows = pid_m * BM + tl.arange(0, BM)
    d = tl.arange(0, D)
    best = tl.full((BM,), float("-inf"), dtype=tl.float32)
    for j in range(0, n_kv, BN):
        q = tl.load(q_ptr + head * n_kv * D + rows[:, None] * D + d[None, :])
        kk = tl.load(k_ptr + head * n_kv * D + (j + tl.arange(0, BN))[:, None] * D + d[None, :])
        s = tl.dot(q, tl.trans(kk))
        best = tl.maximum(best, tl.max(s, axis=1))
    tl.store(m_ptr + head * n_kv + rows, best)


def reread_cases():
    f16 = "float16"
    out = []
    for n_rows, n, rpp, warps in ((16384, 4096, 32, 8), (8192, 8192, 16, 8)):
        out.append(
            Case(
                f"rows_weight_reload_{n_rows}x{n}_r{rpp}_p",
                "a row loop re-loading the weight row every step",
                rows_weight_reload,
                (triton.cdiv(n_rows, rpp),),
                (T((n_rows, n), f16), T((n,), f16), T((n_rows, n), f16), n_rows),
                dict(ROWS_PER_PROG=rpp, N=n, num_warps=warps),
                2 * n_rows * n * 2 + n * 2,
            )
        )
    progs, period, steps, bm, bn = 528, 4, 256, 64, 128
    out.append(
        Case(
            "ring_panel_sum_p4_p",
            "(i % 4) walks a 4-tile panel 64 times",
            ring_panel_sum,
            (progs,),
            (T((progs * period * bm * bn,), f16), T((progs * bm * bn,), "float32"), steps),
            dict(PERIOD=period, BM=bm, BN=bn, num_warps=4),
            progs * period * bm * bn * 2 + progs * bm * bn * 4,
        )
    )
    for per_sm, warps, stages in ((1, 4, 3), (2, 4, 3), (2, 8, 4)):
        progs = 132 * per_sm
        out.append(
            Case(
                f"ring_panel_dot_{per_sm}sm_w{warps}s{stages}_p",
                "(i % 8) walks an 8-step A panel under a 128x128x64 dot",
                ring_panel_dot,
                (progs,),
                (T((progs * 128, 8 * 64), f16), T((64, 128), f16), T((progs * 128, 128), f16), 512),
                dict(PERIOD=8, BM=128, BN=128, BK=64, num_warps=warps, num_stages=stages),
                progs * 128 * 8 * 64 * 2,
                2.0 * progs * 512 * 128 * 128 * 64,
            )
        )
    heads, n_kv, dim = 32, 4096, 64
    out.append(
        Case(
            "scores_q_reload_p",
            "Q's tile re-loaded in every key step of a QK^T row max",
            scores_q_reload,
            (n_kv // 128, heads),
            (T((heads, n_kv, dim), f16), T((heads, n_kv, dim), f16), T((heads, n_kv), "float32"), n_kv),
            dict(D=dim, BM=128, BN=64, num_warps=4, num_stages=3),
            2 * heads * n_kv * dim * 2,
            2.0 * heads * n_kv * n_kv * dim,
        )
    )
    return out

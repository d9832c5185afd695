"""Lowering a walked TileLang kernel into a TilePlan (frontends/tilelang/lower.py)."""

import pytest

pytest.importorskip("tilelang")

import tilelang.language as T  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from tilesight.frontends.tilelang import plan_prim_func  # noqa: E402

from tilesight.hardware import load_profile  # noqa: E402
from tilesight.plan import SYNC_LOAD, ActionKind, Loop  # noqa: E402

pytestmark = pytest.mark.tilelang

HW = load_profile("h200")


def test_a_loop_walking_its_row_backwards_marks_its_load_reverse():
    # a two-pass RMSNorm whose second pass starts at the row's end, (nk - 1 - k) * bk: that load walks the
    # row backwards, the first pass's forwards
    m, n, bk = 256, 4096, 512
    nk = n // bk

    @T.prim_func
    def main(A: T.Tensor((m, n), "float32"), B: T.Tensor((m, n), "float32")):
        with T.Kernel(m, threads=128) as bx:
            a_s = T.alloc_shared((1, bk), "float32")
            acc = T.alloc_fragment((1, bk), "float32")
            ss = T.alloc_fragment((1,), "float32")
            T.clear(acc)
            for k in T.Serial(nk):
                T.copy(A[bx, k * bk], a_s)
                for i, j in T.Parallel(1, bk):
                    acc[i, j] += a_s[i, j] * a_s[i, j]
            T.reduce_sum(acc, ss, dim=1)
            for k in T.Serial(nk):
                T.copy(A[bx, (nk - 1 - k) * bk], a_s)
                for i, j in T.Parallel(1, bk):
                    a_s[i, j] *= ss[i]
                T.copy(a_s, B[bx, (nk - 1 - k) * bk])

    plan = plan_prim_func(main, HW)
    loads = [a for a, _ in plan.actions() if a.kind is ActionKind.LOAD]
    assert [a.reverse for a in loads] == [False, True]


def _guarded_gemm(guard_a: str, guard_b: str, size: int = 4000):
    """A ``size``^3 GEMM whose operand copies into shared memory are T.Parallel nests, each guarded by an
    ``if_then_else`` on its rows ("rows"), its columns ("cols"), both joined with ``&`` ("bitand") or
    ``T.And`` ("and"), or not at all ("none")."""
    m = n = k_ = size
    bm, bn, bk = 128, 128, 32

    def pick(kind, row, col, rows, cols, load):
        if kind == "bitand":
            return T.if_then_else((row < rows) & (col < cols), load, 0)
        if kind == "and":
            return T.if_then_else(T.And(row < rows, col < cols), load, 0)
        if kind == "rows":
            return T.if_then_else(row < rows, load, 0)
        if kind == "cols":
            return T.if_then_else(col < cols, load, 0)
        return load

    @T.prim_func
    def main(
        A: T.Tensor((m, k_), "float16"), B: T.Tensor((k_, n), "float16"), C: T.Tensor((m, n), "float16")
    ):
        with T.Kernel(T.ceildiv(n, bn), T.ceildiv(m, bm), threads=128) as (bx, by):
            a_s = T.alloc_shared((bm, bk), "float16")
            b_s = T.alloc_shared((bk, bn), "float16")
            acc = T.alloc_fragment((bm, bn), "float32")
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(k_, bk), num_stages=3):
                for i, j in T.Parallel(bm, bk):
                    a_s[i, j] = pick(guard_a, by * bm + i, k * bk + j, m, k_, A[by * bm + i, k * bk + j])
                for i, j in T.Parallel(bk, bn):
                    b_s[i, j] = pick(guard_b, k * bk + i, bx * bn + j, k_, n, B[k * bk + i, bx * bn + j])
                T.gemm(a_s, b_s, acc)
            T.copy(acc, C[by * bm, bx * bn])

    return main


def test_a_guard_that_can_fail_makes_a_copy_synchronous():
    # TileLang 0.1.15's lowering (read on CPU): A guarded on its rows (by * 128 + i < 4000 fails in the last
    # row of blocks) is loaded and stored by the threads, not cp.async; A guarded on its columns
    # (k * 32 + j < 4000 always holds over the 125 steps) is dropped and stays asynchronous. With one
    # operand asynchronous the loop is still pipelined, three stages
    def loop_and_loads(func):
        plan = plan_prim_func(func, HW)
        (loop,) = [n for n in plan.body if isinstance(n, Loop)]
        return loop, {a.tensor: a.variant for a, _ in plan.actions() if a.kind is ActionKind.LOAD}

    loop, variants = loop_and_loads(_guarded_gemm("rows", "none"))
    assert variants == {"A": SYNC_LOAD, "B": None} and loop.stages == 3
    loop, variants = loop_and_loads(_guarded_gemm("cols", "none"))
    assert variants == {"A": None, "B": None} and loop.stages == 3


def test_a_loop_whose_every_copy_is_synchronous_is_not_pipelined():
    # both operands guarded by conditions that can fail (B's columns: bx * 128 + j < 4000): one shared buffer
    # each, __syncthreads around every step; the plan times the loop unpipelined
    plan = plan_prim_func(_guarded_gemm("rows", "cols"), HW)
    (loop,) = [n for n in plan.body if isinstance(n, Loop)]
    assert loop.stages == 1
    assert all(a.variant == SYNC_LOAD for a, _ in plan.actions() if a.kind is ActionKind.LOAD)
    assert any("not software-pipelined" in note for note in plan.notes)


def test_a_guard_joined_with_python_and_is_never_dropped():
    # at 4096^3 every guard holds: T.And of the comparisons is proven and dropped (cp.async, three stages),
    # Python's & (a bitwise_and) is not: one buffer each, plain loads, as TileLang 0.1.15 lowers them
    plan = plan_prim_func(_guarded_gemm("and", "and", size=4096), HW)
    (loop,) = [n for n in plan.body if isinstance(n, Loop)]
    assert loop.stages == 3 and all(a.variant is None for a, _ in plan.actions() if a.kind is ActionKind.LOAD)
    plan = plan_prim_func(_guarded_gemm("bitand", "bitand", size=4096), HW)
    (loop,) = [n for n in plan.body if isinstance(n, Loop)]
    assert loop.stages == 1 and all(
        a.variant == SYNC_LOAD for a, _ in plan.actions() if a.kind is ActionKind.LOAD
    )


def _row_chunks(n: int, bk: int, threads: int, body: str = "square", m: int = 256):
    """A row-chunked sum over fp32 rows of ``n`` in T.Serial chunks of ``bk`` on ``threads`` threads; the
    chunk's work is a square-and-add ("square"), an exponential ("exp") or, through an index read from a
    second tensor, an indirect copy ("indirect")."""
    nk = n // bk

    @T.prim_func
    def main(A: T.Tensor((m, n), "float32"), Idx: T.Tensor((nk,), "int32"), B: T.Tensor((m,), "float32")):
        with T.Kernel(m, threads=threads) as bx:
            a_s = T.alloc_shared((1, bk), "float32")
            acc = T.alloc_fragment((1, bk), "float32")
            ss = T.alloc_fragment((1,), "float32")
            T.clear(acc)
            for k in T.Serial(nk):
                if body == "indirect":
                    T.copy(A[bx, Idx[k] * bk], a_s)
                else:
                    T.copy(A[bx, k * bk], a_s)
                if body == "exp":
                    for i, j in T.Parallel(1, bk):
                        acc[i, j] += T.exp(a_s[i, j])
                else:
                    for i, j in T.Parallel(1, bk):
                        acc[i, j] += a_s[i, j] * a_s[i, j]
            T.reduce_sum(acc, ss, dim=1)
            B[bx] = ss[0]

    return plan_prim_func(main, HW)


def _chunk_loop(plan) -> Loop:
    return next(n for n in plan.body if isinstance(n, Loop))


def test_a_serial_loop_of_plain_copies_has_its_unrolled_loads_in_flight():
    # 16 chunks of 512 fp32 on 128 threads: 16 bytes (4 registers) a thread a chunk. Fragments: acc 2048 B
    # and ss 4 B over 128 threads, ceil(2052 / 128 / 4) = 5 registers; one block may have 255: room for
    # (255 - 5 - 8) // 4 = 60 chunks, so all SERIAL_COPY_UNROLL = 16 are in flight, held in 16 x 4 = 64
    # registers: 5 + 64 + 8 = 77 (ptxas gives the same kernel 72 to 77; nvcc issues 16 LDG.128 back to
    # back), not 5 + 32
    plan = _row_chunks(8192, 512, 128)
    assert _chunk_loop(plan).stages == 16
    assert plan.resources.regs_per_thread == 77
    assert any("16 iterations' loads in flight" in n for n in plan.notes)


def test_registers_bound_an_unrolled_serial_loop():
    # chunks of 2048 fp32 on 128 threads take 16 registers each; with 16 of them the fragments take
    # ceil(8196 / 128 / 4) = 17, leaving (255 - 17 - 8) // 16 = 14 chunks of the 16: 17 + 224 + 8 registers
    plan = _row_chunks(16 * 2048, 2048, 128)
    assert _chunk_loop(plan).stages == 14
    assert plan.resources.regs_per_thread == 17 + 14 * 16 + 8
    # 1024 threads: a thread may have 65536 / 1024 = 64 registers; chunks of 4096 fp32 are 4 a thread, the
    # fragments ceil(16388 / 1024 / 4) = 5, leaving (64 - 5 - 8) // 4 = 12 chunks in flight
    plan = _row_chunks(64 * 4096, 4096, 1024)
    assert _chunk_loop(plan).stages == 12
    assert plan.resources.regs_per_thread == 5 + 12 * 4 + 8


def test_a_serial_loop_with_an_exponential_or_an_indirect_copy_waits_for_each_load():
    # nvcc does not unroll a body with an exp that way, and an index read from memory gates its load
    for body in ("exp", "indirect"):
        plan = _row_chunks(8192, 512, 128, body)
        loop = _chunk_loop(plan)
        assert loop.stages == 1, body
        assert plan.resources.regs_per_thread == 5 + 32, body  # fragments and the usual overhead
        load = next(a for a in loop.body if a.kind is ActionKind.LOAD and a.tensor == "A")
        assert load.variant == SYNC_LOAD


def test_an_unrolled_copy_into_a_fragment_holds_one_iterations_loads_there():
    # FlashAttention backward's preprocess: 4 head-dim chunks of O and dO (32 x 32 fp16, 2048 B each) copied
    # into fragments, 4 + 4 registers a thread on 128 threads. Fragments: 2048 + 2048 + 4096 (acc) + 128
    # (delta) bytes = ceil(8320 / 128 / 4) = 17 registers; all 4 chunks' loads in flight take 4 x 8 = 32,
    # of which the fragments hold 8 already: 17 + 24 + 8 = 49 (not 17 + 32 + 8 = 57; ptxas gives 40)
    batch, heads, seq, dim, blk = 2, 4, 256, 128, 32
    shape = (batch, seq, heads, dim)

    @T.prim_func
    def main(
        Out: T.Tensor(shape, "float16"),
        dO: T.Tensor(shape, "float16"),
        Delta: T.Tensor((batch, heads, seq), "float32"),
    ):
        with T.Kernel(heads, T.ceildiv(seq, blk), batch, threads=128) as (bx, by, bz):
            o = T.alloc_fragment((blk, blk), "float16")
            do = T.alloc_fragment((blk, blk), "float16")
            acc = T.alloc_fragment((blk, blk), "float32")
            delta = T.alloc_fragment((blk,), "float32")
            T.clear(acc)
            for k in T.serial(dim // blk):
                T.copy(Out[bz, by * blk : (by + 1) * blk, bx, k * blk : (k + 1) * blk], o)
                T.copy(dO[bz, by * blk : (by + 1) * blk, bx, k * blk : (k + 1) * blk], do)
                for i, j in T.Parallel(blk, blk):
                    acc[i, j] += o[i, j] * do[i, j]
            T.reduce_sum(acc, delta, 1)
            T.copy(delta, Delta[bz, bx, by * blk : (by + 1) * blk])

    plan = plan_prim_func(main, HW)
    assert _chunk_loop(plan).stages == 4
    assert plan.resources.regs_per_thread == 49


def _region(buf: str, elements: int):
    from tilesight.frontends.tilelang.walker import REGISTER, Region

    return Region(buf, REGISTER, "float32", (0,), (elements,))


def _op(reads=(), writes=(), elements=64):
    from tilesight.frontends.tilelang.walker import OpNode

    return OpNode(
        "parallel",
        tuple(_region(b, elements) for b in reads),
        tuple(_region(b, elements) for b in writes),
        "k.py:1",
        elements=elements,
    )


def _loop(body, share=None):
    import numpy as np
    from tilesight.frontends.tilelang.walker import LoopNode

    return LoopNode("k", np.array([8]), 1, tuple(body), "k.py:1", share=share)


def test_carried_fragments_by_hand():
    from tilesight.frontends.tilelang.lower import _carried_fragments

    frags = {"acc": 64, "s": 64, "tot": 64, "q": 64}
    body = [
        _op(writes=["s"]),  # a score tile written whole: not carried
        _op(reads=["s", "q"], writes=["s"]),  # q only read (loop-invariant: carried)
        _op(reads=["acc", "s"], writes=["acc"]),  # acc read before any whole overwrite: carried
        _loop([_op(reads=["acc", "tot"], writes=["tot"]), _op(writes=["acc"])], share=0.5),  # an if
    ]
    # the if's write of acc may not run, so acc stays carried; tot is read in the if before its write
    assert _carried_fragments(_loop(body), frags) == {"q", "acc", "tot"}
    # a whole write before the read leaves nothing carried; a partial one (half the elements) does
    assert _carried_fragments(_loop([_op(writes=["acc"]), *body[2:3]]), frags) == {"s"}
    partial = [_op(writes=["s"], elements=32), _op(reads=["s"], writes=["q"])]
    assert _carried_fragments(_loop(partial), frags) == {"s"}


_NAMES = ["a", "b", "c", "d"]
_OPS = st.lists(
    st.tuples(st.lists(st.sampled_from(_NAMES), max_size=2), st.lists(st.sampled_from(_NAMES), max_size=2)),
    min_size=1,
    max_size=6,
)


@given(ops=_OPS, killed=st.sampled_from(_NAMES))
@settings(max_examples=60, deadline=None)
def test_an_unconditional_whole_write_first_never_leaves_a_fragment_carried(ops, killed):
    from tilesight.frontends.tilelang.lower import _carried_fragments

    frags = dict.fromkeys(_NAMES, 64)
    body = [_op(reads=sorted(set(r)), writes=sorted(set(w))) for r, w in ops]
    carried = _carried_fragments(_loop(body), frags)
    assert carried <= {r.buffer for op in body for r in op.reads}  # only what the loop reads
    first = _op(writes=[killed])  # overwritten whole before anything reads it
    assert killed not in _carried_fragments(_loop([first, *body]), frags)
    # wrapped in an if, the same write may not run: it overwrites nothing for sure
    assert _carried_fragments(_loop([_loop([first], share=0.5), *body]), frags) == carried

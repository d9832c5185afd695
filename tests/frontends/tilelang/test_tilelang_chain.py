"""Shared-to-shared T.Parallel loops: the vector width TileLang picks and the chain of one vector iteration
(frontends/tilelang/walker.py::Chain), worked out by hand from the expression."""

import pytest

pytest.importorskip("tilelang")

import tilelang.language as T  # noqa: E402
from tilesight.frontends.tilelang import plan_prim_func  # noqa: E402
from tilesight.frontends.tilelang.walker import Chain, walk  # noqa: E402

from tilesight.hardware import load_profile  # noqa: E402
from tilesight.plan import ActionKind, SerialChain  # noqa: E402

pytestmark = pytest.mark.tilelang

HW = load_profile("h200")


def _kernel(expr, src_dtype="int8", src_cols=64, out_scope="shared", threads=128, rows=128, cols=64):
    @T.prim_func
    def main(A: T.Tensor((rows, src_cols), src_dtype), C: T.Tensor((rows, cols), "float16")):
        with T.Kernel(1, threads=threads) as _bx:
            s = T.alloc_shared((rows, src_cols), src_dtype)
            if out_scope == "shared":
                o = T.alloc_shared((rows, cols), "float16")
            else:
                o = T.alloc_fragment((rows, cols), "float16")
            T.copy(A[0, 0], s)
            for i, j in T.Parallel(rows, cols):
                o[i, j] = expr(s, i, j)
            T.copy(o, C[0, 0])

    return main


def _chain(func):
    (node,) = [n for n in walk(func).body if n.op == "parallel"]
    return node.chain


def test_packed_nibbles_two_lanes_serial():
    # j // 2 caps the vector at 2; shift and and on the chain, the int -> half conversion; 1 B vs 4 B
    f = _kernel(lambda s, i, j: T.Cast("float16", (s[i, j // 2] >> ((j % 2) * 4)) & 15), src_cols=32)
    assert _chain(f) == Chain(lanes=2, alu=2, cvt=1, packed=False, serial=True)


def test_contiguous_bytes_to_half_eight_lanes_serial():
    # 16 bytes of the widest element (half): 8 lanes; 8 source bytes against 16 stored bytes
    f = _kernel(lambda s, i, j: T.Cast("float16", s[i, j] + 1))
    assert _chain(f) == Chain(lanes=8, alu=1, cvt=1, packed=False, serial=True)


def test_same_footprint_half_loop_is_not_serial():
    # half in, half out, 8 lanes: 16 bytes each way, the compiler tells the iterations apart; a multiply-add
    # is one fused op on 16-bit floats
    f = _kernel(lambda s, i, j: s[i, j] * T.float16(0.5) + T.float16(1), src_dtype="float16")
    assert _chain(f) == Chain(lanes=8, alu=1, cvt=0, packed=True, serial=False)
    plan = plan_prim_func(f, HW)
    (ew,) = [a for a, _ in plan.actions() if a.kind is ActionKind.ELEMENTWISE and a.name.startswith("ew_")]
    assert ew.chain is None


def test_strided_source_is_one_lane_and_not_counted_serial():
    # 2 * j is neither j nor j // d: the vectoriser gives one lane, and the per-thread stride of the load is
    # not known to the walker, so the loop is left to its throughput (no chain floor)
    f = _kernel(lambda s, i, j: T.Cast("float16", s[i, 2 * j]), src_cols=128)
    # (the int8 -> half conversion starts from a narrow integer)
    assert _chain(f) == Chain(lanes=1, alu=0, cvt=1, packed=False, serial=False, narrow_cvt=True)


def test_fragment_destination_has_no_chain():
    f = _kernel(lambda s, i, j: T.Cast("float16", s[i, j]), out_scope="fragment")
    assert _chain(f) is None


def test_special_function_on_the_chain_leaves_it_unmodelled():
    f = _kernel(lambda s, i, j: T.exp(s[i, j]), src_dtype="float16")
    assert _chain(f) is None


def test_plan_chain_iterations_per_thread():
    # 128 x 64 outputs over 256 threads x 2 lanes = 16 vector iterations per thread
    f = _kernel(lambda s, i, j: T.Cast("float16", s[i, j // 2] - 8), src_cols=32, threads=256)
    plan = plan_prim_func(f, HW)
    (ew,) = [a for a, _ in plan.actions() if a.kind is ActionKind.ELEMENTWISE and a.name.startswith("ew_")]
    assert ew.chain == SerialChain(iterations=16, lanes=2, alu=1, cvt=1, packed_alu=False)


def test_conversion_forms():
    # int8 straight to half: a narrow-integer conversion; fp8 to half: fp8 pairs; int8 widened to int32 by
    # an integer op first: a 32-bit conversion (the dequantiser's form)
    f = _kernel(lambda s, i, j: T.Cast("float16", s[i, j]))
    assert _chain(f) == Chain(lanes=8, alu=0, cvt=1, packed=False, serial=True, narrow_cvt=True)
    f = _kernel(lambda s, i, j: T.Cast("float16", s[i, j]), src_dtype="float8_e4m3")
    assert _chain(f) == Chain(lanes=8, alu=0, cvt=1, packed=False, serial=True, packed_cvt=True)
    f = _kernel(lambda s, i, j: T.Cast("float16", s[i, j // 2] - 8), src_cols=32)
    assert _chain(f) == Chain(lanes=2, alu=1, cvt=1, packed=False, serial=True)


def test_copy_between_shared_buffers_of_different_sizes_is_a_chain():
    # T.copy(int8 shared -> half shared) of a 128 x 64 tile on 128 threads: 16 bytes of half = 8 lanes, 8
    # vector iterations per thread, one narrow-integer conversion each; fp8 converts pairs; a same-size copy
    # is not a chain
    def copy_kernel(src_dtype, dst_dtype="float16"):
        @T.prim_func
        def main(A: T.Tensor((128, 64), src_dtype), C: T.Tensor((128, 64), dst_dtype)):
            with T.Kernel(1, threads=128) as _bx:
                s = T.alloc_shared((128, 64), src_dtype)
                o = T.alloc_shared((128, 64), dst_dtype)
                T.copy(A[0, 0], s)
                T.copy(s, o)
                T.copy(o, C[0, 0])

        return main

    def chain_of(src_dtype, dst_dtype="float16"):
        plan = plan_prim_func(copy_kernel(src_dtype, dst_dtype), HW)
        (ew,) = [a for a, _ in plan.actions() if a.name.startswith("copy_s_o")]
        return ew.chain

    assert chain_of("int8") == SerialChain(iterations=8, lanes=8, alu=0, cvt=1, narrow_cvt=True)
    assert chain_of("float8_e4m3") == SerialChain(iterations=8, lanes=8, alu=0, cvt=1, packed_cvt=True)
    assert chain_of("float16") is None


def _scan_kernel(rows, cols, threads, dim=1, one_d=False):
    @T.prim_func
    def main(A: T.Tensor((rows, cols), "float32"), C: T.Tensor((rows, cols), "float32")):
        with T.Kernel(1, threads=threads) as _bx:
            if one_d:
                s = T.alloc_shared((cols,), "float32")
                T.copy(A[0, 0], s)
                T.cumsum(s, dim=0)
                T.copy(s, C[0, 0])
            else:
                s = T.alloc_shared((rows, cols), "float32")
                T.copy(A[0, 0], s)
                T.cumsum(s, dim=dim, reverse=True)
                T.copy(s, C[0, 0])

    return main


def _scan_action(func):
    plan = plan_prim_func(func, HW)
    (scan,) = [a for a, _ in plan.actions() if a.name.startswith("scan_")]
    return scan


def test_a_row_scan_runs_each_warps_rows_in_groups_of_four_segments():
    # 8 rows of 1024 on 4 warps: 2 rows a warp, 32 segments of 32 a row, groups of 4: 16 groups a thread;
    # a group: 5 tree steps and 4 carries (9 shuffles) and 4 carry adds
    scan = _scan_action(_scan_kernel(8, 1024, 128))
    assert scan.kind is ActionKind.ELEMENTWISE
    assert scan.chain == SerialChain(iterations=16, lanes=1, alu=4, cvt=0, shuffles=9)
    # 8192 lanes: 6 adds each (5 tree steps, the carry), 5 selects; shared memory: a 4-byte load and store
    # and 6 shuffled words a lane
    assert scan.flops == 8192 * 6 and scan.alu_ops == 8192 * 5
    assert scan.smem_bytes == 8192 * (2 * 4 + 6 * 4)


def test_a_column_scan_and_a_short_line():
    # along dim 0: 64 columns of 48 on 2 warps, 32 columns a warp, 2 segments (the second half padding),
    # one group of 2: 5 + 2 shuffles, 2 adds
    scan = _scan_action(_scan_kernel(48, 64, 64, dim=0))
    assert scan.chain == SerialChain(iterations=32, lanes=1, alu=2, cvt=0, shuffles=7)
    # down a column the lanes are a 64-float row (256 bytes) apart, all in one bank: each load and store
    # takes 32 wavefronts of 128 bytes; 64 lines x 2 segments x (2 x 32 x 128 + 32 lanes x 6 shuffled words)
    assert scan.smem_bytes == 64 * 2 * (2 * 32 * 128 + 32 * 4 * 6)
    # a 1-D buffer is scanned by the first warp alone, whatever the threads: 1024 elements, 32 segments
    scan = _scan_action(_scan_kernel(1, 1024, 256, one_d=True))
    assert scan.chain == SerialChain(iterations=8, lanes=1, alu=4, cvt=0, shuffles=9)


def _reducer_kernel(api, bm=64, bn=128, threads=128, op="sum", rows_inner=False):
    @T.prim_func
    def main(X: T.Tensor((4096, 1024), "float32"), Y: T.Tensor((1024,), "float32")):
        with T.Kernel(1024 // bn, threads=threads) as bx:
            xs = T.alloc_shared((bm, bn), "float32")
            if api == "v2":
                r = T.alloc_reducer((bn,), "float32", op=op)
                d = T.alloc_fragment((bn,), "float32")
                T.reducer_init(r, 0)
            else:
                r = T.alloc_reducer((bn,), "float32", op=op, replication="all")
                T.fill(r, 0)
            for k in T.serial(4096 // bm):
                T.copy(X[k * bm, bx * bn], xs)
                if rows_inner:
                    for j, i in T.Parallel(bn, bm):
                        if api == "v2":
                            T.reducer_update(r[j], xs[i, j])
                        else:
                            r[j] = T.max(r[j], xs[i, j])
                else:
                    for i, j in T.Parallel(bm, bn):
                        if api == "v2":
                            T.reducer_update(r[j], xs[i, j])
                        else:
                            r[j] += xs[i, j]
            if api == "v2":
                T.finalize_reducer(r, d)
                T.copy(d, Y[bx * bn])
            else:
                T.finalize_reducer(r)
                T.copy(r, Y[bx * bn])

    return main


@pytest.mark.parametrize("api", ["v1", "v2"])
def test_a_reducer_is_finalised_by_one_block_wide_all_reduce_an_element(api):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        func = _reducer_kernel(api)
    plan = plan_prim_func(func, HW)
    acts = {a.name: a for a, _ in plan.actions()}
    fin = acts["finalize_r"]
    # 128 elements, each a tree of 5 shuffle steps in every warp, then the 4 warps through shared memory
    assert fin.chain == SerialChain(iterations=128, lanes=1, alu=0, cvt=0, shuffles=5, cross_warps=4)
    # every thread's copy combined once; the workspace written and read back, a word a warp an element
    assert fin.flops == 128 * 128 and fin.smem_bytes == 128 * 4 * 4 * 2
    # the update: 64 x 128 elements on 128 threads, 4 lanes a vector; the reducer's index j is the lane
    # spread over 32 threads, so each thread's copy is indexed by its thread: a 4-byte load and store of
    # local memory an element beside the 4-byte read of xs, and 16 dependent vector iterations a thread
    (ew,) = [a for n, a in acts.items() if n.startswith("ew_r")]
    assert ew.smem_bytes == 64 * 128 * (4 + 2 * 4)
    assert ew.chain == SerialChain(iterations=16, lanes=4, alu=1, cvt=0)


def test_a_reducer_every_thread_updates_at_indices_it_knows_stays_in_registers():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        func = _reducer_kernel("v1", bm=128, bn=16, threads=128, op="max", rows_inner=True)
    # T.Parallel(bn, bm) with i innermost: 128 rows over 128 threads (one vector of 4 columns' worth is
    # not possible: i indexes xs's rows, so the vector is 1), j is not spread; the updates name their
    # element at compile time and no local memory is moved
    (ew,) = [a for a, _ in plan_prim_func(func, HW).actions() if a.name.startswith("ew_r")]
    assert ew.smem_bytes == 128 * 16 * 4
    assert ew.chain is None


def test_a_warp_shuffle_is_a_dependent_step_of_the_threads_chain():
    @T.prim_func
    def main(X: T.Tensor((64, 256), "float32"), Y: T.Tensor((64,), "float32")):
        with T.Kernel(64, threads=256) as bx:
            tx = T.get_thread_binding(0)
            acc = T.alloc_local((1,), "float32")
            acc[0] = X[bx, tx]
            for o in T.unroll(5):
                acc[0] += T.shfl_xor(acc[0], 16 >> o)
            acc[0] = acc[0] * 2.0 + T.shfl_down(acc[0], 1)
            acc[0] = acc[0] - T.tvm_warp_shuffle(0xFFFFFFFF, acc[0], (tx + 1) % 32, 32, 32)
            if tx == 0:
                Y[bx] = acc[0]

    acts = [a for a, _ in plan_prim_func(main, HW).actions() if a.chain is not None]
    # the butterfly's store: one shuffle and one add (5 times, its loop); then a shuffle and an FMA; then
    # TVM's own warp shuffle and a subtract
    assert [a.chain for a in acts] == [SerialChain(iterations=1, lanes=1, alu=1, cvt=0, shuffles=1)] * 3

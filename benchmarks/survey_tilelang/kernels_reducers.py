"""Reducers (``T.alloc_reducer`` / ``T.reducer_update`` / ``T.finalize_reducer``, the v2 API and the
deprecated v1 ``replication=``) and warp shuffles (``T.shfl_xor`` / ``T.shfl_down``) at shapes, ops, thread
counts and layouts the survey's two kernels do not have: the blind check of stop 39's pricing of both (a
reducer replicated over every thread, in local memory where the thread index names the element it updates,
finalised by one block-wide all-reduce an element; a shuffle as a dependent step of the thread's chain),
predicted before they were timed. Names end in ``_x``; ``run_gpu.py --set reducers`` runs them.
"""

import warnings

import tilelang.language as T
from common import Case, case, nbytes


def colsum_case(m: int, n: int, bm: int, bn: int, threads: int, dtype: str, op: str, api: str) -> Case:
    """Column reductions (``op``: sum / max) of an ``m x n`` tensor, ``bn`` columns a block, ``bm`` rows a
    step through shared memory; the reducer's column is the lane the threads spread over."""

    @T.prim_func
    def main(X: T.Tensor((m, n), dtype), Y: T.Tensor((n,), "float32")):
        with T.Kernel(T.ceildiv(n, bn), threads=threads) as bx:
            xs = T.alloc_shared((bm, bn), dtype)
            if api == "v2":
                r = T.alloc_reducer((bn,), "float32", op=op)
                d = T.alloc_fragment((bn,), "float32")
                T.reducer_init(r, 0 if op == "sum" else -3.0e38)
            else:
                r = T.alloc_reducer((bn,), "float32", op=op, replication="all")
                T.fill(r, 0 if op == "sum" else -3.0e38)
            for k in T.serial(T.ceildiv(m, bm)):
                T.copy(X[k * bm, bx * bn], xs)
                for i, j in T.Parallel(bm, bn):
                    if api == "v2":
                        T.reducer_update(r[j], T.Cast("float32", xs[i, j]))
                    elif op == "sum":
                        r[j] += T.Cast("float32", xs[i, j])
                    else:
                        r[j] = T.max(r[j], T.Cast("float32", xs[i, j]))
            if api == "v2":
                T.finalize_reducer(r, d)
                T.copy(d, Y[bx * bn])
            else:
                T.finalize_reducer(r)
                T.copy(r, Y[bx * bn])

    return Case(main, bytes=m * n * nbytes(dtype) + n * 4, flops=m * n, peak="fp32")


def rowsum_reducer_case(m: int, n: int, bm: int, bn: int, threads: int) -> Case:
    """Row sums through a v2 reducer whose row is the outer lane, across ``n / bn`` steps (the threads spread
    over the rows too, so each picks its row's element by its thread index)."""

    @T.prim_func
    def main(X: T.Tensor((m, n), "float32"), Y: T.Tensor((m,), "float32")):
        with T.Kernel(T.ceildiv(m, bm), threads=threads) as bx:
            xs = T.alloc_shared((bm, bn), "float32")
            r = T.alloc_reducer((bm,), "float32", op="sum")
            d = T.alloc_fragment((bm,), "float32")
            T.reducer_init(r, 0)
            for k in T.serial(T.ceildiv(n, bn)):
                T.copy(X[bx * bm, k * bn], xs)
                for i, j in T.Parallel(bm, bn):
                    T.reducer_update(r[i], xs[i, j])
            T.finalize_reducer(r, d)
            T.copy(d, Y[bx * bm])

    return Case(main, bytes=m * n * 4 + m * 4, flops=m * n, peak="fp32")


def colsum_rows_inner_case(m: int, n: int, bm: int, bn: int, threads: int) -> Case:
    """Column sums through a v2 reducer with the rows as the inner lane of the update (``T.Parallel(bn,
    bm)``): TileLang gives each thread rows and every column, so it updates elements it names at compile
    time (registers, no local memory)."""

    @T.prim_func
    def main(X: T.Tensor((m, n), "float32"), Y: T.Tensor((n,), "float32")):
        with T.Kernel(T.ceildiv(n, bn), threads=threads) as bx:
            xs = T.alloc_shared((bm, bn), "float32")
            r = T.alloc_reducer((bn,), "float32", op="sum")
            d = T.alloc_fragment((bn,), "float32")
            T.reducer_init(r, 0)
            for k in T.serial(T.ceildiv(m, bm)):
                T.copy(X[k * bm, bx * bn], xs)
                for j, i in T.Parallel(bn, bm):
                    T.reducer_update(r[j], xs[i, j])
            T.finalize_reducer(r, d)
            T.copy(d, Y[bx * bn])

    return Case(main, bytes=m * n * 4 + n * 4, flops=m * n, peak="fp32")


def shfl_rows_case(m: int, n: int, threads: int, dtype: str, down: bool) -> Case:
    """One row a block: each thread sums its strided elements, a warp butterfly (``T.shfl_xor``) or a
    shift-down tree (``T.shfl_down``), then the warps' partials through shared memory."""
    per = n // threads
    warps = threads // 32

    @T.prim_func
    def main(X: T.Tensor((m, n), dtype), Y: T.Tensor((m,), "float32")):
        with T.Kernel(m, threads=threads) as bx:
            tx = T.get_thread_binding(0)
            acc = T.alloc_local((1,), "float32")
            red = T.alloc_shared((warps,), "float32")
            acc[0] = 0.0
            for i in T.serial(per):
                acc[0] += T.Cast("float32", X[bx, i * threads + tx])
            for o in T.unroll(5):
                if down:
                    acc[0] += T.shfl_down(acc[0], 16 >> o)
                else:
                    acc[0] += T.shfl_xor(acc[0], 16 >> o)
            if tx % 32 == 0:
                red[tx // 32] = acc[0]
            T.sync_threads()
            if tx == 0:
                tot = T.alloc_local((1,), "float32")
                tot[0] = 0.0
                for w in T.serial(warps):
                    tot[0] += red[w]
                Y[bx] = tot[0]

    return Case(main, bytes=m * n * nbytes(dtype) + m * 4, flops=m * n, peak="fp32")


def _quiet(build):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the v1 replication= knob
        return build()


@case("reducer_v2_colsum_f32_32768x8192_bm32_bn128_t128_x", "v2 reducer column sums, 64 blocks, 128 thr.")
def colsum_a():
    return colsum_case(32768, 8192, 32, 128, 128, "float32", "sum", "v2")


@case("reducer_v2_colmax_bf16_16384x16384_bm64_bn64_t256_x", "v2 reducer column max of bf16, 256 blocks")
def colmax_b():
    return colsum_case(16384, 16384, 64, 64, 256, "bfloat16", "max", "v2")


@case("reducer_v1_colsum_f16_8192x4096_bm32_bn256_t256_x", "v1 replication='all' column sums, 256 columns")
def colsum_c():
    return _quiet(lambda: colsum_case(8192, 4096, 32, 256, 256, "float16", "sum", "v1"))


@case("reducer_v1_colmax_f32_4096x2048_bm16_bn32_t64_x", "v1 column max on 64 threads, 64 blocks of 32 cols")
def colmax_d():
    return _quiet(lambda: colsum_case(4096, 2048, 16, 32, 64, "float32", "max", "v1"))


@case("reducer_v2_rowsum_f32_16384x4096_bm32_bn64_t128_x", "v2 reducer row sums, row the outer lane")
def rowsum_e():
    return rowsum_reducer_case(16384, 4096, 32, 64, 128)


@case("reducer_v2_colsum_rows_inner_f32_16384x2048_bm128_bn16_t128_x", "v2 column sums, rows the inner lane")
def colsum_h():
    return colsum_rows_inner_case(16384, 2048, 128, 16, 128)


@case("shfl_xor_rowsum_bf16_16384x4096_t128_x", "T.shfl_xor butterfly row sums of bf16, 128 threads")
def shfl_f():
    return shfl_rows_case(16384, 4096, 128, "bfloat16", False)


@case("shfl_down_rowsum_f32_4096x16384_t512_x", "T.shfl_down tree row sums of fp32, 512 threads")
def shfl_g():
    return shfl_rows_case(4096, 16384, 512, "float32", True)

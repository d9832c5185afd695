"""Transposes through shared memory: a check of the bank-conflict count of T.Parallel nests (stop 24),
predicted before they were timed. Tile shapes, element sizes, thread counts and paddings the one survey case
(``transpose_shared``: 64 x 64 fp16 on 256 threads, 32-way) does not have. Names end in ``_b``;
``run_gpu.py --set banks`` runs them.

Each block stages a ``bm x bn`` tile of ``X`` in shared memory (``T.copy``, or a ``T.Parallel`` load where
the shared rows are padded) and writes it transposed into ``Y`` with a ``T.Parallel`` nest reading
``s[j, i]``.
"""

import tilelang.language as T
from common import Case, case, nbytes


def transpose_case(m: int, n: int, bm: int, bn: int, dtype: str, threads: int, pad: int = 0) -> Case:
    @T.prim_func
    def main(X: T.Tensor((m, n), dtype), Y: T.Tensor((n, m), dtype)):
        with T.Kernel(T.ceildiv(n, bn), T.ceildiv(m, bm), threads=threads) as (bx, by):
            s = T.alloc_shared((bm, bn + pad), dtype)
            if pad:
                for i, j in T.Parallel(bm, bn):
                    s[i, j] = X[by * bm + i, bx * bn + j]
            else:
                T.copy(X[by * bm, bx * bn], s)
            for i, j in T.Parallel(bn, bm):
                Y[bx * bn + i, by * bm + j] = s[j, i]

    return Case(main, bytes=2 * m * n * nbytes(dtype), flops=0, peak="fp32")


@case("transpose_f16_4096_64x64_t256_b", "fp16 4096^2, 64 x 64 tile, 256 threads (32-way column reads)")
def _t1():
    return transpose_case(4096, 4096, 64, 64, "float16", 256)


@case("transpose_f32_8192_32x32_t128_b", "fp32 8192^2, 32 x 32 tile, 128 threads (rows 128 B apart)")
def _t2():
    return transpose_case(8192, 8192, 32, 32, "float32", 128)


@case("transpose_f16_8192_64x64_pad2_b", "fp16 8192^2, 64 x 66 padded tile (conflict-free reads)")
def _t3():
    return transpose_case(8192, 8192, 64, 64, "float16", 256, pad=2)


@case("transpose_f16_8192_64x64_pad8_b", "fp16 8192^2, 64 x 72 padded tile (4-way reads)")
def _t4():
    return transpose_case(8192, 8192, 64, 64, "float16", 256, pad=8)


@case("transpose_bf16_8192x4096_64x128_t128_b", "bf16 8192 x 4096, 64 x 128 tile, 128 threads")
def _t5():
    return transpose_case(8192, 4096, 64, 128, "bfloat16", 128)


@case("transpose_i8_8192_64x64_t256_b", "int8 8192^2, 64 x 64 tile, 256 threads (rows 64 B apart)")
def _t6():
    return transpose_case(8192, 8192, 64, 64, "int8", 256)


@case("transpose_f32_8192_32x32_pad1_t256_b", "fp32 8192^2, 32 x 33 padded tile, 256 threads")
def _t7():
    return transpose_case(8192, 8192, 32, 32, "float32", 256, pad=1)


@case("transpose_f16_4096x8192_128x32_t128_b", "fp16 4096 x 8192, 128 x 32 tile, 128 threads")
def _t8():
    return transpose_case(4096, 8192, 128, 32, "float16", 128)

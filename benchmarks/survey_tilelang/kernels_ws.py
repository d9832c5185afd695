"""Hand-written warp specialisation (``with T.ws(i)``, ``T.alloc_barrier``, ``T.tma_copy`` and mbarrier
waits and arrives) at shapes, tiles, dtypes and buffer counts the survey's two kernels do not have: the blind
check of stop 39's reading (the TMA branch a producer launched beside the consumers; TileLang 0.1.15's
``__syncthreads()`` before each branch of a loop step keeps the loop unpipelined whatever buffers it
rotates), predicted before they were timed. Names end in ``_w``; ``run_gpu.py --set ws`` runs them.
"""

import tilelang.language as T
from common import Case, case


def ws_gemm_case(m, n, k, bm, bn, bk, buffers, dtype="float16") -> Case:
    """One producer warpgroup (T.ws(1): the TMA copies into ``buffers`` rotating stages) and one consumer
    warpgroup (T.ws(0): the gemm), handing each stage over through a pair of mbarriers."""

    @T.prim_func
    def main(A: T.Tensor((m, k), dtype), B: T.Tensor((k, n), dtype), C: T.Tensor((m, n), dtype)):
        with T.Kernel(T.ceildiv(n, bn), T.ceildiv(m, bm), threads=256) as (bx, by):
            A_s = T.alloc_shared((buffers, bm, bk), dtype)
            B_s = T.alloc_shared((buffers, bk, bn), dtype)
            C_l = T.alloc_fragment((bm, bn), "float32")
            bars = T.alloc_barrier([128, 128] * buffers)
            with T.ws(0):
                T.clear(C_l)
            for ko in range(T.ceildiv(k, bk)):
                with T.ws(1):
                    free = ((ko // buffers) % 2) ^ 1
                    T.mbarrier_wait_parity(mbarrier=bars[ko % buffers + buffers], parity=free)
                    T.tma_copy(
                        A[by * bm : (by + 1) * bm, ko * bk : (ko + 1) * bk],
                        A_s[ko % buffers, :, :],
                        barrier=bars[ko % buffers],
                    )
                    T.tma_copy(
                        B[ko * bk : (ko + 1) * bk, bx * bn : (bx + 1) * bn],
                        B_s[ko % buffers, :, :],
                        barrier=bars[ko % buffers],
                    )
                    T.mbarrier_arrive(mbarrier=bars[ko % buffers])
                with T.ws(0):
                    T.mbarrier_wait_parity(mbarrier=bars[ko % buffers], parity=(ko // buffers) % 2)
                    T.gemm(A_s[ko % buffers, :, :], B_s[ko % buffers, :, :], C_l)
                    T.mbarrier_arrive(mbarrier=bars[ko % buffers + buffers])
            with T.ws(0):
                T.copy(C_l, C[by * bm, bx * bn])

    return Case(main, bytes=2 * (m * k + k * n + m * n), flops=2 * m * n * k, peak="tc16")


@case("ws_gemm_f16_8192x4096x8192_bm128_bn128_bk64_b3_w", "T.ws GEMM, three rotating stages, 8192x4096x8192")
def ws_a():
    return ws_gemm_case(8192, 4096, 8192, 128, 128, 64, 3)


@case("ws_gemm_f16_2048x2048x8192_bm128_bn128_bk128_b1_w", "T.ws GEMM, one stage of BK 128, long K")
def ws_b():
    return ws_gemm_case(2048, 2048, 8192, 128, 128, 128, 1)


@case("ws_gemm_bf16_4096x8192x2048_bm64_bn128_bk64_b2_w", "T.ws GEMM in bf16, 64-row tiles, two stages")
def ws_c():
    return ws_gemm_case(4096, 8192, 2048, 64, 128, 64, 2, "bfloat16")


@case("ws_gemm_f16_4096x4096x4096_bm128_bn64_bk64_b4_w", "T.ws GEMM, 128x64 tiles, four stages")
def ws_d():
    return ws_gemm_case(4096, 4096, 4096, 128, 64, 64, 4)

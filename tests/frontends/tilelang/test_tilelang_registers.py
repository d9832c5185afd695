"""Registers a thread needs for a TileLang kernel's fragments (lower._Lowering.resources): every fragment's
share of the threads, plus REGISTER_OVERHEAD_PER_THREAD, except fragments computed element by element for
the one operator right after (lower._transient_fragments)."""

import math

import pytest

pytest.importorskip("tilelang")

import tilelang.language as T  # noqa: E402
from tilesight.frontends.tilelang import plan_prim_func  # noqa: E402
from tilesight.frontends.tilelang.lower import REGISTER_OVERHEAD_PER_THREAD  # noqa: E402

from tilesight.hardware import load_profile  # noqa: E402

pytestmark = pytest.mark.tilelang

HW = load_profile("h200")
M, N, BM = 1024, 4096, 4


def _layernorm(reuse_xc: bool):
    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M, N), "float32")):
        with T.Kernel(M // BM, threads=256) as bx:
            x = T.alloc_fragment((BM, N), "float32")
            xc = T.alloc_fragment((BM, N), "float32")
            mean = T.alloc_fragment((BM,), "float32")
            var = T.alloc_fragment((BM,), "float32")
            T.copy(X[bx * BM, 0], x)
            T.reduce_sum(x, mean, dim=1)
            for i, j in T.Parallel(BM, N):
                xc[i, j] = (x[i, j] - mean[i]) * (x[i, j] - mean[i])
            T.reduce_sum(xc, var, dim=1)
            for i, j in T.Parallel(BM, N):
                if reuse_xc:
                    x[i, j] = xc[i, j] * T.rsqrt(var[i] / N)
                else:
                    x[i, j] = (x[i, j] - mean[i]) * T.rsqrt(var[i] / N)
            T.copy(x, Y[bx * BM, 0])

    return main


def test_a_fragment_only_the_next_reduce_reads_takes_no_registers():
    # x: 4 x 4096 fp32 over 256 threads = 64 registers; mean and var 4 floats each (16 + 16 bytes over the
    # block's 1024 register words: a fraction, rounded up with x to 65); xc is summed as it is computed
    plan = plan_prim_func(_layernorm(reuse_xc=False), HW)
    frag = (BM * N * 4 + 2 * BM * 4) / 256 / 4
    assert plan.resources.regs_per_thread == math.ceil(frag) + REGISTER_OVERHEAD_PER_THREAD == 97


def test_a_fragment_read_again_later_is_held_whole():
    # xc read by the normalising nest as well: it lives across the reduce, 64 more registers
    plan = plan_prim_func(_layernorm(reuse_xc=True), HW)
    frag = (2 * BM * N * 4 + 2 * BM * 4) / 256 / 4
    assert plan.resources.regs_per_thread == math.ceil(frag) + REGISTER_OVERHEAD_PER_THREAD == 161

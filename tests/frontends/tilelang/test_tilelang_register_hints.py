"""T.set_max_nreg and T.disable_warp_group_reg_alloc: register-allocation hints, no tile work.

TileLang 0.1.15's AnnotateWarpGroupRegAlloc pass keeps a user's set_max_nreg where it stands and still sets
its own producer / consumer pair (setmaxnreg 24 / 240) in the warp-specialised branches after it;
no_set_max_nreg makes it set none, so every thread keeps what ptxas gives it at the launch bounds (threads +
128, 1).
"""

import dataclasses

import pytest

pytest.importorskip("tilelang")

import tilelang.language as T  # noqa: E402
from tilesight.frontends.tilelang import plan_prim_func  # noqa: E402

import tilesight  # noqa: E402
from tilesight.errors import UnsupportedOpError  # noqa: E402
from tilesight.hardware import load_profile  # noqa: E402

pytestmark = pytest.mark.tilelang

HW = load_profile("h200")


def _gemm(hint=None, threads=128, pipelined=True, M=1024, N=1024, K=1024, bm=128, bn=128, bk=64):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=threads) as (bx, by):
            if hint == "nreg":
                T.set_max_nreg(240, 1)
            elif hint == "none":
                T.disable_warp_group_reg_alloc()
            elif hint == "both":
                T.disable_warp_group_reg_alloc()
                T.set_max_nreg(160, 1)
            a = T.alloc_shared((bm, bk), "float16")
            b = T.alloc_shared((bk, bn), "float16")
            c = T.alloc_fragment((bm, bn), "float32")
            T.clear(c)
            if pipelined:
                for k in T.Pipelined(T.ceildiv(K, bk), num_stages=3):
                    T.copy(A[by * bm, k * bk], a)
                    T.copy(B[k * bk, bx * bn], b)
                    T.gemm(a, b, c)
            else:
                for k in T.serial(T.ceildiv(K, bk)):
                    T.copy(A[by * bm, k * bk], a)
                    T.copy(B[k * bk, bx * bn], b)
                    T.gemm(a, b, c)
            T.copy(c, C[by * bm, bx * bn])

    return main


def _shape(plan):
    # the actions less their locations (the hint is an operator of its own: the op numbers after it move)
    return plan.tensors, [dataclasses.replace(a, location="") for a, _ in plan.actions()], plan.grid


def test_set_max_nreg_leaves_the_plan_as_it_was_and_says_so():
    hinted, plain = plan_prim_func(_gemm("nreg"), HW), plan_prim_func(_gemm(), HW)
    assert _shape(hinted) == _shape(plain)
    assert hinted.resources == plain.resources
    # the warp-specialised consumers keep the 240 registers TileLang's own setmaxnreg gives them
    assert hinted.resources.regs_per_thread == 240
    (note,) = [n for n in hinted.notes if "T.set_max_nreg" in n]
    assert "T.set_max_nreg(240, 1)" in note and ": op 1: tl.set_max_nreg" in note
    assert tilesight.estimate(_gemm("nreg"), hw=HW).latency_s == tilesight.estimate(_gemm(), hw=HW).latency_s


@pytest.mark.parametrize(
    ("threads", "regs_with_pair", "regs_without"),
    [
        # 128 consumers + the 128-thread producer = 256 threads at launch bounds (256, 1): ptxas may give
        # each 65536 // 256 = 256, capped at the 255 a thread can address; TileLang's pair caps the
        # consumers at 240
        (128, 240, 255),
        # 256 + 128 = 384 threads: 65536 // 384 = 170, down to the allocation granule of 8 = 168 either way
        (256, 168, 168),
    ],
)
def test_disabling_the_register_pair_lifts_the_setmaxnreg_cap(threads, regs_with_pair, regs_without):
    plain = plan_prim_func(_gemm(threads=threads), HW)
    hinted = plan_prim_func(_gemm("none", threads=threads), HW)
    assert plain.resources.regs_per_thread == regs_with_pair
    assert hinted.resources.regs_per_thread == regs_without
    assert _shape(hinted) == _shape(plain)
    assert (hinted.resources.threads, hinted.resources.smem_bytes) == (
        plain.resources.threads,
        plain.resources.smem_bytes,
    )
    assert any("T.disable_warp_group_reg_alloc" in n for n in hinted.notes)
    # the 128 x 128 fp32 accumulator needs 128 registers a consumer thread (64 at 256): under either cap, so
    # the prediction does not move
    plain_s = tilesight.estimate(_gemm(threads=threads), hw=HW).latency_s
    assert tilesight.estimate(_gemm("none", threads=threads), hw=HW).latency_s == plain_s


def test_disabling_the_register_pair_changes_nothing_without_warp_specialisation():
    # a T.serial loop is not warp-specialised: its registers come from the fragments either way
    # (128 x 128 fp32 accumulator / 128 threads / 4 B = 128, plus 32 of overhead = 160)
    plain = plan_prim_func(_gemm(pipelined=False), HW)
    hinted = plan_prim_func(_gemm("none", pipelined=False), HW)
    assert hinted.resources == plain.resources
    assert plain.resources.regs_per_thread == 128 + 32


def test_a_hand_set_register_count_without_the_pair_is_refused():
    with pytest.raises(UnsupportedOpError, match="T.set_max_nreg with T.disable_warp_group_reg_alloc") as err:
        plan_prim_func(_gemm("both"), HW)
    assert "op 2: tl.set_max_nreg" in str(err.value)  # names the kernel's line and the operator
    assert "test_tilelang_register_hints.py:" in str(err.value)

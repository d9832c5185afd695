"""The GEMM reference kernel's extracted plan, checked by hand; estimate() dispatch for prim_func and jit."""

import pytest

pytest.importorskip("tilelang")

from tilesight.frontends.tilelang import plan_prim_func  # noqa: E402
from tilesight.kernels.tilelang.gemm import gemm  # noqa: E402

import tilesight  # noqa: E402
from tilesight import TensorSpec  # noqa: E402
from tilesight.errors import FrontendError  # noqa: E402
from tilesight.hardware import load_profile  # noqa: E402
from tilesight.plan import AccessMode, ActionKind, LaunchOrder, Loop, MemLevel  # noqa: E402

pytestmark = pytest.mark.tilelang

HW = load_profile("h200")


@pytest.fixture(scope="module")
def plan():
    # M=1000 (not a multiple of 128: A, C masked), N=1024, K=512, 128x128x32 tiles, 3 stages, 128 threads
    return plan_prim_func(gemm(1000, 1024, 512, 128, 128, 32, 3, 128, "float16"), HW)


def test_grid_is_blockidx_x_fastest(plan):
    # T.Kernel(ceildiv(N, 128) = 8, ceildiv(M, 128) = ceil(1000 / 128) = 8): bx over N tiles, by over M tiles
    assert plan.grid.shape == (8, 8)
    assert plan.grid.dims == ("bx", "by")
    assert plan.grid.order is LaunchOrder.COLUMN_MAJOR


def test_tensors_tiles_and_reuse(plan):
    a, b, c = plan.tensors
    # A[by * 128, k * 32] depends on by only: tiles along bx reuse it
    assert (a.name, a.tile, a.reuse_dims, a.masked, a.mode) == ("A", (128, 32), {"bx"}, True, AccessMode.READ)
    assert (b.name, b.tile, b.reuse_dims, b.masked) == ("B", (32, 128), {"by"}, False)
    assert (c.name, c.tile, c.reuse_dims, c.masked, c.mode) == (
        "C",
        (128, 128),
        set(),
        True,
        AccessMode.WRITE,
    )
    assert a.shape == (1000, 512) and a.dtype == "float16"


def test_pipelined_k_loop_and_dot(plan):
    fill, loop, store = plan.body
    assert fill.kind is ActionKind.ELEMENTWISE and fill.flops == 128 * 128
    assert isinstance(loop, Loop)
    # K / block_K = 512 / 32 = 16 trips, num_stages = 3, accumulates into C_local: the reduction axis
    assert (loop.trips, loop.stages, loop.reduction) == (16, 3, True)
    load_a, load_b, dot = loop.body
    assert (load_a.kind, load_a.tensor, load_a.dst) == (ActionKind.LOAD, "A", MemLevel.SMEM)
    assert (load_b.kind, load_b.tensor) == (ActionKind.LOAD, "B")
    assert dot.kind is ActionKind.DOT and dot.shape == (128, 128, 32) and dot.dtype == "float16"
    # Hopper, 4 warps = one warpgroup, M = 128 >= 64, B in shared memory, K % 16 == 0: wgmma
    assert dot.variant == "wgmma"
    # one warpgroup issues two m64 wgmma per K step: A (128 x 32 x 2 B = 8192) is read once, B
    # (32 x 128 x 2 B = 8192) once per instruction (lowered CUDA: wgmma_ss 64x128x16 in an i < 2 loop)
    assert dot.smem_bytes == 8192 + 2 * 8192
    assert set(dot.deps) == {load_a.name, load_b.name}
    assert (store.kind, store.tensor, store.src) == (ActionKind.STORE, "C", MemLevel.REG)
    assert set(store.deps) == {fill.name, loop.name}
    assert plan.access_count("A") == 16


def test_resources(plan):
    r = plan.resources
    # 128 consumer threads + one TMA producer warpgroup (128)
    assert r.threads == 256
    # 3 stages x (A 128x32 + B 32x128) x 2 B = 3 x 16384 = 49152, plus 1024 B of barriers
    assert r.smem_bytes == 49152 + 1024
    # launch bounds (256, 1): 65536 / 256 = 256 registers, capped at TileLang's setmaxnreg 240
    assert r.regs_per_thread == 240


def test_swizzle_becomes_explicit_rasterisation():
    p = plan_prim_func(gemm(1024, 1024, 256, 128, 128, 32, 3, 128, use_swizzle=True, panel_size=4), HW)
    assert p.grid.order is LaunchOrder.EXPLICIT
    # 8 x 8 grid, panels of 4 y-rows: the first panel walks x = 0 over y = 0..3, then x = 1 ...
    assert p.grid.coordinates()[:6].tolist() == [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1]]
    # the second panel (odd) starts at the last x column
    assert p.grid.coordinates()[32].tolist() == [7, 4]


def test_bfloat16_and_mma_fallback():
    # 64 x 64 tile with 64 threads: 2 warps are no whole warpgroup, so mma (split (1, 2): 64 x 32 per warp)
    p = plan_prim_func(gemm(512, 512, 512, 64, 64, 32, 2, 64, "bfloat16"), HW)
    (dot,) = [a for a, _ in p.actions() if a.kind is ActionKind.DOT]
    assert dot.variant == "mma" and dot.dtype == "bfloat16"


def test_estimate_dispatches_prim_func():
    rep = tilesight.estimate(gemm(2048, 2048, 2048), hw="h200")
    assert rep.kernel == "main" and rep.latency_s > 0
    # a compute-bound GEMM: within a factor of two of 2 * 2048^3 FLOP at the profile's fp16 tensor-core rate
    # (the rate is calibrated, so the bound is read from the profile, not written here)
    bound = 2 * 2048**3 / HW.tc_rate("float16")
    assert 0.5 * bound <= rep.latency_s <= 2 * bound


def test_fixed_prim_func_checks_its_launch_args():
    # launch arguments of a program with fixed shapes are checked against them, and change nothing
    with pytest.raises(FrontendError, match="argument 'A' is a float16 tensor, got int"):
        tilesight.estimate(gemm(256, 256, 256), 1, 2, hw="h200")
    a = TensorSpec((256, 256), "float16")
    assert tilesight.estimate(gemm(256, 256, 256), a, a, hw="h200").latency_s == (
        tilesight.estimate(gemm(256, 256, 256), hw="h200").latency_s
    )


def test_estimate_jit_kernel_with_its_arguments():
    import tilelang

    jit_gemm = tilelang.jit(out_idx=[2])(gemm)
    rep = tilesight.estimate(jit_gemm, 1024, 1024, 1024, 128, 128, 32, 3, 128, hw="h200")
    direct = tilesight.estimate(gemm(1024, 1024, 1024, 128, 128, 32, 3, 128), hw="h200")
    assert rep.latency_s == pytest.approx(direct.latency_s)


@pytest.mark.parametrize(
    ("block", "promote", "frame"),
    [
        # two fp32 accumulators of 128 x 128 on one consumer warpgroup (128 threads): C_local (the wgmma's)
        # and C_total (the promotion's) are both carried through the K loop, 2 x 128 x 128 x 4 B / 128
        # threads / 4 B = 256 registers, + LOOP_STATE_REGISTERS (20) - setmaxnreg's 240 = 36 spilled: a
        # 144 B frame a consumer thread (ptxas -v: 144 B), averaged over the block's 128 + 128 producer
        # threads: 72 B
        ((128, 128, 128), 1, 72),
        ((128, 128, 64), 2, 72),  # the same accumulators (ptxas: 160 B)
        # without promotion C_total is only touched after the loop: 128 carried registers fit
        ((128, 128, 128), 0, 0),
        # 64-row tiles: 2 x 64 x 128 x 4 / 128 / 4 = 128 carried registers fit (ptxas: no spill)
        ((64, 128, 128), 1, 0),
    ],
)
def test_promoted_fp8_accumulators_spill_where_ptxas_spills_them(block, promote, frame):
    from tilesight.kernels.tilelang.gemm import gemm_fp8

    bm, bn, bk = block
    res = plan_prim_func(
        gemm_fp8(4096, 4096, 4096, bm, bn, bk, 3, 128, "float8_e4m3", "float16", promote), HW
    )
    r = res.resources
    assert r.threads == 256 and r.spill_bytes_per_thread == frame
    if frame:
        # the frame holds C_total: reloaded and stored where the promotion adds into it (and where it is
        # cleared before the loop), not around the wgmma, which keeps C_local in registers
        assert r.spill_invariant_bytes == 0
        assert r.spill_openers == ("fill_C_total", "ew_C_total")
    else:
        assert r.spill_openers is None


@pytest.mark.parametrize(
    ("block", "threads", "frame"),
    [
        # 128 x 256 on one consumer warpgroup (128 threads): two m64n256 wgmma accumulator pieces of 128
        # registers, 256 carried against setmaxnreg's 240. The piece in flight and the loop state
        # (LOOP_STATE_REGISTERS, 20) leave 240 - 20 - 128 = 92 registers for the other piece: 256 - 92 =
        # 164 registers (656 B) go to local memory each iteration (ptxas: a 688 B frame, all of it moved),
        # averaged over the 128 consumer + 128 producer threads: 328 B
        ((128, 256, 64), 128, 328),
        # 256 x 128: four m64n128 pieces of 64, 256 - (240 - 20 - 64) = 100 registers, 400 B / 2 = 200 B
        # (ptxas: 512 B)
        ((256, 128, 32), 128, 200),
        # 256 x 256 on two consumer warpgroups (256 threads, warps 4 x 2): each warpgroup's 256 rows in four
        # m64n128 pieces, 256 registers a thread: 400 B a consumer thread, 400 x 256 / 384 = 266 B
        ((256, 256, 32), 256, 266),
        # 128 x 256 on two warpgroups: 128 registers a thread fit beside the loop state, nothing spills
        ((128, 256, 64), 256, 0),
    ],
)
def test_wgmma_accumulators_beyond_the_registers_are_swapped_through_local_memory(block, threads, frame):
    bm, bn, bk = block
    plan = plan_prim_func(gemm(4096, 4096, 4096, bm, bn, bk, 3, threads, "float16"), HW)
    r = plan.resources
    assert r.spill_bytes_per_thread == frame
    # the frame holds wgmma accumulators: reloaded and stored around the dot (the engine's default)
    assert r.spill_openers is None
    # and the notes tell the author why, with the figures (256 accumulator registers against 240 here)
    swap = [n for n in plan.notes if "serialises the wgmmas" in n]
    if frame:
        (note,) = swap
        assert "take 256 registers a consumer thread against the 240" in note
    else:
        assert not swap


@pytest.mark.parametrize(
    ("block", "threads", "groups", "split"),
    [
        # 128 x 256 on 256 consumer threads: TileLang's warp_partition gives 4 x 2 warps, the two
        # warpgroups on the two 128-column halves; each promotes its own columns, nothing joins them again
        ((128, 256, 128), 256, 2, "columns"),
        ((64, 256, 128), 256, 2, "columns"),
        # one consumer warpgroup: one group
        ((128, 128, 128), 128, 1, "rows"),
    ],
)
def test_fp8_warpgroups_on_their_own_columns_are_compute_groups(block, threads, groups, split):
    from tilesight.kernels.tilelang.gemm import gemm_fp8

    bm, bn, bk = block
    plan = plan_prim_func(gemm_fp8(4096, 4096, 4096, bm, bn, bk, 3, threads, "float8_e4m3", "float16", 1), HW)
    assert (plan.resources.compute_groups, plan.resources.group_split) == (groups, split)


def test_columns_apart_until_a_reduction_or_a_shared_operand_joins_them():
    from tilesight.frontends.tilelang.lower import _columns_apart
    from tilesight.frontends.tilelang.walker import walk_all
    from tilesight.kernels.tilelang.dequant_gemm import dequant_gemm
    from tilesight.kernels.tilelang.flash_attention import flash_attention_fwd
    from tilesight.kernels.tilelang.gemm import gemm_fp8

    def apart(prim):
        return _columns_apart(next(iter(walk_all(prim, None))).body)

    # the promotion adds a group's own accumulator fragment into its own total
    assert apart(gemm_fp8(1024, 1024, 1024, 128, 256, 128, 3, 256, "float8_e4m3", "float16", 1))
    # a softmax's row max and sum meet every column of the score tile
    assert not apart(flash_attention_fwd(1, 2, 256, 64, False, 64, 64, 1, 128))
    # the unpacked B tile is written by every thread into shared memory and read whole by each group
    assert not apart(dequant_gemm(1024, 1024, 1024, 128, 256, 64, 3, 256))


def test_carried_fragments_of_an_attention_loop():
    import math

    from tilesight.frontends.tilelang.lower import _carried_fragments, _loops
    from tilesight.frontends.tilelang.walker import walk_all
    from tilesight.kernels.tilelang.flash_attention import flash_attention_fwd

    ir = next(iter(walk_all(flash_attention_fwd(1, 2, 256, 64, False, 64, 64, 1, 128), None)))
    frags = {
        n: math.prod(shape)
        for n, (scope, _, shape) in ir.buffers.items()
        if scope not in ("global", "shared")
    }
    (loop,) = list(_loops(ir.body))
    carried = _carried_fragments(loop, frags)
    # the output accumulator and the running row max / sum go from one K/V block to the next; the score
    # tile and its fp16 copy are rebuilt every block (a fill or a cleared gemm writes them whole first)
    assert {"acc_o", "m_i", "l_i"} <= carried
    assert "acc_s" not in carried

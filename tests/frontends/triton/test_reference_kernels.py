"""Extraction of every reference kernel in kernels/triton (CPU: compiled to TTGIR for an sm_90 target).

Expected numbers are worked out by hand from each kernel's source in the comments.
"""

import pytest

pytest.importorskip("triton")

from plan_walk import actions as _all  # noqa: E402
from plan_walk import loops as _loops  # noqa: E402
from tilesight.frontends.triton.frontend import TritonFrontend  # noqa: E402

from tilesight import TensorSpec, load_profile  # noqa: E402
from tilesight.plan import ActionKind, MemLevel  # noqa: E402

HW = load_profile("h200")
FE = TritonFrontend()


def f16(*shape):
    return TensorSpec(shape, "float16")


def f32(*shape):
    return TensorSpec(shape, "float32")


def _tensors(plan):
    return {t.name: t for t in plan.tensors}


def _gemm_args(M, N, K):
    return (f16(M, K), f16(K, N), f16(M, N), M, N, K, K, 1, N, 1, N, 1)


def _group_order(tiles_m, tiles_n, group_m):
    """GROUP_M launch order by hand: groups of group_m tile rows, each walked column by column."""
    seq = []
    for pid in range(tiles_m * tiles_n):
        first = pid // (group_m * tiles_n) * group_m
        rows = min(tiles_m - first, group_m)
        in_group = pid % (group_m * tiles_n)
        seq.append([first + in_group % rows, in_group // rows])
    return seq


GEMM_META = dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, num_warps=8, num_stages=3)


@pytest.mark.parametrize("group_m", [1, 4, 8])
def test_gemm(group_m):
    from tilesight.kernels.triton.gemm import matmul_kernel

    # M = N = 1024, K = 1000: 8 x 8 tiles of 128; K loop ceil(1000 / 64) = 16 trips.
    meta = dict(GEMM_META, GROUP_M=group_m)
    plan = FE.plan(matmul_kernel, ((64,), *_gemm_args(1024, 1024, 1000)), meta, HW)
    assert plan.grid.shape == (8, 8) and not plan.grid.persistent
    assert plan.grid.sequence.tolist() == _group_order(8, 8, group_m)
    t = _tensors(plan)
    m, n = plan.grid.dims
    assert (t["a_ptr"].tile, t["b_ptr"].tile, t["c_ptr"].tile) == ((128, 64), (64, 128), (128, 128))
    assert t["a_ptr"].reuse_dims == {n} and t["b_ptr"].reuse_dims == {m} and not t["c_ptr"].reuse_dims
    (loop,) = _loops(plan.body)
    assert (loop.trips, loop.stages, loop.reduction) == (16, 3, True)
    (dot,) = _all(plan.body, ActionKind.DOT)
    assert (dot.shape, dot.dtype, dot.variant) == ((128, 128, 64), "float16", "wgmma")
    assert plan.resources.threads == 256  # 8 warps x 32 lanes


def test_gemm_smem_is_tritons_allocation():
    from tilesight.kernels.triton.gemm import matmul_kernel

    # K % 16 == 0: 3 pipelined stages of a 128x64 and a 64x128 fp16 tile = 3 * 2 * 8192 * 2 B = 98304 B.
    plan = FE.plan(matmul_kernel, ((64,), *_gemm_args(1024, 1024, 1024)), dict(GEMM_META, GROUP_M=8), HW)
    assert plan.resources.smem_bytes == 98304


def test_gemm_transposed_b_tile_follows_strides():
    """Pins the innermost-dims tile mapping: a K-major B (strides (1, K)) still has a (BLOCK_K, BLOCK_N)
    tile in its (K, N) index space."""
    from tilesight.kernels.triton.gemm import matmul_kernel

    M = N = K = 512
    b = TensorSpec((K, N), "float16", (1, K))
    args = ((16,), f16(M, K), b, f16(M, N), M, N, K, K, 1, 1, K, N, 1)
    plan = FE.plan(matmul_kernel, args, dict(GEMM_META, BLOCK_N=64, GROUP_M=8), HW)
    assert _tensors(plan)["b_ptr"].tile == (64, 64)
    args = ((16,), f16(M, K), b, f16(M, N), M, N, K, K, 1, 1, K, N, 1)
    plan = FE.plan(matmul_kernel, args, dict(GEMM_META, BLOCK_M=64, BLOCK_N=256, GROUP_M=8), HW)
    assert _tensors(plan)["b_ptr"].tile == (64, 256)


def test_persistent_gemm():
    from tilesight.kernels.triton.persistent_gemm import matmul_persistent_kernel

    # 64 tiles over 24 programs: program p takes launch indices p, p + 24, p + 48 (tiles in GROUP_M order).
    meta = dict(GEMM_META, GROUP_M=8, NUM_SMS=24)
    plan = FE.plan(matmul_persistent_kernel, ((24,), *_gemm_args(1024, 1024, 1024)), meta, HW)
    assert plan.grid.persistent and plan.grid.programs == 24
    assert plan.grid.sequence.tolist() == _group_order(8, 8, 8)
    (loop,) = _loops(plan.body)  # the persistent loop is the launch sequence; the K loop stays
    assert loop.trips == 16 and loop.reduction
    t = _tensors(plan)
    m, n = plan.grid.dims
    assert t["a_ptr"].reuse_dims == {n} and t["b_ptr"].reuse_dims == {m}
    assert any("persistent" in note for note in plan.notes)


def _assert_descriptor_gemm_1024(plan):
    """A 1024^3 GEMM of 128 x 128 x 64 tiles through descriptors: its launch order, its TMA loads into and
    store from shared memory, its tiles and their reuse."""
    # dims are (col0, row0): the GROUP_M order with its columns swapped
    assert plan.grid.sequence[:, ::-1].tolist() == _group_order(8, 8, 8)
    loads = list(_all(plan.body, ActionKind.LOAD))
    assert {x.tensor for x in loads} == {"a_ptr", "b_ptr"} and all(x.dst is MemLevel.SMEM for x in loads)
    (store,) = _all(plan.body, ActionKind.STORE)
    assert store.src is MemLevel.SMEM
    t = _tensors(plan)
    assert (t["a_ptr"].tile, t["b_ptr"].tile, t["c_ptr"].tile) == ((128, 64), (64, 128), (128, 128))
    n, m = plan.grid.dims
    assert t["a_ptr"].reuse_dims == {n} and t["b_ptr"].reuse_dims == {m}


def test_tma_gemm_descriptor_loads():
    from tilesight.kernels.triton.tma_gemm import matmul_tma_kernel

    M = N = K = 1024
    args = ((64,), f16(M, K), f16(K, N), f16(M, N), M, N, K, K, N, N)
    plan = FE.plan(matmul_tma_kernel, args, dict(GEMM_META, GROUP_M=8), HW)
    assert plan.grid.shape == (8, 8)
    _assert_descriptor_gemm_1024(plan)
    (loop,) = _loops(plan.body)
    assert loop.trips == 16
    assert plan.resources.smem_bytes >= 98304  # the two 3-stage buffers, plus barriers
    assert not any("tensor descriptors" in n for n in plan.notes)  # one dot a step: not attention's loop


@pytest.mark.parametrize("flatten", [False, True])
def test_tma_persistent_gemm(flatten):
    from tilesight.kernels.triton.tma_persistent_gemm import matmul_tma_persistent_kernel

    # 64 tiles of 128 x 128 over 24 programs, each tile's loads and store through descriptors; the tile loop
    # flattened into the K loop by the compiler or not, the plan is the same launch sequence and K loop
    M = N = K = 1024
    args = ((24,), f16(M, K), f16(K, N), f16(M, N), M, N, K, K, N, N)
    meta = dict(GEMM_META, GROUP_M=8, NUM_SMS=24, FLATTEN=flatten)
    plan = FE.plan(matmul_tma_persistent_kernel, args, meta, HW)
    assert plan.grid.persistent and plan.grid.programs == 24
    (loop,) = _loops(plan.body)
    assert loop.trips == 16 and loop.reduction
    _assert_descriptor_gemm_1024(plan)


@pytest.mark.parametrize("stage", [1, 3])
def test_attention_tma_reads_every_tile_through_descriptors(stage):
    from tilesight.kernels.triton.attention_staged import attention_staged_kernel
    from tilesight.kernels.triton.attention_tma import attention_tma_kernel

    # the staged kernel's loops (batch 2, heads 16, n_ctx 1024, head_dim 128, 128 x 64 blocks), every tile
    # moved by TMA into shared memory: Q once, K and V per key block (K's 64 x 128 rows transposed for Q K^T)
    q = f16(2, 16, 1024, 128)
    meta = dict(HEAD_DIM=128, BLOCK_M=128, BLOCK_N=64, STAGE=stage, num_warps=8, num_stages=3)
    plan = FE.plan(attention_tma_kernel, ((8, 32), q, q, q, q, 0.088, 2, 16, 1024), meta, HW)
    pointer_args = ((8, 32), q, q, q, q, 0.088, 16 * 1024 * 128, 1024 * 128, 128, 1, 16, 1024)
    staged = FE.plan(attention_staged_kernel, pointer_args, meta, HW)
    loops = _loops(plan.body)
    assert [(lp.trips, lp.mean_trips) for lp in loops] == [
        (lp.trips, lp.mean_trips) for lp in _loops(staged.body)
    ]
    for lp in loops:
        qk, pv = _all(lp.body, ActionKind.DOT)
        assert qk.shape == (128, 64, 128) and pv.shape == (128, 128, 64)
        kv = list(_all(lp.body, ActionKind.LOAD))
        assert {x.tensor for x in kv} == {"k_ptr", "v_ptr"} and all(x.dst is MemLevel.SMEM for x in kv)
    t = _tensors(plan)
    # the descriptors see (batch x heads x n_ctx, head_dim) matrices: their tiles are rows of one head
    assert t["q_ptr"].tile == t["o_ptr"].tile == (1, 1, 128, 128) and t["k_ptr"].tile == (1, 1, 64, 128)
    (q_dim,) = [d for d, n in zip(plan.grid.dims, plan.grid.shape, strict=True) if n == 8]
    assert q_dim in t["k_ptr"].reuse_dims and q_dim in t["v_ptr"].reuse_dims
    # each two-dot loop fed by descriptors is noted as the descriptor attention the model does not price
    # (one loop at STAGE 1, the off-band and diagonal loops at STAGE 3); its pointer twin has no such note
    noted = [n for n in plan.notes if "through tensor descriptors (TMA) and it runs 2 dots" in n]
    assert len(noted) == len(loops) == (1 if stage == 1 else 2)
    assert not any("tensor descriptors" in n for n in staged.notes)


def test_softmax():
    from tilesight.kernels.triton.softmax import softmax_kernel

    x = f32(512, 1000)
    plan = FE.plan(softmax_kernel, ((512,), x, x, 1000, 1000, 1000), dict(BLOCK=1024), HW)
    assert plan.grid.shape == (512,)
    # max and sum over the 1024-wide block; exp and the division are SFU work on 1024 elements each
    assert [r.flops for r in _all(plan.body, ActionKind.REDUCE)] == [1024.0, 1024.0]
    assert sum(a.flops for a in _all(plan.body, ActionKind.SFU)) == 2048.0
    t = _tensors(plan)
    assert t["x_ptr"].tile == (1, 1000) and t["x_ptr"].masked and not t["x_ptr"].reuse_dims


def test_layernorm():
    from tilesight.kernels.triton.layernorm import layernorm_kernel

    args = ((512,), f16(512, 1000), f16(512, 1000), f16(1000), f16(1000), f32(512), f32(512))
    plan = FE.plan(layernorm_kernel, (*args, 1000, 1000, 1000, 1e-5), dict(BLOCK=1024), HW)
    t = _tensors(plan)
    (row,) = plan.grid.dims
    # weight and bias are the same for every row; the statistics are one scalar per row
    assert t["w_ptr"].tile == (1000,) and t["w_ptr"].reuse_dims == {row} and t["b_ptr"].reuse_dims == {row}
    assert t["mean_ptr"].tile == (1,) and not t["mean_ptr"].reuse_dims
    assert [r.flops for r in _all(plan.body, ActionKind.REDUCE)] == [1024.0, 1024.0]  # sum x, sum x^2


def test_layernorm_loads_its_weight_after_the_statistics_barrier():
    # 8 warps over a 1024-wide row: the sums meet in shared memory behind bar.sync, and the weight and bias
    # loads written after them in the kernel are issued only once every warp is past it (program order)
    from tilesight.kernels.triton.layernorm import layernorm_kernel

    args = ((512,), f16(512, 1024), f16(512, 1024), f16(1024), f16(1024), f32(512), f32(512))
    meta = dict(BLOCK=1024, num_warps=8)
    plan = FE.plan(layernorm_kernel, (*args, 1024, 1024, 1024, 1e-5), meta, HW)
    loads = {a.tensor: a for a in _all(plan.body, ActionKind.LOAD)}
    first, second = _all(plan.body, ActionKind.REDUCE)
    assert first.warps == second.warps == 8
    assert second.name in loads["w_ptr"].deps and second.name in loads["b_ptr"].deps
    assert not loads["x_ptr"].deps
    # one warp holds the whole row: its reduction is shuffles alone, no barrier to wait behind
    plan1 = FE.plan(layernorm_kernel, (*args, 1024, 1024, 1024, 1e-5), dict(BLOCK=1024, num_warps=1), HW)
    assert not {a.tensor: a for a in _all(plan1.body, ActionKind.LOAD)}["w_ptr"].deps


def test_rmsnorm_two_column_loops():
    from tilesight.kernels.triton.rmsnorm import rmsnorm_kernel

    args = ((512,), f16(512, 5000), f16(512, 5000), f16(5000), 5000, 5000, 5000, 1e-6)
    plan = FE.plan(rmsnorm_kernel, args, dict(BLOCK=1024), HW)
    loops = _loops(plan.body)
    assert [lp.trips for lp in loops] == [5, 5]  # ceil(5000 / 1024) chunks, twice
    assert [x.tensor for x in _all(loops[0].body, ActionKind.LOAD)] == ["x_ptr"]
    assert sorted(x.tensor for x in _all(loops[1].body, ActionKind.LOAD)) == ["w_ptr", "x_ptr"]
    t = _tensors(plan)
    assert t["x_ptr"].tile == (1, 1024) and t["w_ptr"].tile == (1024,)
    # the sum-of-squares pass only loads: unrolled, four iterations' loads at a time; the second pass stores
    # each chunk, which keeps the next chunk's loads behind it, and waits at the sum's barrier (4 warps)
    assert [lp.unroll for lp in loops] == [4, 1] and [lp.stages for lp in loops] == [1, 1]
    (reduce,) = _all(plan.body, ActionKind.REDUCE)
    assert reduce.warps == 4 and reduce.name in loops[1].deps and reduce.name not in loops[0].deps


def test_vector_add():
    from tilesight.kernels.triton.vector_add import add_kernel

    x = f32(1_000_000)
    plan = FE.plan(add_kernel, ((977,), x, x, x, 1_000_000), dict(BLOCK=1024), HW)  # cdiv(1e6, 1024)
    assert plan.grid.shape == (977,)
    assert {t.tile for t in plan.tensors} == {(1024,)} and all(t.masked for t in plan.tensors)
    (add,) = _all(plan.body, ActionKind.ELEMENTWISE)
    assert add.flops == 1024.0


@pytest.mark.parametrize("causal", [False, True])
def test_attention(causal):
    from tilesight.kernels.triton.attention import attention_fwd_kernel

    # batch 2, heads 16, n_ctx 1024, head_dim 128; grid (cdiv(1024, 128), 2 * 16) = (8, 32)
    q = f16(2, 16, 1024, 128)
    args = ((8, 32), q, q, q, q, 0.088, 16 * 1024 * 128, 1024 * 128, 128, 1, 16, 1024)
    meta = dict(HEAD_DIM=128, BLOCK_M=128, BLOCK_N=64, CAUSAL=causal, num_warps=8, num_stages=2)
    plan = FE.plan(attention_fwd_kernel, args, meta, HW)
    assert plan.grid.shape == (8, 32)
    q_dim, _ = plan.grid.dims
    (loop,) = _loops(plan.body)
    # causal: program q_block stops at key (q_block + 1) * 128, so 2 (q_block + 1) trips: mean of 2..16 = 9
    assert loop.trips == (9 if causal else 16) and loop.stages == 2 and loop.reduction
    assert loop.mean_trips == (9.0 if causal else None)
    assert any("max 16" in note for note in plan.notes) == causal
    qk, pv = _all(loop.body, ActionKind.DOT)
    assert qk.shape == (128, 64, 128) and pv.shape == (128, 128, 64)
    # exp2 over the 128x64 scores and over the 128 row maxima
    assert sum(a.flops for a in _all(loop.body, ActionKind.SFU)) == 128 * 64 + 128
    t = _tensors(plan)
    # K is loaded transposed (head_dim x keys); its tile is 64 keys by 128 head dims in the tensor's dims
    assert t["k_ptr"].tile == (1, 1, 64, 128) and t["q_ptr"].tile == (1, 1, 128, 128)
    assert t["k_ptr"].reuse_dims == {q_dim} and t["v_ptr"].reuse_dims == {q_dim}
    assert not t["q_ptr"].reuse_dims and not t["o_ptr"].reuse_dims


def test_attention_staged_helper_dots_keep_their_own_layouts():
    # The staged kernel's loop is an inlined @triton.jit helper: both its dots stand at the call site's line.
    # At BLOCK_M=64 on 8 warps, S = Q K^T (64 x 64) runs on warps 8 x 1, two warpgroups computing all 64 rows
    # (twice the flops), while P V (64 x 128) splits its columns between them (warps 4 x 2): computed once.
    from tilesight.kernels.triton.attention_staged import attention_staged_kernel

    q = f16(4, 16, 2048, 128)
    args = ((32, 64), q, q, q, q, 0.088, 16 * 2048 * 128, 2048 * 128, 128, 1, 16, 2048)
    meta = dict(HEAD_DIM=128, BLOCK_M=64, BLOCK_N=64, STAGE=1, num_warps=8, num_stages=3)
    plan = FE.plan(attention_staged_kernel, args, meta, HW)
    qk, pv = _all(plan.body, ActionKind.DOT)
    assert qk.shape == (64, 64, 128) and qk.flops == 2 * (2 * 64 * 64 * 128)
    assert pv.shape == (64, 128, 64) and pv.flops == 2 * 64 * 128 * 64


def test_attention_softmax_on_a_wrapped_score_tile_is_computed_by_both_warpgroups():
    # BLOCK_M=64 on 8 warps: the 64 x 64 score tile's MMA layout has warps 8 x 1, two warpgroups holding all
    # 64 rows, so each computes the whole softmax: twice the element-wise, exp2 and row-reduction work of the
    # same tile on 4 warps (one warpgroup), and as much as a 128-row tile on 8 warps (no copies)
    from tilesight.kernels.triton.attention_staged import attention_staged_kernel

    def work(block_m, warps):
        q = f16(4, 16, 2048, 64)
        args = ((2048 // block_m, 64), q, q, q, q, 0.125, 16 * 2048 * 64, 2048 * 64, 64, 1, 16, 2048)
        meta = dict(HEAD_DIM=64, BLOCK_M=block_m, BLOCK_N=64, STAGE=1, num_warps=warps, num_stages=3)
        plan = FE.plan(attention_staged_kernel, args, meta, HW)
        (loop,) = _loops(plan.body)
        return {k: sum(a.flops for a in _all(loop.body, k)) for k in (ActionKind.REDUCE, ActionKind.SFU)}

    w4, w8, tall = work(64, 4), work(64, 8), work(128, 8)
    assert w8[ActionKind.REDUCE] == 2 * w4[ActionKind.REDUCE] == 2 * 2 * 64 * 64  # row max and row sum
    # exp2 of the 64 x 64 tile twice over, and once of the 64 row rescales (a vector, not wrapped)
    assert w4[ActionKind.SFU] == 64 * 64 + 64 and w8[ActionKind.SFU] == 2 * 64 * 64 + 64
    # the 128-row tile: the same tile work (128 rows once), and its 128 row rescales
    assert tall[ActionKind.REDUCE] == w8[ActionKind.REDUCE] and tall[ActionKind.SFU] == 128 * 64 + 128


@pytest.mark.parametrize("stage", [1, 3])
def test_attention_staged_causal_is_two_sibling_loops(stage):
    from tilesight.kernels.triton.attention_staged import attention_staged_kernel

    # batch 2, heads 16, n_ctx 1024, head_dim 128, 128 x 64 blocks; grid (1024 / 128, 32)
    q = f16(2, 16, 1024, 128)
    args = ((8, 32), q, q, q, q, 0.088, 16 * 1024 * 128, 1024 * 128, 128, 1, 16, 1024)
    meta = dict(HEAD_DIM=128, BLOCK_M=128, BLOCK_N=64, STAGE=stage, num_warps=8, num_stages=3)
    plan = FE.plan(attention_staged_kernel, args, meta, HW)
    loops = _loops(plan.body)
    if stage == 1:  # one unmasked loop over all 1024 / 64 = 16 key blocks
        (full,) = loops
        assert full.trips == 16 and full.mean_trips is None
    else:
        # off-band: program q_block runs its q_block x 128 / 64 = 2 q_block blocks, 0..14, mean 7; then the
        # diagonal's 128 / 64 = 2 blocks, the same for every program
        off, diag = loops
        assert off.mean_trips == 7.0 and off.trips_by_program[:8] == (0, 2, 4, 6, 8, 10, 12, 14)
        assert diag.trips == 2 and diag.mean_trips is None
        # only the diagonal loop builds the mask (compare, select and add over the 128 x 64 scores): it does
        # more element-wise work per iteration than the off-band loop
        work = [sum(a.flops for a in _all(lp.body, ActionKind.ELEMENTWISE)) for lp in loops]
        assert work[1] > work[0]
        # the diagonal loop starts at the program's own block, but the off-band loop reads the same K and V
        # blocks from key 0 in every program: they stay shared along the query blocks
        (q_dim,) = [d for d, n in zip(plan.grid.dims, plan.grid.shape, strict=True) if n == 8]
        t = {x.name: x for x in plan.tensors}
        assert q_dim in t["k_ptr"].reuse_dims and q_dim in t["v_ptr"].reuse_dims
    for lp in loops:
        qk, pv = _all(lp.body, ActionKind.DOT)
        assert qk.shape == (128, 64, 128) and pv.shape == (128, 128, 64) and lp.stages == 3
    # the loops run one after the other: registers as for one loop (S 32 + O 64 + P 16 per thread + 40)
    assert plan.resources.regs_per_thread == 152 and plan.resources.spill_bytes_per_thread == 0


def test_attention_staged_causal_at_one_query_block():
    from tilesight.kernels.triton.attention_staged import attention_staged_kernel

    import tilesight

    # n_ctx 128 = BLOCK_M: the one query block (q_block 0) runs its off-band loop 0 times in every program and
    # its diagonal's 128 / 64 = 2 key blocks; the cache model walks no access of the off-band loop's K and V
    # (this raised an IndexError inside the cache model before), whose time is none
    q = f16(1, 2, 128, 64)
    args = ((1, 2), q, q, q, q, 0.125, 2 * 128 * 64, 128 * 64, 64, 1, 2, 128)
    meta = dict(HEAD_DIM=64, BLOCK_M=128, BLOCK_N=64, STAGE=3, num_warps=4, num_stages=2)
    off, diag = _loops(FE.plan(attention_staged_kernel, args, meta, HW).body)
    assert off.trips == 0 and off.mean_trips is None and diag.trips == 2
    report = tilesight.estimate(attention_staged_kernel, *args, hw="h200", **meta)
    assert report.latency_s > 0 and 0.0 <= report.l2_hit_rate <= 1.0


def test_softmax_rows_programs_stride_over_rows():
    from tilesight.kernels.triton.softmax import softmax_rows_kernel

    # 132 programs over 4096 rows of 1000 columns: a persistent grid of 4096 row tiles, one [1, 1000] tile
    x = f16(4096, 1000)
    args = ((132,), x, x, 4096, 1000, 1000, 1000)
    plan = FE.plan(softmax_rows_kernel, args, dict(BLOCK=1024, ROW_STAGES=2, num_warps=4), HW)
    assert plan.grid.persistent and plan.grid.blocks == 132 and plan.grid.tiles == 4096
    assert {t.tile for t in plan.tensors} == {(1, 1000)}
    assert len(list(_all(plan.body, ActionKind.REDUCE))) == 2  # row max and row sum
    # the row loop is software-pipelined at its num_stages: ROW_STAGES - 1 rows in flight ahead of the one
    # a program computes, where its loads became asynchronous copies. Rows of 1000 fp16 (2000 bytes, not a
    # multiple of 16) cannot be copied so: one row at a time, at any ROW_STAGES
    deep = dict(BLOCK=1024, ROW_STAGES=4, num_warps=4)
    assert (
        plan.grid.tiles_in_flight == 1
        and FE.plan(softmax_rows_kernel, args, deep, HW).grid.tiles_in_flight == 1
    )
    y = f16(4096, 1024)
    aligned = ((132,), y, y, 4096, 1024, 1024, 1024)
    assert FE.plan(softmax_rows_kernel, aligned, deep, HW).grid.tiles_in_flight == 3
    assert FE.plan(softmax_rows_kernel, aligned, dict(deep, ROW_STAGES=2), HW).grid.tiles_in_flight == 1


def test_a_persistent_tile_loop_around_a_k_loop_runs_one_tile_at_a_time():
    from tilesight.kernels.triton.persistent_gemm import matmul_persistent_kernel

    # the pipeliner pipelines the K loop inside; the tile loop around it keeps one tile in flight
    meta = dict(GEMM_META, GROUP_M=8, NUM_SMS=24)
    plan = FE.plan(matmul_persistent_kernel, ((24,), *_gemm_args(1024, 1024, 1024)), meta, HW)
    assert plan.grid.persistent and plan.grid.tiles_in_flight == 1


def test_layernorm_chunked_reads_its_row_in_three_passes():
    from tilesight.kernels.triton.layernorm import layernorm_chunked_kernel

    # 10000 columns in 1024-wide chunks: cdiv(10000, 1024) = 10 trips per pass, three passes over x
    x, w, s = TensorSpec((64, 10000), "bfloat16"), TensorSpec((10000,), "bfloat16"), f32(64)
    args = ((64,), x, x, w, w, s, s, 10000, 10000, 10000, 1e-5)
    plan = FE.plan(layernorm_chunked_kernel, args, dict(BLOCK=1024, num_warps=4), HW)
    loops = _loops(plan.body)
    assert [lp.trips for lp in loops] == [10, 10, 10]
    assert [sum(a.tensor == "x_ptr" for a in _all(lp.body, ActionKind.LOAD)) for lp in loops] == [1, 1, 1]
    assert [lp.unroll for lp in loops] == [4, 4, 1]  # the two summing passes only load
    reduces = [a.name for a in _all(plan.body, ActionKind.REDUCE)]
    assert [set(lp.deps) & set(reduces) for lp in loops] == [set(), {reduces[0]}, {reduces[1]}]
    assert _tensors(plan)["x_ptr"].tile == (1, 1024)


def test_transpose_stores_the_tile_down_the_output_columns():
    from tilesight.kernels.triton.transpose import transpose_kernel

    # X (512, 256) in 64 x 128 tiles: grid (512 / 64, 256 / 128) = (8, 2); Y = X^T gets 128 x 64 tiles
    x, y = f16(512, 256), f16(256, 512)
    plan = FE.plan(transpose_kernel, ((8, 2), x, y, 512, 256, 256, 512), dict(BLOCK_M=64, BLOCK_N=128), HW)
    assert sorted(plan.grid.shape) == [2, 8]
    t = _tensors(plan)
    assert t["x_ptr"].tile == (64, 128) and t["y_ptr"].tile == (128, 64)


def test_gather_rows_is_indirect():
    from tilesight.kernels.triton.gather_rows import gather_rows_kernel

    table, idx, out = f16(50000, 512), TensorSpec((4096,), "int32"), f16(4096, 512)
    args = ((256, 2), table, idx, out, 4096, 512, 512, 512)  # grid (cdiv(4096, 16), cdiv(512, 256))
    plan = FE.plan(gather_rows_kernel, args, dict(BLOCK_R=16, BLOCK_D=256), HW)
    assert sorted(plan.grid.shape) == [2, 256]
    t = _tensors(plan)
    assert t["table_ptr"].indirect and not t["idx_ptr"].indirect and not t["out_ptr"].indirect
    # the gathered rows depend on the row block through the loaded index: no grid dim reuses a table tile
    assert not t["table_ptr"].reuse_dims and len(t["idx_ptr"].reuse_dims) == 1
    assert t["table_ptr"].tile == (16, 256)
    assert any("indirect" in note for note in plan.notes)


@pytest.mark.parametrize(("cols", "vector"), [(1024, 16), (1000, 2)])
def test_unaligned_row_length_makes_masked_row_accesses_element_wide(cols, vector):
    # 1000 is not a multiple of 16, so Triton does not specialise n_cols or the row strides: the mask
    # `cols < n_cols` and the row base pointer have no alignment and the LLVM lowering issues one 2-byte
    # access per element (checked on Triton's LLIR: ld.global.b16); 1024 keeps 16-byte vectors.
    from tilesight.kernels.triton.layernorm import layernorm_kernel

    args = ((512,), f16(512, cols), f16(512, cols), f16(cols), f16(cols), f32(512), f32(512))
    plan = FE.plan(layernorm_kernel, (*args, cols, cols, cols, 1e-5), dict(BLOCK=1024), HW)
    widths = {a.tensor: a.vector_bytes for a in _all(plan.body, ActionKind.LOAD)}
    assert widths == {"x_ptr": vector, "w_ptr": vector, "b_ptr": vector}
    (store,) = [a for a in _all(plan.body, ActionKind.STORE) if a.tensor == "y_ptr"]
    assert store.vector_bytes == vector


def test_causal_loop_carries_the_exact_mean_trip_count():
    from tilesight.kernels.triton.attention import attention_fwd_kernel

    # n_ctx 512, BLOCK_M = BLOCK_N = 128: program q_block runs q_block + 1 trips, 1..4, mean 2.5. The plan
    # keeps 2.5 for time and work and rounds half up (3) for the blocks the cache model walks.
    q = f16(1, 2, 512, 64)
    args = ((4, 2), q, q, q, q, 0.125, 2 * 512 * 64, 512 * 64, 64, 1, 2, 512)
    meta = dict(HEAD_DIM=64, BLOCK_M=128, BLOCK_N=128, CAUSAL=True, num_warps=8, num_stages=2)
    (loop,) = _loops(FE.plan(attention_fwd_kernel, args, meta, HW).body)
    assert loop.mean_trips == 2.5 and loop.trips == 3 and loop.work_trips == 2.5
    # programs in launch order (q_block fastest): head 0's q_blocks 0..3, then head 1's
    assert loop.trips_by_program == (1, 2, 3, 4, 1, 2, 3, 4)


def test_causal_mask_is_charged_per_iteration():
    from tilesight.kernels.triton.attention import attention_fwd_kernel

    # The causal kernel builds keep = key_ok & (rows[:, None] >= keys[None, :]) in every key iteration: one
    # compare and one AND over the 128 x 64 score tile (2 x 8192 element operations) on top of what the full
    # kernel does there; both also compute keys and key_ok (64 elements each) afresh.
    q = f16(1, 2, 512, 64)
    args = ((4, 2), q, q, q, q, 0.125, 2 * 512 * 64, 512 * 64, 64, 1, 2, 512)
    work = {}
    for causal in (False, True):
        meta = dict(HEAD_DIM=64, BLOCK_M=128, BLOCK_N=64, CAUSAL=causal, num_warps=8, num_stages=2)
        (loop,) = _loops(FE.plan(attention_fwd_kernel, args, meta, HW).body)
        work[causal] = sum(a.flops for a in _all(loop.body, ActionKind.ELEMENTWISE))
    assert work[True] - work[False] == 2 * 128 * 64


@pytest.mark.parametrize(
    ("tile", "warps", "mma_n", "smem"),
    [
        # m64n128 instructions: B (64 x 128) read by both 64-row halves, A (128 x 64) once: 2 x (8192 + 16384)
        ((128, 128, 64), 8, 128, 49152),
        ((128, 128, 64), 4, 128, 49152),
        # one 64-row instruction row on m64n256: each operand once, 2 x (4096 + 16384)
        ((64, 256, 64), 4, 256, 40960),
        # four 64-row halves on m64n128: B four times, 2 x (16384 + 4 x 8192)
        ((256, 128, 64), 8, 128, 98304),
    ],
)
def test_warpgroup_mma_reads_its_operands_per_instruction(tile, warps, mma_n, smem):
    from tilesight.kernels.triton.gemm import matmul_kernel

    bm, bn, bk = tile
    meta = dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, num_warps=warps, num_stages=3)
    plan = FE.plan(matmul_kernel, ((1024 // bm * 1024 // bn,), *_gemm_args(1024, 1024, 1024)), meta, HW)
    (dot,) = _all(plan.body, ActionKind.DOT)
    assert dot.variant == "wgmma" and dot.mma_n == mma_n and dot.smem_bytes == smem


def _attention_dots(block_m: int, block_n: int, warps: int):
    """The score and value dots of the one-loop attention kernel's loop at 2 heads x 512 x d64, not causal."""
    from tilesight.kernels.triton.attention import attention_fwd_kernel

    q = f16(1, 2, 512, 64)
    args = ((512 // block_m, 2), q, q, q, q, 0.125, 2 * 512 * 64, 512 * 64, 64, 1, 2, 512)
    meta = dict(HEAD_DIM=64, BLOCK_M=block_m, BLOCK_N=block_n, CAUSAL=False, num_warps=warps, num_stages=2)
    (loop,) = _loops(FE.plan(attention_fwd_kernel, args, meta, HW).body)
    qk, pv = _all(loop.body, ActionKind.DOT)
    return qk, pv


def test_attention_s_p_operand_is_not_read_from_shared_memory():
    # 128 x 64 x d64 on m64n64 instructions: S = Q K^T reads Q once and K^T for each 64-row half,
    # 2 x (8192 + 2 x 4096); O += P V takes P from registers and reads V twice, 2 x 2 x 4096
    qk, pv = _attention_dots(128, 64, 4)
    assert (qk.smem_bytes, pv.smem_bytes) == (32768, 16384)
    assert (qk.mma_a_registers, pv.mma_a_registers) == (False, True)  # Q is loaded; P is computed


def test_a_64_row_attention_tile_on_8_warps_splits_p_v_on_narrow_instructions_from_registers():
    # 64 x 64 x d64 on 8 warps: S = Q K^T in the chained [8, 1] layout (both warpgroups compute it, m64n32
    # instructions), P V in [4, 2] (each warpgroup 32 of the 64 value columns, m64n32) with P from registers
    qk, pv = _attention_dots(64, 64, 8)
    assert (qk.mma_n, pv.mma_n) == (32, 32)
    assert (qk.mma_a_registers, pv.mma_a_registers) == (False, True)
    assert qk.flops == 2 * (2 * 64 * 64 * 64) and pv.flops == 2 * 64 * 64 * 64  # the score dot twice


@pytest.mark.parametrize(("warps", "grid", "smem"), [(8, (2, 4), 12288), (4, (2, 2), 8192)])
def test_warp_level_mma_fetches_operand_fragments_per_warp(warps, grid, smem):
    from tilesight.kernels.triton.gemm import matmul_kernel

    # 32 x 32 x 32 tiles are too small for wgmma: Triton uses mma.sync with a warp grid of 2 x 4 (8 warps) or
    # 2 x 2 (4 warps). Warp (i, j) ldmatrix-loads A rows i (16 x 32) and B columns j: A is fetched once per
    # warp column, B once per warp row: 8 warps: 4 x 32x32x2 + 2 x 32x32x2 = 12288 B; 4 warps: 8192 B.
    meta = dict(BLOCK_M=32, BLOCK_N=32, BLOCK_K=32, GROUP_M=8, num_warps=warps, num_stages=3)
    plan = FE.plan(matmul_kernel, ((32 * 32,), *_gemm_args(1024, 1024, 1024)), meta, HW)
    (dot,) = _all(plan.body, ActionKind.DOT)
    assert dot.variant == "mma" and dot.smem_bytes == smem and dot.vector_bytes == 16
    assert grid[0] * grid[1] == warps


@pytest.mark.parametrize("warps", [1, 4, 16])
def test_row_reductions_record_the_warps_they_span(warps):
    from tilesight.kernels.triton.softmax import softmax_kernel

    # a 1024-wide row on `warps` warps: Triton's blocked layout puts all of them along the row, so both the
    # max and the sum combine `warps` partial results (in shared memory when more than one)
    x = f32(512, 1024)
    meta = dict(BLOCK=1024, num_warps=warps)
    plan = FE.plan(softmax_kernel, ((512,), x, x, 1024, 1024, 1024), meta, HW)
    assert [r.warps for r in _all(plan.body, ActionKind.REDUCE)] == [warps, warps]
    assert [r.outputs for r in _all(plan.body, ActionKind.REDUCE)] == [1, 1]  # one value a row each


def test_plans_do_not_depend_on_the_interpreters_hash_seed():
    # which element-wise group absorbs an op used to follow set order: the LayerNorm plan (and its latency,
    # by up to 1.4%) changed with PYTHONHASHSEED. Built under two seeds, the plans must be the same.
    import os
    import subprocess
    import sys

    script = (
        "from tilesight import TensorSpec, load_profile\n"
        "from tilesight.frontends.triton.frontend import TritonFrontend\n"
        "from tilesight.kernels.triton.layernorm import layernorm_kernel\n"
        "x, w, s = TensorSpec((16384, 768), 'float16'), TensorSpec((768,), 'float16'), "
        "TensorSpec((16384,), 'float32')\n"
        "args = ((16384,), x, x, w, w, s, s, 768, 768, 768, 1e-5)\n"
        "meta = dict(BLOCK=1024, num_warps=8)\n"
        "p = TritonFrontend().plan(layernorm_kernel, args, meta, load_profile('h200'))\n"
        "print(repr(p.body))\n"
    )
    plans = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("0", "1")
    }
    assert len(plans) == 1


def test_unaligned_gemm_counts_row_addresses_of_its_synchronous_loads():
    from tilesight.kernels.triton.gemm import matmul_kernel

    # odd row strides (2999, 3001): no async copy, the loop carries its pointer tensors. A 16 x 32 over
    # warpsPerCTA [2, 1] x threadsPerWarp [1, 32]: 16 / 2 = 8 rows a thread; B 32 x 256 over warpsPerCTA
    # [1, 2]: all 32 rows. 2 registers per row address: 80. Accumulator 16 x 256 / 64 threads = 64, mma
    # operands (16 x 32 + 32 x 256) x 2 B / 4 B / 64 = 68, overhead 40: 252, under the 255 limit (ptxas: 239,
    # no spill). One value and one offset per access would count (512 + 8192) / 64 x 2 = 272: 444 registers.
    args = (f16(4097, 2999), f16(2999, 3001), f16(4097, 3001), 4097, 3001, 2999, 2999, 1, 3001, 1, 3001, 1)
    meta = dict(BLOCK_M=16, BLOCK_N=256, BLOCK_K=32, GROUP_M=1, num_warps=2, num_stages=3)
    plan = FE.plan(matmul_kernel, ((257 * 12,), *args), {**meta, "registers": "estimate"}, HW)
    assert [a.variant for a in _all(plan.body, ActionKind.LOAD) if a.variant] == ["sync", "sync"]
    assert plan.resources.regs_per_thread == 252 and plan.resources.spill_bytes_per_thread == 0

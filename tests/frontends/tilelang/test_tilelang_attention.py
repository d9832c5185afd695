"""FlashAttention forward and MLA decode plans from the reference TileLang kernels, checked by hand."""

import pytest

pytest.importorskip("tilelang")

from tilesight.frontends.tilelang import plan_prim_func  # noqa: E402
from tilesight.kernels.tilelang.flash_attention import flash_attention_fwd  # noqa: E402
from tilesight.kernels.tilelang.mla_decode import mla_decode  # noqa: E402

from tilesight.hardware import load_profile  # noqa: E402
from tilesight.plan import ActionKind, LaunchOrder, Loop, MemLevel  # noqa: E402

pytestmark = pytest.mark.tilelang

HW = load_profile("h200")


def _by_name(plan):
    return {a.name: a for a, _ in plan.actions()}


@pytest.fixture(scope="module")
def fa():
    # batch 2, 4 heads, seq 256, dim 64; 64 x 64 tiles, 2 stages, 128 threads
    return plan_prim_func(flash_attention_fwd(2, 4, 256, 64, False, 64, 64, 2, 128), HW)


def test_fa_grid_and_tensors(fa):
    # T.Kernel(ceildiv(256, 64) = 4 query blocks, 4 heads, 2 batches)
    assert fa.grid.shape == (4, 4, 2) and fa.grid.dims == ("bx", "by", "bz")
    assert fa.grid.order is LaunchOrder.COLUMN_MAJOR
    q, k, v, o = fa.tensors
    assert q.tile == (1, 64, 1, 64) and q.reuse_dims == frozenset()
    # K and V rows depend on (bz, k, by), not on the query block bx: query blocks of a head share them
    assert k.reuse_dims == {"bx"} and v.reuse_dims == {"bx"}
    assert o.name == "Output" and o.tile == (1, 64, 1, 64)


def test_fa_kv_loop(fa):
    loops = [n for n in fa.body if isinstance(n, Loop)]
    assert len(loops) == 1
    (loop,) = loops
    # seq / block_N = 256 / 64 = 4 trips, 2 stages; acc_o carries over iterations: a reduction loop
    assert (loop.trips, loop.stages, loop.reduction) == (4, 2, True)
    # TMA copies from a producer warpgroup (the kernel is warp-specialised on Hopper)
    assert loop.producer_loads
    acts = _by_name(fa)
    qk, pv = acts["dot_acc_s"], acts["dot_acc_o"]
    assert qk.shape == (64, 64, 64) and pv.shape == (64, 64, 64)
    assert qk.variant == pv.variant == "wgmma"
    # Q @ K^T reads Q (64x64x2 B = 8192) and K (8192) from shared memory; P @ V takes P from registers
    assert qk.smem_bytes == 16384 and pv.smem_bytes == 8192 and pv.src is MemLevel.SMEM
    assert (qk.mma_a_registers, pv.mma_a_registers) == (False, True)  # no narrow-N cap on P @ V's A
    # exp2 of 64 x 64 scores and of the 64 row rescales run on the SFUs
    assert acts["sfu_acc_s"].kind is ActionKind.SFU and acts["sfu_acc_s"].flops == 64 * 64
    assert acts["sfu_alpha"].flops == 64
    assert acts["reduce_m_i"].kind is ActionKind.REDUCE and acts["reduce_m_i"].flops == 64 * 64
    # the row max needs the scores: it depends on the Q @ K^T dot
    assert "dot_acc_s" in acts["reduce_m_i"].deps
    assert "copy_acc_s_acc_s_cast" in pv.deps
    # CUDA-core operations as nvcc emits them: acc_s * scale - m_i * scale is one multiply and one fused
    # multiply-subtract per score; l_i * alpha + row_sum one fused multiply-add per row
    assert acts["ew_acc_s"].flops == 2 * 64 * 64
    assert acts["ew_l_i"].flops == 64
    assert acts["ew_alpha"].flops == 2 * 64  # m_prev * scale - m_i * scale per row


def test_causal_mask_ops_per_score():
    """Regression: the causal mask's uniform terms (bx * block_M, k * block_N, -inf) counted per score."""
    p = plan_prim_func(flash_attention_fwd(1, 2, 256, 64, True, 64, 64, 1, 128), HW)
    mask = _by_name(p)["ew_acc_s"]
    # if_then_else(bx * 64 + i >= k * 64 + j, 0, -inf): two adds of a lane index, a compare and a select per
    # score; bx * 64 and k * 64 are computed once per block iteration, -inf is a constant
    assert mask.flops == 4 * 64 * 64


def test_fa_resources(fa):
    # Q 8 KiB + K, V 2 stages x 8 KiB each; O reuses Q's space (disjoint lifetimes) = 40 KiB, + 1 KiB barriers
    assert fa.resources.smem_bytes == 40960 + 1024
    assert fa.resources.threads == 128 + 128
    # one consumer warpgroup (4 warps) holds all 64 rows: one compute group
    assert fa.resources.compute_groups == 1


def test_two_consumer_warpgroups_are_two_compute_groups():
    # 128 x 128 tiles on 256 threads: each T.gemm splits 8 warps 8 x 1 (FullRow), two warpgroups stacked
    # along M, each with its own 64 rows; the producer adds 128 threads
    p = plan_prim_func(flash_attention_fwd(1, 2, 256, 64, False, 128, 128, 2, 256), HW)
    assert p.resources.threads == 384 and p.resources.compute_groups == 2


def test_causal_trip_count_is_the_block_mean():
    p = plan_prim_func(flash_attention_fwd(1, 2, 256, 64, True, 64, 64, 1, 128), HW)
    (loop,) = [n for n in p.body if isinstance(n, Loop)]
    # query block bx runs min(4, bx + 1) key blocks: 1, 2, 3, 4 -> mean 2.5, rounded half up to 3
    assert loop.trips == 3 and loop.mean_trips == 2.5
    # blocks launch bx fastest: (bx 0..3) for head 0, then head 1
    assert loop.trips_by_program == (1, 2, 3, 4, 1, 2, 3, 4)
    assert any("1..4" in n and "2.50" in n for n in p.notes)


def test_mla_decode_plan():
    p = plan_prim_func(mla_decode(2, 128, 1024, 512, 64, 64, 32, 2, 256), HW)
    # 128 heads / 64 per block = 2 head groups, 2 batch rows
    assert p.grid.shape == (2, 2)
    kv = p.tensor("KV")
    # both head groups of a batch row stream the same latent cache
    assert kv.tile == (1, 32, 512) and kv.reuse_dims == {"bx"}
    (loop,) = [n for n in p.body if isinstance(n, Loop)]
    assert (loop.trips, loop.stages) == (1024 // 32, 2)
    dots = [a for a, _ in p.actions() if a.kind is ActionKind.DOT]
    assert [d.shape for d in dots] == [(64, 32, 512), (64, 32, 64), (64, 512, 32)]
    # FullCol on 8 warps: (4, 2), the two warpgroups split the 32 key columns, so reduce_max / reduce_sum
    # over those columns combine 2 warps' partials through a workspace of 256 threads x 4 B = 1 KiB each
    # (the lowered kernel's two `workspace` buffers); traffic: 64 rows x 2 partials x 4 B, written and read
    red = _by_name(p)
    assert red["reduce_m_i"].smem_bytes == red["reduce_row_sum"].smem_bytes == 2 * 64 * 2 * 4
    assert red["reduce_m_i"].warps == red["reduce_row_sum"].warps == 2
    # Q 64 KiB + Q_pe 8 KiB + KV 2 x 32 KiB + K_pe 2 x 4 KiB + S 4 KiB = 148 KiB, + 2 x 1 KiB workspaces
    # + 1 KiB barriers: 154624, what TileLang's own lowering reports (check_lowering.py)
    assert p.resources.smem_bytes == 151552 + 2048 + 1024
    # 256 + 128 producer threads; 65536 / 384 = 170 -> 168 registers
    assert (p.resources.threads, p.resources.regs_per_thread) == (384, 168)
    # FullCol puts the two warpgroups side by side along N: they share every row, one compute group
    assert p.resources.compute_groups == 1
    # ... so each warpgroup's score instructions cover 16 of the 32 key columns (wgmma_ss<..., 64, 16, 16,
    # ...> in TileLang's generated CUDA), the value dot's 256 of the 512 latent columns
    assert [d.mma_n for d in dots] == [16, 16, 256]


@pytest.mark.parametrize(
    ("dim", "frame"),
    [
        # block_M = block_N = 128 on one consumer warpgroup (128 threads), head dim 128: while the score
        # wgmma runs, its accumulator (128 x 128 x 4 B / 128 threads / 4 B = 128 registers) and the carried
        # output (128 more) and row statistics (2: m and l of the thread's rows) are live, 258 with the loop
        # state (20) against setmaxnreg's 240; both are m64n128 pieces of 64 registers, so ptxas keeps
        # 240 - 20 - 64 = 156 and swaps 258 - 156 = 102 registers: 408 B a consumer thread (ptxas: a 336 B
        # frame, 616 B moved an iteration), averaged over 128 + 128 producer threads
        (128, 204),
        # head dim 64: the output takes 64 registers, 194 live fit (ptxas: a 40 B frame, not modelled)
        (64, 0),
    ],
)
def test_live_score_and_output_accumulators_beyond_the_registers_spill(dim, frame):
    r = plan_prim_func(flash_attention_fwd(2, 8, 1024, dim, False, 128, 128, 2, 128), HW).resources
    assert r.spill_bytes_per_thread == frame
    assert r.spill_openers is None

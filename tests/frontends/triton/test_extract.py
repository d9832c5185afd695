"""Extraction of tile plans from Triton kernels (CPU only: compiles to TTGIR for an explicit sm_90 target)."""

import math

import numpy as np
import pytest

pytest.importorskip("triton")
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
import triton_fe_kernels as k  # noqa: E402
from plan_walk import actions as _find  # noqa: E402
from tilesight.frontends.triton.frontend import TritonFrontend  # noqa: E402

import tilesight  # noqa: E402
from tilesight import TensorSpec, load_profile  # noqa: E402
from tilesight.cache.model import SdcmCacheModel  # noqa: E402
from tilesight.errors import FrontendError, UnknownProfileError, UnsupportedOpError  # noqa: E402
from tilesight.model.evaluate import evaluate  # noqa: E402
from tilesight.plan import ELEMENT_ASYNC_COPY, NARROW_ASYNC_COPY, SYNC_LOAD, ActionKind, Loop  # noqa: E402

HW = load_profile("h200")
FE = TritonFrontend()


def _gemm_plan(M=1024, N=1024, K=1024, group_m=8, dtype="float16", bm=128, bn=128, bk=64):
    a, b, c = TensorSpec((M, K), dtype), TensorSpec((K, N), dtype), TensorSpec((M, N), "float16")
    tiles = -(-M // bm) * -(-N // bn)
    args = ((tiles,), a, b, c, M, N, K, K, 1, N, 1, N, 1)
    return FE.plan(k.gemm, args, dict(BM=bm, BN=bn, BK=bk, GROUP_M=group_m, num_warps=8, num_stages=3), HW)


def test_gemm_grid_tiles_and_reuse():
    plan = _gemm_plan()
    # 1024/128 = 8 tiles per dim; GROUP_M=8 covers all rows, so launch 0..7 walk column 0 down the rows.
    assert plan.grid.shape == (8, 8)
    assert plan.grid.sequence[:9].tolist() == [[i, 0] for i in range(8)] + [[0, 1]]
    t = {x.name: x for x in plan.tensors}
    assert t["a_ptr"].tile == (128, 64) and t["b_ptr"].tile == (64, 128) and t["c_ptr"].tile == (128, 128)
    m_dim, n_dim = plan.grid.dims
    assert t["a_ptr"].reuse_dims == {n_dim} and t["b_ptr"].reuse_dims == {m_dim} and not t["c_ptr"].reuse_dims


def test_compiler_hints_change_nothing():
    # tl.assume lowers to llvm.intr.assume: no work and no tile of its own, so the hinted GEMM (whose offsets
    # also wrap modulo M and N) has the plain one's grid, tiles, reuse and time
    a, b, c = (
        TensorSpec((2048, 1024), "float16"),
        TensorSpec((1024, 1536), "float16"),
        TensorSpec((2048, 1536), "float16"),
    )
    args = ((16 * 12,), a, b, c, 2048, 1536, 1024, 1024, 1, 1536, 1, 1536, 1)
    meta = dict(BM=128, BN=128, BK=64, GROUP_M=8, num_warps=8, num_stages=3)
    plain, hinted = (FE.plan(fn, args, dict(meta), HW) for fn in (k.gemm, k.gemm_assumed))
    assert hinted.grid.shape == plain.grid.shape == (12, 16)  # dims by distinct values: n (12), then m
    assert hinted.grid.sequence.tolist() == plain.grid.sequence.tolist()
    assert [(t.tile, t.reuse_dims) for t in hinted.tensors] == [(t.tile, t.reuse_dims) for t in plain.tensors]
    assert evaluate(hinted, HW).latency_us == evaluate(plain, HW).latency_us


def test_block_pointers_read_as_the_pointer_tiles_they_address():
    # tl.make_block_ptr / tl.advance (compiled by Triton 3.6-3.8, rewritten to pointer tensors on 3.9, which
    # removed them: frontends/triton/blockptr.py): a GEMM over block pointers, edges bounds-checked, has the
    # masked pointer GEMM's grid, launch order, tiles, reuse, K loop and dot, and its time within 2% (the two
    # differ only in how edges are guarded). Run on 3.6.0, 3.7.1 and 3.8.0 in stop 34, on 3.9 since stop 52.
    a, b, c = (
        TensorSpec((1024, 1000), "float16"),
        TensorSpec((1000, 1024), "float16"),
        TensorSpec((1024, 1024), "float16"),
    )
    args = ((64,), a, b, c, 1024, 1024, 1000, 1000, 1, 1024, 1, 1024, 1)
    meta = dict(BM=128, BN=128, BK=64, GROUP_M=4, num_warps=8, num_stages=3)
    plain, blocked = (FE.plan(fn, args, dict(meta), HW) for fn in (k.gemm, k.gemm_block_ptr))
    assert blocked.grid.shape == plain.grid.shape == (8, 8)
    assert blocked.grid.sequence.tolist() == plain.grid.sequence.tolist()
    t = {x.name: x for x in blocked.tensors}
    assert t["a_ptr"].tile == (128, 64) and t["b_ptr"].tile == (64, 128) and t["c_ptr"].tile == (128, 128)
    m_dim, n_dim = blocked.grid.dims
    assert t["a_ptr"].reuse_dims == {n_dim} and t["b_ptr"].reuse_dims == {m_dim} and not t["c_ptr"].reuse_dims
    (loop,) = [n for n in blocked.body if isinstance(n, Loop)]
    assert (loop.trips, loop.stages) == (16, 3)  # ceil(1000 / 64)
    (dot,) = _find(blocked.body, ActionKind.DOT)
    assert dot.shape == (128, 128, 64) and dot.variant == "wgmma"
    assert evaluate(blocked, HW).latency_us == pytest.approx(evaluate(plain, HW).latency_us, rel=0.02)


def test_gemm_loop_dot_and_resources():
    plan = _gemm_plan(K=1000)
    (loop,) = [n for n in plan.body if isinstance(n, Loop)]
    assert loop.trips == 16 and loop.stages == 3 and loop.reduction  # ceil(1000 / 64) = 16
    (dot,) = _find(plan.body, ActionKind.DOT)
    assert dot.shape == (128, 128, 64) and dot.dtype == "float16" and dot.variant == "wgmma"
    assert set(dot.deps) == {"load_a_ptr", "load_b_ptr"}
    assert plan.resources.threads == 256  # 8 warps x 32
    # K divisible by 16: Triton pipelines 3 stages of a 128x64 and a 64x128 fp16 tile: 3 * 16384 * 2 B.
    assert _gemm_plan(K=1024).resources.smem_bytes == 98304
    # registers estimated: 40 overhead + a 128 x 128 fp32 accumulator over 256 threads (64) = 104 at K = 1024;
    # at K = 1000 A's loads stay synchronous (its row stride is not a multiple of 16: see the next test) and
    # the loop carries A's pointer tensor, 32 row addresses a thread (layouts.access_rows), 2 registers each:
    # 104 + 64 = 168 (ptxas on the CPU gives 231 against 126 at K = 1024)
    assert _gemm_plan(K=1024).resources.regs_per_thread == 104
    assert plan.resources.regs_per_thread == 168 and plan.resources.spill_bytes_per_thread == 0


def test_a_load_the_pipeliner_leaves_synchronous_is_marked():
    """K = 1000: A's row stride (K elements) is not a multiple of 16, so Triton cannot prove A's rows 16-byte
    aligned and leaves A's loads plain element-wide loads in the loop body while it copies B (row stride
    1024) asynchronously stages ahead; N = 1000 does the same to B. With both unaligned nothing is copied:
    the loop runs at one stage with both loads synchronous (as before)."""
    for kw, sync_a, sync_b, stages in (
        (dict(K=1000), True, False, 3),
        (dict(N=1000), False, True, 3),
        (dict(K=1024), False, False, 3),
        (dict(N=1000, K=1000), True, True, 1),
    ):
        plan = _gemm_plan(**kw)
        loads = {a.name: a for a in _find(plan.body, ActionKind.LOAD)}
        assert (loads["load_a_ptr"].variant == SYNC_LOAD) == sync_a, kw
        assert (loads["load_b_ptr"].variant == SYNC_LOAD) == sync_b, kw
        (loop,) = [n for n in plan.body if isinstance(n, Loop)]
        # a pipelined loop with a load left synchronous waits for it every iteration
        assert loop.stages == stages and loop.waits_sync_loads == (stages > 1 and (sync_a or sync_b))


def test_a_pipelined_loop_refills_after_its_compute():
    # Triton's pipeliner waits for the iteration's tiles (ttg.async_wait at the top of the loop), issues the
    # dot, then copies the tiles stages - 1 iterations ahead at the end of the body; one stage has no copies
    a, b, c = (TensorSpec((1024, 1024), "float16") for _ in range(3))
    args = ((64,), a, b, c, 1024, 1024, 1024, 1024, 1, 1024, 1, 1024, 1)
    for stages, refills in ((1, False), (2, True), (3, True)):
        meta = dict(BM=128, BN=128, BK=64, GROUP_M=8, num_warps=4, num_stages=stages)
        (loop,) = [n for n in FE.plan(k.gemm, args, meta, HW).body if isinstance(n, Loop)]
        assert loop.refill_after_compute is refills, stages


def test_refills_after_compute_reads_the_loop_body_order():
    from tilesight.frontends.triton.layouts import refills_after_compute

    def module(*ops):
        body = "\n".join(f"      %{i} = {op} : i32" for i, op in enumerate(ops))
        return (
            "module {\n  tt.func public @k() {\n"
            "    %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%x = %c0) -> (i32) : i32 {\n"
            f"{body}\n      scf.yield %x : i32\n    }}\n    tt.return\n  }}\n}}\n"
        )

    late = module(
        "ttg.async_wait %a {num = 0 : i32}", "ttng.warp_group_dot %q", "ttg.async_copy_global_to_local %p"
    )
    early = module(
        "ttg.async_copy_global_to_local %p", "ttg.async_wait %a {num = 1 : i32}", "ttng.warp_group_dot %q"
    )
    assert refills_after_compute(late)
    assert not refills_after_compute(early)  # copies issued before the wait: at the iteration's start
    assert not refills_after_compute(module("ttng.warp_group_dot %q"))  # nothing pipelined


@pytest.mark.parametrize("dtype", ["bfloat16", "float8_e4m3fn"])
def test_gemm_dtypes(dtype):
    M = N = K = 256
    # Hopper fp8 wgmma wants a K-major B: pass B with strides (1, K).
    a, b, c = TensorSpec((M, K), dtype), TensorSpec((K, N), dtype, (1, K)), TensorSpec((M, N), "float16")
    args = ((4,), a, b, c, M, N, K, K, 1, 1, K, N, 1)
    plan = FE.plan(k.gemm, args, dict(BM=128, BN=128, BK=64, GROUP_M=8, num_warps=8, num_stages=3), HW)
    (dot,) = _find(plan.body, ActionKind.DOT)
    assert dot.dtype == dtype and dot.shape == (128, 128, 64)


def test_group_m_one_is_row_major():
    plan = _gemm_plan(M=512, N=512, group_m=1)
    seq = plan.grid.sequence
    assert seq[:5].tolist() == [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0]]


def test_softmax_sfu_and_reductions():
    x = TensorSpec((64, 1000), "float32")
    plan = FE.plan(k.softmax, ((64,), x, x, 1000, 1000, 1000), dict(BLOCK=1024), HW)
    assert plan.grid.shape == (64,)
    reduces = list(_find(plan.body, ActionKind.REDUCE))
    assert [r.flops for r in reduces] == [1024.0, 1024.0]  # max and sum over a 1024-element row
    sfu = sum(a.flops for a in _find(plan.body, ActionKind.SFU))
    assert sfu == 2048.0  # exp and the division (reciprocal) over 1024 elements
    (x_acc,) = [t for t in plan.tensors if t.name == "x_ptr"]
    assert x_acc.tile == (1, 1000) and x_acc.masked


@pytest.mark.parametrize(
    ("kernel", "cuda_ops", "sfu_ops"),
    [
        # libdevice's erf: 27.375 instructions an element beside one MUFU (extract.LIBDEVICE_ROUTINES, from
        # the SASS): 1024 x 27.375 = 28032 CUDA-core operations and 1024 special-function ones
        (k.erf_map, 28032.0, 1024.0),
        # tl.log: ptxas's accurate logarithm, 25.5 instructions an element and no MUFU: 26112
        (k.log_map, 26112.0, 0.0),
        # tl.exp stays one special-function operation an element (the probes' rates time its multiplies)
        (k.exp_map, 0.0, 1024.0),
    ],
)
def test_math_routines_cost_their_instructions(kernel, cuda_ops, sfu_ops):
    x = TensorSpec((1 << 20,), "float32")
    plan = FE.plan(kernel, ((1024,), x, x, 1 << 20), dict(BLOCK=1024), HW)
    assert sum(a.flops for a in _find(plan.body, ActionKind.ELEMENTWISE)) == cuda_ops
    assert sum(a.alu_ops for a in _find(plan.body, ActionKind.ELEMENTWISE)) == 0.0
    # a routine's instructions are its action's routine_ops (priced at the profile's routine rate)
    assert sum(a.routine_ops for a in _find(plan.body, ActionKind.ELEMENTWISE)) == cuda_ops
    assert sum(a.flops for a in _find(plan.body, ActionKind.SFU)) == sfu_ops


def test_math_routine_table_is_the_committed_sass_counts():
    import json
    from pathlib import Path

    from tilesight.frontends.triton.extract import LIBDEVICE_ROUTINES

    data = Path(__file__).resolve().parents[3] / "benchmarks" / "data" / "sass_routines_triton.json"
    counts = json.loads(data.read_text())["functions"]
    for name, (other, mufu) in LIBDEVICE_ROUTINES.items():
        assert (counts[name]["other"], counts[name]["mufu"]) == (other, mufu)
        assert counts[name]["branches"] == 0  # straight-line: the static count is what runs


def test_persistent_loop_sequence():
    x = TensorSpec((4096,), "float16")
    # 10 tiles of 256 over 4 programs: program p takes tiles p, p+4, p+8; launch index = iteration*4 + p.
    plan = FE.plan(k.persistent_copy, ((4,), x, x, 10), dict(BLOCK=256, NUM_PROGS=4), HW)
    assert plan.grid.programs == 4 and plan.grid.persistent
    assert plan.grid.sequence[:, 0].tolist() == list(range(10))


def test_persistent_programs_run_their_work_around_the_tile_loop_once():
    x, y = TensorSpec((1024, 512), "float32"), TensorSpec((1024, 512), "float32")
    w, part = TensorSpec((512,), "float32"), TensorSpec((16, 512), "float32")
    # 16 programs of 64 rows: 1024 row tiles. The weight load before the loop and the partial-sum store after
    # it run once per program, 16 / 1024 = 1/64 of a program per tile; the row load and store once per tile.
    plan = FE.plan(k.rows_partial_sum, ((16,), x, w, y, part, 1024, 512), dict(ROWS=64, BLOCK=512), HW)
    assert plan.grid.programs == 16 and plan.grid.tiles == 1024
    first, *middle, last = plan.body
    assert isinstance(first, Loop) and isinstance(last, Loop)
    assert first.mean_trips == last.mean_trips == 1 / 64 and first.trips == last.trips == 1
    assert [a.tensor for a in _find(first.body, ActionKind.LOAD)] == ["w_ptr"]
    assert [a.tensor for a in _find(last.body, ActionKind.STORE)] == ["part_ptr"]
    assert [a.tensor for a in middle if a.kind in (ActionKind.LOAD, ActionKind.STORE)] == ["x_ptr", "y_ptr"]
    assert any("runs once per program, 0.0156 of a program per tile" in n for n in plan.notes)


def test_a_program_dependent_channel_loop_then_a_second_pass():
    # 32 rows x 32 groups of 8 channels, a channel 1024 fp32 elements: the first channel loop starts where the
    # program's group does and stores (atomically): it is the tile loop (32 x 32 x 8 = 8192 tiles of one
    # channel), its scalar weight load at a per-program, per-iteration offset; the second pass over the
    # group's channels, after the cross-warp sum, runs once per program, 1024 / 8192 = 1/8 of one per tile
    x, y = TensorSpec((32, 256, 1024), "float32"), TensorSpec((32, 256, 1024), "float32")
    w, dw = TensorSpec((256,), "float32"), TensorSpec((256,), "float32")
    plan = FE.plan(k.channel_groups, ((32, 32), x, w, dw, y), dict(C=256, CPG=8, BLOCK=1024), HW)
    assert plan.grid.persistent and plan.grid.programs == 1024 and plan.grid.tiles == 8192
    *tile_loop, after = plan.body
    assert isinstance(after, Loop) and after.trips == 1 and after.mean_trips == 1 / 8
    assert "reduce" in after.deps  # it waits behind the cross-warp sum's barrier, as its loop did
    stores = {a.tensor: a for a in _find(tile_loop, ActionKind.STORE)}
    assert set(stores) == {"dw_ptr"}
    report = evaluate(plan, HW)
    by_name = {a.name: a for a in report.actions}
    # bytes: x 32 x 256 x 1024 x 4 = 33.55 MB a pass, y the same, one fp32 weight read and atomic a tile
    assert by_name["load_x_ptr"].bytes == by_name["store_y_ptr"].bytes == 32 * 256 * 1024 * 4
    assert by_name["load_w_ptr"].bytes == by_name["store_dw_ptr"].bytes == 8192 * 4


def test_a_one_element_read_at_a_label_moves_one_element():
    # 512 rows of 4096 bf16 in 1024-wide tiles, then one element of the row at its label: that read is its
    # own access of one element (2 B a row, 1 KB in all), not a fifth 1024-wide tile of the row (1 MB)
    x, labels, out = (
        TensorSpec((512, 4096), "bfloat16"),
        TensorSpec((512,), "int64"),
        TensorSpec((512,), "float32"),
    )
    plan = FE.plan(k.row_sum_minus_label, ((512,), x, labels, out, 4096), dict(BLOCK=1024), HW)
    t = {a.name: a for a in plan.tensors}
    assert t["x_ptr"].tile == (1, 1024) and t["x_ptr[element]"].tile == (1, 1)
    assert t["x_ptr[element]"].indirect and not t["x_ptr"].indirect
    assert t["label_ptr"].tile == (1,)  # read only one element at a time: keeps its argument's name
    report = evaluate(plan, HW)
    by_name = {a.name: a for a in report.actions}
    assert by_name["load_x_ptr"].bytes == 512 * 4096 * 2
    assert by_name["load_x_ptr_2"].bytes == 512 * 2 and by_name["load_label_ptr"].bytes == 512 * 8
    assert any("x_ptr: its one-element accesses move one element each" in n for n in plan.notes)


def test_unrolled_steps_read_regions_of_their_own():
    # 4096 x 1024 fp32 in 32-row programs; tl.static_range unrolls the K loop into four loads whose columns
    # start at 0, 256, 512 and 768: four regions of x (no step re-reads another's), and x once from DRAM
    x, out = TensorSpec((4096, 1024), "float32"), TensorSpec((4096,), "float32")
    plan = FE.plan(k.unrolled_row_sums, ((128,), x, out), dict(K=1024, BN=32, BK=256), HW)
    regions = sorted(t.name for t in plan.tensors if t.name.startswith("x_ptr"))
    assert regions == ["x_ptr", "x_ptr+256", "x_ptr+512", "x_ptr+768"]
    assert all(t.tile == (32, 256) for t in plan.tensors if t.name.startswith("x_ptr"))
    report = evaluate(plan, HW)
    assert report.dram_bytes == pytest.approx(4096 * 1024 * 4, rel=0.02)


def test_unrolled_steps_under_an_if_read_regions_of_their_own():
    # 4 slabs of 1024 tokens x 512 fp32 (2 MB each), one program a token: step i reads slab i at
    # i * 1024 * 512 elements; each step under its `if` is its own region, and every slab comes from DRAM once
    v, out = TensorSpec((4, 1024, 512), "float32"), TensorSpec((1024,), "float32")
    plan = FE.plan(k.guarded_unrolled_max, ((1024,), v, out, 4, 1024, 512), dict(NB=4, BD=512), HW)
    regions = sorted(t.name for t in plan.tensors if t.name.startswith("v_ptr"))
    assert regions == ["v_ptr", "v_ptr+1048576", "v_ptr+1572864", "v_ptr+524288"]
    report = evaluate(plan, HW)
    assert report.dram_bytes == pytest.approx(4 * 1024 * 512 * 4, rel=0.02)


def test_unrolled_steps_of_a_gather_read_regions_of_their_own():
    # 4096 tokens each gather 8 rows of y (32768 x 1024 bf16, 64 MB; the index lists a permutation, so every
    # row is read once), 256 columns a step: the four steps are four regions, y comes from DRAM once
    idx = np.random.default_rng(0).permutation(32768).astype(np.int32)
    y, out = TensorSpec((32768, 1024), "bfloat16"), TensorSpec((4096, 1024), "bfloat16")
    ids = TensorSpec((32768,), "int32", values=idx)
    plan = FE.plan(k.gather_sum_tiles, ((4096,), y, ids, out), dict(H=1024, K=8, BLOCK_H=256), HW)
    regions = sorted(t.name for t in plan.tensors if t.name.startswith("y_ptr"))
    assert regions == ["y_ptr", "y_ptr+256", "y_ptr+512", "y_ptr+768"]
    assert all(t.indirect for t in plan.tensors if t.name.startswith("y_ptr"))
    report = evaluate(plan, HW)
    reads = 32768 * 1024 * 2
    assert reads <= report.dram_bytes <= 1.02 * (reads + 4096 * 1024 * 2)


def test_a_constant_added_to_the_offsets_is_a_second_region():
    # 1024 programs of 16 rows x 128: the second half's offsets are the first's + 64, a region of its own
    # (side by side with the first: together the 16 whole rows are one 8 KB run), read once from DRAM too
    x, y = TensorSpec((1024 * 16, 128), "float32"), TensorSpec((1024 * 16, 128), "float32")
    plan = FE.plan(k.rotate_halves, ((1024,), x, y), dict(H=16, D=128), HW)
    t = {a.name: a for a in plan.tensors}
    assert set(t) == {"x_ptr", "x_ptr+64", "y_ptr", "y_ptr+64"}
    assert t["x_ptr"].tile == t["x_ptr+64"].tile == (16, 64)
    assert t["x_ptr"].run_bytes == t["x_ptr+64"].run_bytes == 16 * 128 * 4
    report = evaluate(plan, HW)
    by_name = {a.name: a for a in report.actions}
    assert by_name["load_x_ptr_2"].l2_hit_rate == pytest.approx(0.0, abs=0.02)
    # x read once (8 MB); y's 8 MB of writes stay in the 50 MB L2 when the kernel ends (what NCU counts)
    assert report.dram_bytes == pytest.approx(1024 * 16 * 128 * 4, rel=0.02)


def test_dram_bytes_of_a_data_dependent_return_are_the_mean_programs():
    # 8192 rows of 32768 bf16 (64 KB a row, 512 MB in all), a quarter of them labelled -100: those are zeroed
    # (a write of the row), the rest read and written. The mean program reads 3/4 of a row from DRAM (the
    # rows do not fit in L2); each branch's traffic counts in the share of programs that take it
    labels = np.zeros(8192, dtype=np.int64)
    labels[::4] = -100
    x = TensorSpec((8192, 32768), "bfloat16")
    report = tilesight.estimate(
        k.double_or_zero, (8192,), x, TensorSpec((8192,), "int64", values=labels), 32768,
        hw="h200", BLOCK=4096, num_warps=8,
    )  # fmt: skip
    row_bytes = 32768 * 2
    by_name = {a.name: a for a in report.actions}
    reads = sum(a.bytes for a in report.actions if a.kind == "load" and a.name.startswith("load_x"))
    assert reads == pytest.approx(0.75 * 8192 * row_bytes)
    assert by_name["load_label_ptr"].bytes == 8192 * 8
    # DRAM: the 384 MB read, and at most every written byte (512 MB), never both branches in full (1.5 GB)
    assert 0.75 * 8192 * row_bytes <= report.dram_bytes <= 1.02 * (0.75 + 1.0) * 8192 * row_bytes


def test_a_gather_inside_a_tile_is_a_shared_memory_round_trip():
    x, y = TensorSpec((64, 1024), "float16"), TensorSpec((64, 1024), "float16")
    idx = TensorSpec((1024,), "int32")
    plan = FE.plan(k.permute_row, ((64,), x, idx, y, 1024), dict(BLOCK=1024), HW)
    (g,) = [a for a in plan.body if a.kind is ActionKind.ELEMENTWISE]
    # 1024 fp16 elements stored to shared memory and 1024 read back at their indices: 4096 bytes; one index
    # computation per element
    assert g.smem_bytes == 4096 and g.flops == 1024
    assert {"load_x_ptr", "load_idx_ptr"} <= set(g.deps)
    assert any("tt.gather" in n and "a round trip through shared memory" in n for n in plan.notes)
    # the gathered values are not a memory access: x and y stay plain row tiles
    assert not any(t.indirect for t in plan.tensors)


def test_a_warp_local_gather_is_index_shuffles_per_source_register():
    import re

    x, y = TensorSpec((64, 1024), "float16"), TensorSpec((64, 1024), "float16")
    idx = TensorSpec((1024,), "int32")
    plan = FE.plan(k.permute_columns, ((16,), x, idx, y, 1024), dict(ROWS=4, BLOCK=1024, num_warps=8), HW)
    (g,) = [a for a in plan.body if a.kind is ActionKind.ELEMENTWISE]
    note = next(n for n in plan.notes if "tt.gather" in n)
    m = re.search(r"warp-local: (\d+) index shuffles", note)
    assert m, note
    regs = int(m.group(1))  # the layout's elements a thread holds along the axis (Triton's choice)
    assert regs >= 2 and not g.smem_bytes
    # 4 x 1024 outputs, each `regs` shuffles (4 operations each) plus a compare and a select per register
    assert g.flops == 4 * 1024 * regs * 6


def test_indirect_addressing_detected():
    table, idx, out = (
        TensorSpec((1000, 128), "float16"),
        TensorSpec((64,), "int32"),
        TensorSpec((64, 128), "float16"),
    )
    plan = FE.plan(k.gather, ((64,), table, idx, out, 128), dict(BLOCK_D=128), HW)
    t = {x.name: x for x in plan.tensors}
    assert t["table_ptr"].indirect and not t["idx_ptr"].indirect
    assert any("indirect" in n for n in plan.notes)


@pytest.mark.skipif(not hasattr(tl, "map_elementwise"), reason="tl.map_elementwise is Triton 3.9's")
def test_unsupported_op_names_op_and_line():
    x = TensorSpec((128,), "float32")
    with pytest.raises(UnsupportedOpError) as e:
        FE.plan(k.uses_map_elementwise, ((1,), x, x), dict(BLOCK=128), HW)
    assert "tt.map_elementwise" in str(e.value) and "triton_fe_kernels.py:" in str(e.value)


def test_a_histogram_is_priced_as_tritons_ballot_lowering():
    x, counts = TensorSpec((4096,), "int32"), TensorSpec((64,), "int32")
    plan = FE.plan(k.uses_histogram, ((1,), x, counts), dict(BLOCK=4096, BINS=64, num_warps=8), HW)
    (h,) = [a for a in plan.body if a.kind is ActionKind.ELEMENTWISE]
    # 64 bins: 6 index bits (3 ops each: and, compare, ballot), 5 lane bits (5 ops each), the mask's ballot,
    # then 64 / 32 = 2 bins a thread, each 2 x (6 - 5) + 2 ops: 18 + 25 + 1 + 8 = 52 ops an element
    assert h.flops == 4096 * 52
    # shared memory: 64 int32 bins zeroed and read back, 8 warps' atomic adds (a read and a write each)
    assert h.smem_bytes == 4 * 64 * (2 + 2 * 8)


def test_wrong_argument_count_is_tritons_error():
    from tilesight.errors import KernelArgumentError

    x = TensorSpec((128,), "float32")
    # Triton's TypeError, typed: the kernel (not Triton's generated binder) named, with its parameters
    with pytest.raises(
        KernelArgumentError, match=r"kernel 'softmax': softmax\(\) missing .*its parameters: "
    ) as e:
        FE.plan(k.softmax, ((1,), x, x, 128), dict(BLOCK=128), HW)
    assert isinstance(e.value, TypeError)
    with pytest.raises(KernelArgumentError, match="got multiple values for argument 'BLOCK'"):
        FE.plan(k.softmax, ((64,), x, x, 1000, 1000, 1000, 128), dict(BLOCK=1024), HW)


def test_torch_meta_and_numpy_tensors_accepted():
    torch = pytest.importorskip("torch")
    x = torch.empty((64, 1000), dtype=torch.float32, device="meta")
    y = np.zeros((64, 1000), dtype=np.float32)
    plan = FE.plan(k.softmax, ((64,), x, y, 1000, 1000, 1000), dict(BLOCK=1024), HW)
    assert {t.name for t in plan.tensors} == {"x_ptr", "y_ptr"}


def test_unknown_hw_lists_profiles():
    import tilesight

    with pytest.raises(UnknownProfileError, match="known profiles"):
        tilesight.estimate(k.softmax, (1,), hw="no-such-gpu")


def test_inner_loop_bound_from_outer_counter():
    """Pins the unknown outer counter: an inner bound ``i + 1`` raised before; now each iteration counts."""
    x = TensorSpec((7 * 128,), "float32")
    plan = FE.plan(k.triangular, ((4,), x, x, 7), dict(BLOCK=128), HW)
    (outer,) = [n for n in plan.body if isinstance(n, Loop)]
    (inner,) = [n for n in outer.body if isinstance(n, Loop)]
    assert outer.trips == 7 and inner.trips == 4  # inner trips 1..7 over i = 0..6: mean 4
    assert any("max 7" in n for n in plan.notes)


def test_a_loop_no_program_enters_costs_nothing():
    """A runtime count of 0 rows: the loop over w has no trips and w is read nowhere else, so the cache model
    walks no access of it (this raised "the cache model gave no traffic" before); with one row it costs."""
    x, w = TensorSpec((1 << 20,), "float32"), TensorSpec((1 << 16,), "float32")
    plan = FE.plan(k.bias_rows, ((1024,), x, w, x, 0), dict(BLOCK=1024), HW)
    (loop,) = [n for n in plan.body if isinstance(n, Loop)]
    assert loop.trips == 0 and loop.mean_trips is None
    none = tilesight.estimate(k.bias_rows, (1024,), x, w, x, 0, BLOCK=1024, hw="h200")
    one = tilesight.estimate(k.bias_rows, (1024,), x, w, x, 1, BLOCK=1024, hw="h200")
    # reads: x's 4 MiB from DRAM (y's writes are still in L2 when the kernel ends), and w's first row
    assert none.dram_bytes == pytest.approx(4 << 20) and one.dram_bytes == pytest.approx((4 << 20) + 4096)
    assert 0 < none.latency_s < one.latency_s


def test_a_loop_few_programs_enter_is_walked_once():
    """Of 10 programs only the last enters the loop (rows 8 .. pid - 1: one trip): a mean of 0.1 trips. The
    plan times that mean and the cache model walks one trip (the rounded mean, 0, would walk none of the
    blocks the last program reads)."""
    x, w = TensorSpec((10 * 1024,), "float32"), TensorSpec((10 * 1024,), "float32")
    plan = FE.plan(k.late_rows, ((10,), x, w, x, 8), dict(BLOCK=1024), HW)
    (loop,) = [n for n in plan.body if isinstance(n, Loop)]
    assert loop.trips == 1 and loop.mean_trips == pytest.approx(0.1)
    assert any("trip count varies by program (min 0, mean 0.10, max 1)" in n for n in plan.notes)


def test_host_side_descriptors():
    from tilesight import tensor_descriptor  # the public name (Triton's own class needs a data pointer)

    x = TensorSpec((512, 256), "float16")
    d_in, d_out = tensor_descriptor(x, [64, 64]), tensor_descriptor(x, [64, 64])
    # grid (512 / 64, 256 / 64) = (8, 4) tiles of 64 x 64 read and written through TMA (shared memory)
    plan = FE.plan(k.desc_scale, ((8, 4), d_in, d_out), dict(BM=64, BN=64), HW)
    assert sorted(plan.grid.shape) == [4, 8]
    assert {t.tile for t in plan.tensors} == {(64, 64)} and {t.name for t in plan.tensors} == {
        "in_desc",
        "out_desc",
    }
    (load,) = _find(plan.body, ActionKind.LOAD)
    (store,) = _find(plan.body, ActionKind.STORE)
    assert load.dst == "smem" and store.src == "smem"


def test_scalar_for_a_pointer_is_tritons_compile_error():
    from tilesight.errors import KernelCompileError

    x = TensorSpec((64, 1000), "float32")
    # a float where the kernel takes a pointer: Triton's own error, as a typed one that names the kernel
    with pytest.raises(KernelCompileError, match="could not compile kernel 'softmax'.*tl.load") as info:
        FE.plan(k.softmax, ((64,), 1.5, x, 1000, 1000, 1000), dict(BLOCK=1024), HW)
    assert type(info.value.__cause__).__name__ == "CompilationError"


def test_a_failing_triton_pass_is_a_frontend_error_naming_the_kernel(monkeypatch):
    # a pass of Triton's own pipeline that fails for the target (Triton 3.9's warp specialisation on sm_90 for
    # the fused-attention tutorial's causal head-dim-64 config) raises a bare RuntimeError inside Triton
    from tilesight.frontends.triton import compile as comp

    from tilesight.errors import FrontendError

    real = comp.backend_for

    class FailingTTGIR:
        def __init__(self, backend):
            self.backend = backend

        def __getattr__(self, name):
            return getattr(self.backend, name)

        def add_stages(self, stages, options, language):
            self.backend.add_stages(stages, options, language)

            def ttgir(mod, metadata):
                raise RuntimeError("PassManager::run failed")

            stages["ttgir"] = ttgir

    monkeypatch.setattr(comp, "backend_for", lambda *a: FailingTTGIR(real(*a)))
    x = TensorSpec((64, 1000), "float32")
    with pytest.raises(
        FrontendError, match=r"could not compile kernel 'softmax' for cuda sm_90 .*PassManager"
    ):
        FE.plan(k.softmax, ((64,), x, x, 1000, 1000, 1000), dict(BLOCK=1024, num_warps=2), HW)


def test_unknown_launch_option_is_tritons_error():
    x = TensorSpec((64, 1000), "float32")
    with pytest.raises(KeyError, match="num_wraps was specified but unrecognised: .* kernel 'softmax'") as e:
        FE.plan(k.softmax, ((64,), x, x, 1000, 1000, 1000), dict(BLOCK=1024, num_wraps=4), HW)
    assert isinstance(e.value, tilesight.errors.FrontendError)


@pytest.mark.parametrize("warps", [3, 6])
def test_a_launch_option_the_backend_refuses_is_a_typed_error(warps):
    # Triton's backend checks num_warps with an assert; the user gets the kernel, the options and the reason
    x = TensorSpec((64, 1000), "float32")
    with pytest.raises(
        tilesight.errors.LaunchOptionError, match=rf"kernel 'softmax'.*num_warps={warps}\b.*power of 2"
    ):
        FE.plan(k.softmax, ((64,), x, x, 1000, 1000, 1000), dict(BLOCK=1024, num_warps=warps), HW)


@pytest.mark.parametrize(
    ("grid", "why"),
    [
        ((4.5,), "every extent must be an integer"),
        ((4.0,), "every extent must be an integer"),  # Triton's launcher refuses floats too
        ("12", "a tuple of 1 to 3 integer extents"),  # not read as the extents (1, 2)
        (None, "a tuple of 1 to 3 integer extents"),
        (lambda meta: "4", "a tuple of 1 to 3 integer extents"),
        ((0,), "launches no programs"),
        ((4, 0, 1), "launches no programs"),
        ((-1,), "launches no programs"),
        ((), "1 to 3 extents"),
        ((64, 1, 1, 2), "ignores extents past the third"),  # the 2 would launch no more programs
    ],
)
def test_a_grid_triton_could_not_launch_is_an_error_naming_it(grid, why):
    x = TensorSpec((64, 1000), "float32")
    with pytest.raises(FrontendError, match=rf"grid .*{why}"):
        FE.plan(k.softmax, (grid, x, x, 1000, 1000, 1000), dict(BLOCK=1024), HW)


@pytest.mark.parametrize(
    "grid", [64, np.int64(64), (np.int32(64),), [64], lambda meta: (64,), lambda meta: 64, (64, 1, 1, 1)]
)
def test_every_grid_form_triton_launches_is_read(grid):
    # (64, 1, 1, 1): Triton's launcher reads the first three extents (FlagGems' cumsum passes four)
    x = TensorSpec((64, 1000), "float32")
    assert FE.plan(k.softmax, (grid, x, x, 1000, 1000, 1000), dict(BLOCK=1024), HW).grid.tiles == 64


def test_three_d_grid():
    x = TensorSpec((3, 256, 512), "float16")
    # grid (256 / 64, 512 / 128, 3): x fastest, then y, then the batch z
    plan = FE.plan(k.batched_copy, ((4, 4, 3), x, x, 256 * 512, 512), dict(BR=64, BC=128), HW)
    assert sorted(plan.grid.shape) == [3, 4, 4] and plan.grid.tiles == 48
    t = {x.name: x for x in plan.tensors}
    assert t["x_ptr"].tile == (1, 64, 128) and not t["x_ptr"].reuse_dims
    # launch order: the first four launches walk grid axis 0 with axes 1 and 2 at zero
    seq = plan.grid.sequence[:5]
    moving = [i for i in range(3) if len(set(seq[:4, i].tolist())) == 4]
    assert len(moving) == 1 and seq[4, moving[0]] == 0


def test_split_k_loop_is_a_reduction_not_a_persistent_tile_loop():
    # the K loop starts at a program-dependent offset (pk * BK) but stores nothing inside: it is split-K,
    # 1024 / (64 x 4) = 4 trips per program, on a (tiles, SPLIT) = (64, 4) grid of ordinary programs
    a = TensorSpec((1024, 1024), "float16")
    c = TensorSpec((1024, 1024), "float32")
    meta = dict(BM=128, BN=128, BK=64, SPLIT=4, num_warps=8, num_stages=3)
    plan = FE.plan(k.split_k_gemm, ((64, 4), a, a, c, 1024, 1024, 1024), meta, HW)
    assert not plan.grid.persistent and plan.grid.blocks == 256
    (loop,) = [n for n in plan.body if isinstance(n, Loop)]
    assert loop.trips == 4 and loop.reduction
    # each split reads its own K slices (the counter starts at pk * BK): A's blocks are shared only along the
    # N tiles, B's only along the M tiles, C's (added by every split) along the splits
    reuse = {t.name: t.reuse_dims for t in plan.tensors}
    assert reuse == {"a_ptr": {"rn"}, "b_ptr": {"rm"}, "c_ptr": {"pk"}}


def _b_load(dtype, b_strides=None):
    M = N = K = 1024
    a, b = TensorSpec((M, K), dtype), TensorSpec((K, N), dtype, b_strides)
    c = TensorSpec((M, N), "float32")
    sb = b.strides
    args = ((64,), a, b, c, M, N, K, K, 1, sb[0], sb[1], N, 1)
    plan = FE.plan(k.gemm, args, dict(BM=128, BN=128, BK=32, GROUP_M=8, num_warps=4, num_stages=3), HW)
    (load,) = [x for x in _find(plan.body, ActionKind.LOAD) if x.tensor == "b_ptr"]
    return load


def test_a_small_tile_on_many_warps_copies_8_bytes_a_thread_through_l1():
    # a 32 x 32 fp16 tile on 8 warps is 1,024 elements over 256 threads: 4 a thread, one 8-byte cp.async
    # each (LDGSTS.E.64, which cannot bypass L1), variant async_narrow; on 4 warps 8 a thread, 16 bytes
    M = N = K = 1024
    a = TensorSpec((M, K), "float16")
    c = TensorSpec((M, N), "float32")
    args = ((1024,), a, a, c, M, N, K, K, 1, N, 1, N, 1)
    for warps, variant, width in ((8, NARROW_ASYNC_COPY, 8), (4, None, 16)):
        plan = FE.plan(k.gemm, args, dict(BM=32, BN=32, BK=32, GROUP_M=8, num_warps=warps, num_stages=3), HW)
        loads = [x for x in _find(plan.body, ActionKind.LOAD)]
        assert {x.tensor for x in loads} == {"a_ptr", "b_ptr"}
        assert all(x.variant == variant and x.vector_bytes == width for x in loads), (warps, loads)
        # the report says so once per tensor, where and on how many warps (and nothing for 16-byte copies)
        noted = [n for n in plan.notes if "copied 8 bytes a thread" in n]
        if variant is None:
            assert noted == []
        else:
            assert [n.split(" at ")[0] for n in noted] == ["a_ptr", "b_ptr"]
            assert all("triton_fe_kernels.py:" in n and "over 8 warps" in n for n in noted)
    # a profile that does not price them says nothing (the copies keep their variant)
    import dataclasses

    bare = dataclasses.replace(HW, lsu_async_narrow_wavefronts=0.0)
    plan = FE.plan(k.gemm, args, dict(BM=32, BN=32, BK=32, GROUP_M=8, num_warps=8, num_stages=3), bare)
    assert not [n for n in plan.notes if "copied 8 bytes a thread" in n]
    assert {x.variant for x in _find(plan.body, ActionKind.LOAD)} == {NARROW_ASYNC_COPY}


def test_a_tf32_dot_copies_a_row_major_b_one_element_per_cp_async():
    # wgmma reads a TF32 B tile K-major only: Triton stores the row-major B tile transposed in shared memory
    # (nvmma_shared transposed = true) while its global layout reads along N, so every cp.async moves one
    # 4-byte element (LDGSTS.E in the SASS, against LDGSTS.E.BYPASS.128 for A): variant async_element
    row_major = _b_load("float32")
    assert row_major.variant == ELEMENT_ASYNC_COPY and row_major.vector_bytes == 4
    # the same values stored K-major, or 16-bit operands (which wgmma reads either way): 16-byte copies
    k_major = _b_load("float32", (1, 1024))
    half = _b_load("float16")
    for load in (k_major, half):
        assert load.variant is None and load.vector_bytes == 16


def test_an_ieee_fp32_dot_is_cuda_core_work():
    # input_precision="ieee": Triton keeps the dot's result in a blocked layout and lowers it to fused
    # multiply-adds (no nvidia_mma layout): 64 x 64 x 32 FMAs a step, no tensor-core action; in TF32 the
    # same kernel has a wgmma dot of that shape
    x = TensorSpec((1024, 1024), "float32")
    meta = dict(BM=64, BN=64, BK=32, num_warps=4, num_stages=2)
    ieee = FE.plan(k.gemm_precision, ((16, 16), x, x, x, 1024), dict(meta, PREC="ieee"), HW)
    tf32 = FE.plan(k.gemm_precision, ((16, 16), x, x, x, 1024), dict(meta, PREC="tf32"), HW)
    assert not list(_find(ieee.body, ActionKind.DOT))
    assert [a.flops for a in _find(ieee.body, ActionKind.ELEMENTWISE)] == [64 * 64 * 32]
    (dot,) = _find(tf32.body, ActionKind.DOT)
    assert dot.shape == (64, 64, 32) and dot.variant == "wgmma"


def test_two_loads_on_one_source_line_keep_their_own_vector_widths():
    # matched to the TTGIR by file:line:column, not file:line: A's [128, 128] fp16 tile is read in 16-byte
    # vectors while x (one element per thread in its layout) is read 2 bytes at a time (checked on the PTX:
    # ld.global.v4 for A)
    a = TensorSpec((1024, 1024), "float16")
    x = TensorSpec((1024,), "float16")
    y = TensorSpec((1024,), "float32")
    plan = FE.plan(k.gemv, ((8,), a, x, y, 1024, 1024), dict(BM=128, BK=128, num_warps=4), HW)
    widths = {act.tensor: act.vector_bytes for act, _ in plan.actions() if act.kind is ActionKind.LOAD}
    assert widths["a_ptr"] == 16 and widths["x_ptr"] < 16


def test_kernel_parameter_named_like_a_launch_option_is_the_parameter():
    # Triton binds a positional `num_stages` to the kernel's parameter of that name and launches with its
    # default stage count; TileSight must not add a launch-option keyword that collides with it
    x = TensorSpec((4096, 1000), "float32")
    positional = FE.plan(k.rows_with_stages, ((132,), x, x, 4096, 1000, 1024, 4), dict(num_warps=8), HW)
    keyword = FE.plan(k.rows_with_stages, ((132,), x, x, 4096, 1000), dict(BLOCK=1024, num_stages=4), HW)
    for plan in (positional, keyword):  # 132 persistent programs over the 4096 rows
        assert plan.grid.persistent and plan.grid.blocks == 132 and plan.grid.tiles == 4096
    assert positional.resources.threads == 256 and keyword.resources.threads == 128


def test_second_region_of_one_argument_is_its_own_tensor():
    # x holds 2 x 2**20 halves; the kernel reads x[0:n] and x[n:2n] (a scalar offset of n = 2**20 elements):
    # two tensor accesses, no reuse between them, so each 1024-element tile is a first touch (no L2 hits
    # beyond the 64-byte DRAM fetch's second sector) and DRAM reads are the 4 MiB of both regions
    n = 1 << 20
    x, y = TensorSpec((2 * n,), "float16"), TensorSpec((n,), "float16")
    plan = FE.plan(k.gated, ((n // 1024,), x, y, n), dict(BLOCK=1024, num_warps=4), HW)
    names = sorted(t.name for t in plan.tensors)
    assert names == ["x_ptr", f"x_ptr+{n}", "y_ptr"]
    loads = sorted(a.tensor for a in _find(plan.body, ActionKind.LOAD))
    assert loads == ["x_ptr", f"x_ptr+{n}"]
    r = tilesight.estimate(plan, hw=HW)
    assert r.dram_bytes >= 2 * n * 2


def test_program_dependent_pointer_offset_keeps_one_tensor():
    # x_ptr += row * stride depends on the program: the loads stay one tensor (the second re-reads the first)
    x = TensorSpec((64, 256), "float16")
    plan = FE.plan(k.row_offset, ((64,), x, x, 256), dict(BLOCK=256, num_warps=4), HW)
    assert sorted(t.name for t in plan.tensors) == ["x_ptr", "y_ptr"]


def test_second_region_after_a_program_offset_is_its_own_tensor():
    # x_ptr += row * 2d (the program's row: a coordinate), then x_ptr + d: the second half of the row
    d = 4096
    x, y = TensorSpec((64, 2 * d), "float16"), TensorSpec((64, d), "float16")
    plan = FE.plan(k.gated_rows, ((64,), x, y, d), dict(BLOCK=4096, num_warps=8), HW)
    assert sorted(t.name for t in plan.tensors) == ["x_ptr", f"x_ptr+{d}", "y_ptr"]


def test_row_major_int8_b_is_staged_through_registers_into_a_k_major_tile():
    # wgmma reads 8-bit operands K-major only and cp.async cannot move single bytes: Triton loads a row-major
    # int8 B tile into registers and stores it transposed (64 STS.U8 a thread in the SASS of this kernel
    # compiled on CPU). At 128 x 128 x 128 and 8 warps: 4096 wavefronts of 128 bytes (tests/.../test_banks.py)
    # charged to the load; K-major B is an asynchronous copy with no staging.
    x = TensorSpec((1024, 1024), "int8")
    c = TensorSpec((1024, 1024), "int32")
    meta = dict(BM=128, BN=128, BK=128, num_warps=8, num_stages=3)

    def b_load(strides):
        plan = FE.plan(k.gemm_int8, ((8, 8), x, x, c, 1024, *strides), meta, HW)
        (load,) = [a for a in _find(plan.body, ActionKind.LOAD) if a.tensor == "b_ptr"]
        return load

    assert b_load((1024, 1)).smem_bytes == 4096 * 128
    assert b_load((1, 1024)).smem_bytes is None


def test_a_score_tile_on_more_warps_than_rows_is_computed_twice():
    # 64 query rows on 8 warps: the score dot's MMA layout puts both warpgroups along M (warpsPerCTA [8, 1],
    # 128 rows of coverage), so each computes all 64 rows: 2 x 2 x 64 x 32 x 256 FLOPs a step; the value
    # dot splits N instead ([4, 2]) and is computed once. At 4 warps (one warpgroup) nothing is duplicated.
    def dots(bm, bn, d, warps):
        q, o = TensorSpec((bm, d), "float16"), TensorSpec((bm, d), "float32")
        kv = TensorSpec((4096, d), "float16")
        meta = dict(BM=bm, BN=bn, D=d, num_warps=warps, num_stages=2)
        plan = FE.plan(k.score_then_value, ((1,), q, kv, kv, o, 4096), meta, HW)
        return [(a.shape, a.flops) for a in _find(plan.body, ActionKind.DOT)]

    assert dots(64, 32, 256, 8) == [
        ((64, 32, 256), 2 * 2.0 * 64 * 32 * 256),
        ((64, 256, 32), 2.0 * 64 * 256 * 32),
    ]
    assert dots(64, 64, 128, 4) == [
        ((64, 64, 128), 2.0 * 64 * 64 * 128),
        ((64, 128, 64), 2.0 * 64 * 128 * 64),
    ]


def test_warpgroups_that_share_every_dot_are_compute_groups():
    # 128 query rows on 8 warps: both dots' MMA layouts put the two warpgroups on 64 rows each, two compute
    # groups; 64 rows on 4 warps is one; 64 rows on 8 warps: each warpgroup computes a copy of the scores
    # (the layout wraps the rows) and half the value dot's columns, two groups side by side
    def groups(bm, bn, d, warps):
        q, o = TensorSpec((bm, d), "float16"), TensorSpec((bm, d), "float32")
        kv = TensorSpec((4096, d), "float16")
        meta = dict(BM=bm, BN=bn, D=d, num_warps=warps, num_stages=2)
        return FE.plan(k.score_then_value, ((1,), q, kv, kv, o, 4096), meta, HW).resources.compute_groups

    assert (groups(128, 64, 128, 8), groups(64, 64, 128, 4), groups(64, 32, 256, 8)) == (2, 1, 2)


def test_wgmma_dots_carry_their_instruction_width():
    # the score dot of a 64x32 tile on 8 warps runs m64n16 instructions, the value dot m64n128 (warps split
    # N); at 64x64 on 4 warps the score dot is m64n64 and the value dot m64n128
    def widths(bm, bn, d, warps):
        q, o = TensorSpec((bm, d), "float16"), TensorSpec((bm, d), "float32")
        kv = TensorSpec((4096, d), "float16")
        meta = dict(BM=bm, BN=bn, D=d, num_warps=warps, num_stages=2)
        plan = FE.plan(k.score_then_value, ((1,), q, kv, kv, o, 4096), meta, HW)
        return [a.mma_n for a in _find(plan.body, ActionKind.DOT)]

    assert widths(64, 32, 256, 8) == [16, 128]
    assert widths(64, 64, 128, 4) == [64, 128]


def test_spin_lock_section_and_holders():
    # 4096 programs over 64 lock slots: 64 programs take each lock; the section is the read-add-write
    # between the compare-and-swap and the exchange that releases the same address
    x, acc = TensorSpec((4096, 1024), "float32"), TensorSpec((64, 1024), "float32")
    lock = TensorSpec((64,), "int32")
    plan = FE.plan(k.locked_row_sum, ((4096,), x, acc, lock, 1024), dict(LOCKS=64, BLOCK=1024), HW)
    assert plan.lock is not None and plan.lock.holders == 64.0
    top = [n.name for n in plan.body]
    names = list(plan.lock.nodes)
    assert top[top.index(names[0]) : top.index(names[-1]) + 1] == names
    kinds = {n.name: n.kind for n in plan.body}
    assert [kinds[n] for n in plan.lock.section] == [
        ActionKind.LOAD,
        ActionKind.ELEMENTWISE,
        ActionKind.STORE,
    ]
    assert "load_x_ptr" not in plan.lock.section  # before the lock


def test_lock_floor_is_holders_times_hold():
    x, acc = TensorSpec((4096, 1024), "float32"), TensorSpec((64, 1024), "float32")
    lock = TensorSpec((64,), "int32")
    args = ((4096,), x, acc, lock, 1024)
    r = tilesight.estimate(k.locked_row_sum, *args, hw="h200", LOCKS=64, BLOCK=1024)
    lock_phase = [p for p in r.phases if p.phase == "lock"]
    assert lock_phase and r.bottleneck.value == "l2"
    # without the lock the 64 holders' sections would overlap; with it the kernel lasts 64 holds
    assert r.latency_s >= 64 * 2 * HW.l2_latency_s + HW.launch_overhead_s
    assert "64 programs take each lock in turn" in lock_phase[0].reason


def test_unreleased_lock_and_other_while_loops_are_refused():
    x, lock = TensorSpec((1024,), "float32"), TensorSpec((1,), "int32")
    with pytest.raises(UnsupportedOpError, match="never releases"):
        FE.plan(k.locked_never_released, ((1,), x, lock), dict(BLOCK=1024), HW)
    with pytest.raises(UnsupportedOpError, match="a loop other than a spin lock") as e:
        FE.plan(k.while_with_work, ((1,), x, 4), dict(BLOCK=128), HW)
    assert "triton_fe_kernels.py:" in str(e.value)


def test_a_counted_while_loop_is_its_for_loop():
    # `off = 0; while off < N: ...; off += BLOCK` is range(0, N, BLOCK): the same plan, trips and time as the
    # for loop (it was refused as "a loop other than a spin lock")
    x, y = TensorSpec((64, 32768), "bfloat16"), TensorSpec((64,), "float32")
    plans = [
        FE.plan(fn, ((64,), x, y, 32768), dict(BLOCK=2048), HW) for fn in (k.row_sum_while, k.row_sum_for)
    ]
    loops = [[n for n in p.body if isinstance(n, Loop)] for p in plans]
    assert [len(ls) for ls in loops] == [1, 1] and loops[0][0].trips == loops[1][0].trips == 16
    times = [tilesight.estimate(fn, (64,), x, y, 32768, hw="h200", BLOCK=2048).latency_s
             for fn in (k.row_sum_while, k.row_sum_for)]  # fmt: skip
    assert times[0] == pytest.approx(times[1])
    # its bound read from memory without the tensor's contents: the for loop's typed error, naming the line
    n = TensorSpec((1,), "int32")
    with pytest.raises(FrontendError, match="trip count depends on values") as e:
        FE.plan(k.row_sum_while_loaded, ((4,), x, y, n), dict(BLOCK=2048), HW)
    assert "triton_fe_kernels.py:" in str(e.value)


def test_compares_selects_and_minimums_are_alu_ops():
    # min(where(x > 0, x, 0), 6) * 2: cmpf, select, minnumf and mulf an element, the first three on the ALU
    x = TensorSpec((256,), "float32")
    plan = FE.plan(k.clamp_relu, ((1,), x, x), dict(BLOCK=256), HW)
    (ew,) = _find(plan.body, ActionKind.ELEMENTWISE)
    assert (ew.flops, ew.alu_ops) == (256 * 4, 256 * 3)


def test_a_causal_mask_is_alu_work():
    # the reference attention kernel's causal mask: rows >= keys (an integer compare that varies with the key
    # loop) and its & with key_ok, then the select; the full kernel's select tests key_ok alone
    def alu(causal):
        q = TensorSpec((1, 2, 256, 64), "float16")
        args = ((2, 2), q, q, q, q, 0.125, 2 * 256 * 64, 256 * 64, 64, 1, 2, 256)
        meta = dict(HEAD_DIM=64, BLOCK_M=128, BLOCK_N=64, CAUSAL=causal, num_warps=4, num_stages=2)
        from tilesight.kernels.triton.attention import attention_fwd_kernel

        plan = FE.plan(attention_fwd_kernel, args, meta, HW)
        return sum(a.alu_ops for a in _find(plan.body, ActionKind.ELEMENTWISE))

    # the causal compare and & at 128 x 64 elements each come on top of the full kernel's ALU work
    assert alu(True) - alu(False) == 2 * 128 * 64


def test_multiply_add_pairs_count_as_one_fused_op():
    # Triton compiles with FP contraction on: x * a + b is one FMA an element; in p - p * a the product p has
    # two uses (its multiply stays an op), p * a has one (it contracts into the subtract): 3 ops, not 5
    x = TensorSpec((256,), "float32")
    plan = FE.plan(k.axpb, ((1,), x, x, x, 2.0, 0.5), dict(BLOCK=256), HW)
    assert sum(a.flops for a in _find(plan.body, ActionKind.ELEMENTWISE)) == 256 * (1 + 2)


@pytest.mark.parametrize(("warps", "unroll"), [(4, 1), (1, 4)])
def test_a_loop_reducing_across_warps_is_not_unrolled(warps, unroll):
    # each 64 x 128 chunk is summed over its rows inside the loop. On 4 warps the rows span the warps, so
    # the partials meet in shared memory behind bar.sync every iteration, and ptxas hoists no later load
    # above it (the SASS loop of this shape holds one iteration: 8 LDG.E.128 a thread, then the barriers):
    # one iteration's loads in flight. On one warp the sum is shuffles alone: a load-only loop, unrolled.
    x = TensorSpec((4096, 128), "float16")
    args = ((1,), x, TensorSpec((128,), "float32"), 4096)
    plan = FE.plan(k.chunk_column_sums, args, dict(D=128, BLOCK=64, num_warps=warps), HW)
    (loop,) = [n for n in plan.body if isinstance(n, Loop)]
    (reduce,) = _find(loop.body, ActionKind.REDUCE)
    assert reduce.warps == warps
    assert reduce.outputs == 128  # a [64, 128] chunk summed over its 64 rows: 128 values
    assert loop.trips == 64 and loop.stages == 1 and loop.unroll == unroll


@pytest.mark.parametrize(("kernel", "unroll"), [("row_sum_of_squares", 4), ("online_softmax_stats", 1)])
def test_a_load_only_loop_with_special_function_work_is_not_unrolled(kernel, unroll):
    # the SASS compiled here unrolls the sum-of-squares pass four times (four LDG.E.128 a loop trip) but keeps
    # the online softmax's pass at one LDG a trip beside its MUFU.EX2s: only the first has four iterations'
    # loads in flight
    x = TensorSpec((64, 8192), "float16")
    out = TensorSpec((64,), "float32")
    args = ((64,), x, out, out, 8192) if kernel == "online_softmax_stats" else ((64,), x, out, 8192)
    plan = FE.plan(getattr(k, kernel), args, dict(BLOCK=1024, num_warps=4), HW)
    (loop,) = [n for n in plan.body if isinstance(n, Loop)]
    assert loop.trips == 8 and loop.stages == 1 and loop.unroll == unroll


def _expert_plan(values: bool):
    # 64 row blocks of 4 experts (16 each, sorted as a MoE's), 8 column blocks of 128: each program reads a
    # 64 x 128 fp16 block (16 KB) of its expert's 64 x 1024 weight (128 KB)
    experts = np.repeat(np.arange(4, dtype=np.int32), 16)
    w, out = TensorSpec((4, 64, 1024), "float16"), TensorSpec((64 * 64, 1024), "float16")
    ids = TensorSpec((64,), "int32", values=experts if values else None)
    return FE.plan(k.expert_weight_blocks, ((64, 8), w, ids, out, 1024), dict(K=64, BN=128), HW)


def test_blocks_chosen_through_an_index_tensor_follow_its_values():
    plan = _expert_plan(values=True)
    w = plan.tensor("w_ptr")
    assert w.indirect and w.block_keys is not None
    # one key per (expert, column block): 4 x 8, the same for the 16 row blocks of an expert
    assert plan.grid.dims == ("pid_n", "pid_m") and plan.grid.shape == (8, 64)
    keys = w.block_keys.reshape(8, 64)
    assert len(np.unique(keys)) == 32
    assert all(len(np.unique(keys[n, 16 * e : 16 * (e + 1)])) == 1 for n in range(8) for e in range(4))
    # the output's blocks are not chosen by data: its key follows the grid
    assert plan.tensor("out_ptr").block_keys is None
    # 512 reads of 16 KB blocks, 32 of them distinct, the 512 KB of weights fit in L2: all but the first
    # touch of each block hit, 1 - 32 / 512
    by_name = {a.name: a for a in evaluate(plan, HW).actions}
    assert by_name["load_w_ptr"].l2_hit_rate == pytest.approx(1 - 32 / 512, abs=0.01)


def test_blocks_chosen_through_an_index_tensor_of_unknown_values_follow_the_grid():
    plan = _expert_plan(values=False)
    assert plan.tensor("w_ptr").indirect and plan.tensor("w_ptr").block_keys is None


def test_rows_at_a_loaded_start_land_on_their_tensor_dimensions():
    # a varlen batch's rows start where cu_seqlens says: the loaded start is uniform over the tile, so the
    # 32 x 64 tile of head h is 32 rows of one head (32 x 1 x 64 of the packed (tokens, H, D) tensor), not
    # the tensor's innermost 8 x 64 (stop 75: the survey's varlen attention read a quarter of its K tiles)
    x, out = TensorSpec((1024, 8, 64), "float16"), TensorSpec((1024, 8, 64), "float16")
    starts = TensorSpec((4,), "int32", values=np.array([0, 100, 300, 700], dtype=np.int32))
    plan = FE.plan(k.rows_at_loaded_start, ((4, 8), x, starts, out, 8), dict(D=64, BLOCK=32), HW)
    t = plan.tensor("x_ptr")
    assert t.indirect and t.tile == (32, 1, 64) and t.tile_bytes == 32 * 64 * 2


def test_gathered_rows_keep_the_tile_on_the_innermost_dimensions():
    # rows named by an index tensor are no affine walk of the tensor: the 16 x 128 tile stays on its
    # innermost dimensions, and the access is indirect
    x, out = TensorSpec((64, 128), "float16"), TensorSpec((1024, 128), "float16")
    idx = TensorSpec((1024,), "int32", values=(np.arange(1024) % 64).astype(np.int32))
    plan = FE.plan(k.gathered_rows, ((64,), x, idx, out), dict(D=128, BLOCK=16), HW)
    t = plan.tensor("x_ptr")
    assert t.indirect and t.tile == (16, 128)
    # each program's read moves its 4 KiB (64 x 4 KiB requested from a 16 KiB table)
    by_name = {a.name: a for a in evaluate(plan, HW).actions}
    assert by_name["load_x_ptr"].bytes == pytest.approx(64 * 16 * 128 * 2)


def test_a_k_loop_past_an_early_return_sees_the_same_cache_as_without_it():
    # 512 x 16384 in 64 x 64 tiles over K = 4096, row by row: each row of tiles streams a 128 MiB B panel,
    # more than the L2; the last row of tiles returns at once (rows = 448), the other programs scale their
    # tile by a factor read past the return. The one-trip loop the return makes around the K loop changes
    # neither B's L2 hit rate nor the DRAM bytes a working tile moves (stop 75: it did, the wrapper with its
    # scalar load taken for a latency-paced loop: the MoE GEMMs' weights hit L2 at 57% where NCU saw 32%)
    m, n, kk = 512, 16384, 4096
    a, b, c = TensorSpec((m, kk), "float16"), TensorSpec((kk, n), "float16"), TensorSpec((m, n), "float16")
    rows = TensorSpec((1,), "int32", values=np.array([m - 64], dtype=np.int32))
    scale = TensorSpec((m // 64,), "float32")
    args = ((8 * 256,), a, b, c, rows, scale, n, kk)
    meta = dict(BM=64, BN=64, BK=64, num_warps=4, num_stages=3)
    early = evaluate(FE.plan(k.gemm_past_a_return, args, dict(meta, EARLY=True), HW), HW)
    plain = evaluate(FE.plan(k.gemm_past_a_return, args, dict(meta, EARLY=False), HW), HW)
    b_hit = [next(a.l2_hit_rate for a in r.actions if a.name == "load_b_ptr") for r in (early, plain)]
    assert b_hit[0] == pytest.approx(b_hit[1], abs=0.02)
    assert early.dram_bytes / 7 == pytest.approx(plain.dram_bytes / 8, rel=0.05)
    # the tiles that return are left out of the cache walk (stop 87): the early grid's is that of its 7
    # working rows, launched alone
    seven = ((7 * 256,), TensorSpec((m - 64, kk), "float16"), b, TensorSpec((m - 64, n), "float16"), rows,
             scale, n, kk)  # fmt: skip
    alone = evaluate(FE.plan(k.gemm_past_a_return, seven, dict(meta, EARLY=False), HW), HW)
    alone_hit = next(a.l2_hit_rate for a in alone.actions if a.name == "load_b_ptr")
    assert b_hit[0] == pytest.approx(alone_hit, abs=0.005)
    assert early.dram_bytes == pytest.approx(alone.dram_bytes, rel=0.01)


@pytest.mark.parametrize("loop_stages", [2, 4])
def test_a_loop_of_its_own_depth_is_pipelined_that_deep(loop_stages):
    # tl.range(..., num_stages=S) sets the K loop's pipeline depth whatever the launch's num_stages (3): its
    # buffers are S deep in the TTGIR, and the plan's loop keeps S stages (stop 75: it kept the launch's, and
    # the survey's tutorial-style attention at tl.range(num_stages=2) was predicted 26% fast)
    m, n, kk = 1024, 128, 4096
    a, b, c = TensorSpec((m, kk), "float16"), TensorSpec((kk, n), "float16"), TensorSpec((m, n), "float16")
    meta = dict(BM=128, BN=128, BK=64, S=loop_stages, num_warps=4, num_stages=3)
    plan = FE.plan(k.gemm_range_stages, ((m // 128,), a, b, c, kk), meta, HW)
    (loop,) = [n for n in plan.body if isinstance(n, Loop)]
    assert loop.stages == loop_stages
    # the launch's depth where the loop names none
    (plain,) = [n for n in _gemm_plan().body if isinstance(n, Loop)]
    assert plain.stages == 3


def test_a_k_major_16_bit_operand_of_a_dot_is_noted():
    # B (K, N) stored K-major (strides (1, K)): the plan says the model does not price what it costs
    M = N = K = 1024
    a, c = TensorSpec((M, K), "float16"), TensorSpec((M, N), "float16")
    b_k = TensorSpec((K, N), "float16", strides=(1, K))
    args = ((64,), a, b_k, c, M, N, K, K, 1, 1, K, N, 1)
    plan = FE.plan(k.gemm, args, dict(BM=128, BN=128, BK=64, GROUP_M=8, num_warps=8, num_stages=3), HW)
    assert any(n.startswith("b_ptr is read K-major") for n in plan.notes)
    assert not any("K-major" in n for n in _gemm_plan().notes)


def test_a_coordinate_that_also_reaches_the_address_directly_still_separates_tiles():
    # the expert picks a slab, and pid_m its row block within it: every (m, n) reads a block of its own
    experts = np.repeat(np.arange(4, dtype=np.int32), 16)
    w, out = TensorSpec((4, 64 * 64, 1024), "float16"), TensorSpec((64 * 64, 1024), "float16")
    ids = TensorSpec((64,), "int32", values=experts)
    plan = FE.plan(k.expert_weight_rows, ((64, 8), w, ids, out, 1024), dict(K=64, BN=128), HW)
    keys = plan.tensor("w_ptr").block_keys
    assert keys is not None and len(np.unique(keys)) == 64 * 8


@triton.jit
def _dot_scaled_kernel(
    a_ptr, as_ptr, b_ptr, bs_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr
):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    rs = tl.arange(0, BK // 32)
    acc = tl.zeros((BM, BN), tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * (BN * tl.num_programs(1)) + rn[None, :])
        sa = tl.load(as_ptr + rm[:, None] * (K // 32) + (k0 // 32 + rs)[None, :])
        sb = tl.load(bs_ptr + rn[:, None] * (K // 32) + (k0 // 32 + rs)[None, :])
        acc = tl.dot_scaled(a, sa, "e4m3", b, sb, "e4m3", acc)
    tl.store(c_ptr + rm[:, None] * (BN * tl.num_programs(1)) + rn[None, :], acc.to(tl.bfloat16))


def test_dot_scaled_on_hopper_is_an_upcast_and_a_bf16_dot():
    # 256 x 256 x 512 in 128 x 128 x 128 tiles: the dot's K is the operands' (128), not the scales' (4);
    # sm_90 has no scaled MMA, so Triton upcasts both 128 x 128 fp8 tiles to bf16 (a conversion and a scale
    # multiply an element: 2 x (128 x 128 + 128 x 128) operations) and stores B's bf16 tile to shared memory
    f8 = "float8_e4m3fn"
    args = (
        (2, 2),
        TensorSpec((256, 512), f8),
        TensorSpec((256, 16), "uint8"),
        TensorSpec((512, 256), f8),
        TensorSpec((256, 16), "uint8"),
        TensorSpec((256, 256), "bfloat16"),
        512,
    )
    plan = FE.plan(_dot_scaled_kernel, args, dict(BM=128, BN=128, BK=128, num_warps=8, num_stages=3), HW)
    (dot,) = _find(plan.body, ActionKind.DOT)
    assert dot.shape == (128, 128, 128) and dot.dtype == "bfloat16"
    (up,) = [a for a in _find(plan.body, ActionKind.ELEMENTWISE) if a.name in dot.deps]
    assert up.flops == 2 * (128 * 128 + 128 * 128)
    assert up.smem_bytes == 128 * 128 * 2
    assert any("tt.dot_scaled" in n and "bfloat16" in n for n in plan.notes)


def test_loads_that_come_back_within_a_loop_are_rereads():
    # 264 programs, 256 steps of 1024-float blocks: x a new block every step, w the program's own block every
    # step (period 1: read afresh in 1 of 256 steps), v one of 4 blocks in turn (period 4: 4 of 256)
    p, n, b = 264, 256, 1024
    args = (
        (p,),
        TensorSpec((p * n * b,), "float32"),
        TensorSpec((p * b,), "float32"),
        TensorSpec((p * 4 * b,), "float32"),
        TensorSpec((p * b,), "float32"),
        n,
        4,
    )
    plan = FE.plan(k.step_loads, args, dict(BLOCK=b), HW)
    loads = {a.tensor: a for a, _ in plan.actions() if a.kind is ActionKind.LOAD}
    assert loads["x_ptr"].rereads == () and loads["x_ptr"].fresh_steps == 1.0
    assert loads["w_ptr"].rereads == ((1, 1.0),) and loads["w_ptr"].fresh_steps == pytest.approx(1 / 256)
    assert loads["v_ptr"].rereads == ((4, 1.0),) and loads["v_ptr"].fresh_steps == pytest.approx(4 / 256)
    notes = " ".join(plan.notes)
    assert "on w_ptr" in notes and "the same block every step" in notes and "4 blocks in turn" in notes
    # the cache model: x misses, w and v hit (their blocks come back within a few KiB of the wave's reads)
    traffic = SdcmCacheModel().traffic(plan, HW)
    assert traffic.tensors["x_ptr"].l2_hit == 0.0
    assert traffic.tensors["w_ptr"].l2_hit > 0.99 and traffic.tensors["v_ptr"].l2_hit > 0.98
    # the re-reads cost the L2 their share of the tensor, not whole tiles (cache/model.py::_streams says why):
    # w's 264 x 4 KiB spread over its 256 x 264 loads
    assert traffic.tensors["w_ptr"].requested_bytes == pytest.approx(p * b * 4)
    # a pointer the loop carries forward reads a new block every step
    carried = FE.plan(
        k.carried_step_loads, ((p,), TensorSpec((p * n * b,), "float32"), TensorSpec((p * b,), "float32"), n),
        dict(BLOCK=b), HW,
    )  # fmt: skip
    (load,) = [a for a, _ in carried.actions() if a.kind is ActionKind.LOAD]
    assert load.rereads == ()


@pytest.mark.parametrize(
    "n, dtype, block, warps, width, apart",
    [
        # 1024 elements on 128 threads: 8 a thread, 16 bytes of float16; an n of no known divisibility by 16
        # splits them into eight 2-byte accesses whose lanes stay 16 bytes apart (st.global.b16 in the PTX)
        ((1 << 24) - 1, "float16", 1024, 4, 2, 16),
        ((1 << 24) - 1, "float32", 1024, 4, 4, 16),
        # 256 elements on 128 threads: 2 a thread, lanes 4 bytes apart
        ((1 << 24) - 1, "float16", 256, 4, 2, 4),
        # divisible by 16: whole 16-byte vectors, lanes contiguous
        (1 << 24, "float16", 1024, 4, 16, None),
    ],
)
def test_a_mask_that_splits_the_vector_leaves_the_lanes_apart(n, dtype, block, warps, width, apart):
    from tilesight.kernels.triton.vector_add import add_kernel

    x = TensorSpec((n,), dtype)
    grid = (-(-n // block),)
    plan = FE.plan(add_kernel, (grid, x, x, x, n), dict(BLOCK=block, num_warps=warps), HW)
    memory = [act for act, _ in plan.actions() if act.kind in (ActionKind.LOAD, ActionKind.STORE)]
    assert len(memory) == 3
    for act in memory:
        assert (act.vector_bytes, act.lane_stride_bytes) == (width, apart), act.name


@pytest.mark.parametrize(
    ("n", "vector", "apart"), [(1 << 20, 16, None), ((1 << 20) - 1, 2, 16)]
)  # fmt: skip
def test_a_runtime_factor_times_the_block_keeps_the_access_aligned(n, vector, apart):
    # offs = (pid * chunks + i) * 1024 + arange: `chunks` (125) is no multiple of 16, but the address is a
    # multiple of 1024 elements whatever it is, so Triton keeps 16-byte vectors (ld.global.v4.b32 in its PTX)
    # while n is a multiple of 16; n one short splits each thread's 8 elements by the mask: 2-byte accesses
    # whose lanes lie 16 bytes apart
    src = TensorSpec((n,), "float16")
    plan = FE.plan(k.chunk_loop_copy, ((8,), src, src, n, 125), dict(BLOCK=1024), HW)
    for kind in (ActionKind.LOAD, ActionKind.STORE):
        (act,) = [a for a, _ in plan.actions() if a.kind is kind]
        assert (act.vector_bytes, act.lane_stride_bytes) == (vector, apart)


@pytest.mark.parametrize(("stride", "vector"), [(1024, 16), (1025, 2)])
def test_an_aligned_stride_restores_a_row_of_unknown_index(stride, vector):
    # row = pid & row_mask has no known divisibility; times a row stride that is a multiple of 16 the row's
    # start is aligned again (16-byte vectors), times an odd stride it is not (2-byte accesses)
    src = TensorSpec((64, 1024), "float16", (stride, 1))
    plan = FE.plan(k.masked_row_copy, ((64,), src, src, stride, 1024, 63), dict(BLOCK=1024), HW)
    (load,) = [a for a, _ in plan.actions() if a.kind is ActionKind.LOAD]
    assert load.vector_bytes == vector


def test_a_device_print_is_named_in_a_note_not_priced():
    # printf from the device is not modelled: the plan keeps the copy's load and store and says so
    src = TensorSpec((4096,), "float32")
    plan = FE.plan(k.printing_copy, ((4,), src, src, 4096), dict(BLOCK=1024), HW)
    assert [a.kind for a, _ in plan.actions()] == [ActionKind.LOAD, ActionKind.STORE]
    (note,) = [n for n in plan.notes if "device_print" in n]
    assert "triton_fe_kernels.py:" in note and "not modelled" in note


def test_a_scan_across_warps_carries_its_chunk_totals():
    from kernels.triton import scan as sk
    from tilesight.plan import ScanCarry

    # tl.cumsum along a bfloat16 [1024, 32] tile on 8 warps: Triton 3.6-3.9 give it sizePerThread [1, 8],
    # threadsPerWarp [8, 4], warpsPerCTA [8, 1], so each warp-local chunk is 8 rows, 1024 / 8 = 128 chunk
    # totals along the sequence, and each thread carries 32 / 4 = 8 columns (lines); one operand
    x = TensorSpec((16, 1024, 2048), "bfloat16")
    args = ((16, 64), x, x, 1024, 2048)
    plan = FE.plan(sk.cumsum_seq_kernel, args, dict(BLOCK_L=1024, BLOCK_D=32, num_warps=8), HW)
    (scan,) = _find(plan.body, ActionKind.REDUCE)
    assert scan.scan == ScanCarry(steps=128, lines=8, operands=1)
    # the report says what the chain costs: 1,024 loads at the H200's 6.64 ns each, 6.8 us a program
    report = evaluate(plan, HW, cache_model=SdcmCacheModel())
    (note,) = [n for n in report.notes if "chunk totals one after another" in n]
    assert "1024 chunk totals" in note and "(128 along the axis x 8 scan lines x 1 operand)" in note
    assert f"at least {1024 * HW.scan_carry_latency_s * 1e6:.3g} us" in note
    # the linear recurrence scans two operands (a, x) through the same chunks
    rec = FE.plan(
        sk.linear_recurrence_kernel,
        ((16, 64), x, x, x, 1024, 2048),
        dict(BLOCK_L=1024, BLOCK_D=32, num_warps=8),
        HW,
    )
    (scan,) = _find(rec.body, ActionKind.REDUCE)
    assert scan.scan == ScanCarry(steps=128, lines=8, operands=2)
    # a row's cumsum has a whole warp along the axis (its totals read several to a load): no carry chain
    rows = TensorSpec((4096, 4096), "float32")
    plan = FE.plan(
        sk.cumsum_rows_kernel,
        ((4096,), rows, rows, 4096, 4096),
        dict(BLOCK_R=1, BLOCK_C=4096, num_warps=8),
        HW,
    )
    (scan,) = _find(plan.body, ActionKind.REDUCE)
    assert scan.scan is None


def test_scan_carries_read_from_the_layout():
    from tilesight.frontends.triton.layouts import scan_carries

    blocked = (
        "#ttg.blocked<{{sizePerThread = [1, 4], threadsPerWarp = {}, warpsPerCTA = {}, order = [1, 0]}}>"
    )
    pair = "tensor<512x32xf32, #blocked>, tensor<512x32xf32, #blocked>"
    ttgir = "\n".join(
        (
            "#blocked = " + blocked.format("[4, 8]", "[4, 1]"),
            "#blocked1 = " + blocked.format("[1, 32]", "[1, 4]"),
            'module attributes {"ttg.num-warps" = 4 : i32} {',
            "  tt.func public @k() {",
            '    %0:2 = "tt.scan"(%a, %b) <{axis = 0 : i32, reverse = false}> ({',
            "    ^bb0(%p: f32, %q: f32, %r: f32, %s: f32):",
            "      tt.scan.return %p, %q : f32, f32",
            f"    }}) : ({pair}) -> ({pair}) loc(#loc1)",
            '    %1 = "tt.scan"(%c) <{axis = 1 : i32, reverse = false}> ({',
            "    ^bb0(%p: f32, %q: f32):",
            "      tt.scan.return %p : f32",
            "    }) : (tensor<4x512xf32, #blocked1>) -> tensor<4x512xf32, #blocked1> loc(#loc2)",
            "    tt.return",
            "  }",
            "}",
            '#loc1 = loc("k.py":10:5)',
            '#loc2 = loc("k.py":11:5)',
        )
    )
    # axis 0 of 512 rows over chunks of 1 x 4 rows: 128 steps; 32 columns over 8 lanes: 4 lines; 2 operands.
    # The second scan has 32 lanes along its axis (and one warp): no carry chain
    assert dict(scan_carries(ttgir)) == {"k.py:10:5": (128, 4, 2), "k.py:10": (128, 4, 2)}


@triton.jit
def _copy_token_rows(src, dst, HD: tl.constexpr):
    t = tl.program_id(0)
    hd = tl.arange(0, HD)
    tl.store(dst + t * HD + hd, tl.load(src + t * HD + hd))


def test_a_flat_row_copy_moves_the_same_bytes_whatever_shape_describes_the_rows():
    # a token's 8 x 128 bf16 heads copied by arange(0, 1024): 2 KiB a program read and written, whether the
    # tensors are (T, 1024), flat, or (T, 8, 128) / (T, 32, 32); the 3-D ones had their tile cut to one
    # head's 128 elements (a reshape_and_cache-style kernel predicted at half its DRAM roofline)
    reads = set()
    for shape in ((4096, 1024), (4096 * 1024,), (4096, 8, 128), (4096, 32, 32)):
        x = TensorSpec(shape, "bfloat16")
        plan = FE.plan(_copy_token_rows, ((4096,), x, x), dict(HD=1024, num_warps=4), HW)
        t = {a.name: a for a in plan.tensors}
        assert np.prod(t["src"].tile) == np.prod(t["dst"].tile) == 1024
        reads.add(
            tilesight.estimate(_copy_token_rows, (4096,), x, x, hw="h200", HD=1024, num_warps=4).dram_bytes
        )
    assert len(reads) == 1


@triton.jit
def _pipelined_row_scale(x_ptr, y_ptr, n_rows, N, rows_per_prog, BLOCK: tl.constexpr, STAGES: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    r0 = pid * rows_per_prog
    for r in tl.range(r0, tl.minimum(r0 + rows_per_prog, n_rows), num_stages=STAGES):
        x = tl.load(x_ptr + r.to(tl.int64) * N + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + r.to(tl.int64) * N + cols, (x * tl.sum(x * x, axis=0)).to(tl.bfloat16), mask=mask)


@pytest.mark.parametrize("stages", [1, 2, 3])
def test_a_row_offset_the_pipeliner_carries_keeps_the_store_aligned(stages):
    # rows_per_prog (125) is no multiple of 16, so a row's index is not, but its offset r * N is (N = 4096):
    # 16-byte vectors whatever the stages (st.global.v4.b32 in Triton's PTX). At 2+ stages the pipeliner
    # carries that offset from iteration to iteration (an scf.for iter_arg entering as r0 * N, yielded as
    # r' * N); taken as of no known divisibility, the store was split into 2-byte lanes 16 bytes apart, a
    # phantom L2 write-merge phase that nearly doubled the prediction
    x = TensorSpec((16384, 4096), "bfloat16")
    plan = FE.plan(
        _pipelined_row_scale,
        ((132,), x, x, 16384, 4096, 125),
        dict(BLOCK=4096, STAGES=stages, num_warps=8),
        HW,
    )
    (store,) = [a for a, _ in plan.actions() if a.kind is ActionKind.STORE]
    assert (store.vector_bytes, store.lane_stride_bytes) == (16, None)


@triton.jit
def _fp32_gemm(
    a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, PREC: tl.constexpr
):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
        b = tl.load(b_ptr + rk[:, None] * 1024 + rn[None, :])
        acc = tl.dot(a, b, acc, input_precision=PREC)
    tl.store(c_ptr + rm[:, None] * 1024 + rn[None, :], acc)


def test_a_tf32x3_dot_runs_three_tf32_mmas():
    # input_precision="tf32x3" splits each fp32 operand into a TF32 high part and the remainder and runs three
    # warpgroup MMAs at the dot's location (hi x hi, hi x lo, lo x hi): three times the tensor-core work of
    # the plain tf32 dot, plus the split (a conversion and a subtraction an element of each operand: 2 x
    # (128 x 32 + 32 x 128) a K step); it was counted as one MMA and predicted faster than plain tf32
    f = TensorSpec((1024, 1024), "float32")
    meta = dict(BM=128, BN=128, BK=32, num_warps=8, num_stages=3)
    dots = {}
    for prec in ("tf32", "tf32x3"):
        plan = FE.plan(_fp32_gemm, ((8, 8), f, f, f, 1024), dict(meta, PREC=prec), HW)
        (loop,) = [n for n in plan.body if isinstance(n, Loop)]
        (dot,) = [a for a in loop.body if a.kind is ActionKind.DOT]
        dots[prec] = dot
        split = [a for a in loop.body if a.kind is ActionKind.ELEMENTWISE and a.name in dot.deps]
        assert sum(a.flops for a in split) == (2 * (128 * 32 + 32 * 128) if prec == "tf32x3" else 0)
        # ... and the split B's high and low parts stored back to shared memory for the MMAs (the TTGIR's
        # local_alloc at the dot: at least the two 32 x 128 fp32 parts, bank conflicts on top)
        assert sum(a.smem_bytes or 0 for a in split) >= (2 * 32 * 128 * 4 if prec == "tf32x3" else 0)
    assert dots["tf32x3"].flops == 3 * dots["tf32"].flops == 3 * 2 * 128 * 128 * 32


@pytest.mark.parametrize(("loaded", "vector"), [(False, 16), (True, 2)])
def test_a_mask_at_a_loaded_length_makes_row_accesses_element_wide(loaded, vector):
    # Every integer argument is divisible by 16, but a mask `cols < n` with n read from memory has no known
    # alignment: Triton's lowering issues one 2-byte access per element (ld.global.b16 / st.global.b16 in
    # its PTX for sm_90); at the argument N the row keeps 16-byte vectors (ld.global.v4.b32).
    x, y = TensorSpec((64, 1024), "float16"), TensorSpec((64, 1024), "float16")
    lens = TensorSpec((64,), "int32", values=np.full(64, 1000, dtype=np.int32))
    plan = FE.plan(k.rows_to_loaded_length, ((64,), x, y, lens, 1024), dict(LOADED=loaded, BLOCK=1024), HW)
    widths = {a.tensor: a.vector_bytes for a in _find(plan.body, ActionKind.LOAD) if a.tensor != "lens_ptr"}
    (store,) = _find(plan.body, ActionKind.STORE)
    assert widths == {"x_ptr": vector} and store.vector_bytes == vector


def test_a_mask_of_one_scalar_test_keeps_the_rows_vectors_whole():
    # `mask=r < n_rows` compares the row index, not the columns: the TTGIR splats one i1 over the row, whose
    # constancy is the whole tile, so Triton's lowering keeps 16-byte vectors (getMaskAlignment reads the
    # mask's constancy) although `r` (a program id plus the loop counter) has no known divisibility. Read as
    # the comparison's divisibility, each thread's 16 bytes went as 2-byte accesses 16 bytes apart, and the
    # store was charged the L2's partial-word merges: 268 us where the GPU took 75 (the survey's
    # rows_weight_reload, benchmarks/data/survey_triton/reread_h200.jsonl)
    x = TensorSpec((8192, 1024), "float16")
    plan = FE.plan(k.rows_masked_by_row, ((512,), x, x, 8192), dict(ROWS=16, N=1024), HW)
    memory = [*_find(plan.body, ActionKind.LOAD), *_find(plan.body, ActionKind.STORE)]
    assert len(memory) == 2
    for act in memory:
        assert (act.vector_bytes, act.lane_stride_bytes) == (16, None), act.name


@pytest.mark.parametrize(("n_cols", "vector"), [(4096, 16), (4095, 2)])
def test_a_remainder_by_an_aligned_length_keeps_the_vector(n_cols, vector):
    # bias[i % n_cols]: the remainder is a multiple of whatever divides both i's start (1024) and n_cols
    # (AxisInfo's gcd), so at n_cols 4096 (specialised as divisible by 16) Triton's LLVM IR loads the bias
    # 16 bytes a thread (ld.global.v4.b32, as benchmarks/vector_check.py reads it); at 4095 one element
    x, bias = TensorSpec((1 << 20,), "float16"), TensorSpec((n_cols,), "float16")
    plan = FE.plan(k.flat_bias_add, ((1024,), x, bias, x, 1 << 20, n_cols), dict(BLOCK=1024), HW)
    widths = {a.tensor: a.vector_bytes for a in _find(plan.body, ActionKind.LOAD)}
    assert widths == {"bias_ptr": vector, "x_ptr": 16}


def test_a_store_in_a_loop_keeps_its_vector_whatever_a_later_reduction_names_its_values():
    # The TTGIR printer reuses value names in sibling regions: the tl.sum combiner after the loop defines a
    # `%N` the loop body also defines (the store's address). Read from one table for the whole function,
    # the store's address resolved to the combiner's float add, of no known alignment, and the store went
    # element-wide (2 bytes); Triton's PTX stores 16-byte vectors (st.global.v4.b32).
    x, dx = TensorSpec((32, 8192), "float16"), TensorSpec((32, 8192), "float16")
    plan = FE.plan(
        k.row_loop_then_sum, ((32,), x, dx, TensorSpec((32,), "float32"), 8192, 8192), dict(BLOCK=2048), HW
    )
    (store,) = [a for a in _find(plan.body, ActionKind.STORE) if a.tensor == "dx_ptr"]
    (load,) = [a for a in _find(plan.body, ActionKind.LOAD) if a.tensor == "x_ptr"]
    assert store.vector_bytes == load.vector_bytes == 16


@pytest.mark.parametrize(
    ("fn", "meta", "scattered"),
    [
        (k.scatter_add, dict(BLOCK=1024, ROWS=False), True),  # a bincount: each lane its own bin
        (k.scatter_add, dict(BLOCK=1024, ROWS=True), False),  # an embedding backward: a row a program
        (k.scatter_add_2d, dict(BR=16, BH=64, LANES=False), False),  # loaded rows, contiguous columns
        (k.scatter_add_2d, dict(BR=16, BH=64, LANES=True), True),  # loaded columns
    ],
)
def test_an_atomic_at_lane_by_lane_loaded_addresses_is_a_scatter(fn, meta, scattered):
    from tilesight.plan import SCATTER_ATOMIC

    idx = TensorSpec((4096,), "int32", values=np.arange(4096, dtype=np.int32) % 512)
    src, out = TensorSpec((4096, 64), "float32"), TensorSpec((512, 64), "float32")
    args = (idx, src, out, 64)
    plan = FE.plan(fn, ((64,), *args), meta, HW)
    (atomic,) = _find(plan.body, ActionKind.STORE)
    assert (atomic.variant == SCATTER_ATOMIC) is scattered
    # the action keeps its lanes, whatever part of the target its tile covers
    assert math.prod(atomic.shape) == (1024 if fn is k.scatter_add else 16 * 64)


def test_a_float_atomic_max_is_one_atomic_a_program_on_its_word():
    # Triton lowers a float atomic_max to an integer max where the value is non-negative and an unsigned
    # min where it is negative (two tt.atomic_rmw at one location): each program makes one of them, so one
    # action of one element; 1,024 programs on one float word are a chain of 1,024 atomics
    x, amax = TensorSpec((1 << 20,), "float32"), TensorSpec((1,), "float32")
    plan = FE.plan(k.block_amax, ((1024,), x, amax), dict(BLOCK=1024), HW)
    (atomic,) = _find(plan.body, ActionKind.STORE)
    assert atomic.shape == (1,) and plan.tensor(atomic.tensor).shape == (1,)
    report = tilesight.estimate(k.block_amax, (1024,), x, amax, hw="h200", BLOCK=1024)
    assert report.latency_s >= 1024 * HW.atomic_same_address_s + HW.launch_overhead_s


@pytest.mark.parametrize(("shift", "vector"), [(0, 16), (3, 2)])
def test_a_mask_along_a_tiles_fastest_axis_narrows_its_vector_a_row_mask_does_not(shift, vector):
    # src = columns - 3 has no known alignment: `src[None, :] >= 0` keeps or drops single columns, and
    # Triton's PTX loads the tile one 2-byte element at a time (ld.global.b16); at shift 0 it loads 16-byte
    # vectors. The store's mask `rd[:, None] < BD` runs along the rows only: 16 bytes either way.
    x, y = TensorSpec((64, 4096), "float16"), TensorSpec((64, 4096), "float16")
    plan = FE.plan(k.shifted_tap, ((32,), x, y, 4096), dict(SHIFT=shift, BD=64, BL=128), HW)
    (load,) = _find(plan.body, ActionKind.LOAD)
    (store,) = _find(plan.body, ActionKind.STORE)
    assert load.vector_bytes == vector and store.vector_bytes == 16


def test_a_dot_split_into_k_chunks_is_one_pass():
    # Triton 3.9 runs a dot whose A sits in registers as warpgroup MMAs over K slices of B (two
    # ttng.warp_group_dot at the dot's location, each reading a memdesc_subslice of 32 of B's 64 rows). Read
    # as two passes (tf32x3's form) it doubled the tensor-core work and added a split of both operands an
    # iteration: the regs_a probe's chain at 64 x 16 x 64 predicted 527 us where the H200 took 170
    # (benchmarks/data/calibration_regs_a.json). One pass: 2 x 64 x 16 x 64 flops an iteration, no split.
    a, b = TensorSpec((64, 64), "float32"), TensorSpec((64, 16), "float16")
    out = TensorSpec((132 * 64 * 16,), "float32")
    plan = FE.plan(
        k.register_a_dot_chain, ((132,), a, b, out, 100), dict(BM=64, BN=16, BK=64, num_warps=4), HW
    )
    (loop,) = [n for n in plan.body if isinstance(n, Loop)]
    (dot,) = [act for act in loop.body if act.kind is ActionKind.DOT]
    assert dot.mma_a_registers
    assert dot.flops == 2 * 64 * 16 * 64
    assert [act for act in loop.body if act.kind is ActionKind.ELEMENTWISE] == []


@pytest.mark.parametrize("dots", [1, 2, 3])
def test_dots_a_static_range_unrolls_at_one_location_are_each_one_pass(dots):
    # The unrolled dots share their source location (line and column), as tf32x3's three MMAs do; counted as
    # passes of one dot, two dots were each charged twice (the tile_loop probe's two-dot loop predicted 497 us
    # where the H200 took 226, benchmarks/data/calibration_tile_loop.json). The TTIR has one tt.dot a pass
    # there: DOTS dots of 2 x 128 x 128 x 32 flops each
    a, b = TensorSpec((128, 1024), "float16"), TensorSpec((1024, 128), "float16")
    out = TensorSpec((128, 128), "float32")
    plan = FE.plan(
        k.unrolled_dots, ((1,), a, b, out, 1024, 128), dict(BM=128, BN=128, BK=32, DOTS=dots, num_warps=4), HW
    )
    (loop,) = [n for n in plan.body if isinstance(n, Loop)]
    found = [act for act in loop.body if act.kind is ActionKind.DOT]
    assert len(found) == dots
    assert [d.flops for d in found] == [2 * 128 * 128 * 32] * dots


@pytest.mark.parametrize("f", [0.0, 2.0])
def test_a_branch_on_a_float_argument_is_read(f):
    # `if f != 0:` is `arith.cmpf une` (a KeyError inside the walker before); either way the program reads
    # and writes its 256 fp32 elements once: 4096 programs x 1 KB each way
    x, y = TensorSpec((1 << 20,), "float32"), TensorSpec((1 << 20,), "float32")
    plan = FE.plan(k.scale_unless_zero, ((4096,), x, y, 1 << 20, f), dict(BLOCK=256), HW)
    assert plan.grid.blocks == 4096
    moved = {act.kind: plan.tensor(act.tensor).tile_bytes for act in plan.body if act.tensor is not None}
    assert moved == {ActionKind.LOAD: 1024, ActionKind.STORE: 1024}


def test_values_an_if_chooses_per_program_are_each_programs_own():
    # pid_y 0 copies elements [0, n), pid_y 1 [n, 2n): 2n distinct elements read and written, as the kernel
    # computing its offset says (the if's majority branch gave every program off_a: half the reads hit L2).
    # The times differ: Triton cannot vectorise the offset the if chooses (2-byte stores, lanes apart)
    n = 1 << 22
    x, y = TensorSpec((2 * n,), "float16"), TensorSpec((2 * n,), "float16")
    args = ((n // 1024, 2), x, y, 0, n, n, n)
    picked = tilesight.estimate(k.pick_rows, *args, hw=HW, BLOCK=1024)
    direct = tilesight.estimate(k.pick_rows_direct, *args, hw=HW, BLOCK=1024)
    assert picked.dram_bytes == pytest.approx(direct.dram_bytes, rel=1e-6)
    assert picked.l2_hit_rate == pytest.approx(direct.l2_hit_rate, abs=1e-9)


def test_a_pointer_argument_chosen_per_program_is_refused_naming_both():
    n = 1 << 20
    a, y = TensorSpec((n,), "float16"), TensorSpec((2 * n,), "float16")
    with pytest.raises(UnsupportedOpError, match=r"pointer argument per program \('b_ptr' and 'a_ptr'\)"):
        FE.plan(k.pick_input, ((n // 1024, 2), a, a, y, n, 2), dict(BLOCK=1024), HW)
    # the same choice in every program (use_b 0: a for all): read as that tensor
    plan = FE.plan(k.pick_input, ((n // 1024, 2), a, a, y, n, 0), dict(BLOCK=1024), HW)
    assert {t.name for t in plan.tensors} == {"a_ptr", "y_ptr"}


def test_a_row_stride_of_zero_reads_one_row_for_every_program():
    # b's address row * 0 + col is the same for every row: its 8 KB row is read from DRAM once and from L2
    # by the other 4095 rows' programs (it was charged as 32 MB, a row a program)
    m = n = 4096
    x, y = TensorSpec((m, n), "float16"), TensorSpec((m, n), "float16")
    grid = (m * n // 512,)
    row, rows = TensorSpec((m, n), "float16", (0, 1)), TensorSpec((m, n), "float16")
    bcast = FE.plan(k.add_rows, (grid, x, row, y, n, 0, n, n), dict(BLOCK=512), HW)
    full = FE.plan(k.add_rows, (grid, x, rows, y, n, n, n, n), dict(BLOCK=512), HW)
    b = {t.name: t for t in bcast.tensors}["b_ptr"]
    b_full = {t.name: t for t in full.tensors}["b_ptr"]
    assert len(b.reuse_dims) == len(b_full.reuse_dims) + 1  # the rows reuse b's tiles
    traffic = SdcmCacheModel().traffic(bcast, HW)
    assert traffic.tensors["b_ptr"].ddr_bytes == pytest.approx(n * 2, rel=0.05)


@triton.jit
def _slot_gather_dot(q_ptr, k_ptr, slots_ptr, out_ptr, n_slots, D: tl.constexpr, BLOCK_N: tl.constexpr):
    # SGLang's decode shape: K^T read from a (slots, H, D) cache at loaded slot numbers, one head a program
    head = tl.program_id(0)
    offs_d = tl.arange(0, D)
    q = tl.load(q_ptr + head * D + offs_d)
    acc = tl.zeros((BLOCK_N,), tl.float32)
    for start in range(0, n_slots, BLOCK_N):
        kv_loc = tl.load(slots_ptr + start + tl.arange(0, BLOCK_N))
        k = tl.load(k_ptr + kv_loc[None, :] * (8 * D) + head * D + offs_d[:, None])  # D x BLOCK_N
        acc += tl.sum(q[:, None].to(tl.float32) * k.to(tl.float32), axis=0)
    tl.store(out_ptr + head * BLOCK_N + tl.arange(0, BLOCK_N), acc)


def test_a_gathered_transposed_tile_covers_its_rows_and_their_features():
    # 32 slots x 128 features of one head a step: 8 KB (the tile's axes onto the innermost dimensions gave
    # 1 x 8 x 32, 512 B); over 64 steps and 8 heads, every gathered row's bytes
    slots = np.random.default_rng(0).permutation(4096).astype(np.int32)[:2048]
    q, cache = TensorSpec((8, 128), "bfloat16"), TensorSpec((4096, 8, 128), "bfloat16")
    out = TensorSpec((8, 32), "float32")
    plan = FE.plan(_slot_gather_dot, ((8,), q, cache, slots, out, 2048), dict(D=128, BLOCK_N=32), HW)
    t = plan.tensor("k_ptr")
    assert t.indirect and t.tile == (32, 1, 128) and t.tile_bytes == 32 * 128 * 2
    report = evaluate(plan, HW)
    (load_k,) = [a for a in report.actions if a.name == "load_k_ptr"]
    assert load_k.bytes == 8 * 64 * 32 * 128 * 2

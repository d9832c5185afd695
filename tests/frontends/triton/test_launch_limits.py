"""Triton kernels at the edges of what the walker reads: 1024-thread blocks (the register file caps each
thread), ``tl.debug_barrier``, program-dependent ifs and early returns, scalar accesses."""

import pytest

triton = pytest.importorskip("triton")
import triton.language as tl  # noqa: E402
from tilesight.frontends.triton.registers import (  # noqa: E402
    ELEMENTWISE_OVERHEAD,
    REGISTER_BYTES,
    SPILL_FRAME_PER_EXCESS,  # noqa: E402
)
from triton.language.extra.cuda import gdc_launch_dependents, gdc_wait  # noqa: E402

import tilesight  # noqa: E402
from tilesight import TensorSpec  # noqa: E402

HW = "h200"


@triton.jit
def _row_softmax(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * n_cols + offs, e / tl.sum(e, axis=0), mask=offs < n_cols)


@triton.jit
def _scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr, BARRIER: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    if BARRIER:
        tl.debug_barrier()
    tl.store(y_ptr + offs, x * 2, mask=offs < n)


def _plan(fn, grid, *args, **meta):
    from tilesight.frontends import find_frontend

    from tilesight.hardware import load_profile

    return find_frontend(fn).plan(fn, (grid, *args), meta, load_profile(HW))


def test_a_1024_thread_block_gets_64_registers_a_thread_and_spills_the_rest():
    # a 65536-wide fp32 row over 32 warps: 64 values a thread + 16 overhead = 80 registers estimated; ptxas
    # fits 1024 threads in the 65536-register file with 64 each, so 16 spill: 16 x 4 B x 2.6 = 166 B (the
    # estimate's own figure: "auto" would ask ptxas, the estimate being over the limit)
    x = TensorSpec((256, 65536), "float32")
    plan = _plan(_row_softmax, (256,), x, x, 65536, BLOCK=65536, num_warps=32, registers="estimate")
    assert ELEMENTWISE_OVERHEAD + 65536 // 1024 == 80
    assert plan.resources.threads == 1024 and plan.resources.regs_per_thread == 64
    assert plan.resources.spill_bytes_per_thread == round(16 * REGISTER_BYTES * SPILL_FRAME_PER_EXCESS)
    assert (
        tilesight.estimate(_row_softmax, (256,), x, x, 65536, BLOCK=65536, num_warps=32, hw=HW).latency_s > 0
    )


def test_debug_barrier_adds_no_work():
    x = TensorSpec((1 << 20,), "float32")
    plain = tilesight.estimate(_scale, (1024,), x, x, 1 << 20, BLOCK=1024, BARRIER=False, hw=HW)
    fenced = tilesight.estimate(_scale, (1024,), x, x, 1 << 20, BLOCK=1024, BARRIER=True, hw=HW)
    assert fenced.latency_s == pytest.approx(plain.latency_s)


@triton.jit
def _qk_rows(q_ptr, k_ptr, n_heads_k, D: tl.constexpr):
    # one program per (row, head): every head scales its Q row, the first n_heads_k heads their K row too
    row = tl.program_id(0)
    head = tl.program_id(1)
    offs = tl.arange(0, D)
    q = tl.load(q_ptr + (row * 32 + head) * D + offs)
    tl.store(q_ptr + (row * 32 + head) * D + offs, q * 2)
    if head < n_heads_k:
        k = tl.load(k_ptr + (row * n_heads_k + head) * D + offs)
        tl.store(k_ptr + (row * n_heads_k + head) * D + offs, k * 2)


def test_an_if_some_programs_take_is_that_share_of_its_work():
    q = TensorSpec((64, 32, 1024), "float16")
    k = TensorSpec((64, 8, 1024), "float16")
    plan = _plan(_qk_rows, (64, 32), q, k, 8, D=1024)
    (guard,) = [n for n in plan.body if hasattr(n, "trips")]
    # 8 of the 32 heads take it: one iteration in those programs, none in the others (launch order: x fastest)
    assert guard.mean_trips == pytest.approx(0.25)
    assert guard.trips_by_program == tuple(int(h < 8) for h in range(32) for _ in range(64))
    assert {a.kind for a in guard.body} >= {tilesight.plan.ActionKind.LOAD, tilesight.plan.ActionKind.STORE}
    assert any("taken by 25% of the programs" in n for n in plan.notes)


@triton.jit
def _rows_with_early_return(x_ptr, n_rows, D: tl.constexpr):
    row = tl.program_id(0)
    if row >= n_rows:
        return
    offs = tl.arange(0, D)
    x = tl.load(x_ptr + row * D + offs)
    tl.store(x_ptr + row * D + offs, x * 2)


def test_an_early_return_leaves_the_work_to_the_programs_that_stay():
    x = TensorSpec((4096, 8192), "float16")
    everyone = _plan(_rows_with_early_return, (4096,), x, 4096, D=8192)
    quarter = _plan(_rows_with_early_return, (4096,), x, 1024, D=8192)
    # every program stays: the plain program; a quarter of them: the rest of the kernel as a one-iteration
    # guard those 1024 programs take
    assert not [n for n in everyone.body if hasattr(n, "trips")]
    (guard,) = [n for n in quarter.body if hasattr(n, "trips")]
    assert guard.mean_trips == pytest.approx(0.25) and sum(guard.trips_by_program) == 1024
    assert any("early return" in n for n in quarter.notes)
    fast = tilesight.estimate(_rows_with_early_return, (4096,), x, 1024, D=8192, hw=HW).latency_s
    assert fast < tilesight.estimate(_rows_with_early_return, (4096,), x, 4096, D=8192, hw=HW).latency_s


@triton.jit
def _row_loss(x_ptr, y_ptr, loss_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    label = tl.load(y_ptr + row)  # a scalar int64 load, as a cross-entropy kernel reads its target
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0)
    tl.store(loss_ptr + row, tl.sum(x, axis=0) + label.to(tl.float32))


def test_scalar_accesses_keep_their_own_element_type():
    x = TensorSpec((1024, 4096), "bfloat16")
    plan = _plan(
        _row_loss, (1024,), x, TensorSpec((1024,), "int64"), TensorSpec((1024,), "float32"), 4096, BLOCK=4096
    )
    assert not [n for n in plan.notes if " reads " in n]  # no "kernel reads float32 from a int64 tensor"
    assert plan.tensor("y_ptr").tile == (1,) and plan.tensor("loss_ptr").tile == (1,)


@triton.jit
def _varlen_sum(x_ptr, lens_ptr, starts_ptr, out_ptr, D: tl.constexpr, BLOCK: tl.constexpr):
    seq = tl.program_id(0)
    n = tl.load(lens_ptr + seq)  # a variable-length batch: each program's length is read from memory
    start = tl.load(starts_ptr + seq)
    acc = tl.zeros((D,), dtype=tl.float32)
    for i in range(0, n, BLOCK):
        rows = start + i + tl.arange(0, BLOCK)
        mask = (i + tl.arange(0, BLOCK))[:, None] < n
        x = tl.load(x_ptr + rows[:, None] * D + tl.arange(0, D)[None, :], mask=mask, other=0.0)
        acc += tl.sum(x.to(tl.float32), axis=0)
    tl.store(out_ptr + seq * D + tl.arange(0, D), acc)


def test_loop_bounds_loaded_from_a_tensor_whose_values_are_given():
    import numpy as np

    from tilesight.errors import FrontendError

    lens = np.array([128, 4096, 1024, 64], dtype=np.int32)
    starts = np.concatenate([[0], np.cumsum(lens)[:-1]]).astype(np.int32)
    x = TensorSpec((int(lens.sum()), 128), "float16")
    out = TensorSpec((4, 128), "float32")
    # the loop runs ceil(len / 64) times per program: 2, 64, 16, 1 (mean 20.75), read from the arrays
    plan = _plan(_varlen_sum, (4,), x, lens, starts, out, D=128, BLOCK=64)
    (loop,) = [n for n in plan.body if hasattr(n, "trips")]
    assert loop.mean_trips == pytest.approx(20.75) and loop.trips_by_program == (2, 64, 16, 1)
    spec = TensorSpec((4,), "int32", values=lens)
    assert _plan(_varlen_sum, (4,), x, spec, starts, out, D=128, BLOCK=64).body == plan.body
    # without the values the walker cannot know the lengths, and says how to give them
    bare = TensorSpec((4,), "int32")
    with pytest.raises(FrontendError, match="pass that tensor's contents"):
        _plan(_varlen_sum, (4,), x, bare, bare, out, D=128, BLOCK=64)


@triton.jit
def _varlen_cu_sum(x_ptr, cu_ptr, out_ptr, D: tl.constexpr, BLOCK: tl.constexpr):
    seq = tl.program_id(0)
    start = tl.load(cu_ptr + seq)
    n = tl.load(cu_ptr + seq + 1) - start  # cumulative offsets: the next entry (a second addptr) ends it
    acc = tl.zeros((D,), dtype=tl.float32)
    for i in range(0, n, BLOCK):
        rows = start + i + tl.arange(0, BLOCK)
        mask = (i + tl.arange(0, BLOCK))[:, None] < n
        x = tl.load(x_ptr + rows[:, None] * D + tl.arange(0, D)[None, :], mask=mask, other=0.0)
        acc += tl.sum(x.to(tl.float32), axis=0)
    tl.store(out_ptr + seq * D + tl.arange(0, D), acc)


def test_cumulative_offsets_read_at_the_program_and_the_next_entry():
    # cu_seqlens = [0, 128, 4224, 5248, 5312]: lengths 128, 4096, 1024, 64 -> 2, 64, 16, 1 trips of 64 rows
    # (the element after the program's own, ``cu + seq + 1``, reads the given contents too)
    import numpy as np

    cu = np.array([0, 128, 4224, 5248, 5312], dtype=np.int32)
    x, out = TensorSpec((5312, 128), "float16"), TensorSpec((4, 128), "float32")
    plan = _plan(_varlen_cu_sum, (4,), x, cu, out, D=128, BLOCK=64)
    (loop,) = [n for n in plan.body if hasattr(n, "trips")]
    assert loop.trips_by_program == (2, 64, 16, 1)


@triton.jit
def _ignore_or_grad(x_ptr, labels_ptr, V, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    label = tl.load(labels_ptr + row)
    if label < 0:  # an ignored row: its gradient is zero, and the program stops there
        tl.store(x_ptr + row * V + tl.arange(0, BLOCK), tl.zeros((BLOCK,), tl.float16))
        return
    x = tl.load(x_ptr + row * V + tl.arange(0, BLOCK)).to(tl.float32)
    tl.store(x_ptr + row * V + tl.arange(0, BLOCK), (tl.exp(x) * 2.0).to(tl.float16))


def test_work_then_return_runs_each_branch_in_its_share_of_the_programs():
    # 8 rows, 2 ignored (label -1): the branch that stores zeros and returns runs in 2 / 8 of the programs,
    # the fall-through (a load, exp, store) in 6 / 8; without the labels' contents every program takes the
    # fall-through, and a note says so
    import numpy as np

    from tilesight.plan import Loop

    labels = np.array([3, -1, 0, 7, -1, 2, 2, 5], dtype=np.int32)
    x = TensorSpec((8, 1024), "float16")
    plan = _plan(_ignore_or_grad, (8,), x, labels, 1024, BLOCK=1024)
    shares = sorted(n.mean_trips for n in plan.body if isinstance(n, Loop))
    assert shares == [0.25, 0.75]
    bare = _plan(_ignore_or_grad, (8,), x, TensorSpec((8,), "int32"), 1024, BLOCK=1024)
    assert not [n for n in bare.body if isinstance(n, Loop)]
    assert any("fall-through" in note for note in bare.notes)


@triton.jit
def _hash_to_float(out_ptr, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    h = (offs * 747796405) ^ seed  # integer values, not addresses: they become the stored floats
    tl.store(out_ptr + offs, h.to(tl.float32))


def test_integer_math_that_becomes_a_value_is_element_work():
    # per element: the offsets' add (the threads compute it once, for the value and the store's address),
    # the multiply and the xor (the seed is a scalar): 3 x 1024 element operations; a tl.rand (Philox: ~70
    # integer operations per element) is counted the same way. The conversion to float is one more op an
    # element, on the SFU pipe (I2F issues where MUFU does, 16 a clock an SM), after the integer work
    from tilesight.plan import ActionKind

    out = TensorSpec((8192,), "float32")
    plan = _plan(_hash_to_float, (8,), out, 7, BLOCK=1024)
    work = [a for a in plan.body if getattr(a, "kind", None) is ActionKind.ELEMENTWISE]
    assert sum(a.flops for a in work) == 3 * 1024
    # ... priced at the FMA rate, not as ALU ops: the three integer ops are independent across a thread's
    # elements (extract.Walker.value_work says why one FMA slot each)
    assert sum(a.alu_ops for a in work) == 0
    (cvt,) = [a for a in plan.body if getattr(a, "kind", None) is ActionKind.SFU]
    assert cvt.flops == 1024 and set(cvt.deps) == {a.name for a in work}


@triton.jit
def _float_to_int8(x_ptr, q_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(q_ptr + offs, (x * 2.0).to(tl.int8))


def test_a_float_to_integer_conversion_is_one_sfu_lane_an_element():
    # .to(tl.int8) of a 1024-element fp32 tile: one F2I a lane (F2I.S16.TRUNC.NTZ in ptxas's SASS for sm_90),
    # issued where I2F and MUFU issue, so 1024 SFU lanes after the multiply's 1024 element operations; it
    # was an ALU op a lane, which left a row quantiser's conversions (validations 46-77's quant_rows, 1.13x
    # slow, median) off the unit that runs them
    from tilesight.plan import ActionKind

    x = TensorSpec((8192,), "float32")
    plan = _plan(_float_to_int8, (8,), x, TensorSpec((8192,), "int8"), BLOCK=1024)
    (mul,) = [a for a in plan.body if getattr(a, "kind", None) is ActionKind.ELEMENTWISE]
    assert mul.flops == 1024 and mul.alu_ops == 0
    (cvt,) = [a for a in plan.body if getattr(a, "kind", None) is ActionKind.SFU]
    assert cvt.flops == 1024 and mul.name in cvt.deps


@triton.jit
def _hash_bits_to_float(out_ptr, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    h = (offs * 747796405) ^ seed
    # the bits reinterpreted twice (tt.bitcast ops in the IR) before the conversion, as Triton 3.6 prints
    # tl.rand's result (an i32 -> i32 tt.bitcast); Triton 3.9 folds that one, so the test makes its own
    tl.store(out_ptr + offs, h.to(tl.float32, bitcast=True).to(tl.int32, bitcast=True).to(tl.float32))


def test_integer_work_behind_a_bitcast_is_still_element_work():
    # the same 3 x 1024 element operations as _hash_to_float: a bitcast moves no bits and issues nothing, so
    # the walk from the conversion back to the integer rounds passes through it (it stopped there, pricing
    # Triton 3.6's tl.rand at nothing: its seeded dropout predicted 2.7x fast)
    from tilesight.plan import ActionKind

    out = TensorSpec((8192,), "float32")
    plan = _plan(_hash_bits_to_float, (8,), out, 7, BLOCK=1024)
    work = [a for a in plan.body if getattr(a, "kind", None) is ActionKind.ELEMENTWISE]
    assert sum(a.flops for a in work) == 3 * 1024
    (cvt,) = [a for a in plan.body if getattr(a, "kind", None) is ActionKind.SFU]
    assert cvt.flops == 1024


@triton.jit
def _varlen_blocks(x_ptr, cu_ptr, out_ptr, BM: tl.constexpr, BN: tl.constexpr):
    m = tl.program_id(0)
    b = tl.program_id(1)
    start = tl.load(cu_ptr + b)
    n = tl.load(cu_ptr + b + 1) - start
    if m * BM >= n:  # a query block past its sequence's end
        return
    acc = tl.zeros((BN,), tl.float32)
    for j in range(0, n, BN):
        cols = j + tl.arange(0, BN)
        acc += tl.load(x_ptr + start + cols, mask=cols < n, other=0.0).to(tl.float32)
    tl.store(out_ptr + (b * 4 + m) * BN + tl.arange(0, BN), acc)


def test_a_loop_past_an_early_return_averages_over_the_programs_that_reach_it():
    # sequences of 64 and 256: of the 4 x 2 programs, 1 + 4 = 5 reach the loop, which runs 1 and 4 trips of
    # 64: the programs that run it average (1 x 1 + 4 x 4) / 5 = 3.4 trips (over all 8 it would be 2.5)
    import numpy as np

    from tilesight.plan import Loop

    cu = np.array([0, 64, 320], dtype=np.int32)
    x, out = TensorSpec((320,), "float16"), TensorSpec((512,), "float32")
    plan = _plan(_varlen_blocks, (4, 2), x, cu, out, BM=64, BN=64)
    (guard,) = [n for n in plan.body if isinstance(n, Loop)]
    (loop,) = [n for n in guard.body if isinstance(n, Loop)]
    assert guard.mean_trips == pytest.approx(5 / 8) and loop.mean_trips == pytest.approx(3.4)


@triton.jit
def _asm_map(x_ptr, y_ptr, TANH: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    if TANH:
        y = tl.inline_asm_elementwise(
            "tanh.approx.f32 $0, $1;", "=r,r", [x], dtype=tl.float32, is_pure=True, pack=1
        )
    else:
        y = tl.inline_asm_elementwise(
            "{ .reg .f32 t; add.f32 t, $1, $1; mul.f32 $0, t, t; }",
            "=r,r",
            [x],
            dtype=tl.float32,
            is_pure=True,
            pack=1,
        )
    tl.store(y_ptr + offs, y)


def test_inline_asm_runs_its_instructions_per_element():
    # tanh.approx is a MUFU instruction: 1024 special-function operations per block; an add and a multiply
    # (the register declaration aside) are 2 x 1024 CUDA-core operations
    from tilesight.plan import ActionKind

    x = TensorSpec((8192,), "float32")
    sfu = _plan(_asm_map, (8,), x, x, TANH=True, BLOCK=1024)
    alu = _plan(_asm_map, (8,), x, x, TANH=False, BLOCK=1024)
    assert [a.flops for a in sfu.body if getattr(a, "kind", None) is ActionKind.SFU] == [1024]
    assert [a.flops for a in alu.body if getattr(a, "kind", None) is ActionKind.ELEMENTWISE] == [2048]
    assert any("inline asm" in n for n in sfu.notes)


def test_a_rotary_embeddings_halves_are_two_side_by_side_regions():
    from tilesight.kernels.triton.rope import rope_kernel

    x = TensorSpec((1024, 32, 128), "float16")
    table = TensorSpec((1024, 64), "float32")
    plan = _plan(rope_kernel, (1024, 4), x, table, table, x, 1024, 32, HEAD_DIM=128, BLOCK_H=8)
    # x + 64 (a pointer tensor moved by a dense constant) is the second half of each head: its own region,
    # so neither half's lines are taken for the other's (they had been: half the reads counted as L2 hits)
    tiles = {t.name: t.tile for t in plan.tensors}
    assert tiles["x_ptr"] == tiles["x_ptr+64"] == (1, 8, 64)
    assert tiles["out_ptr"] == tiles["out_ptr+64"] == (1, 8, 64)
    # side by side, the halves' rows are whole heads: 8 heads x 128 fp16 = 2048 contiguous bytes
    runs = {t.name: t.run_bytes for t in plan.tensors}
    assert runs["x_ptr"] == runs["x_ptr+64"] == 8 * 128 * 2
    assert runs["cos_ptr"] is None  # a single region keeps the tile's own run


@triton.jit
def _block_sparse_sum(x_ptr, mask_ptr, out_ptr, NK: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in range(NK):
        if tl.load(mask_ptr + row * NK + k) != 0:  # a block mask read at the loop counter
            x = tl.load(
                x_ptr
                + k * BLOCK * BLOCK
                + tl.arange(0, BLOCK)[:, None] * BLOCK
                + tl.arange(0, BLOCK)[None, :]
            )
            acc += tl.sum(x.to(tl.float32), axis=0)
    tl.store(out_ptr + row * BLOCK + tl.arange(0, BLOCK), acc)


def test_a_branch_on_a_mask_read_at_the_loop_counter_runs_in_the_share_the_mask_keeps():
    import numpy as np

    mask = np.zeros((4, 8), dtype=np.int32)
    mask[0, :2] = mask[1, :8] = mask[2, :1] = 1  # 11 of the 32 (program, step) pairs
    x, out = TensorSpec((8 * 64, 64), "float16"), TensorSpec((4, 64), "float32")
    plan = _plan(_block_sparse_sum, (4,), x, mask, out, NK=8, BLOCK=64)
    (loop,) = [n for n in plan.body if hasattr(n, "body")]
    guard = next(n for n in loop.body if hasattr(n, "body"))
    assert loop.trips == 8 and guard.mean_trips == pytest.approx(11 / 32)
    assert any("taken by 34% of the programs" in n for n in plan.notes)


@triton.jit
def _routed_rows(x_ptr, y_ptr, n_ptr, expert_ptr, D: tl.constexpr):
    # fused MoE's two guards: programs past the padded token count return; a row routed to no expert (-1)
    # writes zeros and returns; the others scale their row
    row = tl.program_id(0)
    if row >= tl.load(n_ptr):
        return
    offs = row * D + tl.arange(0, D)
    if tl.load(expert_ptr + row) == -1:
        tl.store(y_ptr + offs, tl.zeros((D,), tl.float16))
        return
    tl.store(y_ptr + offs, tl.load(x_ptr + offs) * 2)


def test_a_second_early_return_is_read_inside_the_first_ones_share():
    # 8 rows, 6 below the count; of those 6, rows 1 and 4 route to no expert: the zeroing branch runs in 2 of
    # the 6 programs that stay (2 / 8 of all), the scaling one in 4 of 6 (4 / 8); both inside the first
    # guard's share of 6 / 8. Was "cf.cond_br (branching other than an early return)" at the first `if`
    import numpy as np

    from tilesight.plan import ActionKind, Loop

    experts = np.array([0, -1, 3, 2, -1, 1, 7, -1], dtype=np.int32)
    x, y = TensorSpec((8, 1024), "float16"), TensorSpec((8, 1024), "float16")
    plan = _plan(_routed_rows, (8,), x, y, np.array([6], np.int32), experts, D=1024)
    (outer,) = [n for n in plan.body if isinstance(n, Loop)]
    assert outer.mean_trips == pytest.approx(6 / 8)
    inner = sorted((n for n in outer.body if isinstance(n, Loop)), key=lambda n: n.mean_trips)
    assert [n.mean_trips for n in inner] == pytest.approx([2 / 6, 4 / 6])
    zeroing, scaling = inner
    assert [a.kind for a in zeroing.body] == [ActionKind.STORE]
    assert sorted(a.kind.value for a in scaling.body) == ["elementwise", "load", "store"]
    # every program's x and y bytes: y written by 6 programs, x read by the 4 that scale
    report = tilesight.estimate(_routed_rows, (8,), x, y, np.array([6], np.int32), experts, D=1024, hw=HW)
    x_read = sum(a.bytes for a in report.actions if a.name.startswith("load_x_ptr"))
    y_written = sum(a.bytes for a in report.actions if a.name.startswith("store_y_ptr"))
    assert x_read == pytest.approx(4 * 1024 * 2)
    assert y_written == pytest.approx(6 * 1024 * 2)


@triton.jit
def _scale_after_wait(x_ptr, y_ptr, n, BLOCK: tl.constexpr, PDL: tl.constexpr):
    if PDL:
        gdc_wait()  # SGLang's fused MoE on Hopper: wait for the kernel before, under programmatic launch
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    if PDL:
        gdc_launch_dependents()
    tl.store(y_ptr + offs, x * 2, mask=offs < n)


def test_programmatic_dependent_launch_adds_nothing_to_a_launch_alone():
    # was "uses 'tt.grid_dependency_wait'": the launch alone has no kernel before it to wait for
    x, y = TensorSpec((1 << 22,), "float16"), TensorSpec((1 << 22,), "float16")
    args = ((4096,), x, y, 1 << 22)
    pdl = tilesight.estimate(_scale_after_wait, *args, BLOCK=1024, PDL=True, hw=HW)
    plain = tilesight.estimate(_scale_after_wait, *args, BLOCK=1024, PDL=False, hw=HW)
    assert pdl.latency_s == plain.latency_s
    assert any("programmatic dependent launch" in n for n in pdl.notes)
    assert not any("programmatic dependent launch" in n for n in plain.notes)


@triton.jit
def _find_seq(cu_ptr, target, n):
    # vLLM's find_seq_idx: a binary search over the cumulative lengths
    left: tl.int32 = 0
    right = n
    while left < right:
        mid = (left + right) // 2
        if tl.load(cu_ptr + mid) <= target:
            left = mid + 1
        else:
            right = mid
    return left - 1


@triton.jit
def _row_of_its_sequence(cu_ptr, w_ptr, y_ptr, n_seqs, D: tl.constexpr):
    tok = tl.program_id(0)
    seq = _find_seq(cu_ptr, tok, n_seqs)
    tl.store(y_ptr + tok * D + tl.arange(0, D), tl.load(w_ptr + seq * D + tl.arange(0, D)))


def test_a_binary_search_runs_per_program_over_the_given_contents():
    # 1024 tokens in 4 sequences: each program finds its sequence and reads that sequence's row of w, so
    # DRAM reads 4 rows of 256 B (with 2 sequences, 2 rows); was "scf.while (a loop other than a spin lock
    # ...)". The search's own scalar loads are left out, with a note
    import numpy as np

    w, y = TensorSpec((4, 128), "float16"), TensorSpec((1024, 128), "float16")

    def rows_read(cu):
        report = tilesight.estimate(_row_of_its_sequence, (1024,), cu, w, y, len(cu) - 1, D=128, hw=HW)
        assert any("while loop" in n and "run per program" in n for n in report.notes)
        return report.dram_bytes / 256

    assert rows_read(np.array([0, 100, 300, 1000, 1024], np.int32)) == pytest.approx(4, abs=0.05)
    assert rows_read(np.array([0, 512, 1024], np.int32)) == pytest.approx(2, abs=0.05)
    with pytest.raises(
        tilesight.errors.UnsupportedOpError,
        match="scf.while over scalars whose steps read data without given",
    ):
        tilesight.estimate(_row_of_its_sequence, (1024,), TensorSpec((5,), "int32"), w, y, 4, D=128, hw=HW)


@triton.jit
def _paged_blocks_of_its_sequence(
    cu_ptr,
    lens_ptr,
    table_ptr,
    x_ptr,
    out_ptr,
    n_seqs,
    PAGES: tl.constexpr,
    PAGE: tl.constexpr,
    TILE: tl.constexpr,
    H: tl.constexpr,
    D: tl.constexpr,
):
    # vLLM's unified attention in small: a program per (query block, head) finds its sequence by binary
    # search over the query blocks' starts, then reads the sequence's paged cache TILE tokens a step, their
    # pages a tile loaded from the sequence's block-table row
    qb = tl.program_id(0)
    head = tl.program_id(1)
    seq = _find_seq(cu_ptr, qb, n_seqs)
    n = tl.load(lens_ptr + seq)
    acc = tl.zeros((D,), tl.float32)
    for j in range(0, n, TILE):
        tok = j + tl.arange(0, TILE)
        page = tl.load(table_ptr + seq * PAGES + tok // PAGE)
        x = tl.load(
            x_ptr
            + page[:, None] * (PAGE * H * D)
            + (tok % PAGE)[:, None] * (H * D)
            + head * D
            + tl.arange(0, D)[None, :]
        )
        acc += tl.sum(x.to(tl.float32), axis=0)
    tl.store(out_ptr + (qb * H + head) * D + tl.arange(0, D), acc)


def test_query_blocks_of_one_sequence_share_its_pages_and_the_search_adds_no_grid_dimension():
    # 8 sequences of 384 tokens, 4 query blocks each, 4 heads: 32 x 4 programs. The grid is (query block,
    # head): the search's bound, recorded at its last step, had been taken as a third grid dimension (8 x 32
    # x 4 tiles for 128 programs). The pages a program reads are its sequence's block-table row, so the 4
    # query blocks of a sequence share them: DRAM reads each page once a head, 8 x 384 x 4 x 64 x 2 bytes
    # (1.57 MB), not 4 times that (keyed by the grid alone) nor one sequence's worth (keyed by the head)
    import numpy as np

    seqs, qblocks, tokens, page, h, d = 8, 4, 384, 16, 4, 64
    cu = np.arange(seqs + 1, dtype=np.int32) * qblocks
    lens = np.full(seqs, tokens, np.int32)
    pages = tokens // page
    table = np.random.default_rng(0).permutation(seqs * pages).reshape(seqs, pages).astype(np.int32)
    x = TensorSpec((seqs * pages, page, h, d), "float16")
    out = TensorSpec((seqs * qblocks, h, d), "float32")
    args = ((seqs * qblocks, h), cu, lens, table, x, out, seqs)
    kw = dict(PAGES=pages, PAGE=page, TILE=32, H=h, D=d)
    plan = _plan(_paged_blocks_of_its_sequence, *args, **kw)
    assert sorted(plan.grid.shape) == [h, seqs * qblocks]
    (cache,) = [t for t in plan.tensors if t.name == "x_ptr"]
    assert cache.tile == (2, 16, 1, 64)  # 32 tokens: 16 slots of two pages
    report = tilesight.estimate(_paged_blocks_of_its_sequence, *args, **kw, hw=HW)
    cache_bytes = seqs * tokens * h * d * 2
    assert report.dram_bytes == pytest.approx(cache_bytes, rel=0.08)


@triton.jit
def _paged_rows(x_ptr, table_ptr, lens_ptr, out_ptr, PAGES: tl.constexpr, H: tl.constexpr, D: tl.constexpr):
    # a paged cache read page by page at the block-table entries of the program's sequence; the last page
    # scaled (an `if` on the counter: the walker takes the loop one lane per program and step)
    seq = tl.program_id(0)
    head = tl.program_id(1)
    n = tl.load(lens_ptr + seq)
    acc = tl.zeros((D,), tl.float32)
    for j in range(0, n):
        page = tl.load(table_ptr + seq * PAGES + j)
        x = tl.load(x_ptr + page * (H * D) + head * D + tl.arange(0, D)).to(tl.float32)
        if j == n - 1:
            x = x * 2.0
        acc += x
    tl.store(out_ptr + (seq * H + head) * D + tl.arange(0, D), acc)


def test_grid_coordinates_first_used_inside_a_loop_taken_step_by_step_stay_one_a_program():
    # 64 sequences x 8 heads, 32-64 pages each at distinct pages of a 4096-page cache: the grid is (seq,
    # head), and each program reads its own pages once, so DRAM reads every page (was: the program id,
    # recorded inside the step-by-step walk with one lane per step, dropped as a coordinate; the grid fell
    # back to one 'program' dimension whose tiles all share the pages: 0.99 of the reads hit L2)
    import numpy as np

    rng = np.random.default_rng(0)
    lens = rng.integers(32, 65, size=64).astype(np.int32)
    table = rng.permutation(4096)[: 64 * 64].reshape(64, 64).astype(np.int32)
    x, out = TensorSpec((4096, 8, 128), "float16"), TensorSpec((64, 8, 128), "float32")
    plan = _plan(_paged_rows, (64, 8), x, table, lens, out, PAGES=64, H=8, D=128)
    assert len(plan.grid.dims) == 2 and plan.grid.shape in ((64, 8), (8, 64))
    report = tilesight.estimate(_paged_rows, (64, 8), x, table, lens, out, PAGES=64, H=8, D=128, hw=HW)
    pages_read = int(lens.sum()) * 8 * 128 * 2
    assert report.dram_bytes >= 0.95 * pages_read

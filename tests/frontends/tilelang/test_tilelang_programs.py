"""TileLang programs launching several kernels (T.Kernel blocks one after another): a KernelSequence."""

import pytest

pytest.importorskip("tilelang")

import tilelang.language as T  # noqa: E402
from tilesight.frontends.tilelang import plan_prim_func  # noqa: E402
from tilesight.frontends.tilelang.walker import walk, walk_all  # noqa: E402

import tilesight  # noqa: E402
from tilesight.errors import FrontendError, UnsupportedOpError  # noqa: E402
from tilesight.hardware import load_profile  # noqa: E402
from tilesight.model.evaluate import evaluate  # noqa: E402
from tilesight.model.sequence import warmed_plans  # noqa: E402
from tilesight.plan import AccessMode, ActionKind, KernelSequence, TilePlan  # noqa: E402

pytestmark = pytest.mark.tilelang

HW = load_profile("h200")


def _split_sum(rows=1024, cols=8192, splits=4, block=256):
    """Row sums in two kernels: partial sums of ``splits`` column slices into a global scratch buffer
    (T.alloc_global), then a kernel adding each row's partials."""
    part = cols // splits

    @T.prim_func
    def main(X: T.Tensor((rows, cols), "float32"), Y: T.Tensor((rows,), "float32")):
        partial = T.alloc_global((rows, splits), "float32")
        with T.Kernel(rows, splits, threads=128) as (bx, by):
            x = T.alloc_fragment((part,), "float32")
            s = T.alloc_fragment((1,), "float32")
            T.copy(X[bx, by * part], x)
            T.reduce_sum(x, s, dim=0)
            partial[bx, by] = s[0]
        with T.Kernel(rows // block, threads=128) as bx:
            acc = T.alloc_fragment((block,), "float32")
            T.clear(acc)
            for k in T.serial(splits):
                for i in T.Parallel(block):
                    acc[i] += partial[bx * block + i, k]
            T.copy(acc, Y[bx * block])

    return main


def test_two_kernels_give_a_sequence_in_launch_order():
    seq = plan_prim_func(_split_sum(), HW)
    assert isinstance(seq, KernelSequence)
    assert seq.name == "main" and [p.name for p in seq.plans] == ["main.kernel0", "main.kernel1"]
    split, combine = seq.plans
    # the split kernel: one block per (row, slice), 1024 x 4 blocks; it reads a 2048-column slice of X and
    # writes one element of the scratch buffer
    assert split.grid.shape == (1024, 4) and split.grid.blocks == 4096
    assert split.tensor("X").tile == (1, 2048) and split.tensor("X").mode is AccessMode.READ
    assert split.tensor("partial").tile == (1, 1) and split.tensor("partial").mode is AccessMode.WRITE
    # the combine kernel: 1024 / 256 = 4 blocks, each reading a 256 x 1 column of the partials per slice
    assert combine.grid.blocks == 4
    part = combine.tensor("partial")
    assert part.mode is AccessMode.READ and part.tile == (256, 1) and part.shape == (1024, 4)
    (load,) = [(a, loops) for a, loops in combine.actions() if a.kind is ActionKind.LOAD]
    assert load[0].tensor == "partial" and [lp.trips for lp in load[1]] == [4]


def test_estimate_of_a_program_adds_its_kernels():
    func = _split_sum()
    seq = plan_prim_func(func, HW)
    r = tilesight.estimate(func, hw="h200")
    plans = warmed_plans(seq, HW)
    parts = [evaluate(p, HW) for p in plans]
    assert r.latency_s == pytest.approx(sum(p.latency_s for p in parts))
    assert [k["kernel"] for k in r.extras["kernels"]] == ["main.kernel0", "main.kernel1"]
    assert r.dram_bytes == pytest.approx(sum(p.dram_bytes for p in parts))
    # the 16 KB of partial sums the first kernel writes are (nearly all) still in L2 when the second reads
    # them: the cache model's chance that a written line survives the kernel's own 32 MB of X reads
    assert plans[0].l2_warm == ()
    ((name, share),) = plans[1].l2_warm
    assert name == "partial" and 0.95 < share <= 1.0
    assert parts[1].dram_bytes < evaluate(seq.plans[1], HW).dram_bytes


def test_one_kernel_program_is_a_plan():
    @T.prim_func
    def main(X: T.Tensor((256, 256), "float16"), Y: T.Tensor((256, 256), "float16")):
        with T.Kernel(4, threads=128) as bx:
            x = T.alloc_shared((64, 256), "float16")
            T.copy(X[bx * 64, 0], x)
            T.copy(x, Y[bx * 64, 0])

    assert isinstance(plan_prim_func(main, HW), TilePlan)
    assert len(walk_all(main)) == 1 and walk(main).name == "main"


def test_walk_refuses_a_program_of_several_kernels():
    with pytest.raises(FrontendError, match="launches 2 kernels"):
        walk(_split_sum())


def test_shared_memory_outside_a_kernel_is_named():
    @T.prim_func
    def main(X: T.Tensor((256,), "float32"), Y: T.Tensor((256,), "float32")):
        scratch = T.alloc_shared((256,), "float32")
        with T.Kernel(1, threads=128) as _:
            T.copy(X[0], scratch)
            T.copy(scratch, Y[0])

    with pytest.raises(UnsupportedOpError, match="scratch.*allocated outside T.Kernel"):
        plan_prim_func(main, HW)


def test_split_kv_mla_decode_combine_kernel():
    from tilesight.kernels.tilelang.mla_decode import mla_decode

    seq = plan_prim_func(mla_decode(1, 128, 4096, num_split=8), HW)
    split, combine = seq.plans
    # the split kernel: 128 / 64 head groups x 1 batch x 8 slices; each slice 4096 / 8 / 32 = 16 steps
    assert split.grid.shape == (2, 1, 8)
    assert split.tensor("partial").mode is AccessMode.WRITE and split.tensor("lse").mode is AccessMode.WRITE
    # the combine kernel: one block per (head, batch); its max and sum loops only gather the 8 slices'
    # log-sum-exps (all 8 loads in flight), its weighted sum reads each slice's 512-wide partial in turn
    assert combine.grid.shape == (128, 1)
    loops = [n for n in combine.body if hasattr(n, "stages")]
    assert [(lp.trips, lp.stages) for lp in loops] == [(8, 8), (8, 8), (8, 1)]
    acts = {a.name: a for a, _ in combine.actions()}
    # the partial's load does not wait for the slice's weight, which only the arithmetic after it reads
    assert acts["load_partial"].deps == ()
    assert combine.tensor("partial").tile == (1, 1, 1, 512)


def test_a_kernel_without_threads_gets_tilelangs_default():
    @T.prim_func
    def main(X: T.Tensor((1024,), "float32"), Y: T.Tensor((1024,), "float32")):
        with T.Kernel(8) as bx:
            x = T.alloc_fragment((128,), "float32")
            T.copy(X[bx * 128], x)
            T.copy(x, Y[bx * 128])

    plan = plan_prim_func(main, HW)
    assert plan.resources.threads == 128  # T.Kernel's documented default
    assert any("default of 128 threads" in n for n in plan.notes)


def _guarded_store(valid: int, cond=None):
    @T.prim_func
    def main(X: T.Tensor((64, 128), "float32"), Y: T.Tensor((256,), "float32")):
        with T.Kernel(4, threads=128) as bx:
            x = T.alloc_fragment((64, 128), "float32")
            s = T.alloc_fragment((64,), "float32")
            T.copy(X[0, 0], x)
            T.reduce_sum(x, s, dim=1)
            for i in T.Parallel(64):
                if cond(i) if cond else i < valid:
                    Y[bx * 64 + i] = s[i]

    return main


def test_a_lane_guard_inside_t_parallel_cuts_the_stored_tile():
    # only the first 8 of 64 lanes store (a GQA decode block holding 8 valid heads of 64 rows)
    plan = plan_prim_func(_guarded_store(8), HW)
    assert plan.tensor("Y").tile == (8,)
    full = plan_prim_func(_guarded_store(64), HW)
    assert full.tensor("Y").tile == (64,)


def test_a_lane_guard_not_starting_at_lane_zero_is_named():
    with pytest.raises(UnsupportedOpError, match="IfThenElse inside T.Parallel keeping lanes i not from 0"):
        plan_prim_func(_guarded_store(0, cond=lambda i: i >= 8), HW)


def test_a_nest_whose_guard_no_lane_passes_does_nothing():
    # ``if i >= 64`` over 64 lanes (a tail-masking guard at a size the tiles divide): dead code, not a crash
    plan = plan_prim_func(_guarded_store(0, cond=lambda i: i >= 64), HW)
    assert not [t for t in plan.tensors if t.name == "Y"]
    assert all(a.kind != ActionKind.STORE for a, _ in plan.actions())


def test_a_buffer_read_at_two_block_dependences_is_two_accesses():
    # X's tile at (bx, by) and its row block's first tile (bx, 0): the same 64 x 64 tile, the second shared
    # by every block of a row, so two tensor accesses with their own reuse dimensions
    @T.prim_func
    def main(X: T.Tensor((256, 256), "float32"), Y: T.Tensor((256, 256), "float32")):
        with T.Kernel(4, 4, threads=128) as (bx, by):
            a = T.alloc_fragment((64, 64), "float32")
            b = T.alloc_fragment((64, 64), "float32")
            T.copy(X[bx * 64, by * 64], a)
            T.copy(X[bx * 64, 0], b)
            for i, j in T.Parallel(64, 64):
                a[i, j] = a[i, j] + b[i, j]
            T.copy(a, Y[bx * 64, by * 64])

    plan = plan_prim_func(main, HW)
    first, second = plan.tensor("X"), plan.tensor("X#2")
    assert first.tile == second.tile == (64, 64)
    assert first.reuse_dims == frozenset()
    assert second.reuse_dims == frozenset({"by"})


def _promoting_gemm(interval: int, with_else: bool = False):
    # an fp8-style GEMM folding its accumulator into a second one every ``interval`` steps (DeepGEMM's 2xAcc)
    @T.prim_func
    def main(
        A: T.Tensor((512, 1024), "float16"),
        B: T.Tensor((1024, 512), "float16"),
        C: T.Tensor((512, 512), "float32"),
    ):
        with T.Kernel(4, 4, threads=128) as (bx, by):
            a = T.alloc_shared((128, 64), "float16")
            b = T.alloc_shared((64, 128), "float16")
            c = T.alloc_fragment((128, 128), "float32")
            acc = T.alloc_fragment((128, 128), "float32")
            T.clear(c)
            T.clear(acc)
            for k in T.Pipelined(16, num_stages=2):
                T.copy(A[by * 128, k * 64], a)
                T.copy(B[k * 64, bx * 128], b)
                T.gemm(a, b, c)
                if (k + 1) % interval == 0:
                    for i, j in T.Parallel(128, 128):
                        acc[i, j] += c[i, j]
                    T.clear(c)
            T.copy(acc, C[by * 128, bx * 128])

    @T.prim_func
    def with_else_branch(
        A: T.Tensor((512, 1024), "float16"),
        B: T.Tensor((1024, 512), "float16"),
        C: T.Tensor((512, 512), "float32"),
    ):
        with T.Kernel(4, 4, threads=128) as (bx, by):
            a = T.alloc_shared((128, 64), "float16")
            b = T.alloc_shared((64, 128), "float16")
            c = T.alloc_fragment((128, 128), "float32")
            T.clear(c)
            for k in T.Pipelined(16, num_stages=2):
                T.copy(A[by * 128, k * 64], a)
                T.copy(B[k * 64, bx * 128], b)
                if k % interval == 0:
                    T.gemm(a, b, c)
                else:
                    T.clear(c)
            T.copy(c, C[by * 128, bx * 128])

    return with_else_branch if with_else else main


def test_an_if_on_the_loop_counter_runs_in_its_share_of_the_iterations():
    plan = plan_prim_func(_promoting_gemm(4), HW)
    (k_loop,) = [n for n in plan.body if hasattr(n, "body") and n.trips == 16]
    (guard,) = [n for n in k_loop.body if hasattr(n, "body")]
    # (k + 1) % 4 == 0 holds for k = 3, 7, 11, 15: 4 of 16 iterations
    assert guard.trips == 1 and guard.mean_trips == pytest.approx(0.25)
    assert any("runs in 25% of the iterations" in n for n in plan.notes)
    every = plan_prim_func(_promoting_gemm(1), HW)  # taken every iteration: no guard at all
    (k_loop,) = [n for n in every.body if hasattr(n, "body")]
    assert not any(hasattr(n, "body") for n in k_loop.body)


def test_an_if_else_on_the_loop_counter_runs_each_branch_in_its_share():
    plan = plan_prim_func(_promoting_gemm(4, with_else=True), HW)
    (k_loop,) = [n for n in plan.body if hasattr(n, "body") and n.trips == 16]
    then, other = [n for n in k_loop.body if hasattr(n, "body")]
    # k % 4 == 0 holds for k = 0, 4, 8, 12: the gemm in 4 of 16 iterations, the clear in the other 12
    assert then.mean_trips == pytest.approx(0.25) and other.mean_trips == pytest.approx(0.75)
    assert [a.kind for a in then.body] == [ActionKind.DOT]
    assert any("else on loop variable k" in n and "75%" in n for n in plan.notes)


def test_an_if_reads_let_bindings_in_their_dependency_order():
    # ``a`` reads ``z`` (alphabetically after it): both are evaluated per iteration, ``z`` first
    @T.prim_func
    def main(
        A: T.Tensor((512, 1024), "float16"),
        B: T.Tensor((1024, 512), "float16"),
        C: T.Tensor((512, 512), "float32"),
    ):
        with T.Kernel(4, 4, threads=128) as (bx, by):
            a_s = T.alloc_shared((128, 64), "float16")
            b_s = T.alloc_shared((64, 128), "float16")
            c = T.alloc_fragment((128, 128), "float32")
            T.clear(c)
            for k in T.Pipelined(16, num_stages=2):
                z = k * 2
                a = z + 1
                T.copy(A[by * 128, k * 64], a_s)
                T.copy(B[k * 64, bx * 128], b_s)
                if a % 8 == 1:  # k = 0, 4, 8, 12
                    T.gemm(a_s, b_s, c)
            T.copy(c, C[by * 128, bx * 128])

    plan = plan_prim_func(main, HW)
    (k_loop,) = [n for n in plan.body if hasattr(n, "body") and n.trips == 16]
    (guard,) = [n for n in k_loop.body if hasattr(n, "body")]
    assert guard.mean_trips == pytest.approx(0.25)


def test_a_negative_loop_extent_runs_no_iteration():
    # blocks 0..3 loop bx - 1 times: -1 and 0 run nothing (C's ``for (i = 0; i < n; ++i)``), then 1 and 2
    @T.prim_func
    def main(X: T.Tensor((256, 64), "float32"), Y: T.Tensor((4, 64), "float32")):
        with T.Kernel(4, threads=128) as bx:
            acc = T.alloc_fragment((64,), "float32")
            x = T.alloc_fragment((64,), "float32")
            T.clear(acc)
            for k in T.serial(bx - 1):
                T.copy(X[k, 0], x)
                for j in T.Parallel(64):
                    acc[j] += x[j]
            T.copy(acc, Y[bx, 0])

    plan = plan_prim_func(main, HW)
    (loop,) = [n for n in plan.body if hasattr(n, "body")]
    assert tuple(loop.trips_by_program) == (0, 0, 1, 2)


def test_a_copy_between_global_tiles_loads_converts_and_stores():
    # a backward kernel's post-process: the fp32 accumulator cast to fp16, global to global
    @T.prim_func
    def main(A: T.Tensor((1024, 128), "float32"), B: T.Tensor((1024, 128), "float16")):
        with T.Kernel(16, threads=128) as bx:
            T.copy(A[bx * 64 : (bx + 1) * 64, :], B[bx * 64 : (bx + 1) * 64, :])

    plan = plan_prim_func(main, HW)
    kinds = [(a.kind, a.tensor) for a, _ in plan.actions()]
    assert kinds == [(ActionKind.LOAD, "A"), (ActionKind.ELEMENTWISE, None), (ActionKind.STORE, "B")]
    assert plan.tensor("A").tile == (64, 128) and plan.tensor("B").mode is AccessMode.WRITE
    (cvt,) = [a for a, _ in plan.actions() if a.kind is ActionKind.ELEMENTWISE]
    assert cvt.flops == 64 * 128

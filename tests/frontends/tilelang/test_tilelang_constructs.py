"""TileLang constructs beyond the reference kernels: tile atomic adds (split-K) and clamp."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("tilelang")

import tilelang.language as T  # noqa: E402
from tilesight.frontends.tilelang import plan_prim_func  # noqa: E402
from tilesight.frontends.tilelang.walker import im2col_rereads  # noqa: E402

from tilesight.cache.model import SdcmCacheModel  # noqa: E402
from tilesight.errors import FrontendError, UnsupportedOpError  # noqa: E402
from tilesight.hardware import load_profile  # noqa: E402
from tilesight.model.evaluate import evaluate  # noqa: E402
from tilesight.plan import SYNC_LOAD, VECTOR_REDUCTION, AccessMode, ActionKind, Loop  # noqa: E402

pytestmark = pytest.mark.tilelang

HW = load_profile("h200")


def _split_k(M=256, N=256, K=4096, splits=4, bm=128, bn=128, bk=64, elementwise=False):
    part = K // splits

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), splits, threads=128) as (bx, by, bz):
            a = T.alloc_shared((bm, bk), "float16")
            b = T.alloc_shared((bk, bn), "float16")
            c = T.alloc_fragment((bm, bn), "float32")
            T.clear(c)
            for k in T.Pipelined(part // bk, num_stages=3):
                T.copy(A[by * bm, bz * part + k * bk], a)
                T.copy(B[bz * part + k * bk, bx * bn], b)
                T.gemm(a, b, c)
            if elementwise:  # TileLang's split-K example: one atomic add per element
                for i, j in T.Parallel(bm, bn):
                    T.atomic_add(C[by * bm + i, bx * bn + j], c[i, j])
            else:
                T.atomic_add(C[by * bm, bx * bn], c)

    return main


def test_split_k_atomic_add_is_an_atomic_store_of_the_tile():
    plan = plan_prim_func(_split_k(), HW)
    # grid (256 / 128, 256 / 128, 4 splits) = 16 blocks; each adds its 128 x 128 fp32 partial into C
    assert plan.grid.blocks == 16
    (store,) = [a for a, _ in plan.actions() if a.kind is ActionKind.STORE]
    c = plan.tensor("C")
    assert store.tensor == "C" and c.mode is AccessMode.ATOMIC and c.tile == (128, 128)
    assert c.tile_bytes == 128 * 128 * 4
    # the 4 splits of one output tile write the same C tile: C is reused across the split dimension
    assert len(c.reuse_dims) == 1


def _clamp(rows=256, cols=1024):
    @T.prim_func
    def main(X: T.Tensor((rows, cols), "float32"), Y: T.Tensor((rows, cols), "float32")):
        with T.Kernel(rows, threads=128) as bx:
            x = T.alloc_fragment((cols,), "float32")
            T.copy(X[bx, 0], x)
            for i in T.Parallel(cols):
                x[i] = T.clamp(x[i] * 2.0, -448.0, 448.0)
            T.copy(x, Y[bx, 0])

    return main


def test_clamp_is_a_max_and_a_min_per_element():
    plan = plan_prim_func(_clamp(), HW)
    (ew,) = [a for a, _ in plan.actions() if a.kind is ActionKind.ELEMENTWISE]
    # per element: the multiply and the clamp's max and min = 3 operations over 1024 elements
    assert ew.flops == 3 * 1024


def _global_add(M=512, N=256, bm=64, bn=128):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float16"), B: T.Tensor((M, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            for i, j in T.Parallel(bm, bn):
                C[by * bm + i, bx * bn + j] = A[by * bm + i, bx * bn + j] + B[by * bm + i, bx * bn + j]

    return main


def test_parallel_nest_on_global_memory_loads_and_stores_its_tile():
    # TileLang's element-wise example style: the T.Parallel nest indexes global memory directly. Each lane
    # index is (uniform start) + (lane), so A, B and C move one 64 x 128 tile per block: two loads to
    # registers, one add per element (64 x 128 = 8192), one store after it
    plan = plan_prim_func(_global_add(), HW)
    assert plan.grid.blocks == (512 // 64) * (256 // 128)
    acts = {a.name: a for a, _ in plan.actions()}
    assert {t.name: t.tile for t in plan.tensors} == {"A": (64, 128), "B": (64, 128), "C": (64, 128)}
    assert [a.kind for a in acts.values()] == [
        ActionKind.LOAD,
        ActionKind.LOAD,
        ActionKind.ELEMENTWISE,
        ActionKind.STORE,
    ]
    (add,) = [a for a in acts.values() if a.kind is ActionKind.ELEMENTWISE]
    assert add.flops == 64 * 128 and set(add.deps) == {"load_A", "load_B"}
    assert acts["store_C"].deps == (add.name,)


def _summary(plan):
    return (
        [(t.name, t.mode, t.tile, t.reuse_dims) for t in plan.tensors],
        [(a.kind, a.tensor) for a, _ in plan.actions()],
    )


def test_elementwise_atomic_add_is_the_tile_atomic_add():
    # the element-wise form over a T.Parallel nest adds the same 128 x 128 fp32 tile as T.atomic_add(C, c)
    assert _summary(plan_prim_func(_split_k(elementwise=True), HW)) == _summary(
        plan_prim_func(_split_k(), HW)
    )


def _masked_scores(local_bind: bool, n=256, bm=64, bn=64):
    @T.prim_func
    def with_bind(Q: T.Tensor((n, 64), "float16"), Out: T.Tensor((n, bn), "float32")):
        with T.Kernel(n // bm, threads=128) as bx:
            s = T.alloc_fragment((bm, bn), "float32")
            T.clear(s)
            for i, j in T.Parallel(bm, bn):
                q_idx = bx * bm + i  # a local of the nest (a LetStmt), as the causal-attention examples write
                s[i, j] = T.if_then_else(q_idx >= j, s[i, j], -T.infinity("float32"))
            T.copy(s, Out[bx * bm, 0])

    @T.prim_func
    def inline(Q: T.Tensor((n, 64), "float16"), Out: T.Tensor((n, bn), "float32")):
        with T.Kernel(n // bm, threads=128) as bx:
            s = T.alloc_fragment((bm, bn), "float32")
            T.clear(s)
            for i, j in T.Parallel(bm, bn):
                s[i, j] = T.if_then_else(bx * bm + i >= j, s[i, j], -T.infinity("float32"))
            T.copy(s, Out[bx * bm, 0])

    return with_bind if local_bind else inline


def test_a_local_bound_inside_a_parallel_nest_is_its_value():
    bound, inline = (plan_prim_func(_masked_scores(b), HW) for b in (True, False))
    ew = [
        [(a.kind, a.flops) for a, _ in p.actions() if a.kind is ActionKind.ELEMENTWISE]
        for p in (bound, inline)
    ]
    # the clear (one op per element), then per element the lane's add to the uniform bx * bm, the compare
    # and the select: 3 operations over 64 x 64 elements
    assert ew[0] == ew[1] == [(ActionKind.ELEMENTWISE, 64 * 64), (ActionKind.ELEMENTWISE, 3 * 64 * 64)]


def _guarded(M=512, bm=128, guard=True):
    @T.prim_func
    def main(A: T.Tensor((M, 64), "float32"), B: T.Tensor((M, 64), "float32")):
        with T.Kernel(M // bm, threads=128) as bx:
            f = T.alloc_fragment((bm, 64), "float32")
            inv = T.float32(1.0) / T.float32(M)  # a float scalar of the computation, bound once
            if bx * bm < M:  # a bounds guard every block passes
                T.copy(A[bx * bm, 0], f)
                for i, j in T.Parallel(bm, 64):
                    f[i, j] = f[i, j] * inv
                T.copy(f, B[bx * bm, 0])

    @T.prim_func
    def plain(A: T.Tensor((M, 64), "float32"), B: T.Tensor((M, 64), "float32")):
        with T.Kernel(M // bm, threads=128) as bx:
            f = T.alloc_fragment((bm, 64), "float32")
            T.copy(A[bx * bm, 0], f)
            for i, j in T.Parallel(bm, 64):
                f[i, j] = f[i, j] * (T.float32(1.0) / T.float32(M))
            T.copy(f, B[bx * bm, 0])

    return main if guard else plain


def test_a_guard_every_block_passes_is_its_then_part():
    guarded, plain = (plan_prim_func(_guarded(guard=g), HW) for g in (True, False))
    assert _summary(guarded) == _summary(plain)
    flops = [[a.flops for a, _ in p.actions() if a.kind is ActionKind.ELEMENTWISE] for p in (guarded, plain)]
    assert flops[0] == flops[1] == [128 * 64]  # one multiply per element (the scalar is computed once)


def _shared_head(heads=128, block_h=64, kv_group=128, n=1024):
    @T.prim_func
    def main(Q: T.Tensor((4, heads, 64), "float16"), KV: T.Tensor((4, n, 1, 64), "float16"),
             Out: T.Tensor((4, heads, 64), "float16")):  # fmt: skip
        with T.Kernel(4, heads // block_h, threads=128) as (b, hid):
            q = T.alloc_shared((block_h, 64), "float16")
            kv = T.alloc_shared((n, 64), "float16")
            acc = T.alloc_fragment((block_h, n), "float32")
            cur_kv_head = hid // (
                kv_group // block_h
            )  # the MLA decode example's index: 0 for both head blocks
            T.copy(Q[b, hid * block_h, 0], q)
            T.copy(KV[b, 0, cur_kv_head, 0], kv)
            T.gemm(q, kv, acc, transpose_B=True, clear_accum=True)
            T.copy(acc[0:block_h, 0:64], Out[b, hid * block_h, 0])

    return main


def test_an_index_constant_over_the_grid_is_no_grid_dependence():
    # KV's start names the head block hid, but hid // 2 is 0 for hid in {0, 1}: both head blocks read the
    # same KV tile (reused across hid), while Q and O move with it
    plan = plan_prim_func(_shared_head(), HW)
    dims = {t.name: t.reuse_dims for t in plan.tensors}
    hid = plan.grid.dims[1]
    assert hid in dims["KV"] and hid not in dims["Q"] and hid not in dims["Out"]


def _gemm_loop(kind):
    @T.prim_func
    def main(
        A: T.Tensor((512, 512), "float16"),
        B: T.Tensor((512, 512), "float16"),
        C: T.Tensor((512, 512), "float16"),
    ):
        with T.Kernel(8, 8, threads=128) as (bx, by):
            a = T.alloc_shared((64, 32), "float16")
            b = T.alloc_shared((32, 64), "float16")
            c = T.alloc_fragment((64, 64), "float32")
            T.clear(c)
            if kind == "serial":
                for k in T.serial(16):
                    T.copy(A[by * 64, k * 32], a)
                    T.copy(B[k * 32, bx * 64], b)
                    T.gemm(a, b, c)
            else:
                for k in T.Pipelined(16, num_stages=kind):
                    T.copy(A[by * 64, k * 32], a)
                    T.copy(B[k * 32, bx * 64], b)
                    T.gemm(a, b, c)
            T.copy(c, C[by * 64, bx * 64])

    return main


@pytest.mark.parametrize(
    ("kind", "threads", "smem"),
    [
        # TileLang 0.1.15's own lowering for sm_90a (benchmarks/tilelang_sweep/check_lowering.py's reading):
        # T.serial and num_stages=0 keep the 128 threads and one buffer of A and B, (64*32 + 32*64) * 2 B;
        ("serial", 128, 8192),
        (0, 128, 8192),
        # num_stages >= 1 adds the TMA producer warpgroup and its 1 KiB of barriers, stages x the buffers
        (1, 256, 8192 + 1024),
        (3, 256, 3 * 8192 + 1024),
    ],
)
def test_only_pipelined_loops_are_warp_specialised(kind, threads, smem):
    plan = plan_prim_func(_gemm_loop(kind), HW)
    assert (plan.resources.threads, plan.resources.smem_bytes) == (threads, smem)
    (loop,) = [n for n in plan.body if not hasattr(n, "kind")]
    assert loop.producer_loads is (threads == 256)
    # an unpipelined loop's copies are plain loads the threads wait for (TileLang's lowered CUDA: uint4
    # global loads stored to shared memory before a __syncthreads)
    loads = [a for a, _ in plan.actions() if a.kind is ActionKind.LOAD]
    assert {a.variant for a in loads} == ({None} if threads == 256 else {SYNC_LOAD})


def test_a_waited_load_slows_the_unpipelined_loop():
    import dataclasses

    import tilesight

    # the same num_stages=0 plan with its loads taken as asynchronous: the waited (slowest-line) latency is
    # what makes the synchronous one slower
    plan = plan_prim_func(_gemm_loop(0), HW)
    (loop,) = [n for n in plan.body if not hasattr(n, "kind")]
    body = tuple(dataclasses.replace(a, variant=None) if a.kind is ActionKind.LOAD else a for a in loop.body)
    free = dataclasses.replace(
        plan, body=tuple(dataclasses.replace(loop, body=body) if n is loop else n for n in plan.body)
    )
    assert tilesight.estimate(plan, hw=HW).latency_s > tilesight.estimate(free, hw=HW).latency_s


@pytest.mark.parametrize("elementwise", [False, True])
def test_atomic_add_of_an_accumulator_is_a_two_wide_vector_reduction(elementwise):
    width = 2
    plan = plan_prim_func(_split_k(elementwise=elementwise), HW)
    (store,) = [a for a, _ in plan.actions() if a.kind is ActionKind.STORE]
    # TileLang adds a wgmma accumulator fragment with AtomicAddx2: 2 fp32 values an instruction
    assert store.variant == VECTOR_REDUCTION and store.vector_bytes == width * 4


def _accumulate_rows(rows=256, cols=128, bm=64):
    @T.prim_func
    def main(X: T.Tensor((rows, cols), "float32"), Y: T.Tensor((bm, cols), "float32")):
        with T.Kernel(rows // bm, threads=128) as bx:
            f = T.alloc_fragment((bm, cols), "float32")
            for i, j in T.Parallel(bm, cols):
                f[i, j] = X[bx * bm + i, j] * 2.0
            T.atomic_add(Y[0, 0], f)  # every block adds into the same tile

    return main


def test_atomic_add_of_a_parallel_fragment_is_a_four_wide_vector_reduction():
    plan = plan_prim_func(_accumulate_rows(), HW)
    (store,) = [a for a, _ in plan.actions() if a.kind is ActionKind.STORE]
    assert plan.tensor("Y").mode is AccessMode.ATOMIC
    assert store.variant == VECTOR_REDUCTION and store.vector_bytes == 4 * 4  # AtomicAddx4 of fp32


def _persistent_gemm(form, M=1024, N=1024, K=512, bm=128, bn=128, bk=64, programs=24):
    m_blocks, n_blocks = M // bm, N // bn
    waves = -(-(m_blocks * n_blocks) // programs)

    @T.prim_func
    def primitive(
        A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")
    ):
        with T.Kernel(programs, threads=128) as block_id:
            a = T.alloc_shared((bm, bk), "float16")
            b = T.alloc_shared((bk, bn), "float16")
            c = T.alloc_fragment((bm, bn), "float32")
            for bx, by in T.Persistent([m_blocks, n_blocks], programs, block_id):
                T.clear(c)
                for k in T.Pipelined(K // bk, num_stages=3):
                    T.copy(A[bx * bm, k * bk], a)
                    T.copy(B[k * bk, by * bn], b)
                    T.gemm(a, b, c)
                T.copy(c, C[bx * bm, by * bn])

    @T.prim_func
    def manual(
        A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")
    ):
        with T.Kernel(programs, threads=128) as block_id:
            a = T.alloc_shared((bm, bk), "float16")
            b = T.alloc_shared((bk, bn), "float16")
            c = T.alloc_fragment((bm, bn), "float32")
            for w in T.serial(waves):
                tile = w * programs + block_id
                bx = tile // n_blocks
                by = tile % n_blocks
                if bx < m_blocks:
                    T.clear(c)
                    for k in T.Pipelined(K // bk, num_stages=3):
                        T.copy(A[bx * bm, k * bk], a)
                        T.copy(B[k * bk, by * bn], b)
                        T.gemm(a, b, c)
                    T.copy(c, C[bx * bm, by * bn])

    return primitive if form == "primitive" else manual


@pytest.mark.parametrize("form", ["primitive", "manual"])
def test_a_persistent_kernel_runs_its_tiles_over_its_blocks(form):
    # 8 x 8 = 64 tiles over 24 programs in 3 waves (72 launch slots, 64 pass the guard): program p takes
    # tiles p, p + 24, p + 48 in the row-major numbering the kernel computes
    plan = plan_prim_func(_persistent_gemm(form), HW)
    grid = plan.grid
    assert (grid.shape, grid.programs, grid.tiles, grid.blocks) == ((8, 8), 24, 64, 24)
    if form == "manual":
        assert grid.sequence[:3].tolist() == [[0, 0], [0, 1], [0, 2]]
        assert grid.sequence[24].tolist() == [3, 0]  # tile 24 = row 3, column 0
    assert {tuple(r) for r in grid.sequence.tolist()} == {(i, j) for i in range(8) for j in range(8)}
    assert any("persistent kernel: 24 blocks run 64 tiles" in n for n in plan.notes)
    # the tile program is the guarded body: a K loop of 8 steps (512 / 64) and the store
    (loop,) = [n for n in plan.body if hasattr(n, "trips")]
    assert loop.trips == 8


def _offset_loop():
    @T.prim_func
    def main(A: T.Tensor((512, 512), "float16"), B: T.Tensor((512, 64), "float16")):
        with T.Kernel(4, threads=128) as bx:
            s = T.alloc_shared((128, 64), "float16")
            f = T.alloc_fragment((128, 64), "float32")
            T.clear(f)
            for k in T.serial(8):
                kk = k * 64  # a K offset bound in the loop: not a tile coordinate (no block index in it)
                T.copy(A[bx * 128, kk], s)
                for i, j in T.Parallel(128, 64):
                    f[i, j] += s[i, j]
            T.copy(f, B[bx * 128, 0])

    return main


def test_a_serial_loop_with_a_bound_offset_is_not_persistent():
    plan = plan_prim_func(_offset_loop(), HW)
    assert plan.grid.programs is None and plan.grid.shape == (4,)
    (loop,) = [n for n in plan.body if hasattr(n, "trips")]
    assert loop.trips == 8


def _persistent_offsets(M=512, N=512, K=256, bm=128, bn=128, programs=6):
    waves = -(-((M // bm) * (N // bn)) // programs)

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(programs, threads=128) as block_id:
            a = T.alloc_shared((bm, K), "float16")
            b = T.alloc_shared((K, bn), "float16")
            c = T.alloc_fragment((bm, bn), "float32")
            for w in T.serial(waves):
                tile = w * programs + block_id
                row0 = tile // (N // bn) * bm  # element offsets, not tile indices
                col0 = tile % (N // bn) * bn
                if row0 < M:
                    T.copy(A[row0, 0], a)
                    T.copy(B[0, col0], b)
                    T.gemm(a, b, c, clear_accum=True)
                    T.copy(c, C[row0, col0])

    return main


def test_persistent_coordinates_bound_as_element_offsets_count_tiles():
    # row0 and col0 step by 128: the 16 tiles sit on a 4 x 4 grid, not 385 x 385
    grid = plan_prim_func(_persistent_offsets(), HW).grid
    assert (grid.shape, grid.tiles, grid.programs) == ((4, 4), 16, 6)


def _partial_gradients(extra_store: bool):
    """Two partial sums added into global vectors from one T.Parallel (a norm backward's dgamma and dbeta),
    optionally beside an ordinary element-wise store."""

    @T.prim_func
    def main(
        X: T.Tensor((256, 128), "float32"),
        G: T.Tensor((128,), "float32"),
        B: T.Tensor((128,), "float32"),
        Y: T.Tensor((256, 128), "float32"),
    ):
        with T.Kernel(2, threads=128) as bx:
            xs = T.alloc_fragment((128, 128), "float32")
            g = T.alloc_fragment((128,), "float32")
            b = T.alloc_fragment((128,), "float32")
            y = T.alloc_fragment((128,), "float32")
            T.copy(X[bx * 128, 0], xs)
            T.reduce_sum(xs, g, dim=0)
            T.reduce_max(xs, b, dim=0)
            for j in T.Parallel(128):
                if extra_store:
                    y[j] = g[j] * 2.0
                T.atomic_add(G[j], g[j])
                T.atomic_add(B[j], b[j])
            T.copy(xs, Y[bx * 128, 0])

    return main


@pytest.mark.parametrize("extra_store", [False, True])
def test_several_elementwise_atomic_adds_in_one_nest_are_each_a_tile_atomic_add(extra_store):
    plan = plan_prim_func(_partial_gradients(extra_store), HW)
    stores = {a.tensor: a for a, _ in plan.actions() if a.kind is ActionKind.STORE}
    assert {"G", "B"} <= set(stores)
    assert {t.name: (t.mode, t.tile) for t in plan.tensors if t.name in "GB"} == {
        "G": (AccessMode.ATOMIC, (128,)),
        "B": (AccessMode.ATOMIC, (128,)),
    }
    computed = [a for a, _ in plan.actions() if a.kind is ActionKind.ELEMENTWISE and a.flops == 128]
    assert bool(computed) == extra_store  # the nest's other statement stays its own element-wise action


def test_index_math_with_if_then_else_and_shifts_evaluates_per_block():
    import numpy as np
    from tilesight.frontends.tilelang._tvm import tirx as tir
    from tilesight.frontends.tilelang.expr import evaluate

    bx = tir.Var("bx", "int32")
    # T.if_then_else(bx % 2 == 0, bx, bx - 1) * 64, and (bx >> 1) ^ 1, over four blocks
    pick = tir.call_intrin("int32", "tirx.if_then_else", tir.EQ(tir.FloorMod(bx, 2), 0), bx, bx - 1) * 64
    env = {"bx": np.arange(4)}
    assert evaluate(pick, env, "k").tolist() == [0, 0, 128, 128]
    half = tir.call_intrin("int32", "tirx.shift_right", bx, 1)
    mixed = tir.call_intrin("int32", "tirx.bitwise_xor", half, 1)
    assert evaluate(mixed, env, "k").tolist() == [1, 1, 0, 0]


def _conv_kernel(n=2, c=64, h=16, w=16, f=256, kk=3, s=1, p=1, bm=64, bn=128, bk=32):
    oh = (h + 2 * p - (kk - 1) - 1) // s + 1
    ow = (w + 2 * p - (kk - 1) - 1) // s + 1

    @T.prim_func
    def main(
        data: T.Tensor((n, h, w, c), "float16"),
        kernel: T.Tensor((kk, kk, c, f), "float16"),
        out: T.Tensor((n, oh, ow, f), "float16"),
    ):
        with T.Kernel(T.ceildiv(f, bn), T.ceildiv(n * oh * ow, bm), threads=128) as (bx, by):
            data_s = T.alloc_shared((bm, bk), "float16")
            kern_s = T.alloc_shared((bk, bn), "float16")
            out_l = T.alloc_fragment((bm, bn), "float32")
            kernel_flat = T.Tensor((kk * kk * c, f), "float16", kernel.data)
            out_flat = T.Tensor((n * oh * ow, f), "float16", out.data)
            T.clear(out_l)
            for k in T.Pipelined(T.ceildiv(kk * kk * c, bk), num_stages=2):
                T.im2col(data, data_s, by, k, kk, s, 1, p)
                T.copy(kernel_flat[k * bk, bx * bn], kern_s)
                T.gemm(data_s, kern_s, out_l)
            T.copy(out_l, out_flat[by * bm, bx * bn])

    return main


def test_im2col_is_a_copy_of_the_pixels_a_tiles_rows_sit_on():
    # 16 x 16 output pixels an image, 64 a tile: 4 output rows of 16; 32 of the 64 channels a step, 3 x 3
    # taps: 18 steps. Each step copies 4 rows x 16 pixels x 32 channels of the input (4 KB) into shared memory
    plan = plan_prim_func(_conv_kernel(), HW)
    tensors = {t.name: t for t in plan.tensors}
    assert tensors["data"].tile == (1, 4, 16, 32) and tensors["data"].shape == (2, 16, 16, 64)
    assert plan.access_count("data") == 18
    # the tile's pixels follow the grid's row of tiles (by), not its column (bx): reused along bx
    assert tensors["data"].reuse_dims == frozenset({plan.grid.dims[0]})
    # the flat views of the weights and the output are tensors of their own, the weights reused along by
    assert tensors["kernel_flat"].tile == (32, 128) and tensors["kernel_flat"].shape == (576, 256)
    assert tensors["kernel_flat"].reuse_dims == frozenset({plan.grid.dims[1]})
    assert tensors["out_flat"].tile == (64, 128)


def test_im2col_taps_reread_their_own_pixels_by_hand():
    # 4 output rows of 16 pixels a tile, 2 channel slices, 3 x 3 taps at stride 1, the tile alone: per slice
    # the taps read 9 x 64 pixels of a 6 x 18 input window, 108 of them once, so 1 - 108 / 576 of the reads
    # are re-reads. One tap back (2 steps, the other slice between): the six taps with kw > 0 re-read 4 rows
    # x 15 pixels of the previous one, the two with kw = 0 and kh > 0 re-read 3 rows x 14 pixels of
    # (kh - 1, kw = 2)
    alone = im2col_rereads(18, 32, 64, 3, 1, 1, 4, 16)
    rereads = dict(alone.rereads)
    assert sum(rereads.values()) == pytest.approx(1 - 108 / 576)
    assert rereads[2] == pytest.approx((6 * 60 + 2 * 42) / 576)
    assert min(rereads) == 2  # a slice's pixels come back a tap later, never one step later
    assert alone.fresh == 1.0  # every tap brings some pixel of its own
    # stride 2: the next filter column reads the pixels between the last one's, the one after it its own
    assert im2col_rereads(9, 32, 32, 3, 2, 1, 1, 32).rereads == ((2, pytest.approx(3 * 31 / 288)),)


def test_im2col_tiles_in_lockstep_reread_their_neighbours_pixels():
    # a 5 x 5 filter over whole output rows of 64 (one row a tile, one channel slice, 25 steps): the tile
    # below reads an input row one filter row before this tile does, so only the first filter row's taps
    # bring new pixels: 64 at kw = 0, one each at kw = 1..4; 5 fresh steps of 25
    reuse = im2col_rereads(25, 64, 64, 5, 1, 1, 1, 64, oh=64, ow=64)
    assert reuse.fresh == pytest.approx(5 / 25)
    assert sum(share for _, share in reuse.rereads) == pytest.approx(1 - 68 / 1600)
    # a tile that is a whole image has no neighbour
    assert im2col_rereads(25, 64, 64, 5, 1, 1, 64, 64, oh=64, ow=64).fresh == 1.0


def test_im2col_load_carries_its_rereads():
    # the test kernel: 4 rows of a 16 x 16 image a tile, 2 slices, 3 x 3 taps
    plan = plan_prim_func(_conv_kernel(), HW)
    load = next(a for a, _ in plan.actions() if a.kind is ActionKind.LOAD and a.tensor == "data")
    reuse = im2col_rereads(18, 32, 64, 3, 1, 1, 4, 16, oh=16, ow=16)
    assert dict(load.rereads) == pytest.approx(dict(reuse.rereads))
    assert load.fresh_steps == pytest.approx(reuse.fresh) and reuse.fresh < 1.0
    share = sum(s for _, s in reuse.rereads)
    assert any(f"{share:.0%} of each step's pixels" in n for n in plan.notes)
    # the cache model makes at least the re-read share of its reads L2 hits
    traffic = SdcmCacheModel().traffic(plan, HW)
    assert traffic.tensors["data"].l2_hit >= sum(s for _, s in reuse.rereads) - 1e-9


def test_im2col_tile_that_straddles_output_rows_is_refused():
    # 48 pixels of rows of 16 is not whole rows: the copy's pixels cannot be named as one region
    with pytest.raises(UnsupportedOpError, match="T.im2col tile of 48 output pixels across rows of 16"):
        plan_prim_func(_conv_kernel(bm=48), HW)


def _ws_gemm_kernel(buffers=2, m=512, n=512, k=1024, bm=128, bn=128, bk=64):
    @T.prim_func
    def main(A: T.Tensor((m, k), "float16"), B: T.Tensor((k, n), "float16"), C: T.Tensor((m, n), "float16")):
        with T.Kernel(T.ceildiv(n, bn), T.ceildiv(m, bm), threads=256) as (bx, by):
            A_s = T.alloc_shared((buffers, bm, bk), "float16")
            B_s = T.alloc_shared((buffers, bk, bn), "float16")
            C_l = T.alloc_fragment((bm, bn), "float32")
            bars = T.alloc_barrier([128, 128] * buffers)
            with T.ws(0):
                T.clear(C_l)
            for ko in range(T.ceildiv(k, bk)):
                with T.ws(1):
                    parity = ((ko // buffers) % 2) ^ 1
                    T.mbarrier_wait_parity(mbarrier=bars[ko % buffers + buffers], parity=parity)
                    T.tma_copy(A[by * bm : (by + 1) * bm, ko * bk : (ko + 1) * bk], A_s[ko % buffers, :, :],
                               barrier=bars[ko % buffers])  # fmt: skip
                    T.tma_copy(B[ko * bk : (ko + 1) * bk, bx * bn : (bx + 1) * bn], B_s[ko % buffers, :, :],
                               barrier=bars[ko % buffers])  # fmt: skip
                    T.mbarrier_arrive(mbarrier=bars[ko % buffers])
                with T.ws(0):
                    T.mbarrier_wait_parity(mbarrier=bars[ko % buffers], parity=(ko // buffers) % 2)
                    T.gemm(A_s[ko % buffers, :, :], B_s[ko % buffers, :, :], C_l)
                    T.mbarrier_arrive(mbarrier=bars[ko % buffers + buffers])
            with T.ws(0):
                T.copy(C_l, C[by * bm, bx * bn])

    return main


@pytest.mark.parametrize("buffers", [1, 2])
def test_a_hand_written_warp_specialisation_is_a_producer_and_its_consumers(buffers):
    plan = plan_prim_func(_ws_gemm_kernel(buffers), HW)
    # 256 threads launched: the T.ws(1) branch's 128 issue the TMA copies, the other 128 split the gemm
    # (one warpgroup: one compute group); the barriers are no data
    assert plan.resources.threads == 256 and plan.resources.compute_groups == 1
    assert {t.name for t in plan.tensors} == {"A", "B", "C"}
    (loop,) = [n for n in plan.body if isinstance(n, Loop)]
    # TileLang puts a __syncthreads() before each branch of a step: the producer cannot run ahead, whatever
    # the buffers; the loads are the producer's TMA copies, waited for every step
    assert loop.trips == 16 and loop.stages == 1 and loop.producer_loads
    kinds = sorted(a.kind.value for a in loop.body if not isinstance(a, Loop))
    assert kinds == ["dot", "load", "load"]
    assert plan.tensor("A").tile == (128, 64) and plan.tensor("B").tile == (64, 128)


def test_a_hand_written_warp_specialisation_keeps_the_registers_its_consumers_need():
    from tilesight.frontends.tilelang.lower import REGISTER_OVERHEAD_PER_THREAD

    # no T.set_max_nreg: TileLang injects no setmaxnreg, and a thread keeps its share of the accumulator
    # (128 x 128 fp32 over the 128 consumers: 128 registers; 64 x 128: 64) and the usual overhead, so the
    # 64-row tile fits two 256-thread blocks in the 64K-register file
    big = plan_prim_func(_ws_gemm_kernel(2), HW).resources
    small = plan_prim_func(_ws_gemm_kernel(2, bm=64), HW).resources
    assert big.regs_per_thread == 128 + REGISTER_OVERHEAD_PER_THREAD
    assert small.regs_per_thread == 64 + REGISTER_OVERHEAD_PER_THREAD
    assert 65536 // (256 * small.regs_per_thread) == 2 and 65536 // (256 * big.regs_per_thread) == 1


@settings(max_examples=60, deadline=None)
@given(
    kk=st.integers(1, 7),
    stride=st.integers(1, 3),
    dil=st.integers(1, 3),
    slices=st.integers(1, 4),
    rows=st.sampled_from([1, 2, 4]),
    width=st.sampled_from([8, 16, 32]),
    per_row=st.sampled_from([1, 2, 4]),
    image_rows=st.sampled_from([1, 4, 8]),
    partial=st.booleans(),
)
def test_im2col_rereads_invariants(kk, stride, dil, slices, rows, width, per_row, image_rows, partial):
    # shares of distinct positive gaps summing to at most 1, the fresh share in (0, 1] and at least the first
    # step's; a tile beside neighbours re-reads at least as much as the tile alone
    bk, chans = 32, 32 * slices
    steps = kk * kk * slices // (2 if partial else 1)
    ow, oh = width * per_row, image_rows * rows
    alone = im2col_rereads(steps, bk, chans, kk, stride, dil, rows, width)
    beside = im2col_rereads(steps, bk, chans, kk, stride, dil, rows, width, oh, ow)
    for reuse in (alone, beside):
        gaps = [g for g, _ in reuse.rereads]
        assert all(g >= 1 for g in gaps) and len(set(gaps)) == len(gaps)
        assert 0.0 <= sum(s for _, s in reuse.rereads) <= 1.0 + 1e-12
        assert (1 / max(steps, 1)) - 1e-12 <= reuse.fresh <= 1.0 or steps <= 1
    assert sum(s for _, s in beside.rereads) >= sum(s for _, s in alone.rereads) - 1e-12


def test_a_copy_that_does_not_move_with_its_loop_is_a_reread():
    # 32 blocks of 128 rows, 64 steps: A's tile moves with k (a new block each step), W's is the block's own
    # 64 x 128 tile every step (period 1: read afresh in 1 step of 64), which then hits L2
    m, n, k, bm, bk = 4096, 128, 4096, 128, 64

    @T.prim_func
    def main(
        A: T.Tensor((m, k), "float16"),
        W: T.Tensor((m // bm * bk, n), "float16"),
        C: T.Tensor((m, n), "float16"),
    ):  # noqa: E501
        with T.Kernel(T.ceildiv(m, bm), threads=128) as bx:
            a_s = T.alloc_shared((bm, bk), "float16")
            w_s = T.alloc_shared((bk, n), "float16")
            c_l = T.alloc_fragment((bm, n), "float32")
            T.clear(c_l)
            for ko in T.Pipelined(k // bk, num_stages=2):
                T.copy(A[bx * bm, ko * bk], a_s)
                T.copy(W[bx * bk, 0], w_s)
                T.gemm(a_s, w_s, c_l)
            T.copy(c_l, C[bx * bm, 0])

    plan = plan_prim_func(main, HW)
    loads = {a.tensor: a for a, _ in plan.actions() if a.kind is ActionKind.LOAD}
    assert loads["A"].rereads == () and loads["W"].rereads == ((1, 1.0),)
    assert loads["W"].fresh_steps == pytest.approx(1 / 64)
    assert any("the same tile every step of loop ko" in note for note in plan.notes)
    traffic = SdcmCacheModel().traffic(plan, HW)
    assert traffic.tensors["A"].l2_hit == 0.0 and traffic.tensors["W"].l2_hit > 0.98


def _explicit_wgmma_gemm(op: str, threads=128, m=512, n=512, k=1024, bm=128, bn=128, bk=64):
    """A pipelined GEMM written with T.gemm, or with T.wgmma_gemm and its T.wait_wgmma (``op`` "wgmma"), the
    second with a hand-written pipeline's barrier hand-off that only some steps take (``if ko != 0``)."""

    @T.prim_func
    def main(A: T.Tensor((m, k), "float16"), B: T.Tensor((k, n), "float16"), C: T.Tensor((m, n), "float16")):
        with T.Kernel(T.ceildiv(n, bn), T.ceildiv(m, bm), threads=threads) as (bx, by):
            A_s = T.alloc_shared((bm, bk), "float16")
            B_s = T.alloc_shared((bk, bn), "float16")
            C_l = T.alloc_fragment((bm, bn), "float32")
            bar = T.alloc_barrier(arrive_count=threads)
            T.clear(C_l)
            for ko in T.Pipelined(T.ceildiv(k, bk), num_stages=3):
                T.copy(A[by * bm, ko * bk], A_s)
                T.copy(B[ko * bk, bx * bn], B_s)
                if op == "wgmma":
                    T.wgmma_gemm(A_s, B_s, C_l)
                    T.wait_wgmma(0)
                    if ko != 0:
                        T.barrier_arrive(bar)
                        T.barrier_wait(bar, (ko & 1) ^ 1)
                else:
                    T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C[by * bm, bx * bn])

    return main


def test_an_explicit_wgmma_gemm_is_the_gemm_it_issues():
    # T.wgmma_gemm takes T.gemm's arguments and always lowers to wgmma; T.wait_wgmma and an `if` holding only
    # barriers add nothing to price: the plan is T.gemm's
    explicit = plan_prim_func(_explicit_wgmma_gemm("wgmma"), HW)
    plain = plan_prim_func(_explicit_wgmma_gemm("gemm"), HW)
    (loop,) = [n for n in explicit.body if isinstance(n, Loop)]
    (dot,) = [a for a in loop.body if a.kind is ActionKind.DOT]
    assert dot.variant == "wgmma" and dot.shape == (128, 128, 64)
    assert [a.kind for a in loop.body] == [ActionKind.LOAD, ActionKind.LOAD, ActionKind.DOT]
    assert evaluate(explicit, HW).latency_s == evaluate(plain, HW).latency_s


def test_an_explicit_wgmma_gemm_that_cannot_use_wgmma_is_refused():
    # 64 threads are two warps, not a warpgroup: T.gemm would fall back to mma, TileLang refuses T.wgmma_gemm
    with pytest.raises(FrontendError, match=r"T.wgmma_gemm of 128x128x64 .* on 64 threads"):
        plan_prim_func(_explicit_wgmma_gemm("wgmma", threads=64), HW)


def _masked_fragment(mask: str, rows=1024, width=64):
    """A fragment masked in a T.Parallel nest: by a triangular guard (``if i < j``), by the select it compiles
    to, or by a guard keeping a box of lanes (``if i < 32``)."""

    @T.prim_func
    def main(A: T.Tensor((rows, width), "float32"), B: T.Tensor((rows, width), "float32")):
        with T.Kernel(rows // width, threads=128) as bx:
            f = T.alloc_fragment((width, width), "float32")
            T.copy(A[bx * width, 0], f)
            for i, j in T.Parallel(width, width):
                if mask == "triangle":
                    if i < j:
                        f[i, j] = 0
                elif mask == "select":
                    f[i, j] = T.if_then_else(i < j, 0, f[i, j])
                else:
                    if i < 32:  # noqa: SIM102 (the guard is the construct under test)
                        f[i, j] = 0
            T.copy(f, B[bx * width, 0])

    return main


def test_a_triangular_guard_on_a_fragment_is_the_select_it_compiles_to():
    # every thread runs the compare and the predicated write for each element it holds: 64 x 64 lanes of a
    # compare and a select, 8,192 operations, as the explicit T.if_then_else; a box guard keeps its 32 rows
    triangle, select, box = (plan_prim_func(_masked_fragment(m), HW) for m in ("triangle", "select", "box"))
    (masked,) = [a for a in triangle.body if a.kind is ActionKind.ELEMENTWISE]
    (selected,) = [a for a in select.body if a.kind is ActionKind.ELEMENTWISE]
    (boxed,) = [a for a in box.body if a.kind is ActionKind.ELEMENTWISE]
    assert masked.flops == selected.flops == 64 * 64 * 2
    assert boxed.flops == 32 * 64 * 2

"""Bank conflicts of a T.Parallel nest's shared-memory accesses (walker._Walker._smem_wavefronts), worked out
by hand from TileLang 0.1.15's loop partition: the nest flattened row-major, vectors of the vectoriser's
width, vector v run by thread v % threads."""

import pytest

pytest.importorskip("tilelang")

import tilelang.language as T  # noqa: E402
from tilesight.frontends.tilelang import plan_prim_func  # noqa: E402
from tilesight.frontends.tilelang.walker import walk  # noqa: E402

from tilesight.hardware import load_profile  # noqa: E402
from tilesight.plan import ActionKind  # noqa: E402

pytestmark = pytest.mark.tilelang

HW = load_profile("h200")
M = N = 1024
B = 64


def _through_shared(dtype: str, transposed: bool, threads: int = 256, annotate: bool = False):
    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((N, M), dtype)):
        with T.Kernel(N // B, M // B, threads=threads) as (bx, by):
            s = T.alloc_shared((B, B), dtype)
            if annotate:
                T.annotate_layout({s: T.Layout((B, B), lambda i, j: (j, i))})
            T.copy(X[by * B, bx * B], s)
            for i, j in T.Parallel(B, B):
                if transposed:
                    Y[bx * B + i, by * B + j] = s[j, i]
                else:
                    Y[bx * B + i, by * B + j] = s[i, j]

    return main


def _nest(func):
    (node,) = [op for op in walk(func).body if getattr(op, "op", "") == "parallel"]
    return node


def test_a_column_read_of_a_row_major_fp16_tile_conflicts_32_ways():
    # s[j, i] indexes the innermost variable j in the row: no vectorising (1 lane). Thread t reads
    # j = t % 64, i = 4 r + t // 64 in round r: a warp's 32 lanes read one column, rows 128 bytes apart,
    # all in bank 0 at 32 distinct words: 32 wavefronts. 4096 elements / 256 threads = 16 rounds x 8 warps
    # x 32.
    node = _nest(_through_shared("float16", transposed=True))
    assert node.smem_wavefront_bytes == 16 * 8 * 32 * 128 and node.smem_buffers == ("s",)


def test_a_row_read_is_vectorised_and_conflict_free():
    # s[i, j]: 8 fp16 lanes (16 bytes) a thread; 4096 / (8 x 256) = 2 rounds x 8 warps, each warp 512 bytes
    # in 4 phases of 8 lanes, one wavefront each: 64 wavefronts, the tile's 8 KiB
    node = _nest(_through_shared("float16", transposed=False))
    assert node.smem_wavefront_bytes == 2 * 8 * 4 * 128 == B * B * 2


def test_a_column_read_of_fp32_conflicts_32_ways_at_128_threads():
    # 4-byte elements, rows 256 bytes apart: bank 0 again; 4096 / 128 threads = 32 rounds x 4 warps x 32
    node = _nest(_through_shared("float32", transposed=True, threads=128))
    assert node.smem_wavefront_bytes == 32 * 4 * 32 * 128


def test_an_annotated_layout_is_not_counted_row_major():
    node = _nest(_through_shared("float16", transposed=True, annotate=True))
    assert node.smem_wavefront_bytes is None


def test_the_plan_prices_the_wavefronts_as_shared_memory_bytes():
    conflicted = plan_prim_func(_through_shared("float16", transposed=True), HW)
    plain = plan_prim_func(_through_shared("float16", transposed=False), HW)

    def smem(plan):
        return sum(a.smem_bytes for a, _ in plan.actions() if a.kind is ActionKind.ELEMENTWISE)

    assert smem(conflicted) == 16 * 8 * 32 * 128
    assert smem(plain) == B * B * 2
    # the report names the conflicted nest: 4096 wavefronts where its 8 KiB would fill 64
    (note,) = [n for n in conflicted.notes if "bank conflicts" in n]
    assert "4096 wavefronts a tile to move 8192 bytes of s, which 64 full wavefronts hold" in note
    assert not [n for n in plain.notes if "bank conflicts" in n]


def _padded(pad: int):
    @T.prim_func
    def main(X: T.Tensor((M, N), "float16"), Y: T.Tensor((N, M), "float16")):
        with T.Kernel(N // B, M // B, threads=256) as (bx, by):
            s = T.alloc_shared((B, B + pad), "float16")
            for i, j in T.Parallel(B, B):
                s[i, j] = X[by * B + i, bx * B + j]
            for i, j in T.Parallel(B, B):
                Y[bx * B + i, by * B + j] = s[j, i]

    return main


def test_a_padded_tile_reads_its_column_without_conflicts():
    write, read = [op for op in walk(_padded(2)).body if getattr(op, "op", "") == "parallel"]
    # rows 66 halves (132 bytes, 33 words) apart: lane j's word 33 j + i // 2 sits in bank (j + i // 2) % 32,
    # 32 banks for 32 lanes: one wavefront per warp access, 16 rounds x 8 warps
    assert read.smem_wavefront_bytes == 16 * 8 * 128
    # the store keeps the partition's 8 lanes a thread (8 threads a row, 4 rows a warp) but a row starts
    # at 66 halves, 4-byte aligned only: 4 stores of 2 halves (TileLang's lowering: uint1). Lane (r, c) of a
    # store writes word 33 r + 4 c + e, banks r + 4 c + e: all distinct, 1 wavefront. 2 rounds x 8 warps x 4
    assert write.smem_wavefront_bytes == 2 * 8 * 4 * 128
    # padded to 72 halves the rows stay 16-byte aligned: one 16-byte store a thread, 4 phases; the read's
    # words 36 j + i // 2 fall in banks (4 j + i // 2) % 32: 8 banks with 4 lanes' distinct words each
    write, read = [op for op in walk(_padded(8)).body if getattr(op, "op", "") == "parallel"]
    assert write.smem_wavefront_bytes == 2 * 8 * 4 * 128
    assert read.smem_wavefront_bytes == 16 * 8 * 4 * 128


def test_a_threads_row_read_round_by_round_is_merged_into_vector_reads():
    # a 128 x 32 fp16 tile written to Y transposed on 128 threads: thread j reads its own row s[j, i] for
    # i = 0..31, one element a round (the partition: i = round, j = thread). Rows are 64 bytes apart: as
    # 2-byte reads, lanes j sit in banks 0 and 16 with 16 words each (16 wavefronts, 32 rounds). nvcc
    # merges each 8 rounds' contiguous, 16-byte aligned reads into one: 4 reads of 16 bytes, 4 phases of 8
    # lanes whose rows start in banks 0 and 16, 4 words a bank: 4 wavefronts a phase, 16 a read.
    # 4 warps x 4 x 16
    @T.prim_func
    def main(X: T.Tensor((M, N), "float16"), Y: T.Tensor((N, M), "float16")):
        with T.Kernel(N // 32, M // 128, threads=128) as (bx, by):
            s = T.alloc_shared((128, 32), "float16")
            T.copy(X[by * 128, bx * 32], s)
            for i, j in T.Parallel(32, 128):
                Y[bx * 32 + i, by * 128 + j] = s[j, i]

    assert _nest(main).smem_wavefront_bytes == 4 * 4 * 16 * 128

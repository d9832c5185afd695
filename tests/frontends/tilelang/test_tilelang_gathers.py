"""Element-wise global reads beyond one lane per element: a floor-divided lane index (a group-wise
dequantisation scale) and two tiles of one tensor side by side (a rotary embedding's halves)."""

import dataclasses

import pytest

pytest.importorskip("tilelang")

import tilelang.language as T  # noqa: E402
from tilesight.frontends.tilelang import plan_prim_func  # noqa: E402

from tilesight.cache.base import compulsory_traffic  # noqa: E402
from tilesight.errors import UnsupportedOpError  # noqa: E402
from tilesight.hardware import load_profile  # noqa: E402
from tilesight.model.resources import contiguous_bytes  # noqa: E402
from tilesight.plan import ActionKind  # noqa: E402

pytestmark = pytest.mark.tilelang

HW = load_profile("h200")


def _dequant(scale, gs=128, M=16, N=1024, K=1024, bm=16, bn=128, bk=128):
    """An int4 GEMM whose T.Parallel unpacking multiplies by a scale read from global memory at
    ``scale(bx, k, i, j)`` (the survey's gemm_dequant_int4_groupscale, smaller)."""

    @T.prim_func
    def main(A: T.Tensor((M, K), "bfloat16"), B: T.Tensor((N, K // 2), "uint8"),
             S: T.Tensor((N, K // gs), "bfloat16"), C: T.Tensor((M, N), "bfloat16")):  # fmt: skip
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            a = T.alloc_shared((bm, bk), "bfloat16")
            packed = T.alloc_shared((bn, bk // 2), "uint8")
            w = T.alloc_fragment((bn, bk), "bfloat16")
            w_s = T.alloc_shared((bn, bk), "bfloat16")
            c = T.alloc_fragment((bm, bn), "float32")
            T.clear(c)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=3):
                T.copy(A[by * bm, k * bk], a)
                T.copy(B[bx * bn, k * bk // 2], packed)
                for i, j in T.Parallel(bn, bk):
                    q = T.Cast("int8", (packed[i, j // 2] >> ((j % 2) * 4)) & 0xF) - 8
                    w[i, j] = T.Cast("bfloat16", q) * S[bx * bn + i, scale(k, j)]
                T.copy(w, w_s)
                T.gemm(a, w_s, c, transpose_B=True)
            T.copy(c, C[by * bm, bx * bn])

    return main


def _scale_tile(plan):
    (load,) = [a for a, _ in plan.actions() if a.kind is ActionKind.LOAD and a.tensor == "S"]
    return plan.tensor("S").tile, load.shape


def test_a_group_scale_read_through_floor_division_is_the_groups_it_meets():
    # group 128 = block_K: the 128 lanes j of a row read S[row, (k * 128 + j) // 128] = S[row, k], one
    # element; the block reads the distinct (row, group) pairs: 128 rows x 1 group, 128 x 2 B = 256 B per
    # iteration, the plan of the same kernel indexing S[row, k] directly
    divided = plan_prim_func(_dequant(lambda k, j: (k * 128 + j) // 128), HW)
    direct = plan_prim_func(_dequant(lambda k, j: k), HW)
    assert _scale_tile(divided) == ((128, 1), (128, 1))
    assert divided.tensor("S").tile_bytes == 128 * 1 * 2
    strip = [dataclasses.replace(a, location="") for a, _ in direct.actions()]
    assert [dataclasses.replace(a, location="") for a, _ in divided.actions()] == strip
    assert divided.tensors == direct.tensors and divided.resources == direct.resources


@pytest.mark.parametrize(
    ("gs", "scale", "groups"),
    [
        # group 64: the lanes j = 0..127 after k * 128 meet (k * 128 + j) // 64 = 2k and 2k + 1
        (64, lambda k, j: (k * 128 + j) // 64, 2),
        # group 32, started 16 elements into a group: (16 + j) // 32 over j = 0..127 is 0..4, five groups,
        # (16 mod 32 + 128 - 1) // 32 + 1 = 5
        (32, lambda k, j: (k * 128 + 16 + j) // 32, 5),
        # an offset outside the division: 4 * k + j // 32 meets j // 32 = 0..3, four groups
        (32, lambda k, j: 4 * k + j // 32, 4),
    ],
)
def test_smaller_groups_read_every_group_a_row_meets(gs, scale, groups):
    plan = plan_prim_func(_dequant(scale, gs=gs), HW)
    assert _scale_tile(plan) == ((128, groups), (128, groups))


def test_a_division_whose_start_alignment_varies_is_refused():
    # (3k + j) // 32 meets 4 or 5 groups depending on 3k mod 32: no one tile; the error names the read
    at = r"load from global buffer 'S' at \[bx \* 128 \+ i, \(k \* 3 \+ j\) // 32\]"
    with pytest.raises(UnsupportedOpError, match=at):
        plan_prim_func(_dequant(lambda k, j: (k * 3 + j) // 32, gs=32), HW)


def test_a_floor_divided_store_stays_refused():
    # two lanes writing one element race: only reads may divide a lane index
    @T.prim_func
    def main(A: T.Tensor((128, 64), "float16"), B: T.Tensor((128, 32), "float16")):
        with T.Kernel(1, threads=128) as bx:
            for i, j in T.Parallel(128, 64):
                B[bx * 128 + i, j // 2] = A[bx * 128 + i, j]

    with pytest.raises(UnsupportedOpError, match="element-wise store to global buffer 'B'"):
        plan_prim_func(main, HW)


def _rope(T_=1024, H=8, D=128, bt=16, offset=None):
    """Rotary embedding, non-interleaved halves, as the survey's rope_half_rotate."""
    half = D // 2

    @T.prim_func
    def main(X: T.Tensor((T_, H, D), "float16"), cos: T.Tensor((T_, half), "float32"),
             sin: T.Tensor((T_, half), "float32"), Y: T.Tensor((T_, H, D), "float16")):  # fmt: skip
        with T.Kernel(T.ceildiv(T_, bt), H, threads=128) as (bx, by):
            for i, j in T.Parallel(bt, half):
                x1 = T.Cast("float32", X[bx * bt + i, by, j])
                x2 = T.Cast("float32", X[bx * bt + i, by, j + (half if offset is None else offset(by))])
                c = cos[bx * bt + i, j]
                s = sin[bx * bt + i, j]
                Y[bx * bt + i, by, j] = T.Cast("float16", x1 * c - x2 * s)
                Y[bx * bt + i, by, j + half] = T.Cast("float16", x2 * c + x1 * s)

    return main


def test_rotary_halves_are_two_regions_side_by_side():
    plan = plan_prim_func(_rope(), HW)
    tiles = {t.name: t.tile for t in plan.tensors}
    # X[.., j] and X[.., j + 64] are the regions X and X+64 of a (16, 1, 64) tile each; so are Y's; cos and
    # sin one (16, 64) tile each
    assert tiles == {
        "X": (16, 1, 64),
        "X+64": (16, 1, 64),
        "cos": (16, 64),
        "sin": (16, 64),
        "Y": (16, 1, 64),
        "Y+64": (16, 1, 64),
    }
    # cos and sin are read by both statements but loaded once
    loads = sorted(a.tensor for a, _ in plan.actions() if a.kind is ActionKind.LOAD)
    assert loads == ["X", "X+64", "cos", "sin"]
    stores = sorted(a.tensor for a, _ in plan.actions() if a.kind is ActionKind.STORE)
    assert stores == ["Y", "Y+64"]
    # side by side the halves' rows are one 128-element run: 128 x 2 B = 256 B, not a half's 128 B
    x = plan.tensor("X+64")
    assert x.run_bytes == 256 and contiguous_bytes(dataclasses.replace(x, run_bytes=None)) == 128
    assert plan.tensor("cos").run_bytes is None


def test_rotary_halves_read_the_tensor_once():
    plan = plan_prim_func(_rope(), HW)
    traffic = compulsory_traffic(plan, HW)
    # 64 x 8 blocks each read a 16 x 64 fp16 tile of each half: 512 x 2048 B = 1 MiB per region, together
    # X's 1024 x 8 x 128 x 2 B = 2 MiB once; Y is written once likewise
    x_bytes = 1024 * 8 * 128 * 2
    for name in ("X", "X+64", "Y", "Y+64"):
        assert traffic.tensors[name].requested_bytes == 64 * 8 * 16 * 64 * 2
    assert traffic.tensors["X"].ddr_bytes + traffic.tensors["X+64"].ddr_bytes == x_bytes
    assert traffic.tensors["Y"].ddr_bytes + traffic.tensors["Y+64"].ddr_bytes == x_bytes


def test_two_tiles_of_a_tensor_at_an_offset_that_varies_are_refused():
    # X[.., j + by]: the second tile's offset from the first changes with the head block
    what = "two element-wise tiles of global buffer 'X' not a constant"
    with pytest.raises(UnsupportedOpError, match=what):
        plan_prim_func(_rope(offset=lambda by: by), HW)

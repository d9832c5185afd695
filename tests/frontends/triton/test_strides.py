"""Memory-order runs of tiles of tensors whose unit-stride dimension is not the last (CPU only)."""

import pytest

pytest.importorskip("triton")
from tilesight.frontends.triton.strides import (  # noqa: E402
    Gathered,
    Quotient,
    Remainder,
    Split,
    memory_run_bytes,
    propagate,
    tile_extents,
)

from tilesight import TensorSpec  # noqa: E402


def test_a_column_major_tile_runs_along_its_first_dimension():
    # B (K, N) = (4096, 6144) fp16 stored K-major, strides (1, 4096): a 64 x 128 tile is 128 rows of
    # 64 contiguous elements, 128 bytes; with BK = 32, 64 bytes
    b = TensorSpec((4096, 6144), "float16", strides=(1, 4096))
    assert memory_run_bytes((64, 128), b, 2) == 128
    assert memory_run_bytes((32, 128), b, 2) == 64
    # a tile spanning the whole unit-stride dimension runs on into the next one: 4096 x 2 columns
    assert memory_run_bytes((4096, 2), b, 2) == 4096 * 2 * 2


def test_row_major_tensors_are_left_to_the_engine():
    assert memory_run_bytes((64, 128), TensorSpec((4096, 6144), "float16"), 2) is None
    # a padded row-major slice still has its unit stride last: the engine's own reading
    assert memory_run_bytes((64, 128), TensorSpec((4096, 6144), "float16", strides=(8192, 1)), 2) is None
    # no unit-stride dimension: nothing to say
    assert memory_run_bytes((64, 128), TensorSpec((4096, 6144), "float16", strides=(2, 8192)), 2) is None


def test_a_transposed_batch_runs_along_its_unit_stride_dimension():
    # (B, M, K) with M unit-stride inside each batch: strides (M * K, 1, M); a 1 x 64 x 32 tile runs 64
    x = TensorSpec((8, 1024, 512), "float32", strides=(1024 * 512, 1, 1024))
    assert memory_run_bytes((1, 64, 32), x, 4) == 64 * 4


def test_a_modulus_beyond_the_tiles_span_keeps_the_walk():
    # (pid_n * 128 + arange(128)) % N: the column index spans 127 values in a tile, so for N >= 128 it
    # wraps at most once and walks the tile as the dividend does; % 64 folds it (no affine walk)
    text = "%cols, %n : tensor<128xi32>"
    assert propagate("arith.remsi", text, (128,), [(1,), (0,)], [None, 14336]) == (1,)
    assert propagate("arith.remui", text, (128,), [(1,), (0,)], [None, 128]) == (1,)
    # % 64 folds it: half a split axis (below), no walk of its own
    folded = propagate("arith.remsi", text, (128,), [(1,), (0,)], [None, 64])
    assert folded == (Remainder(64, 1),)
    assert tile_extents((128,), folded, TensorSpec((4096, 64), "float16")) is None
    assert propagate("arith.remsi", text, (128,), [(1,), (0,)], [None, None]) is None
    # a 2-D index: rows of stride 64 over 32 rows and 64 columns span 31 * 64 + 63 = 2047 values
    text2 = "%idx, %n : tensor<32x64xi32>"
    assert propagate("arith.remsi", text2, (32, 64), [(64, 1), (0, 0)], [None, 2048]) == (64, 1)
    assert propagate("arith.remsi", text2, (32, 64), [(64, 1), (0, 0)], [None, 2047]) is None


def test_a_moe_weight_tile_lands_on_its_n_and_k_dimensions():
    # vLLM's expert weights (E, N, K), K contiguous, read as a BK x BN tile (k down, n across: strides
    # 1 and K): 64 along K, 128 along N
    w = TensorSpec((8, 14336, 4096), "bfloat16")
    assert tile_extents((64, 128), (1, 4096), w) == (1, 128, 64)


def test_a_flat_range_over_a_tokens_heads_covers_every_head():
    # a (T, H, D) = (16384, 8, 128) cache read a token at a time by arange(0, H * D): the 1024-element axis of
    # stride 1 covers D and runs on into H (packed against it: stride D), not 128 elements of one head
    kv = TensorSpec((16384, 8, 128), "bfloat16")
    assert tile_extents((1024,), (1,), kv) == (1, 8, 128)
    assert tile_extents((1024,), (1,), TensorSpec((16384, 32, 32), "bfloat16")) == (1, 32, 32)
    # unmasked, 1000 elements cover 7.8 heads: eight rows of D
    assert tile_extents((1000,), (1,), kv) == (1, 8, 128)
    # heads padded apart (stride 256 for 128 elements) are not packed: the axis stays on D, past its extent
    padded = TensorSpec((16384, 8, 128), "bfloat16", strides=(2048, 256, 1))
    assert tile_extents((1024,), (1,), padded) == (1, 1, 1024)
    # nor does an axis run into a dimension another axis walks: a 64-wide tile of a 16-column B keeps its
    # 64 rows of K
    assert tile_extents((64, 64), (1, 16), TensorSpec((4096, 16), "float16")) == (64, 64)


def test_a_masked_axis_runs_on_only_in_whole_rows_and_not_into_the_outermost_dimension():
    # a 2,048-wide block of a 2,000-wide row under cols < n_cols stays in its row (the caller clamps it)
    rows = TensorSpec((32768, 2000), "float16")
    assert tile_extents((2048,), (1,), rows, masked=True) == (1, 2048)
    # ... as does one twice its row: the mask keeps it to its row, whose rows a program picks
    wide = TensorSpec((32768, 1024), "float16")
    assert tile_extents((2048,), (1,), wide, masked=True) == (1, 2048)
    assert tile_extents((2048,), (1,), wide) == (2, 1024)  # unmasked, its addresses do run on
    # 12 heads of 128 under a 2,048-wide masked block (hd < H * D): 16 whole heads, clamped to 12 by the
    # caller, and not on into the tokens
    kv = TensorSpec((4096, 12, 128), "bfloat16")
    assert tile_extents((2048,), (1,), kv, masked=True) == (1, 16, 128)


def test_a_gathered_axis_reads_one_row_of_its_scaled_dimension_per_lane():
    # SGLang's decode reads K^T from a (slots, H, D) = (130752, 8, 128) cache at loaded slot numbers:
    # kv_loc[None, :] * (H * D) + head * D + offs_d[:, None], a D x BLOCK_N = 128 x 32 tile. The slot axis
    # gathers 32 rows of the slot dimension, the other walks D: a 32 x 1 x 128 tile (8 KB), where mapping
    # the tile's axes onto the innermost dimensions gave 1 x 8 x 32 (512 B: 16x too few bytes)
    text = "%a, %b : tensor<1x32xi64>"
    slots = propagate("tt.expand_dims", "%x {axis = 0 : i32}", (1, 32), [(Gathered(),)], [None])
    assert slots == (0, Gathered())
    scaled = propagate("arith.muli", text, (1, 32), [slots, (0, 0)], [None, 8 * 128])
    assert scaled == (0, Gathered(1024))
    # + offs_d[:, None] (stride 1 down the rows) + head * D (a splat): still gathered along the slots
    offs = propagate("arith.addi", "%a, %b : tensor<128x32xi64>", (128, 32), [scaled, (1, 0)], [None, None])
    assert offs == (1, Gathered(1024))
    kv = TensorSpec((130752, 8, 128), "bfloat16")
    assert tile_extents((128, 32), offs, kv) == (32, 1, 128)
    # a gathered axis under a modulus, or two gathered axes added, is no walk
    assert propagate("arith.remsi", text, (1, 32), [scaled, (0, 0)], [None, 16]) is None
    assert propagate("arith.addi", text, (1, 32), [scaled, scaled], [None, None]) is None


def test_a_paged_tile_walks_the_tokens_of_its_page():
    # vLLM's V cache (blocks, H, D, PAGE) = (16110, 8, 128, 16): page[:, None] * (H * D * PAGE) + head * D *
    # PAGE + offs_d[None, :] * PAGE + (tok % PAGE)[:, None], a 16-token x 128 tile. The modulus keeps the walk
    # (16 tokens span 15 < 16: one page), so the token axis walks the page's slots and the page number, the
    # same for every lane, picks the block: a 1 x 1 x 128 x 16 tile (the innermost-dimensions fallback had
    # 1 x 1 x 16 x 16, 8x too few bytes)
    text = "%a, %b : tensor<16x128xi64>"
    page = (Gathered(8 * 128 * 16), 0)
    tokens = propagate("arith.remsi", "%t, %p : tensor<16x1xi32>", (16, 1), [(1, 0), (0, 0)], [None, 16])
    assert tokens == (1, 0)
    offs = propagate("arith.addi", text, (16, 128), [page, tokens], [None, None])
    offs = propagate("arith.addi", text, (16, 128), [offs, (0, 16)], [None, None])
    assert offs == (1, 16)
    v = TensorSpec((16110, 8, 128, 16), "bfloat16")
    assert tile_extents((16, 128), offs, v) == (1, 1, 128, 16)


def test_a_head_dimension_split_by_x_walks_both_of_its_dimensions():
    # vLLM's paged key cache (blocks, H, D / x, PAGE, x) = (16110, 8, 16, 16, 8), bf16 (x = 8: 16 bytes):
    # strides (16384, 2048, 128, 8, 1). Its K tile is read as block * 16384 + head * 2048 + (offs_d // x) *
    # 128 + tok * 8 + (offs_d % x), a 128 (D) x 16 (tokens) tile. offs_d walks 8 elements of x, then a step
    # of D / x every 8: 16 of them. The tile is 1 x 1 x 16 x 16 x 8 (4 KB; the innermost-dimensions
    # fallback had 1 x 1 x 8 x 16 x 8, half the bytes)
    text = "%a, %b : tensor<128x16xi32>"
    d = propagate("tt.expand_dims", "%x {axis = 1 : i32}", (128, 1), [(1,)], [None])
    assert d == (1, 0)
    quot = propagate("arith.divsi", "%d, %x : tensor<128x1xi32>", (128, 1), [d, (0, 0)], [None, 8])
    rem = propagate("arith.remsi", "%d, %x : tensor<128x1xi32>", (128, 1), [d, (0, 0)], [None, 8])
    assert (quot, rem) == ((Quotient(8, 1), 0), (Remainder(8, 1), 0))
    quot = propagate("arith.muli", text, (128, 1), [quot, (0, 0)], [None, 128])
    assert quot == (Quotient(8, 128), 0)
    tok = (0, 8)  # tok[None, :] * 8
    offs = propagate("arith.addi", text, (128, 16), [quot, tok], [None, None])
    offs = propagate("arith.addi", text, (128, 16), [offs, rem], [None, None])
    assert offs == (Split(8, inner=1, outer=128), 8)
    k = TensorSpec((16110, 8, 16, 16, 8), "bfloat16")
    assert tile_extents((128, 16), offs, k) == (1, 1, 16, 16, 8)
    # a 4-wide slice of the head dimension stays inside one x: 4 elements of x, one step of D / x
    assert tile_extents((4, 16), offs, k) == (1, 1, 1, 16, 4)


def test_only_a_quotient_and_a_remainder_of_one_period_make_a_split():
    text = "%a, %b : tensor<128xi32>"
    quot, rem = (Quotient(8, 128),), (Remainder(8, 1),)
    assert propagate("arith.addi", text, (128,), [quot, (Remainder(16, 1),)], [None, None]) is None
    assert propagate("arith.subi", text, (128,), [quot, rem], [None, None]) is None
    assert propagate("arith.addi", text, (128,), [quot, (1,)], [None, None]) is None
    assert propagate("arith.addi", text, (128,), [rem, quot], [None, None]) == (Split(8, 1, 128),)
    # a divisor the index's stride does not divide, or an index moving along two axes, is no split
    assert propagate("arith.divsi", text, (128,), [(3,)], [None, 8]) is None
    assert propagate("arith.divsi", "%a : tensor<8x16xi32>", (8, 16), [(16, 1)], [None, 8]) is None
    # anything else on a half (a shift, a compare) is no walk either
    assert propagate("arith.shli", text, (128,), [quot, (0,)], [None, 2]) is None


def test_a_tile_of_tokens_over_two_pages_walks_a_page_and_the_slots_of_each():
    # vLLM's unified attention: a 32-token tile of 16-token pages of a (blocks, PAGE, H, D) = (16110, 16, 8,
    # 128) cache, table[tok // 16][:, None] * 16384 + (tok % 16)[:, None] * 1024 + head * 128 + offs_d: the
    # token axis reads 16 slots of a page, then the next page; a 2 x 16 x 1 x 128 tile (8 KB)
    text = "%a, %b : tensor<32x128xi64>"
    page = (Gathered(16 * 8 * 128), 0)
    slot = propagate("arith.remsi", "%t, %p : tensor<32x1xi32>", (32, 1), [(1, 0), (0, 0)], [None, 16])
    assert slot == (Remainder(16, 1), 0)
    slot = propagate("arith.muli", "%a, %b : tensor<32x1xi32>", (32, 1), [slot, (0, 0)], [None, 1024])
    offs = propagate("arith.addi", text, (32, 128), [page, slot], [None, None])
    assert offs == (Split(16, inner=1024, outer=16384), 0)
    offs = propagate("arith.addi", text, (32, 128), [offs, (0, 1)], [None, None])
    k = TensorSpec((16110, 16, 8, 128), "bfloat16")
    assert tile_extents((32, 128), offs, k) == (2, 16, 1, 128)

"""Shared-memory wavefronts of register-to-shared stores (frontends/triton/banks.py), worked out by hand."""

from tilesight.frontends.triton.banks import store_wavefronts

# an 8-bit tile in Triton's usual global-load layout: 16 bytes a thread along N, 4 x 8 lanes, 8 warps on rows
INT8_ROWS = {"sizePerThread": (1, 16), "threadsPerWarp": (4, 8), "warpsPerCTA": (8, 1), "order": (1, 0)}


def test_row_major_int8_tile_stored_k_major_is_byte_wise_and_conflicts_eight_ways():
    # A 128 x 128 int8 B tile held as above, stored K-major for wgmma (nvmma_shared, 128-byte swizzle,
    # transposed): a thread's 16 bytes run along N, across 16 rows of the stored tile, so each goes out alone
    # (STS.U8): 16 x 4 = 64 instructions a thread, 64 x 8 warps = 512 warp instructions. In one instruction
    # the lanes hold k = 0..3 (4 bytes of one word) and 8 values of n that are 16 apart: the same n mod 8,
    # so the same 16-byte chunk after the swizzle, and rows 128 bytes apart: one bank, 8 distinct words, 8
    # wavefronts each. 512 x 8 = 4096 wavefronts.
    assert store_wavefronts((128, 128), 1, INT8_ROWS, ("nvmma", 128, True)) == (4096, 512)
    # stored N-contiguous instead, the 16-byte vectors go out whole and conflict-free: 16 KiB / 128 B = 128
    assert store_wavefronts((128, 128), 1, INT8_ROWS, ("nvmma", 128, False)) == (128, 32)


def test_unswizzled_transposed_store_conflicts_the_same():
    # without a swizzle the stored rows (128 bytes of K) all start in bank 0: the 8 values of n of one
    # instruction are again 8 words of one bank, 4096 wavefronts (the swizzle cannot help: n mod 8 is shared)
    assert store_wavefronts((128, 128), 1, INT8_ROWS, ("nvmma", 0, True))[0] == 4096


def test_linear_layout_vector_run_and_conflicts():
    # The dequantised 64 x 128 fp16 B tile of a w4a16 GEMM: registers step K by 1 then N by 1, 2, 4, 8;
    # lanes N by 16, 32, 64 then K by 2, 4; warps K by 8, 16, 32. Stored K-major (transposed nvmma, 128-byte
    # swizzle): a thread's two consecutive K values form one 4-byte store, 16 stores a thread. In one store
    # the lanes hold k in {0, 2, 4, 6} (4 words of a 16-byte chunk) and 8 values of n 16 apart (same n mod 8,
    # same swizzle): 4 banks with 8 words each, 8 wavefronts. 16 x 8 warps x 8 = 1024 wavefronts.
    linear = {
        "register": ((1, 0), (0, 1), (0, 2), (0, 4), (0, 8)),
        "lane": ((0, 16), (0, 32), (0, 64), (2, 0), (4, 0)),
        "warp": ((8, 0), (16, 0), (32, 0)),
    }
    assert store_wavefronts((64, 128), 2, linear, ("nvmma", 128, True)) == (1024, 128)


def test_swizzled_shared_layout_spreads_rows_over_banks():
    # 1 column (4 bytes) per lane down 32 rows of a 32 x 32 fp32 tile: unswizzled every row starts in bank 0
    # (32-way); with vec=1, perPhase=1, maxPhase=32 row r's column c lands at c ^ r: all 32 banks (1 each)
    col = {"sizePerThread": (1, 1), "threadsPerWarp": (32, 1), "warpsPerCTA": (1, 1), "order": (0, 1)}
    assert store_wavefronts((32, 32), 4, col, ("swizzled", 1, 1, 1, (1, 0)))[0] == 32 * 32
    assert store_wavefronts((32, 32), 4, col, ("swizzled", 1, 1, 32, (1, 0)))[0] == 32

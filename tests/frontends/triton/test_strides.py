"""Memory-order runs of tiles of tensors whose unit-stride dimension is not the last (CPU only)."""

import pytest

pytest.importorskip("triton")
from tilesight.frontends.triton.strides import memory_run_bytes  # noqa: E402

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

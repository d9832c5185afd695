"""The dequantising GEMM's plan: packed int4 tiles, the unpacking work, and the fp16 dot, checked by hand."""

import pytest

pytest.importorskip("tilelang")

from tilesight.frontends.tilelang import plan_prim_func  # noqa: E402
from tilesight.kernels.tilelang.dequant_gemm import dequant_gemm  # noqa: E402

from tilesight.hardware import load_profile  # noqa: E402
from tilesight.plan import ActionKind, Loop  # noqa: E402

pytestmark = pytest.mark.tilelang

HW = load_profile("h200")


def test_dequant_gemm_plan():
    p = plan_prim_func(dequant_gemm(256, 512, 1024, 128, 128, 64, 2, 128, "int4"), HW)
    assert p.grid.shape == (4, 2)
    b = p.tensor("B")
    # N x K/2 bytes; one tile is 128 rows x 64 / 2 = 32 packed bytes
    assert (b.dtype, b.shape, b.tile, b.reuse_dims) == ("int8", (512, 512), (128, 32), {"by"})
    (loop,) = [n for n in p.body if isinstance(n, Loop)]
    assert (loop.trips, loop.stages) == (1024 // 64, 2)
    unpack = next(a for a in loop.body if a.kind is ActionKind.ELEMENTWISE)
    # per weight: widen the byte to int32, shift amount (j % 2) * 4 (2 ops), shift, & 15, - 8, cast to fp16
    # = 7 ops over 128 x 64 elements; reads 1 packed byte and writes 2 bytes of shared memory
    assert unpack.flops == 7 * 128 * 64
    assert unpack.smem_bytes == 3 * 128 * 64
    dot = next(a for a in loop.body if a.kind is ActionKind.DOT)
    assert dot.shape == (128, 128, 64) and dot.dtype == "float16" and dot.variant == "wgmma"
    assert unpack.name in dot.deps
    # A 2 x 16 KiB + packed B 2 x 4 KiB + unpacked B 16 KiB (written in the loop from shared, not a TMA
    # target: one copy) = 56 KiB, + 1 KiB barriers; TileLang's lowering allocates the same 56 KiB
    assert p.resources.smem_bytes == 57344 + 1024


def test_uint4_has_no_offset():
    p = plan_prim_func(dequant_gemm(256, 256, 256, 128, 128, 64, 2, 128, "uint4"), HW)
    (loop,) = [n for n in p.body if isinstance(n, Loop)]
    unpack = next(a for a in loop.body if a.kind is ActionKind.ELEMENTWISE)
    # the same unpacking without the "- 8": 6 ops per weight
    assert unpack.flops == 6 * 128 * 64

"""The dequantising GEMM's plan: packed int4 tiles, the unpacking work, and the fp16 dot, checked by hand."""

import pytest

pytest.importorskip("tilelang")

from tilesight.frontends.tilelang import plan_prim_func  # noqa: E402
from tilesight.kernels.tilelang.dequant_gemm import dequant_gemm  # noqa: E402

import tilesight  # noqa: E402
from tilesight.hardware import load_profile  # noqa: E402
from tilesight.plan import ActionKind, Loop, SerialChain  # noqa: E402

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


def test_unpacking_is_a_serial_chain():
    p = plan_prim_func(dequant_gemm(256, 512, 1024, 128, 128, 64, 2, 128, "int4"), HW)
    (loop,) = [n for n in p.body if isinstance(n, Loop)]
    unpack = next(a for a in loop.body if a.kind is ActionKind.ELEMENTWISE)
    # B_shared[i, j] = half(((int(B_packed[i, j // 2]) >> (j % 2) * 4) & 15) - 8): j // 2 caps the vector at
    # 2 lanes (TileLang lowers it to char2 -> half2); from the load: shift, and, subtract (the widening cast
    # is the byte load's sign extension; the shift amount is lane math), then one int -> half conversion.
    # The 1-byte load and 4-byte store footprints differ: serial. 128 x 64 weights / (128 threads x 2 lanes)
    # = 32 iterations per thread, what the lowered CUDA's unrolled loop runs. The step's T.gemm reads
    # B_shared: the chain feeds a dot.
    assert unpack.chain == SerialChain(iterations=32, lanes=2, alu=3, cvt=1, packed_alu=False, feeds_dot=True)
    # 256 threads (a 128 x 256 tile): 256 x 64 / (256 x 2) = 32 again
    p = plan_prim_func(dequant_gemm(256, 512, 1024, 128, 256, 64, 3, 256, "uint4"), HW)
    (loop,) = [n for n in p.body if isinstance(n, Loop)]
    unpack = next(a for a in loop.body if a.kind is ActionKind.ELEMENTWISE)
    assert unpack.chain == SerialChain(iterations=32, lanes=2, alu=2, cvt=1, packed_alu=False, feeds_dot=True)


def test_serial_chain_sets_the_loop_pace():
    # one k step: the unpacking chain, then the synchronous dot; the chain (1.19 us with the h200 profile's
    # latencies, + 0.24 us for feeding the dot) is several times the unpacking's issue time
    from tilesight.model.resources import serial_chain_s

    p = plan_prim_func(dequant_gemm(4096, 4096, 4096, 128, 128, 64, 2, 128, "int4"), HW)
    (loop,) = [n for n in p.body if isinstance(n, Loop)]
    unpack = next(a for a in loop.body if a.kind is ActionKind.ELEMENTWISE)
    chain_s = serial_chain_s(unpack.chain, HW)
    assert chain_s == pytest.approx(
        32
        * (
            HW.smem_chain_latency_s
            + 3 * HW.alu_latency_s
            + HW.cvt_latency_s
            + 3 * 32 * 2 * 2 * 528 / HW.cuda_flops_per_s  # 3 int ops x 1 extra lane at half the FP32 rate
            + 32 * 528 / HW.sfu_ops_per_s  # 1 conversion x 1 extra lane at the SFU rate
        )
        + HW.smem_feed_step_s  # once per step: the T.gemm reads what the chain wrote
    )
    r = tilesight.estimate(p, hw=HW)
    # 7.76 waves of 64 steps: at least the chain per step on the busiest SM (8 blocks)
    assert r.latency_s > 8 * 64 * chain_s
    assert any("run back to back" in n for n in r.notes)

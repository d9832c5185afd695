"""The register estimate behind occupancy when ptxas is not run."""

from tilesight.frontends.triton.registers import REGISTER_OVERHEAD, estimate_registers

from tilesight.plan import ActionKind, Loop, TileAction


def _loop(*dots: TileAction) -> tuple:
    return (Loop("k", 8, dots, stages=3, reduction=True),)


def test_wgmma_accumulator_over_threads():
    # 128 x 256 fp32 accumulator over 256 threads = 128 registers, + 40 overhead = 168
    dot = TileAction("d", ActionKind.DOT, dtype="float16", shape=(128, 256, 64), variant="wgmma")
    assert estimate_registers(_loop(dot), 256) == REGISTER_OVERHEAD + 128


def test_mma_operands_in_registers_and_dots_outside_loops_ignored():
    # mma: accumulator 64 x 64 / 128 = 32; operands (64 x 32 + 32 x 64) x 2 B / 4 B / 128 threads = 16
    dot = TileAction("d", ActionKind.DOT, dtype="float16", shape=(64, 64, 32), variant="mma")
    outside = TileAction("e", ActionKind.DOT, dtype="float16", shape=(64, 64, 32), variant="mma")
    assert estimate_registers((*_loop(dot), outside), 128) == REGISTER_OVERHEAD + 32 + 16


def test_wgmma_operand_computed_in_registers():
    # attention's P @ V: P (128 x 64 fp16) comes from the softmax, so it sits in registers:
    # accumulator 128 x 64 / 128 = 64, P 128 x 64 x 2 B / 4 B / 128 = 32; + 40 overhead = 136
    soft = TileAction("p", ActionKind.ELEMENTWISE, flops=8192.0)
    dot = TileAction("pv", ActionKind.DOT, dtype="float16", shape=(128, 64, 64), variant="wgmma", deps=("p",))
    body = (Loop("kv", 4, (soft, dot), stages=2, reduction=True),)
    assert estimate_registers(body, 128) == REGISTER_OVERHEAD + 64 + 32


def test_a_wrapped_mma_layout_holds_a_copy_of_the_dot_per_warpgroup():
    # a 64 x 128 score tile on 8 warps: both warpgroups compute it whole (the walker counts the dot's flops
    # twice), so each holds the accumulator: 2 x 64 x 128 / 256 = 64 registers; the P @ V dot after it has
    # no copies: 64 x 64 / 256 = 16, P 64 x 128 x 2 B / 4 B / 256 = 16; + 40 overhead = 136
    copies = 2 * (2.0 * 64 * 128 * 64)
    qk = TileAction("qk", ActionKind.DOT, dtype="float16", shape=(64, 128, 64), variant="wgmma", flops=copies)
    soft = TileAction("p", ActionKind.ELEMENTWISE, flops=8192.0, deps=("qk",))
    pv = TileAction("pv", ActionKind.DOT, dtype="float16", shape=(64, 64, 128), variant="wgmma", deps=("p",))
    body = (Loop("kv", 4, (qk, soft, pv), stages=2, reduction=True),)
    assert estimate_registers(body, 256) == REGISTER_OVERHEAD + 64 + 16 + 16


def test_sibling_loops_hold_their_tiles_one_after_the_other():
    # the causal attention tutorial's two stages: the same two wgmma dots in an off-band and a diagonal loop.
    # Per loop: S = QK^T accumulator 128 x 64 / 256 threads = 32, O accumulator 128 x 128 / 256 = 64, and P
    # (computed, 128 x 64 fp16) 128 x 64 x 2 B / 4 B / 256 = 16: 112. The loops run in turn, so 112, not 224.
    def stage(name: str) -> Loop:
        qk = TileAction(f"{name}_qk", ActionKind.DOT, dtype="float16", shape=(128, 64, 128), variant="wgmma")
        soft = TileAction(f"{name}_p", ActionKind.SFU, flops=8192.0, deps=(f"{name}_qk",))
        pv = TileAction(
            f"{name}_pv", ActionKind.DOT, dtype="float16", shape=(128, 128, 64), variant="wgmma",
            deps=(f"{name}_p",),
        )  # fmt: skip
        return Loop(name, 8, (qk, soft, pv), stages=3, reduction=True)

    one = estimate_registers((stage("off"),), 256)
    assert one == REGISTER_OVERHEAD + 32 + 64 + 16
    assert estimate_registers((stage("off"), stage("diag")), 256) == one
    # nested loops do hold their tiles together: an outer loop's own dot plus the inner loop's
    outer_dot = TileAction("o", ActionKind.DOT, dtype="float16", shape=(128, 128, 64), variant="wgmma")
    nested = (Loop("outer", 2, (stage("inner"), outer_dot), stages=1),)
    assert estimate_registers(nested, 256) == one + 64


def test_synchronous_loads_stage_their_tiles_in_registers():
    # an unaligned GEMM's loop loads element-wide (2-byte) and synchronously: each of the 64 x 64 A and B
    # tiles' 4096 elements is one access holding a value register and a 32-bit offset: 2 x 4096 x 2 / 128
    # threads = 128 registers, on top of the 64 x 64 fp32 accumulator (32) and the overhead (40)
    a = TileAction("la", ActionKind.LOAD, tensor="a", variant="sync", vector_bytes=2)
    b = TileAction("lb", ActionKind.LOAD, tensor="b", variant="sync", vector_bytes=2)
    dot = TileAction(
        "d", ActionKind.DOT, dtype="float16", shape=(64, 64, 64), variant="wgmma", deps=("la", "lb")
    )
    body = (Loop("k", 8, (a, b, dot), stages=1, reduction=True),)
    tiles = {"a": (64 * 64, 2), "b": (64 * 64, 2)}
    assert estimate_registers(body, 128, tiles=tiles) == REGISTER_OVERHEAD + 32 + 128
    # 16-byte vectors: 512 accesses per tile of 4 value registers and an offset: 2 x 512 x 5 / 128 = 40
    wide = tuple(
        TileAction(n, ActionKind.LOAD, tensor=n[1], variant="sync", vector_bytes=16) for n in ("la", "lb")
    )
    assert estimate_registers((Loop("k", 8, (*wide, dot), stages=1),), 128, tiles=tiles) == 40 + 32 + 40
    # asynchronous (pipelined) loads go straight to shared memory: no staging registers
    asynchronous = tuple(TileAction(n, ActionKind.LOAD, tensor=n[1], vector_bytes=2) for n in ("la", "lb"))
    assert estimate_registers((Loop("k", 8, (*asynchronous, dot), stages=3),), 128, tiles=tiles) == 72


def test_spill_frame_scales_the_register_excess():
    from tilesight.frontends.triton.registers import SPILL_FRAME_PER_EXCESS, spill_frame_bytes

    # 300 live registers over a 255 limit: 45 x 4 B = 180 B of excess, x 2.6 = 468 B of frame
    assert SPILL_FRAME_PER_EXCESS == 2.6
    assert spill_frame_bytes(300, 255) == 468
    assert spill_frame_bytes(255, 255) == 0 and spill_frame_bytes(100, 255) == 0

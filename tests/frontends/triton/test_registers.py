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

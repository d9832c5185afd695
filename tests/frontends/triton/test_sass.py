"""frontends/triton/sass.py: reload waits and loops read off hand-written cuobjdump -sass lines."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from tilesight.frontends.triton.sass import (
    global_load_waits,
    instruction_opcode,
    local_bytes,
    local_slots,
    mma_loop_bodies,
    reload_waits,
)


def _sass(*lines: str, start: int = 0) -> str:
    return "\n".join(f"        /*{start + 16 * i:04x}*/   {text} ;" for i, text in enumerate(lines))


def test_a_run_of_reloads_before_their_uses_waits_once():
    body = [
        "LDL R4, [R1+0x10]",
        "LDL R5, [R1+0x14]",
        "LDL.64 R6, [R1+0x18]",
        "IMAD R8, R4, R5, RZ",  # waits: every reload above has arrived after it
        "IADD3 R9, R6, R7, RZ",
    ]
    assert reload_waits(body) == (1, 0)


def test_each_reload_used_at_once_waits_and_stored_slots_are_told_apart():
    body = [
        "LDL R54, [R1+0x168]",
        "LDL R55, [R1+0x16c]",
        "@P2 LOP3.LUT R55, R55, R54, RZ, 0x3c, !PT",  # wait 1: an address slot the loop only reads
        "@P2 LDG.E.U16 R204, desc[UR24][R54.64]",
        "LDL.64 R20, [R1+0x10]",
        "IMAD R3, R4, R5, R6",  # no reloaded register: no wait
        "HMMA.16816.F32 R24, R20, R8, R24",  # wait 2: R20-R21 come from 0x10-0x17, which the STL below writes
        "STL [R1+0x14], R25",
        "LDL R30, [R1+0x200]",
        "STL [R1+0x204], R30",  # wait 3: a store reads the reloaded register (its slot is read-only)
    ]
    assert reload_waits(body) == (2, 1)


def test_overwriting_a_register_still_loading_waits_too():
    assert reload_waits(["LDL R4, [R1]", "MOV R4, 0x1"]) == (1, 0)
    assert reload_waits(["LDL R4, [R1]", "MOV R5, 0x1", "EXIT"]) == (0, 0)


def test_a_reload_without_a_register_plus_offset_address_counts_as_stored():
    assert reload_waits(["LDL R4, [R2.X4+UR4]", "IMAD R5, R4, R4, RZ"]) == (0, 1)


def test_local_bytes_count_each_width_and_nothing_else():
    body = [
        "LDL R2, [R1+0x10]",  # 4
        "LDL.64 R4, [R1+0x18]",  # 8
        "@P0 LDL.LU.128 R8, [R1+0x20]",  # 16, predicated
        "STL [R1+0x30], R2",  # 4
        "STL.64 [R1+0x38], R4",  # 8
        "LDS.128 R12, [R3]",  # shared memory: not local
        "LDG.E.64 R14, desc[UR4][R6.64]",  # global: not local
        "HMMA.16816.F32 R20, R8, R12, R20",
    ]
    assert local_bytes(body) == (4 + 8 + 16, 4 + 8)
    assert local_bytes([]) == (0, 0)


def test_local_slots_count_each_frame_byte_once_and_loose_addresses_each_time():
    body = [
        "LDL R2, [R1+0x10]",  # bytes 0x10-0x13
        "LDL R3, [R1+0x10]",  # the same slot again: no new byte
        "LDL.64 R4, [R1+0x12]",  # 0x12-0x19: 6 new (0x14-0x19)
        "STL [R1+0x10], R2",  # stored: 0x10-0x13
        "@P0 STL.128 [R1+0x40], R8",  # 16 stored
        "LDL R6, [R7]",  # a register alone is its own base: 4 more
        "LDL R9, [0x20]",  # an absolute address is a slot too: 4 more, once
        "LDL R9, [0x20]",
        "LDL R10, [R1+UR4]",  # not a register plus a constant: its width every time
        "LDL R10, [R1+UR4]",
    ]
    assert local_slots(body) == (4 + 6 + 4 + 4 + 4 + 4, 4 + 16)
    assert local_bytes(body) == (4 + 4 + 8 + 4 + 4 + 4 + 4 + 4, 4 + 16)


def test_the_innermost_loops_holding_matrix_instructions_in_address_order():
    sass = _sass(
        "MOV R1, c[0x0][0x28]",  # 0x00
        "HMMA.16816.F32 R24, R20, R8, R24",  # 0x10: K loop 1, 0x10-0x30
        "LDL R4, [R1]",  # 0x20
        "BRA 0x10",  # 0x30
        "IMAD R5, R4, R4, RZ",  # 0x40: an outer loop over tiles, 0x40-0xa0, around K loop 2
        "HGMMA.64x128x16.F32 R24, gdesc[UR4], R24",  # 0x50: K loop 2, 0x50-0x70
        "LDL R6, [R1+0x4]",  # 0x60
        "BRA 0x50",  # 0x70
        "IADD3 R7, R6, R6, RZ",  # 0x80
        "NOP",  # 0x90
        "BRA 0x40",  # 0xa0
        "LDL R9, [R1+0x8]",  # 0xb0: a loop without matrix instructions, 0xb0-0xc0
        "BRA 0xb0",  # 0xc0
        "EXIT",
    )
    bodies = mma_loop_bodies(sass)
    assert [len(b) for b in bodies] == [3, 3]
    assert bodies[0][0].startswith("HMMA") and bodies[1][0].startswith("HGMMA")
    assert mma_loop_bodies(_sass("HMMA.16816.F32 R24, R20, R8, R24", "EXIT")) == []


_OPS = st.one_of(
    st.builds(lambda r, o: f"LDL R{r}, [R1+{hex(4 * o)}]", st.integers(2, 12), st.integers(0, 16)),
    st.builds(lambda r, o: f"STL [R1+{hex(4 * o)}], R{r}", st.integers(2, 12), st.integers(0, 16)),
    st.builds(lambda d, a, b: f"IMAD R{d}, R{a}, R{b}, RZ", *(st.integers(2, 12),) * 3),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_OPS, max_size=40))
def test_a_warp_waits_at_most_once_a_reload_and_never_without_one(body):
    read_only, stored = reload_waits(body)
    loads = sum(text.startswith("LDL") for text in body)
    assert 0 <= read_only + stored <= loads
    # loads into distinct registers with every other instruction moved after them wait at most once (a
    # second load into a register still loading waits for the first)
    loads_by_register = {t.split(",")[0]: t for t in reversed(body) if t.startswith("LDL")}
    ordered = list(loads_by_register.values()) + [t for t in body if not t.startswith("LDL")]
    assert sum(reload_waits(ordered)) <= 1


def test_global_loads_issued_together_wait_once_and_stored_one_by_one_wait_each():
    together = [
        "@P0 LDG.E.U16 R10, desc[UR4][R2.64]",
        "@P1 LDG.E.U16 R11, desc[UR4][R4.64]",
        "LDG.E.64 R12, desc[UR4][R6.64]",  # writes R12-R13
        "PRMT R14, R10, 0x5410, R11",  # waits: the three loads above have arrived after it
        "STS [R20], R14",
        "STS.64 [R20+0x100], R12",
    ]
    assert global_load_waits(together) == (3, 1)
    one_by_one = [
        "LDG.E.U16 R10, desc[UR4][R2.64]",
        "STS.U16 [R20], R10",  # wait 1
        "LDG.E.U16 R10, desc[UR4][R4.64]",
        "STS.U16 [R20+0x2], R10",  # wait 2
        "LDL R8, [R1+0x10]",  # a local reload is not a global load
        "IMAD R9, R8, R8, RZ",
    ]
    assert global_load_waits(one_by_one) == (2, 2)
    # overwriting a register still loading waits too; a loop without LDG has nothing to wait for
    assert global_load_waits(["LDG.E R4, desc[UR4][R2.64]", "MOV R4, 0x1"]) == (1, 1)
    copies = ["LDGSTS.E.BYPASS.128 [R3], desc[UR4][R4.64]", "BAR.SYNC.DEFER_BLOCKING 0x0"]
    assert global_load_waits(copies) == (0, 0)


def test_instruction_opcode_drops_the_predicate_and_the_modifiers():
    assert instruction_opcode("@!P0 LDL.64 R2, [R1+0x10]") == "LDL"
    assert instruction_opcode("HGMMA.64x128x16.F32 R24, gdesc[UR4], R24") == "HGMMA"
    assert instruction_opcode("not an instruction") is None

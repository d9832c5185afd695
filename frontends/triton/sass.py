"""What a spilled kernel's loops wait for, read off its cubin's SASS (``cuobjdump -sass``), no GPU needed.

A kernel that spills reloads its frame with ``LDL`` (local loads) and keeps running until an instruction needs
a reloaded register; there the warp waits for the load's whole latency (from L1 if the resident frames fit in
what shared memory leaves of it, else from L2). ptxas schedules most reloads just before their use, so what
the reloads cost an iteration is not their bytes (``resources.frame_pass`` charges those on the SM's
load/store path) but how many times a warp stops for one: a run of fifty ``LDL`` before their uses waits
once, fifty reloads each followed by its use wait fifty times. The measured GEMMs that spilled
(``benchmarks/data/spill_rates_h200.jsonl``, stop 59) show it: K loops whose reloads come in runs of 27-64
were measured at 0.69-1.16x the model's time, ones with runs of 1-7 at 1.06-2.27x.

:func:`reload_waits` counts those stops in one pass over a loop body, in program order: a warp waits when an
instruction reads (or overwrites) a register an ``LDL`` is still loading, and after the wait every earlier
reload has arrived too. It tells the stops for slots the loop also stores to (its changing state) from those
for slots it only reads (spilled addresses and bounds): on the measured GEMMs the first wait as long as an
L2 access even where the resident frames fit in L1 (the decode GEMMs of 64 x 256 tiles on two warps, 28 KB
of frames an SM: ~290 ns a stop), the second as an L1 hit there (the unaligned 128 x 128 x 32 tiles, whose
34 stops an iteration are all for addresses: 2.9 us an iteration, where 34 L2 accesses would be 9).

:func:`mma_loop_bodies` finds the loops to read: each innermost loop that holds matrix instructions (a
GEMM's or attention's K loop; in a persistent kernel the K loop, not the loop over tiles), in address
order, which is the order of the plan's loops with dots.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# one instruction of cuobjdump -sass: /*0abc*/  [@P0] OPCODE operands ;
SASS_LINE = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", re.M)
_BRANCH = re.compile(r"\bBRA\b.*?0x([0-9a-f]+)")
# matrix instructions: warpgroup (HGMMA, QGMMA fp8, IGMMA int8) and warp-level (HMMA, IMMA)
MMA = re.compile(r"\b(?:HGMMA|QGMMA|IGMMA|HMMA|IMMA)\b")
_INSTRUCTION = re.compile(r"^(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9]*)((?:\.[A-Z0-9_]+)*)\s*(.*)$")
# a general register, with the width of a 64- or 128-bit operand (``[R54.64]``); RZ, URn and SR_* are not
_REGISTER = re.compile(r"\bR(\d+)(?:\.(64|128))?\b")
_WIDTH = {"64": 2, "128": 4}
REGISTER_BYTES = 4  # a general register's bytes
# instructions whose first operand is not a register they write
_NO_DESTINATION = frozenset({"ST", "STL", "STS", "STG", "STSM", "RED", "REDG", "BAR", "BRA", "EXIT", "NOP"})


def instruction_opcode(text: str) -> str | None:
    """The opcode of one instruction's text (``@P0 LDL.64 R2, [R1]`` -> ``LDL``), None if it is not one."""
    m = _INSTRUCTION.match(text)
    return m.group(1) if m else None


def instructions(sass: str) -> list[tuple[int, str]]:
    """(address, text) of every instruction in ``sass``, in order."""
    return [(int(address, 16), text.strip()) for address, text in SASS_LINE.findall(sass)]


def loops(sass: str) -> list[tuple[int, int]]:
    """Every loop of ``sass`` as (first, last) instruction indices: a backward branch's target to the
    branch."""
    ins = instructions(sass)
    index = {address: i for i, (address, _) in enumerate(ins)}
    spans = []
    for i, (address, text) in enumerate(ins):
        m = _BRANCH.search(text)
        if m and int(m.group(1), 16) < address and int(m.group(1), 16) in index:
            spans.append((index[int(m.group(1), 16)], i))
    return spans


def mma_loop_bodies(sass: str) -> list[list[str]]:
    """The instructions of each innermost loop of ``sass`` that holds a matrix instruction (:data:`MMA`), in
    address order: a loop none of whose inner loops holds one."""
    ins = instructions(sass)
    holding = [(lo, hi) for lo, hi in loops(sass) if any(MMA.search(t) for _, t in ins[lo : hi + 1])]
    innermost = [
        (lo, hi)
        for lo, hi in holding
        if not any((a, b) != (lo, hi) and lo <= a and b <= hi for a, b in holding)
    ]
    return [[text for _, text in ins[lo : hi + 1]] for lo, hi in sorted(set(innermost))]


def _registers(operands: str) -> list[int]:
    out: list[int] = []
    for m in _REGISTER.finditer(operands):
        first = int(m.group(1))
        out.extend(range(first, first + _WIDTH.get(m.group(2) or "", 1)))
    return out


_LOCAL_ADDRESS = re.compile(r"\[\s*(R\d+|RZ)?\s*(?:\+?\s*(-?0x[0-9a-f]+|-?\d+))?\s*\]")


def _local_bytes(operands: str, modifiers: str) -> frozenset[tuple[str, int]] | None:
    """The frame bytes an ``LDL`` / ``STL`` with ``operands`` touches, as (base register, byte) pairs; None
    where its address is not a register plus a constant offset."""
    m = _LOCAL_ADDRESS.search(operands)
    if not m:
        return None
    base, offset = m.group(1) or "RZ", int(m.group(2) or "0", 0)
    return frozenset((base, offset + i) for i in range(_local_width(modifiers)))


def _local_width(modifiers: str) -> int:
    """Bytes one ``LDL`` / ``STL`` with ``modifiers`` moves a thread: 4, ``.64`` 8, ``.128`` 16."""
    return 16 if ".128" in modifiers else 8 if ".64" in modifiers else 4


def local_bytes(body: list[str]) -> tuple[int, int]:
    """Bytes a thread loads from and stores to local memory in one pass over ``body`` (instruction texts):
    ``LDL`` / ``STL`` of 4 bytes, ``.64`` of 8, ``.128`` of 16."""
    loaded = stored = 0
    for text in body:
        m = _INSTRUCTION.match(text)
        if m and m.group(1) in ("LDL", "STL"):
            size = _local_width(m.group(2))
            if m.group(1) == "LDL":
                loaded += size
            else:
                stored += size
    return loaded, stored


def local_slots(body: list[str]) -> tuple[int, int]:
    """Distinct frame bytes a thread loads (``LDL``) and stores (``STL``) in one pass over ``body``: a slot
    reloaded twice counts once, its second reload an L1 hit. A local access whose address is not a register
    plus an offset counts its width each time."""
    loaded: set[tuple[str, int]] = set()
    stored: set[tuple[str, int]] = set()
    loose = {"LDL": 0, "STL": 0}
    for text in body:
        m = _INSTRUCTION.match(text)
        if not m or m.group(1) not in loose:
            continue
        touched = _local_bytes(m.group(3), m.group(2))
        if touched is None:
            loose[m.group(1)] += _local_width(m.group(2))
        else:
            (loaded if m.group(1) == "LDL" else stored).update(touched)
    return len(loaded) + loose["LDL"], len(stored) + loose["STL"]


def _decoded(text: str) -> tuple[str, str, str, list[int], list[int]] | None:
    """One instruction's opcode, modifiers, operand text, and the registers it writes and reads (None for a
    line that is not an instruction)."""
    m = _INSTRUCTION.match(text)
    if not m:
        return None
    opcode, modifiers, operands = m.groups()
    parts = [p.strip() for p in operands.split(",")] if operands.strip() else []
    if opcode in _NO_DESTINATION or not parts or parts[0].startswith("["):
        return opcode, modifiers, operands, [], _registers(operands)
    return opcode, modifiers, operands, _registers(parts[0]), _registers(",".join(parts[1:]))


def _decoded_body(body: list[str]) -> Iterator[tuple[str, str, str, list[int], list[int]]]:
    """:func:`_decoded` of each instruction of ``body`` in program order, lines that are none left out."""
    return (d for d in map(_decoded, body) if d is not None)


def _load_width(modifiers: str) -> int:
    """Registers a load of these modifiers writes: its :func:`_local_width` bytes over 4 a register."""
    return _local_width(modifiers) // REGISTER_BYTES


def reload_waits(body: list[str]) -> tuple[int, int]:
    """How many times one pass over ``body`` (instruction texts in program order) waits for a local-memory
    reload (module docstring), as (waits for slots ``body`` only reads, waits for slots it also stores to):
    an instruction that reads or writes a register an ``LDL`` before it is still loading waits, and then has
    every earlier reload. A slot is stored to where an ``STL`` of ``body`` writes any of its bytes (the loop's
    changing state: a reload of it waits as long as L2, the measured GEMMs say, while read-only slots, such as
    spilled addresses, are served where the frames live); a reload whose address is not a register plus an
    offset counts as stored to."""
    stored: set[tuple[str, int]] = set()
    for text in body:
        m = _INSTRUCTION.match(text)
        if m and m.group(1) == "STL":
            touched = _local_bytes(m.group(3), m.group(2))
            stored.update(touched or ())
    pending: dict[int, bool] = {}  # register an LDL is loading -> its slot is stored to
    read_only = written_back = 0
    for opcode, modifiers, operands, written, read in _decoded_body(body):
        waited = [pending[r] for r in (*read, *written) if r in pending]
        if waited:
            if any(waited):
                written_back += 1
            else:
                read_only += 1
            pending.clear()
        if opcode == "LDL" and written:
            width = _load_width(modifiers)
            touched = _local_bytes(operands, modifiers)
            slot_stored = touched is None or bool(touched & stored)
            for r in range(written[0], written[0] + width):
                pending[r] = slot_stored
    return read_only, written_back


def global_load_waits(body: list[str]) -> tuple[int, int]:
    """(``LDG`` instructions, times a warp stops for one's result) in one pass over ``body`` (instruction
    texts in program order), read as :func:`reload_waits` reads ``LDL``: an instruction that reads or
    overwrites a register an ``LDG`` before it is still loading waits, and then has every earlier load. A K
    loop that loads its tiles into registers (strides no multiple of 16 bytes: no ``cp.async``) and issues its
    loads together before storing them stops once; one that stores each load as it arrives (a build without
    the registers to hold them) stops per load (``benchmarks/spill_frames.py sass`` prints both; the model
    does not read them yet: docs/known-gaps.md, stop 73)."""
    pending: set[int] = set()
    loads = waits = 0
    for opcode, modifiers, _, written, read in _decoded_body(body):
        if any(r in pending for r in (*read, *written)):
            waits += 1
            pending.clear()
        if opcode == "LDG" and written:
            loads += 1
            pending.update(range(written[0], written[0] + _load_width(modifiers)))
    return loads, waits

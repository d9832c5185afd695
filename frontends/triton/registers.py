"""Registers per thread, estimated from the tile plan when ptxas is not run.

Triton keeps each dot's accumulator tile in registers for the whole loop, spread over the block's threads:
``m x n`` fp32 values over ``threads`` threads. Warp-level ``mma`` (MMAv2) also holds its A and B operand
fragments in registers (two fp16/bf16 values per register); ``wgmma`` reads them from shared memory, except
an A operand computed in registers (attention's P feeding P @ V), which stays there. A loop load Triton
could not make an asynchronous copy (an unaligned row stride) carries its pointer tensor through the loop:
a 64-bit address per tile row a thread touches, read from the TTGIR layout (:func:`_staging_registers`; on
the 86 unaligned GEMM launches measured, this flags 38 of the 41 that ptxas spilled, and 6 of the 45 that it
did not; counting a value and an offset per access instead, as without a layout, flagged 7). Sibling loops
hold their tiles one after the other. On top of that every kernel keeps addresses, offsets, masks and loop
state live: ``REGISTER_OVERHEAD``.

Kernels without dots hold their element-wise tiles in registers instead (:func:`estimate_registers`).

The estimate feeds occupancy (resident blocks per SM) and flags likely spills: above the GPU's per-thread
limit, the excess (4 bytes a register) times ``SPILL_FRAME_PER_EXCESS`` is taken as the local-memory frame
ptxas will give the kernel (:func:`spill_frame_bytes`). It is an estimate: the plan says so in a note.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from tilesight.dtypes import dtype_bytes
from tilesight.plan import SYNC_LOAD, ActionKind, Loop, Node, TileAction

# Non-accumulator registers of a Triton kernel: pointer offsets per loaded tile row, masks, loop counters and
# pipeline bookkeeping. 40 is the register count Triton 3.x gives a GEMM whose accumulator is negligible
# (a 16x16 tile), read from ptxas -v; it is a compiler constant, not fitted to measured timings.
REGISTER_OVERHEAD = 40
# An element-wise / reduction kernel's registers besides its tile: row pointers, offsets, masks, program id.
# 16 is what ptxas gives a 1-element-per-thread Triton vector add (compiler constant, not fitted to timings).
ELEMENTWISE_OVERHEAD = 16
REGISTER_BYTES = 4
# ptxas's local-memory frame per byte of the register excess this module estimates. ptxas spills more than
# the excess: values with long live ranges go to the stack whole, and each reload needs a register of its own
# while it is used. The ratio of the frame ptxas gave (``n_spills`` x 4 bytes, recorded from the compiled
# kernels) to the estimated excess, median over the distinct GEMM configs (variant, dtype, tiles, alignment)
# of the measured sweep that the estimate says spill: 2.70 over 48 of the main split, 1.88 over 29 held out
# (``python benchmarks/spill_frames.py ratio``). 2.6 was set from an earlier grouping of the same data (2.65,
# dtype kept, variant merged) and kept. A compiler figure, not fitted to timings.
SPILL_FRAME_PER_EXCESS = 2.6
# TileAction.variant of a loop load Triton could not turn into an asynchronous copy (the pipeliner left it
# synchronous; tilesight.model.resources.lsu_seconds reads it too).
SYNC_VARIANT = SYNC_LOAD
ACCUMULATOR_BYTES = 4  # fp32 accumulators (int32 for int8 dots)
POINTER_REGISTERS = 2  # a 64-bit global address


def _dot_registers(dot: TileAction, computed: bool, threads: int) -> float:
    """Registers per thread one dot in a loop keeps live: its accumulator, plus its operand fragments for a
    warp-level ``mma``, or its computed A operand for a ``wgmma``. Where the MMA layout wraps around the
    result (the dot's ``flops`` count each copy: :func:`..layouts.dot_replication`), every copy holds its
    own accumulator and operands: a 64-row attention tile on 8 warps is held whole by both warpgroups."""
    m, n, k = dot.shape
    copies = max(1.0, dot.flops / (2.0 * m * n * k)) if m * n * k else 1.0
    regs = m * n * ACCUMULATOR_BYTES / REGISTER_BYTES / threads
    if dot.dtype is None:
        return regs * copies
    if dot.variant == "mma":
        regs += (m * k + k * n) * dtype_bytes(dot.dtype) / REGISTER_BYTES / threads
    elif computed:  # wgmma reads a computed A operand from registers
        regs += m * k * dtype_bytes(dot.dtype) / REGISTER_BYTES / threads
    return regs * copies


def _staging_registers(
    load: TileAction, rows: int | None, tile: tuple[int, int] | None, threads: int
) -> float:
    """Registers per thread a synchronous loop load keeps live (one Triton could not make an asynchronous
    copy: an unaligned row stride): the loop carries its pointer tensor from iteration to iteration, a 64-bit
    address (two registers) per row of the tile a thread touches (``rows``, from the TTGIR layout:
    :func:`..layouts.access_rows`); its loaded values go straight on to shared memory. Without the layout,
    one value and one offset per vector access of the tile (``tile`` = elements, bytes per element)."""
    if rows is not None:
        return POINTER_REGISTERS * rows
    if tile is None:
        return 0.0
    elements, elem_bytes = tile
    vec = max(load.vector_bytes or elem_bytes, elem_bytes)
    accesses = elements * elem_bytes / vec / threads
    return accesses * (max(1.0, vec / REGISTER_BYTES) + 1.0)


def _live_dot_registers(
    body: tuple[Node, ...],
    in_loop: bool,
    threads: int,
    load_tiles: Mapping[str, tuple[int, int]] | None = None,
    pointer_rows: Mapping[str, int] | None = None,
) -> float | None:
    """Dot registers live at once in ``body`` (None without a dot in a loop): the dots of the body's own
    iteration (an operand is computed in registers when it depends on a sibling that is not a load:
    attention's P = softmax(S) feeding P @ V), plus the most any one child loop holds. Sibling loops run one
    after the other (the causal attention tutorial's off-band and diagonal loops), so their tiles are not
    live together: what one loop carries into the next (the output accumulator) is counted in each."""
    kinds = {n.name: n.kind for n in body if isinstance(n, TileAction)}
    own = 0.0
    staging = 0.0
    found = False
    child: float | None = None
    for node in body:
        if isinstance(node, Loop):
            sub = _live_dot_registers(node.body, True, threads, load_tiles, pointer_rows)
            if sub is not None:
                child = sub if child is None else max(child, sub)
        elif in_loop and node.kind is ActionKind.DOT:
            computed = any(kinds.get(d) not in (None, ActionKind.LOAD) for d in node.deps)
            own += _dot_registers(node, computed, threads)
            found = True
        elif in_loop and node.kind is ActionKind.LOAD and node.variant == SYNC_VARIANT and node.tensor:
            rows = (pointer_rows or {}).get(node.name)
            staging += _staging_registers(node, rows, (load_tiles or {}).get(node.tensor), threads)
    if not found and child is None:
        return None
    return own + staging + (child or 0.0)


def estimate_registers(
    body: tuple[Node, ...],
    threads: int,
    tiles: Mapping[str, tuple[int, int]] | None = None,
    pointer_rows: Mapping[str, int] | None = None,
) -> int:
    """Registers per thread the plan keeps live (see the module docstring).

    ``pointer_rows`` (load action name -> row addresses per thread, from the TTGIR layout) sizes the
    synchronous loads of a dot's loop; without it, ``tiles`` (tensor name -> (elements of its tile, bytes per
    element)) does, as one value and one offset per access. A kernel without a dot in a loop holds its largest
    element-wise tile in registers instead: Triton tiles are powers of two, one fp32 register per element
    per thread, plus ``ELEMENTWISE_OVERHEAD``.
    """
    regs = _live_dot_registers(body, False, threads, tiles, pointer_rows)
    if regs is None:
        widest = max((elements for elements, _ in (tiles or {}).values()), default=0)
        tile = 1 << max(widest - 1, 0).bit_length() if widest else 0
        return ELEMENTWISE_OVERHEAD + math.ceil(tile / threads)
    return REGISTER_OVERHEAD + math.ceil(regs)


def spill_frame_bytes(regs: int, limit: int) -> int:
    """Local-memory bytes per thread ptxas likely gives ``regs`` live registers over a ``limit``."""
    return round(max(regs - limit, 0) * REGISTER_BYTES * SPILL_FRAME_PER_EXCESS)

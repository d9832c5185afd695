"""Turn the walker's findings into a validated :class:`~tilesight.plan.TilePlan`."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

from tilesight.dtypes import dtype_bytes
from tilesight.errors import FrontendError, LaunchError
from tilesight.hardware import HardwareProfile
from tilesight.model.occupancy import residency
from tilesight.model.resources import side_by_side_runs
from tilesight.plan import (
    DESCRIPTOR_LOAD,
    NARROW_ASYNC_COPY,
    AccessMode,
    ActionKind,
    BlockResources,
    LaunchOrder,
    LockSection,
    Loop,
    TensorAccess,
    TileAction,
    TileGrid,
    TilePlan,
    walk,
)
from tilesight.tensorspec import TensorSpec

from .binding import Binding
from .compile import CompiledIR
from .coords import block_keys, reuse_dims, tile_coordinates
from .extract import _ELEM, Walker, _walk_nodes
from .layouts import pipelined, refills_after_compute, warpgroup_shares
from .ptxas import AUTO_BAND, AUTO_CEILING, PtxasUsage, toolchain_note
from .registers import SYNC_VARIANT, estimate_registers, spill_frame_bytes
from .strides import memory_run_bytes, spill_outward, tile_extents

# Registers a thread is given in steps of (a warp's allocation unit of 256 registers over 32 threads).
REGISTER_GRANULE = 8
REGISTER_NOTE = (
    "registers per thread estimated from the accumulators or tiles (ptxas not run): {regs} per thread{spill}"
)
PTXAS_NOTE = (
    "registers per thread from ptxas (compiled on the CPU{which}): {regs} per thread{spill} (estimate {est})"
)
# where the ptxas is not the installed Triton's own (.ptxas.target_ptxas: $TILESIGHT_PTXAS, or the profile's)
PTXAS_RELEASE = " by {chosen_by} ptxas, release {release}"
RELOAD_NOTE = (
    "register spills: the times a warp waits for a local-memory reload in one iteration (the cubin's SASS), "
    "of slots the loop only reads + of slots it also stores to: {loops}; the first wait as long as where "
    "the resident frames live, the second as L2"
)
RELOAD_UNREAD_NOTE = (
    "register spills: the reload waits of the cubin's loops were not read ({why}), so not charged"
)
RELOAD_MISMATCH_NOTE = (
    "register spills: the cubin has {sass} loop(s) of matrix instructions against {plan} loop(s) with dots "
    "in the plan, so the reload waits of its SASS are not charged"
)
# A dot kernel reading a 16-bit tensor whose unit-stride dimension is not its last (a K-major B: ``x @ w.T``
# with a Linear weight). Validation 40 measured such GEMMs up to 1.4x slower than their row-major twins on the
# H200 (the GPU's Triton gives their load loop 22-33% more instructions), which the model does not price.
KMAJOR_NOTE = (
    "{name} is read K-major (its unit-stride dimension is not its last): 16-bit GEMMs read so ran up to 1.4x "
    "slower on the H200 than with a row-major operand, which the model does not price (docs/known-gaps.md)"
)
PTXAS_FAILED_NOTE = "ptxas not used ({why}); registers estimated instead"
# A loop whose tiles arrive through tensor descriptors (TMA) and that runs two or more dots (attention's
# S = Q K^T and P V). Validations 25 and 29 timed the descriptor attention beside the same loop through
# pointers: a median 1.04x its twin at two stages and 1.08x at three; the model charges one more meeting of
# the block's warps a step (tile.loads_by_descriptor), 1.03x, so three and four stages stay a little fast.
DESCRIPTOR_DOTS_NOTE = (
    "{loop} at {loc}: its tiles arrive through tensor descriptors (TMA) and it runs {dots} dots a step "
    "(attention): such loops ran a median 1.04x (two stages) to 1.08x (three) their pointer twins on the "
    "H200; the model charges one more meeting of the block's warps a step (about 1.03x), so at three or more "
    "stages it may be a few percent fast (docs/known-gaps.md)"
)


NARROW_COPY_NOTE = (
    "{tensor} at {loc}: its tile is copied 8 bytes a thread (cp.async.ca, through L1: spread over {warps} "
    "warps, the tile leaves each thread 8 bytes); only 16-byte copies bypass L1, and with their loop's "
    "barriers such copies take about {wavefronts:g} shared-memory wavefronts each, which the model "
    "charges. Fewer warps or a larger tile copy 16 bytes (32 x 32 x 32 fp16 at 4096^3 ran 1.97x faster "
    "on 4 warps than on 8 on an H100: benchmarks/data/ncu_warps_small_h100)"
)


def narrow_copy_notes(raw: list[dict], warps: int, hw: HardwareProfile | None) -> list[str]:
    """:data:`NARROW_COPY_NOTE` for each load of ``raw`` (the walker's nodes) the frontend marked
    :data:`~tilesight.plan.NARROW_ASYNC_COPY`, once per tensor; none where the profile does not price them."""
    if hw is None or not hw.lsu_async_narrow_wavefronts:
        return []
    notes, seen = [], set()
    for node in _walk_nodes(raw):
        if node["kind"] is not ActionKind.LOAD or node.get("variant") != NARROW_ASYNC_COPY:
            continue
        if node["tensor"] in seen:
            continue
        seen.add(node["tensor"])
        notes.append(
            NARROW_COPY_NOTE.format(
                tensor=node["tensor"],
                loc=node.get("loc") or "?",
                warps=warps,
                wavefronts=hw.lsu_async_narrow_wavefronts,
            )
        )
    return notes


def descriptor_dot_notes(raw: list[dict]) -> list[str]:
    """:data:`DESCRIPTOR_DOTS_NOTE` for each loop of ``raw`` (the walker's nodes) that loads a tile through a
    tensor descriptor (:data:`~tilesight.plan.DESCRIPTOR_LOAD`, the variant the model prices) and runs two or
    more dots."""
    notes = []
    for node in _walk_nodes(raw):
        if node["kind"] != "loop":
            continue
        body = node["body"]
        dots = sum(1 for n in body if n["kind"] is ActionKind.DOT)
        by_descriptor = any(
            n["kind"] is ActionKind.LOAD and n.get("variant") == DESCRIPTOR_LOAD for n in body
        )
        if dots >= 2 and by_descriptor:
            loc = node.get("loc") or "?"
            notes.append(DESCRIPTOR_DOTS_NOTE.format(loop=node["name"], loc=loc, dots=dots))
    return notes


def _tile_in_tensor(tile: tuple[int, ...], spec: TensorSpec, masked: bool = False) -> tuple[int, ...]:
    """Map a tile's extents onto the tensor's dims: the tile's axes cover the tensor's innermost dims in
    order (leading tensor dims get extent 1; extra leading tile axes fold into the first covered dim), an
    axis longer than its dim running on into the dims packed outside it that no other axis covers
    (:func:`.strides.spill_outward`, ``masked``: the access has a mask), each clamped to the tensor's
    extent."""
    shape = spec.shape or (1,)
    strides = spec.strides or (1,) * len(shape)
    rank = len(shape)
    t = list(tile)
    if len(t) > rank:
        t = [math.prod(t[: len(t) - rank + 1]), *t[len(t) - rank + 1 :]]
    t = [1] * (rank - len(t)) + t
    out = [1] * rank
    used = {d for d in range(rank) if t[d] > 1}
    for d in reversed(range(rank)):
        if t[d] > 1:
            spill_outward(out, d, t[d], shape, strides, used, masked)
    return tuple(max(1, min(e, s)) for e, s in zip(out, shape, strict=True))


# Iterations ptxas unrolls a small loop of loads into, issuing their loads together (the SASS of the row
# kernels' passes over a row: one 16-, 8- or 2-byte load a thread an iteration becomes four; see _loads_only).
UNROLLED_LOAD_LOOP = 4


def _loads_only(body: list[dict]) -> bool:
    """Whether an unpipelined loop's ``body`` (the walker's raw nodes) reads memory but writes none, holds
    no inner loop and no block barrier: ptxas unrolls such a loop and moves the unrolled iterations' loads to
    the top, so :data:`UNROLLED_LOAD_LOOP` iterations' loads are in flight together (an RMSNorm's or a
    chunked LayerNorm's pass that sums a row). A store in the body keeps every later load behind it (the two
    may alias), so a pass that writes waits for each iteration's loads in turn. So does a reduction whose
    axis spans several warps (``warps > 1``): its partials meet in shared memory behind ``bar.sync``, which
    no later load is hoisted above, so the next iteration's loads issue only once every warp has reached it
    (a varlen row sum's ``acc += tl.sum(x, axis=0)`` over a tile whose rows span the warps: its SASS loop is
    not unrolled, its loads issue after the previous iteration's barriers). Nor is a body with
    special-function work (``exp``, ``rsqrt``: SFU actions): an online softmax's max-and-sum pass keeps one
    ``LDG`` a loop trip beside its ``MUFU.EX2``s in the SASS compiled here, as nvcc leaves TileLang's such
    loops. Where the body is large the unrolling does not happen, but then one iteration's loads alone keep
    enough bytes in flight that the overlap changes little."""
    kinds = {n["kind"] for n in body}
    if any(n["kind"] is ActionKind.REDUCE and n.get("warps", 1) > 1 for n in body):
        return False
    if any(n["kind"] is ActionKind.SFU for n in body):
        return False
    return ActionKind.LOAD in kinds and ActionKind.STORE not in kinds and "loop" not in kinds


def _dot_loops(body: tuple) -> list[str]:
    """Names of the loops of ``body`` whose own body holds a dot, in program order."""
    return [
        node.name
        for node in walk(body)
        if isinstance(node, Loop)
        and any(isinstance(n, TileAction) and n.kind is ActionKind.DOT for n in node.body)
    ]


def spill_pass_bytes(body: tuple, loop_slots: tuple[tuple[int, int], ...]) -> int | None:
    """Bytes a thread moves to and from its spilled frame around one dot, as ptxas's code has it: the
    distinct frame bytes an iteration of the first loop of matrix instructions loads and stores
    (:attr:`PtxasUsage.loop_slots`) over the dots an iteration of the matching loop of ``body`` runs. None
    where the plan's loops with dots and the SASS's do not match up."""
    names = set(_dot_loops(body))
    loops = [n for n in walk(body) if isinstance(n, Loop) and n.name in names]
    if not loop_slots or len(loops) != len(loop_slots):
        return None
    dots = sum(1 for n in loops[0].body if isinstance(n, TileAction) and n.kind is ActionKind.DOT)
    return -(-sum(loop_slots[0]) // max(dots, 1))


def _set_reload_waits(body: tuple, waits: dict[str, tuple[int, int]]) -> tuple:
    out = []
    for n in body:
        if isinstance(n, Loop):
            read_only, stored = waits.get(n.name, (n.reload_waits, n.stored_reload_waits))
            n = replace(
                n,
                body=_set_reload_waits(n.body, waits),
                reload_waits=read_only,
                stored_reload_waits=stored,
            )
        out.append(n)
    return tuple(out)


def with_reload_waits(body: tuple, reload_waits: tuple[tuple[int, int], ...]) -> tuple[tuple, str]:
    """``body`` with each loop holding a dot given the reload waits ptxas's code has in the matching loop of
    matrix instructions (:attr:`PtxasUsage.reload_waits`, in address order: the loops with dots in program
    order), and the note that says so. Where the two counts differ, ``body`` unchanged and a note saying
    the waits are not charged."""
    loops = _dot_loops(body)
    if len(loops) != len(reload_waits):
        return body, RELOAD_MISMATCH_NOTE.format(sass=len(reload_waits), plan=len(loops))
    waits = dict(zip(loops, reload_waits, strict=True))
    named = ", ".join(f"{name} {r} + {w}" for name, (r, w) in waits.items())
    return _set_reload_waits(body, waits), RELOAD_NOTE.format(loops=named)


def _nodes(
    raw: list[dict],
    stages: int,
    async_loads: bool = True,
    in_reduction: bool = False,
    refill_after_compute: bool = False,
) -> tuple:
    """Plan nodes from the walker's raw nodes. Without asynchronous loads (``async_loads``: the pipeliner
    turned none into cp.async / TMA copies), a reduction loop is single-buffered and its loads synchronous.
    ``refill_after_compute`` (:func:`.layouts.refills_after_compute`) marks the pipelined loops.

    A reduction whose axis spans several warps meets their partials in shared memory behind a block barrier
    (``bar.sync``), and no load after it in program order is issued before every warp reaches it: outside a
    software-pipelined loop (whose copies the pipeliner issues stages ahead), the loads and loops the walker
    found after such a reduction (their ``barrier``) depend on it: a LayerNorm's weight and bias loads after
    its statistics, an RMSNorm's second pass over the row after its sum of squares."""
    out = []
    sync_loads = in_reduction and not async_loads
    pipelined_body = in_reduction and async_loads and stages > 1
    for n in raw:
        deps = n["deps"]
        if n.get("barrier") and not pipelined_body:
            deps = deps | {n["barrier"]}
        deps = tuple(sorted(deps))
        if n["kind"] == "loop":
            red = bool(n["reduction"])
            # a tl.range(num_stages=...) of its own
            own = stages if n.get("num_stages") is None else max(int(n["num_stages"]), 1)
            loop_stages = own if red and async_loads else 1
            unroll = UNROLLED_LOAD_LOOP if not red and _loads_only(n["body"]) else 1
            body = _nodes(n["body"], own, async_loads, in_reduction or red, refill_after_compute)
            waited = any(isinstance(a, TileAction) and a.variant == SYNC_VARIANT for a in body)
            out.append(
                Loop(
                    n["name"],
                    n["trips"],
                    body,
                    stages=loop_stages,
                    waits_sync_loads=loop_stages > 1 and waited,
                    refill_after_compute=refill_after_compute and loop_stages > 1,
                    unroll=unroll,
                    reduction=n["reduction"],
                    deps=deps,
                    location=n["loc"],
                    mean_trips=n.get("mean_trips"),
                    trips_by_program=n.get("trips_by_program"),
                )
            )
            continue
        out.append(
            TileAction(
                name=n["name"],
                kind=n["kind"],
                tensor=n.get("tensor"),
                dtype=n.get("dtype"),
                shape=n.get("shape", ()),
                flops=n.get("flops", 0.0),
                src=n.get("src", "reg"),
                dst=n.get("dst", "reg"),
                deps=deps,
                variant=SYNC_VARIANT if sync_loads and n["kind"] == ActionKind.LOAD else n.get("variant"),
                location=n["loc"],
                vector_bytes=n.get("vector_bytes"),
                lane_stride_bytes=n.get("lane_stride_bytes"),
                smem_bytes=n.get("smem_bytes"),
                warps=n.get("warps"),
                mma_n=n.get("mma_n"),
                mma_a_registers=n.get("mma_a_registers", False),
                alu_ops=n.get("alu_ops", 0.0),
                routine_ops=n.get("routine_ops", 0.0),
                rereads=n.get("rereads", ()),
                fresh_steps=n.get("fresh_steps", 1.0),
                outputs=int(n.get("outputs", 1)),
                scan=n.get("scan"),
            )
        )
    return tuple(out)


def _estimate_decides(
    regs: int, limit: int, threads: int, smem: int, programs: int, hw: HardwareProfile | None
) -> bool:
    """Whether the register estimate's error band (:data:`.ptxas.AUTO_BAND`) could decide the prediction:
    the estimate reaches that fraction of the per-thread limit (spill or not, and how much), or a count
    inside the band, ``AUTO_BAND`` times the estimate to the estimate over ``AUTO_BAND``, would put another
    number of blocks on an SM (the estimate errs both ways: 128 estimated for an attention tile that ptxas
    gives 152, which holds one 8-warp block an SM where 128 holds two)."""
    if regs >= AUTO_BAND * limit:
        return True
    if hw is None:
        return False

    def resident(count: int) -> int:
        res = BlockResources(threads=threads, smem_bytes=smem, regs_per_thread=min(count, limit))
        return residency(res, hw, programs).resident_blocks

    try:
        at = resident(regs)
        fewer, more = max(1, math.floor(AUTO_BAND * regs)), math.ceil(regs / AUTO_BAND)
        return resident(fewer) != at or resident(more) != at
    except LaunchError:  # the engine reports a block that cannot launch, whatever its registers
        return False


def build_plan(
    ir: CompiledIR,
    binding: Binding,
    grid: tuple[int, int, int],
    *,
    regs_per_thread_max: int = 255,
    regs_per_sm: int | None = None,
    registers: str = "estimate",
    ptxas: Callable[[], PtxasUsage] | None = None,
    hw: HardwareProfile | None = None,
) -> TilePlan:
    """The plan of one compiled launch. ``registers`` (:data:`.ptxas.MODES`) says where registers and the
    spill frame come from: ``"estimate"`` the plan (:mod:`.registers`), ``"ptxas"`` the compiler
    (``ptxas()``, a full compile on the CPU), ``"auto"`` the compiler where the estimate's error could decide
    something (:func:`_estimate_decides`; a failing compile then falls back to the estimate, in a note)."""
    params = tuple(name for name, ty in binding.signature.items() if ty != "constexpr")
    walker = Walker(ir, binding.scalars, {**binding.tensors, **binding.descriptors}, grid, params)
    raw, accesses = walker.run()
    if not raw:
        raise FrontendError(f"kernel {walker.kernel!r} has no tile actions (no loads, stores or compute)")
    data = frozenset(walker.data_cands)
    coords = tile_coordinates(walker.cands, walker.valid, data)
    specs = {**binding.tensors, **binding.descriptors}
    tensors = []
    k_major = []  # 16-bit tensors read with their unit-stride dimension not last (KMAJOR_NOTE)
    for name, acc in accesses.items():
        arg = acc.get("arg", name)
        spec = specs.get(arg)
        if spec is None:
            raise FrontendError(
                f"kernel {walker.kernel!r}: argument {arg!r} is used as a pointer but was not given a tensor"
            )
        modes = acc["modes"]
        mode = (
            AccessMode.ATOMIC
            if AccessMode.ATOMIC in modes
            else AccessMode.READ_WRITE
            if len(modes) > 1
            else next(iter(modes))
        )
        extents = tile_extents(acc["tile"], acc["axes"], spec, acc["masked"])
        if extents is None:  # not affine in the tile axes: the tile's axes cover the innermost dims
            tile = _tile_in_tensor(acc["tile"], spec, acc["masked"])
            clamped = any(e > s for e, s in zip(acc["tile"][-len(spec.shape) :], spec.shape, strict=False))
        else:
            tile = tuple(max(1, min(e, s)) for e, s in zip(extents, spec.shape or (1,), strict=True))
            clamped = any(e > s for e, s in zip(extents, spec.shape or (1,), strict=True))
        masked = acc["masked"] or clamped
        run = memory_run_bytes(tile, spec, int(dtype_bytes(spec.dtype)))
        tensors.append(
            TensorAccess(
                name=name,
                dtype=spec.dtype,
                shape=spec.shape or (1,),
                tile=tile,
                mode=mode,
                reuse_dims=reuse_dims(coords, acc["cands"]),
                masked=masked,
                indirect=acc["indirect"],
                block_keys=block_keys(coords, acc["direct"] | (acc["cands"] & data), data),
                run_bytes=run,
            )
        )
        if run is not None and dtype_bytes(spec.dtype) == 2:
            k_major.append(name)
        if _ELEM.get(acc["elem"], spec.dtype) != spec.dtype:
            walker.notes.append(f"{name}: kernel reads {_ELEM.get(acc['elem'])} from a {spec.dtype} tensor")
    tensors = side_by_side_runs(tensors, {name: acc.get("shift", 0) for name, acc in accesses.items()})
    if k_major and any(node["kind"] is ActionKind.DOT for node in _walk_nodes(raw)):
        walker.notes.extend(KMAJOR_NOTE.format(name=name) for name in k_major)
    walker.notes.extend(descriptor_dot_notes(raw))
    walker.notes.extend(narrow_copy_notes(raw, ir.num_warps, hw))
    programs = grid[0] * grid[1] * grid[2]
    persistent = walker.persistent
    tile_grid = TileGrid(
        shape=coords.shape,
        dims=coords.dims,
        order=LaunchOrder.EXPLICIT,
        sequence=coords.sequence,
        programs=programs if persistent else None,
        tiles_in_flight=walker.tiles_in_flight if persistent else 1,
    )
    threads = ir.num_warps * ir.threads_per_warp
    body = _nodes(
        raw, ir.num_stages, pipelined(ir.ttgir), refill_after_compute=refills_after_compute(ir.ttgir)
    )
    regs = estimate_registers(
        body,
        threads,
        {t.name: (math.prod(t.tile), dtype_bytes(t.dtype)) for t in tensors},
        walker.pointer_rows,
    )
    limit = regs_per_thread_max
    if regs_per_sm:
        # ptxas fits a block of ``threads`` in one SM's register file (``.maxntid``): 1024 threads get 64
        # registers a thread at most, in steps of the allocation granularity; the rest spills
        limit = min(limit, regs_per_sm // threads // REGISTER_GRANULE * REGISTER_GRANULE)
    spill = spill_frame_bytes(regs, limit)
    spilled = f", {spill} bytes likely spilled" if spill else ""
    register_note = REGISTER_NOTE.format(regs=regs, spill=spilled)
    regs_used = min(regs, limit)
    extra_notes = []
    smem = ir.smem_bytes
    pass_bytes = None  # a dot's pass over the spilled frame, where the SASS says (spill_pass_bytes)
    beyond = registers == "auto" and regs > AUTO_CEILING * limit
    if beyond:
        extra_notes.append(
            f"ptxas not run: the estimate, {regs} registers a thread, is over {AUTO_CEILING} times the "
            f"{limit} a thread can have (most of it spills whatever ptxas does, and compiling it to a cubin "
            "takes minutes); registers='ptxas' runs it anyway"
        )
    if ptxas is not None and (
        registers == "ptxas"
        or (
            registers == "auto" and not beyond and _estimate_decides(regs, limit, threads, smem, programs, hw)
        )
    ):
        try:
            usage = ptxas()
        except FrontendError as e:
            if registers == "ptxas":
                raise
            extra_notes.append(PTXAS_FAILED_NOTE.format(why=e))
        else:
            spill, regs_used = usage.stack_bytes, min(usage.registers, limit)
            spilled = f", {spill} bytes of local-memory frame" if spill else ""
            which = (
                PTXAS_RELEASE.format(chosen_by=usage.ptxas_chosen_by, release=usage.ptxas_release)
                if usage.ptxas_release
                else ""
            )
            register_note = PTXAS_NOTE.format(which=which, regs=usage.registers, spill=spilled, est=regs)
            if spill and usage.reload_waits:
                pass_bytes = spill_pass_bytes(body, usage.loop_slots)
                body, reload_note = with_reload_waits(body, usage.reload_waits)
                extra_notes.append(reload_note)
            elif spill and usage.sass_error:
                extra_notes.append(RELOAD_UNREAD_NOTE.format(why=usage.sass_error))
            if not usage.ptxas_release and hw is not None:
                extra_notes.append(toolchain_note(hw))
    notes = [*walker.notes, register_note, *(n for n in extra_notes if n)]
    if persistent:
        notes.append(f"persistent kernel: {programs} programs stride over {coords.sequence.shape[0]} tiles")
    return TilePlan(
        name=ir.name,
        grid=tile_grid,
        tensors=tuple(tensors),
        body=body,
        resources=BlockResources(
            threads=threads,
            smem_bytes=smem,
            regs_per_thread=regs_used,
            spill_bytes_per_thread=spill,
            compute_groups=warpgroup_shares(ir.ttgir),
            spill_pass_bytes=pass_bytes,
        ),
        source="triton",
        notes=tuple(dict.fromkeys(notes)),
        lock=LockSection(**walker.lock) if walker.lock is not None else None,
    )

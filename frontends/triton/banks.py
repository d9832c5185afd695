"""Shared-memory wavefronts of storing a register tile into a shared layout (read from the TTGIR text).

Where a tile goes from registers to shared memory (``ttg.local_alloc %x`` with an operand,
``ttg.local_store``: a loaded operand the pipeliner could not copy asynchronously, an operand computed in
registers), each thread stores its elements with ``st.shared`` instructions. The two layouts set the cost:

* **Vector width.** A thread stores at once the elements it holds consecutively along the shared layout's
  contiguous axis (``sizePerThread`` along it), up to 16 bytes. A row-major 8-bit B tile that a Hopper
  ``wgmma`` needs K-major (``nvmma_shared`` with ``transposed = true``) gets one byte per instruction: 64
  ``STS.U8`` per thread per 128x128 tile at 8 warps in the SASS of an int8 GEMM compiled on CPU.
* **Bank conflicts** (counted by :mod:`tilesight.model.banks`). Shared memory serves 32 banks of 4-byte
  words per wavefront; the lanes of one instruction (all 32 for accesses up to 4 bytes, 16 / 8 lanes per
  phase for 8 / 16-byte ones) whose words sit in one bank take one wavefront per distinct word. The
  addresses follow the shared layout: an ``nvmma_shared`` tile stored in column blocks of its swizzle width
  with the 16-byte chunk index XORed by the row (CUTLASS's ``Swizzle<B, 4, 3>`` on byte addresses); a
  ``swizzled_shared`` tile with the vector index XORed by the row's phase.

:func:`staged_store_bytes` gives, per source location, the wavefronts of one occurrence over all warps, as
bytes at 128 per wavefront: the shared-memory traffic the engine prices at the profile's calibrated
shared-memory bandwidth (measured on transposes through shared memory).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping
from types import MappingProxyType

import numpy as np

from tilesight.model.banks import MAX_VECTOR_BYTES, WAVEFRONT_BYTES, wavefronts, wavefronts_many

from .ir import parse_module, tensor_type, walk_ops
from .layouts import _blocked, shared_layouts

_LINEAR = re.compile(r"^(#linear\d*) = #ttg\.linear<\{(.*)\}>", re.M)
_BASES = re.compile(r"(register|lane|warp) = \[((?:\[[\d, ]*\](?:, )?)*)\]")
_SRC = re.compile(r"tensor<((?:\d+x)+)(\w+), (#(?:blocked|linear)\d*)>")
_DST = re.compile(r"!ttg\.memdesc<(?:\d+x)+\w+, (#shared\d*)")
_ELEMENT_BYTES = {"f64": 8, "i64": 8, "f32": 4, "i32": 4, "f16": 2, "bf16": 2, "i16": 2, "i8": 1}


def _element_bytes(elem: str) -> int | None:
    if elem.startswith("f8"):
        return 1
    return _ELEMENT_BYTES.get(elem)


def _decompose(index: np.ndarray, sizes: tuple[int, ...], order: tuple[int, ...]) -> list[np.ndarray]:
    """Per-dimension digits of a flat ``index`` laid out along ``order`` (``order[0]`` fastest)."""
    out: list[np.ndarray] = [np.zeros_like(index)] * len(sizes)
    rest = index
    for d in order:
        out[d] = rest % sizes[d]
        rest = rest // sizes[d]
    return out


def _register_coords(
    shape: tuple[int, ...],
    spt: tuple[int, ...],
    tpw: tuple[int, ...],
    wpc: tuple[int, ...],
    order: tuple[int, ...],
) -> np.ndarray:
    """Coordinates ``(warps, lanes, elements, rank)`` of every element each thread holds in a blocked layout
    (a tile smaller than the layout's footprint wraps around: replicated elements)."""
    rank = len(shape)
    reps = tuple(max(1, -(-shape[d] // (spt[d] * tpw[d] * wpc[d]))) for d in range(rank))
    per_thread = tuple(spt[d] * reps[d] for d in range(rank))
    warps, lanes, elems = math.prod(wpc), math.prod(tpw), math.prod(per_thread)
    w = _decompose(np.arange(warps), wpc, order)
    ln = _decompose(np.arange(lanes), tpw, order)
    e = _decompose(np.arange(elems), per_thread, order)
    coords = np.empty((warps, lanes, elems, rank), dtype=np.int64)
    for d in range(rank):
        s, r = e[d] % spt[d], e[d] // spt[d]
        x = (
            r[None, None, :] * (spt[d] * tpw[d] * wpc[d])
            + w[d][:, None, None] * (spt[d] * tpw[d])
            + ln[d][None, :, None] * spt[d]
            + s[None, None, :]
        )
        coords[..., d] = x % shape[d]
    return coords


def _linear_coords(shape: tuple[int, ...], bases: Mapping[str, tuple[tuple[int, ...], ...]]) -> np.ndarray:
    """Coordinates ``(warps, lanes, elements, rank)`` of a linear layout: each set bit of the register, lane
    and warp index XORs in its basis vector."""
    rank = len(shape)

    def span(key: str) -> np.ndarray:
        vecs = bases.get(key, ())
        idx = np.arange(1 << len(vecs))
        out = np.zeros((idx.size, rank), dtype=np.int64)
        for bit, v in enumerate(vecs):
            on = ((idx >> bit) & 1).astype(bool)
            out[on] ^= np.asarray(v, dtype=np.int64)
        return out

    reg, lane, warp = span("register"), span("lane"), span("warp")
    coords = warp[:, None, None, :] ^ lane[None, :, None, :] ^ reg[None, None, :, :]
    return coords % np.asarray(shape, dtype=np.int64)


def _linear_run(bases: Mapping[str, tuple[tuple[int, ...], ...]], axis: int, rank: int) -> int:
    """Registers one thread holds consecutively along ``axis``: the leading register bases that step it by
    1, 2, 4, ..."""
    run = 1
    for j, v in enumerate(bases.get("register", ())):
        unit = tuple((1 << j) if d == axis else 0 for d in range(rank))
        if tuple(v) != unit:
            break
        run *= 2
    return run


def _nvmma_address(coords: np.ndarray, shape: tuple[int, ...], elem: int, swizzle: int, transposed: bool):
    """Byte address of each element in an ``nvmma_shared`` tile (the last two axes; leading ones stacked)."""
    inner_axis, outer_axis = (-2, -1) if transposed else (-1, -2)
    inner, outer = coords[..., inner_axis], coords[..., outer_axis]
    rows = shape[outer_axis]
    lead = 0
    if len(shape) > 2:
        lead = np.ravel_multi_index(tuple(coords[..., d] for d in range(len(shape) - 2)), shape[:-2])
    tile_bytes = shape[-1] * shape[-2] * elem
    byte = inner * elem
    if swizzle <= 0:
        return lead * tile_bytes + outer * (shape[inner_axis] * elem) + byte
    addr = (byte // swizzle) * (rows * swizzle) + outer * swizzle + byte % swizzle
    bits = int(math.log2(swizzle // 16))  # 128 B: 3 bits of 16-byte chunk, XORed by address bits 7..9
    addr = addr ^ (((addr >> 7) & ((1 << bits) - 1)) << 4)
    return lead * tile_bytes + addr


def _swizzled_address(coords: np.ndarray, shape: tuple[int, ...], elem: int, vec: int, per_phase: int,
                      max_phase: int, order: tuple[int, ...]):  # fmt: skip
    """Byte address of each element in a 2-D ``swizzled_shared`` tile (vector index XORed by the phase)."""
    inner_axis, outer_axis = order[0], order[1]
    inner, outer = coords[..., inner_axis], coords[..., outer_axis]
    phase = (outer // max(per_phase, 1)) % max(max_phase, 1)
    col = ((inner // vec) ^ phase) * vec + inner % vec
    return (outer * shape[inner_axis] + col) * elem


def store_wavefronts(
    shape: tuple[int, ...], elem: int, layout: Mapping[str, tuple], shared: tuple
) -> tuple[int, int]:
    """``(wavefronts, instructions)`` over all warps of storing a ``shape`` tile of ``elem``-byte elements
    held in the register ``layout`` (a blocked layout's ``sizePerThread`` / ``threadsPerWarp`` /
    ``warpsPerCTA`` / ``order``, or a linear layout's ``register`` / ``lane`` / ``warp`` bases) into the
    ``shared`` layout (``("nvmma", swizzle, transposed)`` or ``("swizzled", vec, per_phase, max_phase,
    order)``)."""
    rank = len(shape)
    linear = "register" in layout
    if linear:
        coords = _linear_coords(shape, layout)
    else:
        spt, tpw, wpc, order = (
            layout[k] for k in ("sizePerThread", "threadsPerWarp", "warpsPerCTA", "order")
        )
        coords = _register_coords(shape, spt, tpw, wpc, order)
    if shared[0] == "nvmma":
        _, swizzle, transposed = shared
        addr = _nvmma_address(coords, shape, elem, swizzle, transposed)
        contiguous = rank - 2 if transposed else rank - 1
    else:
        _, vec, per_phase, max_phase, sorder = shared
        addr = _swizzled_address(coords, shape, elem, vec, per_phase, max_phase, sorder)
        contiguous = sorder[0]
    # a thread's consecutive elements along the shared tile's contiguous axis go out in one vector
    if linear:
        run = _linear_run(layout, contiguous, rank)
    else:
        run = spt[contiguous] if order[0] == contiguous else 1
    vec_elems = max(1, min(run, MAX_VECTOR_BYTES // elem))
    warps, lanes, elems, _ = coords.shape
    # instruction i stores the thread's elements whose index along the run is a multiple of vec_elems
    starts = np.flatnonzero(np.arange(elems) % vec_elems == 0)
    access = vec_elems * elem
    rows = addr[:, :, starts].transpose(0, 2, 1).reshape(-1, lanes)  # one row per warp instruction
    return wavefronts_many(rows, access), warps * starts.size


def _readable(layout: Mapping[str, tuple], rank: int) -> bool:
    """A blocked layout with all four fields of ``rank`` entries, or a linear layout with its bases."""
    if "register" in layout:
        return all(len(v) == rank for key in ("register", "lane", "warp") for v in layout.get(key, ()))
    needed = ("sizePerThread", "threadsPerWarp", "warpsPerCTA", "order")
    return all(len(layout.get(k, ())) == rank for k in needed)


# Tables kept per TTGIR text: a new shape of a compiled config re-walks its IR, not these.
STAGED_CACHE_SIZE = 256


@functools.lru_cache(maxsize=STAGED_CACHE_SIZE)
def staged_store_bytes(ttgir: str) -> Mapping[str, float]:
    """Source location ("file:line:col" and "file:line") -> shared-memory wavefront bytes of the register
    tiles stored into shared memory there (``ttg.local_alloc`` of a value, ``ttg.local_store``), summed over
    the location's ops and all warps, for one occurrence. Layouts it cannot read are left out. Cached."""
    layouts: dict[str, Mapping[str, tuple]] = dict(_blocked(ttgir))
    for alias, body in _LINEAR.findall(ttgir):
        layouts[alias] = {
            key: tuple(
                tuple(int(x) for x in v.split(",") if x.strip()) for v in re.findall(r"\[([\d, ]*)\]", vs)
            )
            for key, vs in _BASES.findall(body)
        }
    shared = shared_layouts(ttgir)
    out: dict[str, float] = {}
    for op in walk_ops(parse_module(ttgir).body):
        if op.name not in ("ttg.local_alloc", "ttg.local_store") or not op.operands or op.loc is None:
            continue
        src, dst = _SRC.search(op.text + " " + op.rtype), _DST.search(op.text + " " + op.rtype)
        shape = tensor_type(op.text)
        if src is None or dst is None or shape is None or src.group(3) not in layouts:
            continue
        layout, target = layouts[src.group(3)], shared.get(dst.group(1))
        elem = _element_bytes(src.group(2))
        if target is None or elem is None or not _readable(layout, len(shape[0])):
            continue
        if target[0] == "swizzled" and len(shape[0]) != 2:
            continue
        waves, _ = store_wavefronts(shape[0], elem, layout, target)
        for key in op.keys:
            out[key] = out.get(key, 0.0) + waves * WAVEFRONT_BYTES
    return MappingProxyType(out)


__all__ = ["WAVEFRONT_BYTES", "staged_store_bytes", "store_wavefronts", "wavefronts"]

"""What Triton's layouts say about memory instructions (read from the TTGIR text).

* The vector width of each global load / store: a blocked layout's ``sizePerThread`` along its fastest axis
  (``order[0]``) times the element size. Triton's coalescing pass already narrowed it to what the pointers'
  alignment allows, so an unaligned row stride shows up here as element-wide accesses.
* Whether the software pipeliner turned loop loads into asynchronous copies (``cp.async`` / TMA). When it
  could not (narrow or unaligned accesses), the loads stay synchronous and single-buffered.
"""

from __future__ import annotations

import re

from .ir import Op, parse_module

_BLOCKED = re.compile(
    r"^(#blocked\d*) = #ttg\.blocked<\{sizePerThread = \[([\d, ]+)\].*?order = \[([\d, ]+)\]", re.M
)
_TYPED = re.compile(r"tensor<(?:\d+x)+(?:!tt\.ptr<)?([a-zA-Z]\w*)>?, (#blocked\d*)>")
_ELEMENT_BYTES = {
    "f64": 8, "i64": 8, "f32": 4, "i32": 4, "f16": 2, "bf16": 2, "i16": 2,
    "f8E4M3FN": 1, "f8E5M2": 1, "i8": 1, "i1": 1,
}  # fmt: skip
_MEMORY_OPS = ("tt.load", "tt.store", "ttg.async_copy_global_to_local")
_ASYNC_OPS = ("async_copy_global_to_local", "async_tma_copy_global_to_local", "tt.descriptor_load")


def _vectors(ttgir: str) -> dict[str, int]:
    """Layout alias -> elements one thread holds contiguously along the fastest axis."""
    out = {}
    for alias, size, order in _BLOCKED.findall(ttgir):
        sizes = [int(x) for x in size.split(",")]
        fastest = int(order.split(",")[0])
        out[alias] = sizes[fastest]
    return out


def _walk(ops: list[Op]):
    for op in ops:
        yield op
        for region in op.regions:
            yield from _walk(region)


def access_widths(ttgir: str) -> dict[str, int]:
    """Source location ("file:line") -> the narrowest vector, in bytes, of the global loads / stores there."""
    vectors = _vectors(ttgir)
    widths: dict[str, int] = {}
    for op in _walk(parse_module(ttgir).body):
        if op.name not in _MEMORY_OPS or op.loc is None:
            continue
        m = _TYPED.search(op.text + " " + op.rtype)
        if m is None or m.group(2) not in vectors:
            continue
        elem = _ELEMENT_BYTES.get(m.group(1))
        if elem is None:
            continue
        width = vectors[m.group(2)] * elem
        widths[op.loc] = min(width, widths.get(op.loc, width))
    return widths


def pipelined(ttgir: str) -> bool:
    """Whether any load became an asynchronous copy (the pipeliner's work)."""
    return any(name in ttgir for name in _ASYNC_OPS)

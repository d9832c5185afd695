"""Launch arguments of a TileLang program with dynamic shapes or scalar parameters.

A ``T.prim_func`` may leave sizes open: a buffer shaped by a symbolic variable (``T.dynamic("m")``,
``T.symbolic``, ``tvm.te.var("m")``) or a scalar parameter (``n: T.int32``). The compiled kernel reads them
from its arguments at launch; TileSight needs them before it can count tiles. :func:`bind_launch` takes them
from what the kernel would be called with:

* positional ``args``, one per parameter in the program's order (a prefix is enough): a tensor (TensorSpec,
  torch tensor of any device, numpy array) for a buffer parameter binds the variables of its shape and strides
  and must match its dtype and its fixed extents; a number for a scalar parameter binds it;
* ``sizes``, by name: ``m=4096`` binds the symbolic variable (or scalar parameter) named ``m``, and
  ``A=tensor`` binds buffer parameter ``A`` as a positional tensor would.

and specialises the program with them (TVM's ``PrimFunc.specialize``), so the walker sees fixed shapes. A
variable left open, bound twice to different values, or an argument that does not fit its parameter is a
``FrontendError`` naming it. An integer tensor that brings its contents (a numpy array, a CPU torch tensor,
``TensorSpec(values=...)``: a variable-length batch's offsets ``cu_seqlens``) also lets the walker evaluate
the kernel's reads of its elements in index math (:func:`bind`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from tilesight.dtypes import canonical_dtype, dtype_bits
from tilesight.errors import FrontendError, TileSightError
from tilesight.tensorspec import TensorSpec, as_tensor_spec, is_tensor_like

from ._tvm import stmt_functor, tirx


def _vars_of(exprs: Any) -> list[Any]:
    """The symbolic variables in ``exprs`` (PrimExprs), each once, in order of appearance."""
    found: dict[str, Any] = {}

    def visit(node: Any) -> None:
        if isinstance(node, tirx.Var) and node.name not in found:
            found[node.name] = node

    for e in exprs:
        if isinstance(e, tirx.PrimExpr):
            stmt_functor.post_order_visit(e, visit)
    return list(found.values())


def _layout_exprs(buf: Any) -> list[Any]:
    return [*buf.shape, *buf.strides, buf.elem_offset]


def open_sizes(func: Any) -> dict[str, str]:
    """The program's open sizes: symbolic variable or scalar parameter name -> where it appears."""
    out: dict[str, str] = {}
    for handle in func.params:
        buf = func.buffer_map.get(handle)
        if buf is None:
            out.setdefault(handle.name, f"scalar parameter {handle.name!r}")
            continue
        for v in _vars_of(_layout_exprs(buf)):
            out.setdefault(v.name, f"the shape of buffer {buf.name!r}")
    return out


class _Bindings:
    def __init__(self, kernel: str) -> None:
        self.kernel = kernel
        self.values: dict[str, int | float] = {}
        self.origin: dict[str, str] = {}
        self.checks: list[tuple[Any, Any, str]] = []  # (buffer, tensor spec, what): fixed extents to check
        self.contents: dict[str, np.ndarray] = {}  # integer tensors' elements, by buffer name

    def set(self, name: str, value: int | float, origin: str) -> None:
        old = self.values.get(name)
        if old is not None and old != value:
            raise FrontendError(
                f"kernel {self.kernel!r}: {name} is {old} by {self.origin[name]} but {value} by {origin}",
                construct=f"size {name}",
            )
        self.values[name] = value
        self.origin.setdefault(name, origin)


def _stored_as(spec: TensorSpec, want: str, kernel: str, what: str) -> TensorSpec:
    """A tensor of another element type that holds a ``want`` buffer, as TileLang's runtime takes it: a
    float32 tensor for a tfloat32 buffer, and an int8 or uint8 tensor packing a sub-byte buffer (int4, uint4,
    float4_e2m1fn) two to a byte along its last dimension (the spec as the buffer sees it: last extent and
    outer strides doubled). Any other mismatch fails as TileLang does, naming both types."""
    if want == "tfloat32" and spec.dtype == "float32":
        return TensorSpec(spec.shape, want, spec.strides, values=spec.values)
    per_byte = 8 // dtype_bits(want) if dtype_bits(want) < 8 else 0
    if per_byte and spec.dtype in ("int8", "uint8") and spec.shape and spec.strides[-1] == 1:
        shape = (*spec.shape[:-1], spec.shape[-1] * per_byte)
        strides = (*(st * per_byte for st in spec.strides[:-1]), 1)
        return TensorSpec(shape, want, strides)
    raise FrontendError(f"kernel {kernel!r}: {what} is {want}, got a {spec.dtype} tensor", construct=what)


def _bind_tensor(b: _Bindings, buf: Any, arg: Any, what: str) -> None:
    try:
        spec = as_tensor_spec(arg)
    except TileSightError as e:
        raise FrontendError(f"kernel {b.kernel!r}: {what}: {e}", construct=what) from None
    want = canonical_dtype(str(buf.dtype))
    if spec.dtype != want:
        spec = _stored_as(spec, want, b.kernel, what)
    if len(spec.shape) != len(buf.shape):
        raise FrontendError(
            f"kernel {b.kernel!r}: {what} has {len(buf.shape)} dimensions, got a tensor of shape "
            f"{list(spec.shape)}",
            construct=what,
        )
    pairs = list(zip(buf.shape, spec.shape, strict=True))
    if len(buf.strides) == len(spec.shape):
        assert spec.strides is not None
        pairs += list(zip(buf.strides, spec.strides, strict=True))
    for expr, value in pairs:
        if isinstance(expr, tirx.Var):
            b.set(expr.name, int(value), f"{what} (a tensor of shape {list(spec.shape)})")
    b.checks.append((buf, spec, what))
    if spec.values is not None:
        b.contents[buf.name] = np.asarray(spec.values)


def _number(value: Any) -> int | float | None:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float):
        return value
    item = getattr(value, "item", None)  # a numpy or torch scalar
    if callable(item) and getattr(value, "ndim", 1) == 0:
        return item()
    return None


def _imm(dtype: str, value: int | float) -> Any:
    if dtype.startswith(("int", "uint")):
        return tirx.IntImm(dtype, int(value))
    if dtype.startswith("bool"):
        return tirx.IntImm(dtype, int(bool(value)))
    return tirx.FloatImm(dtype, float(value))


def _substituted(expr: Any, vmap: Mapping[Any, Any]) -> Any:
    from tvm import arith

    return arith.Analyzer().simplify(stmt_functor.substitute(expr, vmap))


def bind_launch(
    func: Any, args: tuple[Any, ...] = (), sizes: Mapping[str, Any] | None = None, kernel: str = ""
) -> Any:
    """``func`` with its open sizes bound from ``args`` and ``sizes`` (see the module docstring); ``func``
    itself when it has none and nothing is passed."""
    return bind(func, args, sizes, kernel)[0]


def bind(
    func: Any, args: tuple[Any, ...] = (), sizes: Mapping[str, Any] | None = None, kernel: str = ""
) -> tuple[Any, dict[str, np.ndarray]]:
    """:func:`bind_launch`, and the contents of the integer tensors among the arguments that bring them
    (buffer name -> array), which the walker reads where the kernel indexes with their elements."""
    if not kernel:
        from .walker import program_name

        kernel = program_name(func, None)
    sizes = dict(sizes or {})
    params = list(func.params)
    open_ = open_sizes(func)
    if not args and not sizes and not open_:
        return func, {}
    if len(args) > len(params):
        raise FrontendError(
            f"kernel {kernel!r} takes {len(params)} arguments "
            f"({', '.join(_param_name(func, p) for p in params)}), got {len(args)}",
            construct="estimate(prim_func, *args)",
        )
    b = _Bindings(kernel)
    for handle, arg in zip(params, args, strict=False):
        buf = func.buffer_map.get(handle)
        if buf is not None:
            what = f"argument {buf.name!r}"
            if not is_tensor_like(arg):
                raise FrontendError(
                    f"kernel {kernel!r}: {what} is a {buf.dtype} tensor, got {type(arg).__qualname__}",
                    construct=what,
                )
            _bind_tensor(b, buf, arg, what)
        else:
            what = f"scalar parameter {handle.name!r}"
            value = _number(arg)
            if value is None:
                raise FrontendError(
                    f"kernel {kernel!r}: {what} ({handle.dtype}) takes a number, "
                    f"got {type(arg).__qualname__}",
                    construct=what,
                )
            b.set(handle.name, value, f"argument {what}")
    by_name = {_param_name(func, h): h for h in params}
    for name, value in sizes.items():
        handle = by_name.get(name)
        if handle is not None and func.buffer_map.get(handle) is not None and is_tensor_like(value):
            _bind_tensor(b, func.buffer_map[handle], value, f"argument {name!r}")
            continue
        if name not in open_:
            known = ", ".join(sorted(open_)) or "none"
            raise FrontendError(
                f"kernel {kernel!r} has no open size {name!r} "
                f"(its symbolic sizes and scalar parameters: {known})",
                construct=f"size {name}",
            )
        number = _number(value)
        if number is None:
            raise FrontendError(
                f"kernel {kernel!r}: size {name}={value!r} is not a number", construct=f"size {name}"
            )
        b.set(name, number, f"{name}={number}")
    missing = [n for n in open_ if n not in b.values]
    if missing:
        where = "; ".join(f"{n} ({open_[n]})" for n in missing)
        raise FrontendError(
            f"kernel {kernel!r} leaves {where} open: pass its tensors to estimate in parameter order, or the "
            f"sizes by name ({', '.join(f'{n}=...' for n in missing)})",
            construct="open size",
        )
    return _specialise(func, b, kernel), b.contents


def _param_name(func: Any, handle: Any) -> str:
    buf = func.buffer_map.get(handle)
    return buf.name if buf is not None else handle.name


def _specialise(func: Any, b: _Bindings, kernel: str) -> Any:
    vmap: dict[Any, Any] = {}
    scalars: dict[Any, Any] = {}
    for handle in func.params:
        buf = func.buffer_map.get(handle)
        if buf is None:
            scalars[handle] = _imm(str(handle.dtype), b.values[handle.name])
            continue
        for v in _vars_of(_layout_exprs(buf)):
            vmap[v] = _imm(str(v.dtype), b.values[v.name])
    for handle in func.params:
        if func.buffer_map.get(handle) is None:
            vmap[handle] = scalars[handle]
    pmap: dict[Any, Any] = dict(scalars)
    # TVM's specialisation matches each of a buffer's layout entries that changes with a variable of the
    # signature: an entry of several variables or of arithmetic (``seq_len * heads``) is left as it is and
    # follows once its variables are bound by an entry of their own (a buffer shaped ``[seq_len, heads]``)
    plain = {e.name for h in func.params if h in func.buffer_map
             for e in _layout_exprs(func.buffer_map[h]) if isinstance(e, tirx.Var)}  # fmt: skip
    plain |= {h.name for h in func.params if h not in func.buffer_map}

    def entry(expr: Any, buf: Any) -> Any:
        if isinstance(expr, tirx.Var) or not _vars_of([expr]):
            return _substituted(expr, vmap)
        loose = [v.name for v in _vars_of([expr]) if v.name not in plain]
        if loose:
            raise FrontendError(
                f"kernel {kernel!r}: buffer {buf.name!r} is laid out by {expr}, and {', '.join(loose)} is no "
                "buffer's own extent or scalar parameter, which TVM's specialisation needs to bind it",
                construct="PrimFunc.specialize",
            )
        return expr

    for handle in func.params:
        buf = func.buffer_map.get(handle)
        if buf is None or not _vars_of(_layout_exprs(buf)):
            continue
        pmap[handle] = tirx.decl_buffer(
            [entry(e, buf) for e in buf.shape],
            buf.dtype,
            buf.name,
            strides=[entry(e, buf) for e in buf.strides] or None,
            elem_offset=entry(buf.elem_offset, buf),
            data_alignment=buf.data_alignment,
            offset_factor=buf.offset_factor,
        )
    for buf, spec, what in b.checks:
        want = [_substituted(s, vmap) for s in buf.shape]
        for extent, got in zip(want, spec.shape, strict=True):
            if isinstance(extent, tirx.IntImm) and int(extent.value) != int(got):
                fixed = [int(e.value) if isinstance(e, tirx.IntImm) else str(e) for e in want]
                raise FrontendError(
                    f"kernel {kernel!r}: {what} has shape {fixed}, got a tensor of shape {list(spec.shape)}",
                    construct=what,
                )
    try:
        return func.specialize(pmap)
    except Exception as e:  # TVM's own check of the specialisation, as its message says it
        raise FrontendError(
            f"kernel {kernel!r}: TVM could not specialise it with {b.values}: {str(e).splitlines()[-1]}",
            construct="PrimFunc.specialize",
        ) from None

"""The ``--args`` / ``--config`` mini-syntax: kernel arguments without tensors.

Two spellings, the same meaning:

* **Assignments**, separated by spaces::

      a=f16[M,K] b=f16[K,N]@[1,K] c=f16[M,N] M=4096 N=4096 K=4096 eps=1e-5 HAS_BIAS=true

  ``DTYPE[d0,d1,...]`` is a tensor of that element type (any name ``tilesight.dtypes`` knows: ``f16``,
  ``bf16``, ``fp8e4m3``, ``float32``, ...) and shape; ``@[s0,s1,...]`` gives its strides in elements (default:
  contiguous, row-major). A dimension or stride may name an integer argument (``M``). Scalars are integers,
  floats, ``true``/``false`` or ``none``; ``a.stride(0)`` and ``a.shape(1)`` take a stride or an extent of
  the tensor argument ``a`` (handy for kernels that take strides: ``stride_am=a.stride(0)``), and a bare name
  another integer argument's value (``n_cols=C``). A size name the kernel does not take (``R=8192
  C=3000`` used only in shapes, the grid or such a name) is a *size variable*: the CLI passes it to the
  kernel only where it is a parameter (:func:`referenced_names`).
  ``DTYPE{v0,v1,...}`` is a 1-d integer (or bool) tensor given by its contents, for the index tensors a
  kernel reads its control flow from (a variable-length batch's offsets: ``cu_seqlens=int32{0,100,356}``).
* **JSON**, when the text starts with ``{``::

      {"a": {"dtype": "f16", "shape": [4096, 4096]}, "b": "f16[4096,4096]@[1,4096]", "M": 4096}

  A tensor is an object with ``dtype``, ``shape`` and optional ``strides``, or a string in the syntax above.

Every problem raises :class:`ArgsError` naming the option, the token and what was expected.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tilesight.dtypes import canonical_dtype
from tilesight.errors import TileSightError

Scalar = int | float | bool | None

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_TENSOR = re.compile(rf"^(?P<dtype>{_NAME})\[(?P<shape>[^\]]*)\](?:@\[(?P<strides>[^\]]*)\])?$")
_ASSIGN = re.compile(rf"^(?P<name>{_NAME})=(?P<value>\S+)$")
_CONTENTS = re.compile(rf"^(?P<dtype>{_NAME})\{{(?P<values>[^}}]*)\}}$")
_REF = re.compile(rf"^(?P<tensor>{_NAME})\.(?P<attr>stride|shape)\((?P<dim>\d+)\)$")


class ArgsError(TileSightError, ValueError):
    """Malformed ``--args`` / ``--config`` text (or the same fields in tilesight.toml)."""


@dataclass(frozen=True)
class TensorArg:
    """A tensor argument described by element type, shape and (optional) strides in elements."""

    dtype: str
    shape: tuple[int, ...]
    strides: tuple[int, ...] | None = None
    values: tuple[int, ...] | None = None  # a 1-d index tensor's contents (``int32{0,100,356}``)

    @property
    def effective_strides(self) -> tuple[int, ...]:
        """The strides, row-major contiguous when none were given."""
        if self.strides is not None:
            return self.strides
        out, step = [], 1
        for extent in reversed(self.shape):
            out.append(step)
            step *= extent
        return tuple(reversed(out))

    def to_dict(self) -> dict[str, Any]:
        out = {
            "dtype": self.dtype,
            "shape": list(self.shape),
            "strides": list(self.strides) if self.strides else None,
        }
        if self.values is not None:
            out["values"] = list(self.values)
        return out

    def __str__(self) -> str:
        if self.values is not None:
            return f"{self.dtype}{{{','.join(map(str, self.values))}}}"
        text = f"{self.dtype}[{','.join(map(str, self.shape))}]"
        return text + (f"@[{','.join(map(str, self.strides))}]" if self.strides else "")


Value = Scalar | TensorArg


def parse_args_text(text: str, option: str = "--args") -> dict[str, Value]:
    """Parse the mini-syntax or JSON into ``{name: TensorArg | scalar}``."""
    if not isinstance(text, str):
        raise ArgsError(f"{option}: expected a string, got {type(text).__name__}")
    stripped = text.strip()
    if not stripped:
        return {}
    if stripped.startswith("{"):
        return _from_json(stripped, option)
    raw = _assignments(stripped, option)
    refs = {name: value for name, value in raw.items() if _REF.match(value)}
    aliases = {name: value for name, value in raw.items() if _is_alias(value, raw)}
    matched = {name: _CONTENTS.match(value) for name, value in raw.items()}
    contents = {name: _contents(m, name, option) for name, m in matched.items() if m}
    scalars = {
        name: _scalar(value, name, option)
        for name, value in raw.items()
        if "[" not in value and name not in refs and name not in contents and name not in aliases
    }
    for name in aliases:
        scalars[name] = _alias(name, raw, option)
    out: dict[str, Value] = {}
    for name, value in raw.items():
        if name in refs:
            continue
        if name in contents:
            out[name] = contents[name]
            continue
        out[name] = _tensor(value, name, option, scalars) if "[" in value else scalars[name]
    for name, value in refs.items():
        out[name] = _reference(value, name, option, out)
    return {name: out[name] for name in raw}


def _assignments(stripped: str, option: str) -> dict[str, str]:
    """The ``NAME=VALUE`` tokens of the mini-syntax, name -> value text, in the order given."""
    raw: dict[str, str] = {}
    for token in stripped.split():
        m = _ASSIGN.match(token)
        if not m:
            raise ArgsError(f"{option}: {token!r} is not NAME=VALUE (e.g. 'a=f16[4096,4096] M=4096')")
        if m["name"] in raw:
            raise ArgsError(f"{option}: {m['name']!r} is given twice")
        raw[m["name"]] = m["value"]
    return raw


def referenced_names(text: str, option: str = "--args") -> set[str]:
    """The argument names the other ``--args`` entries of ``text`` use: in a tensor's shape or strides
    (``a=f16[M,K]``), as an alias (``n_cols=C``) or through a reference (``stride_am=a.stride(0)``)."""
    stripped = text.strip()
    if not stripped or stripped.startswith("{"):
        return set()
    raw = _assignments(stripped, option)
    used: set[str] = set()
    for value in raw.values():
        m = _TENSOR.match(value)
        if m:
            for part in (m["shape"], m["strides"] or ""):
                used.update(t.strip() for t in part.split(",") if re.fullmatch(_NAME, t.strip()))
        elif _is_alias(value, raw):
            used.add(value)
        elif r := _REF.match(value):
            used.add(r["tensor"])
    return used


def _is_alias(value: str, raw: Mapping[str, str]) -> bool:
    """``value`` names another argument (not a literal such as ``true`` or ``none``)."""
    return (
        bool(re.fullmatch(_NAME, value)) and value.lower() not in ("true", "false", "none") and value in raw
    )


def _alias(name: str, raw: Mapping[str, str], option: str) -> int:
    """The integer ``name=OTHER`` takes from the argument ``OTHER`` (following a chain of such names to an
    integer literal)."""
    seen = [name]
    while _is_alias(raw[seen[-1]], raw):
        target = raw[seen[-1]]
        if target in seen:
            raise ArgsError(f"{option}: {' -> '.join([*seen, target])} refer to each other in a loop")
        seen.append(target)
    text = raw[seen[-1]]
    value = None if "[" in text or "{" in text or _REF.match(text) else _scalar(text, seen[-1], option)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgsError(f"{option}: {name}={raw[name]}: {raw[name]!r} does not name an integer argument")
    return value


def _reference(text: str, name: str, option: str, values: Mapping[str, Any]) -> int:
    m = _REF.match(text)
    assert m is not None
    tensor = values.get(m["tensor"])
    if not isinstance(tensor, TensorArg):
        raise ArgsError(f"{option}: {name}={text}: {m['tensor']!r} is not a tensor argument")
    dim = int(m["dim"])
    if dim >= len(tensor.shape):
        raise ArgsError(f"{option}: {name}={text}: {m['tensor']} has {len(tensor.shape)} dimensions")
    return tensor.shape[dim] if m["attr"] == "shape" else tensor.effective_strides[dim]


def parse_config_text(text: str, option: str = "--config") -> dict[str, Scalar]:
    """A config: scalars only (meta-parameters and launch options such as ``num_warps``)."""
    values = parse_args_text(text, option)
    for name, value in values.items():
        if isinstance(value, TensorArg):
            raise ArgsError(f"{option}: {name}={value} is a tensor; a config holds scalars only")
    return values  # type: ignore[return-value]


def format_values(values: Mapping[str, Any]) -> str:
    """The mini-syntax text of ``values`` (the inverse of :func:`parse_args_text`), in key order."""
    parts = []
    for name, value in values.items():
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif value is None:
            text = "none"
        else:
            text = str(value)
        parts.append(f"{name}={text}")
    return " ".join(parts)


def _scalar(text: str, name: str, option: str) -> Scalar:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise ArgsError(
            f"{option}: {name}={text!r} is not a number, true/false, none, a tensor like f16[4096,4096] "
            "or the name of another integer argument"
        ) from None


def _dims(text: str, name: str, what: str, option: str, scalars: Mapping[str, Any]) -> tuple[int, ...]:
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise ArgsError(f"{option}: {name}: empty {what} (write e.g. f16[4096,4096])")
    dims = []
    for item in items:
        if re.fullmatch(_NAME, item):
            value = scalars.get(item)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ArgsError(f"{option}: {name}: {what} entry {item!r} does not name an integer argument")
        else:
            try:
                value = int(item)
            except ValueError:
                raise ArgsError(f"{option}: {name}: {what} entry {item!r} is not an integer") from None
        if value < (0 if what == "strides" else 1):
            raise ArgsError(f"{option}: {name}: {what} entry {item}={value} is out of range")
        dims.append(value)
    return tuple(dims)


def _tensor(text: str, name: str, option: str, scalars: Mapping[str, Any]) -> TensorArg:
    m = _TENSOR.match(text)
    if not m:
        raise ArgsError(
            f"{option}: {name}={text!r} is not a tensor DTYPE[d0,d1,...] with optional @[strides]"
        )
    try:
        dtype = canonical_dtype(m["dtype"])
    except TileSightError as exc:
        raise ArgsError(f"{option}: {name}: {exc}") from None
    shape = _dims(m["shape"], name, "shape", option, scalars)
    strides = _dims(m["strides"], name, "strides", option, scalars) if m["strides"] is not None else None
    if strides is not None and len(strides) != len(shape):
        raise ArgsError(f"{option}: {name}: {len(strides)} strides for a {len(shape)}-d shape")
    return TensorArg(dtype, shape, strides)


def _contents(m: re.Match[str], name: str, option: str) -> TensorArg:
    """``DTYPE{v0,v1,...}`` (``m``, its match): a 1-d integer (or bool) tensor by its contents."""
    text = m.group(0)
    try:
        dtype = canonical_dtype(m["dtype"])
    except TileSightError as exc:
        raise ArgsError(f"{option}: {name}: {exc}") from None
    if not dtype.startswith(("int", "uint", "bool")):
        what = f"contents are for integer or bool index tensors, not {dtype}"
        raise ArgsError(f"{option}: {name}={text}: {what}")
    values = []
    for item in (t.strip() for t in m["values"].split(",")):
        low = item.lower()
        if low in ("true", "false"):
            values.append(int(low == "true"))
            continue
        try:
            values.append(int(item))
        except ValueError:
            raise ArgsError(f"{option}: {name}: content {item!r} is not an integer") from None
    return TensorArg(dtype, (len(values),), None, tuple(values))


def _from_json(text: str, option: str) -> dict[str, Value]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ArgsError(
            f"{option}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    if not isinstance(doc, dict):
        raise ArgsError(f"{option}: JSON must be an object of name -> value")
    scalars = {k: v for k, v in doc.items() if not isinstance(v, dict | str | list)}
    out: dict[str, Value] = {}
    for name, value in doc.items():
        if isinstance(value, str):
            out[name] = _tensor(value, name, option, scalars)
        elif isinstance(value, dict):
            unknown = set(value) - {"dtype", "shape", "strides"}
            if unknown or "dtype" not in value or "shape" not in value:
                raise ArgsError(
                    f"{option}: {name}: a tensor object has 'dtype', 'shape' and optional 'strides'"
                )
            shape = ",".join(str(v) for v in _list(value["shape"], name, option))
            strides = value.get("strides")
            spec = f"{value['dtype']}[{shape}]"
            if strides is not None:
                spec += f"@[{','.join(str(v) for v in _list(strides, name, option))}]"
            out[name] = _tensor(spec, name, option, scalars)
        elif isinstance(value, bool | int | float) or value is None:
            out[name] = value
        else:
            raise ArgsError(f"{option}: {name}: unsupported JSON value {value!r}")
    return out


def _list(value: Any, name: str, option: str) -> list[Any]:
    if not isinstance(value, list):
        raise ArgsError(f"{option}: {name}: shape and strides must be JSON lists, got {value!r}")
    return value

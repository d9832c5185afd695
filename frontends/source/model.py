"""What source discovery finds: kernels as frozen value objects, read from a file without importing it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any


class KernelKind(StrEnum):
    TRITON = "triton"  # a @triton.jit function (possibly under @triton.autotune / @triton.heuristics)
    TILELANG_PRIM_FUNC = "tilelang_prim_func"  # a @T.prim_func program
    TILELANG_JIT = "tilelang_jit"  # a @tilelang.jit factory returning a prim_func


@dataclass(frozen=True)
class Param:
    """One parameter of a kernel: ``constexpr`` when annotated ``tl.constexpr`` (compile-time)."""

    name: str
    annotation: str | None = None
    default: str | None = None
    constexpr: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "annotation": self.annotation,
            "default": self.default,
            "constexpr": self.constexpr,
        }


def _frozen(mapping: Mapping[str, Any]) -> MappingProxyType[str, Any]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class AutotuneConfig:
    """One ``triton.Config`` as written: its meta-parameters and launch options (``None`` when not given)."""

    kwargs: Mapping[str, Any]
    num_warps: int | None = None
    num_stages: int | None = None
    line: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "kwargs", _frozen(self.kwargs))

    def as_config(self) -> dict[str, Any]:
        """The flat config (meta-parameters plus the launch options that were given)."""
        out = dict(self.kwargs)
        if self.num_warps is not None:
            out["num_warps"] = self.num_warps
        if self.num_stages is not None:
            out["num_stages"] = self.num_stages
        return out

    def to_dict(self) -> dict[str, Any]:
        return {**self.as_config(), "line": self.line}


@dataclass(frozen=True)
class Autotune:
    """A ``@triton.autotune`` decorator. ``static`` is False when ``configs`` is computed (a comprehension or
    a call); then ``configs`` is empty and ``configs_source`` holds the expression's text."""

    configs: tuple[AutotuneConfig, ...]
    key: tuple[str, ...]
    line: int
    static: bool = True
    configs_source: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "configs": [c.to_dict() for c in self.configs],
            "key": list(self.key),
            "line": self.line,
            "static": self.static,
            "configs_source": self.configs_source,
        }


@dataclass(frozen=True)
class KernelSource:
    """A kernel found in a source file. ``line`` is the ``def`` line, ``first_line`` the first decorator's."""

    name: str
    kind: KernelKind
    file: str
    line: int
    end_line: int
    first_line: int
    params: tuple[Param, ...]
    decorators: tuple[str, ...] = ()
    autotune: Autotune | None = None
    heuristics: tuple[str, ...] = ()
    predict: Mapping[str, str] = field(default_factory=dict)
    parent: str | None = None  # the enclosing function (a TileLang factory) for nested prim_funcs

    def __post_init__(self) -> None:
        object.__setattr__(self, "predict", _frozen(self.predict))

    @property
    def qualname(self) -> str:
        return f"{self.parent}.{self.name}" if self.parent else self.name

    @property
    def constexprs(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params if p.constexpr)

    @property
    def runtime_params(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params if not p.constexpr)

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.qualname,
            "kind": self.kind.value,
            "file": self.file,
            "line": self.line,
            "end_line": self.end_line,
            "first_line": self.first_line,
            "params": [p.to_dict() for p in self.params],
            "constexprs": list(self.constexprs),
            "decorators": list(self.decorators),
            "autotune": self.autotune.to_dict() if self.autotune else None,
            "heuristics": list(self.heuristics),
            "predict": dict(self.predict),
        }

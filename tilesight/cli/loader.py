"""Load a kernel named ``FILE::KERNEL`` for prediction: discover it statically, then import the file by path.

Discovery (``tilesight.frontends.source``) never imports the file; prediction has to, because the frontends
read the live kernel object. The import runs the user's module top level once per process.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import Any

from tilesight.errors import FrontendError
from tilesight.frontends.source import KernelKind, KernelSource, discover, find_kernel

from .argspec import ArgsError

TARGET_SEPARATOR = "::"


class LoadError(FrontendError):
    """The kernel's module could not be imported, or the object found is not the kernel discovery saw."""


@dataclass(frozen=True)
class Target:
    file: str
    kernel: str | None

    def __str__(self) -> str:
        return f"{self.file}{TARGET_SEPARATOR}{self.kernel}" if self.kernel else self.file


def parse_target(text: str) -> Target:
    """``path/to/file.py::kernel`` (the kernel may be omitted when the file holds exactly one)."""
    file, sep, kernel = text.partition(TARGET_SEPARATOR)
    if not file.endswith(".py"):
        raise ArgsError(f"target {text!r}: expected FILE.py::KERNEL")
    if sep and not kernel:
        raise ArgsError(f"target {text!r}: empty kernel name after '::'")
    return Target(file, kernel or None)


def resolve(target: Target) -> KernelSource:
    """The kernel ``target`` names, found statically (no import)."""
    if not Path(target.file).is_file():
        raise LoadError(f"{target.file}: no such file")
    kernels = discover(target.file)
    if target.kernel is None:
        if len(kernels) != 1:
            names = ", ".join(k.qualname for k in kernels) or "none"
            raise ArgsError(f"{target.file}: name one kernel with FILE::KERNEL; kernels found: {names}")
        return kernels[0]
    nested = [k for k in kernels if k.parent == target.kernel]
    if not any(target.kernel in (k.name, k.qualname) for k in kernels) and len(nested) == 1:
        return nested[0]  # a plain factory around one prim_func: `gemm.py::gemm` means `gemm.main`
    return find_kernel(kernels, target.kernel, target.file)


@dataclass(frozen=True)
class LoadedKernel:
    """The live kernel: ``jit`` is the innermost Triton JITFunction (or the TileLang object), with the
    autotune configs and heuristics of its wrappers read from the live objects."""

    source: KernelSource
    obj: Any
    jit: Any
    configs: tuple[Mapping[str, Any], ...] = ()
    heuristics: Mapping[str, Callable[[dict[str, Any]], Any]] = field(default_factory=dict)
    # what a prediction of ``jit`` adds to its report about the wrappers it was read through (a library's)
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "heuristics", MappingProxyType(dict(self.heuristics)))


_MODULES: dict[str, ModuleType] = {}


def import_file(path: str) -> ModuleType:
    """Import a Python file by path (cached per process); its folder is on sys.path while it runs."""
    resolved = str(Path(path).resolve())
    if resolved in _MODULES:
        return _MODULES[resolved]
    digest = hashlib.blake2b(resolved.encode(), digest_size=6).hexdigest()
    name = f"tilesight_user_{Path(path).stem}_{digest}"
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise LoadError(f"{path}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    folder = str(Path(resolved).parent)
    sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the user's module failed: report which and why, as one typed error
        del sys.modules[name]
        raise LoadError(f"{path}: importing the module failed: {type(exc).__name__}: {exc}") from exc
    finally:
        sys.path.remove(folder)
    _MODULES[resolved] = module
    return module


def load(source: KernelSource) -> LoadedKernel:
    module = import_file(source.file)
    top = source.parent.split(".")[0] if source.parent else source.name
    obj = getattr(module, top, None)
    if obj is None:
        raise LoadError(f"{source.location}: module has no attribute {top!r} after import")
    if source.kind is not KernelKind.TRITON:
        return LoadedKernel(source, obj, obj)
    from tilesight.frontends.triton.frontend import (
        is_triton_class,
        is_triton_kernel,
        kernel_layers,
        wrapper_note,
    )

    if not is_triton_kernel(obj):
        raise LoadError(f"{source.location}: {top!r} is a {type(obj).__name__}, not a triton JITFunction")
    configs: list[Mapping[str, Any]] = []
    heuristics: dict[str, Callable[[dict[str, Any]], Any]] = {}
    # the wrappers around the JITFunction (autotune, heuristics, @tilesight.predict, a library's), as the
    # frontend walks them
    for jit in kernel_layers(obj):
        if is_triton_class(jit, "Autotuner"):
            for cfg in jit.configs:
                flat = dict(cfg.kwargs)
                flat["num_warps"] = cfg.num_warps
                flat["num_stages"] = cfg.num_stages
                configs.append(flat)
        elif is_triton_class(jit, "Heuristics"):
            heuristics.update(jit.values)
    note = wrapper_note(obj, f"{Path(source.file).name}'s {type(obj).__qualname__}")
    return LoadedKernel(source, obj, jit, tuple(configs), heuristics, (note,) if note else ())

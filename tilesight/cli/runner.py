"""One prediction from command-line pieces: a loaded kernel, its ``--args``, ``--config``, ``--grid`` and GPU.

Binding follows the kernel's signature as discovery read it: runtime parameters go positionally, constexprs as
keywords, heuristics fill constexprs the config leaves out, and every unknown or missing name is an
:class:`ArgsError`. The frontend then builds the TilePlan and the engine evaluates it; both are returned,
since the diagnosis reads the plan (indirect accesses, spills) as well as the report.
"""

from __future__ import annotations

import dataclasses
import linecache
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from tilesight.errors import KernelCompileError, TileSightError
from tilesight.frontends.source import KernelKind, KernelSource
from tilesight.plan import KernelSequence, TilePlan
from tilesight.report import Report

from .argspec import ArgsError, Scalar, TensorArg, Value
from .gridexpr import eval_grid, grid_names
from .loader import LoadedKernel

# Launch options a Triton config may carry besides constexprs, with Triton's own defaults where it has one.
TRITON_LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")
TRITON_DEFAULT_NUM_WARPS = 4  # triton.Config / JITFunction.run default
TRITON_DEFAULT_NUM_STAGES = 3  # triton.Config default on CUDA


@dataclass(frozen=True)
class Launch:
    """What to predict: argument values, one config, a grid expression (Triton) and the GPU profile name;
    ``registers`` a Triton kernel's register mode (``tilesight.estimate``'s ``registers=``; None: its
    default); ``sizes`` the ``--args`` names other entries refer to (:func:`~.argspec.referenced_names`),
    which may be size variables the kernel does not take."""

    args: Mapping[str, Value]
    config: Mapping[str, Scalar]
    grid: str | None
    hw: str
    registers: str | None = None
    sizes: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        object.__setattr__(self, "args", MappingProxyType(dict(self.args)))
        object.__setattr__(self, "config", MappingProxyType(dict(self.config)))
        object.__setattr__(self, "sizes", frozenset(self.sizes))


@dataclass(frozen=True)
class Outcome:
    """A prediction and the plan it was made from (a kernel sequence for a program of several kernels)."""

    plan: TilePlan | KernelSequence
    report: Report


def evaluate_call(obj: Any, args: tuple[Any, ...], kwargs: dict[str, Any], hw: str) -> Outcome:
    """What ``tilesight.estimate(obj, *args, hw=hw, **kwargs)`` does, keeping the plan."""
    from tilesight.api import resolve_hw
    from tilesight.frontends import find_frontend
    from tilesight.model.evaluate import evaluate

    profile = resolve_hw(hw)
    plan = find_frontend(obj).plan(obj, args, kwargs, profile)
    return Outcome(plan, evaluate(plan, profile))


def predict(kernel: LoadedKernel, launch: Launch) -> Outcome:
    if kernel.source.kind is KernelKind.TRITON:
        return _predict_triton(kernel, launch)
    return _predict_tilelang(kernel, launch)


def _spec(value: Value) -> Any:
    if isinstance(value, TensorArg):
        from tilesight.tensorspec import TensorSpec

        return TensorSpec(value.shape, value.dtype, value.strides, values=value.values)
    return value


def _predict_triton(kernel: LoadedKernel, launch: Launch) -> Outcome:
    src = kernel.source
    params = {p.name: p for p in src.params}
    constexprs = set(src.constexprs)
    # a name the kernel does not take is a size variable where a shape, an alias or the grid uses it
    sizes = launch.sizes | grid_names(launch.grid or "")
    for name in launch.args:
        if name not in params and name not in sizes:
            raise ArgsError(
                f"--args: {name!r} is not a parameter of {src.qualname}, and no shape, other argument or "
                f"the grid uses it; parameters: {', '.join(params)}"
            )
    for name in launch.config:
        if name not in constexprs and name not in TRITON_LAUNCH_OPTIONS:
            raise ArgsError(
                f"--config: {name!r} is neither a constexpr of {src.qualname} "
                f"({', '.join(sorted(constexprs))}) nor a launch option ({', '.join(TRITON_LAUNCH_OPTIONS)})"
            )
    meta: dict[str, Any] = {k: v for k, v in launch.args.items() if k in constexprs}
    meta.update({k: v for k, v in launch.config.items() if k in constexprs})
    named = {k: _spec(v) for k, v in launch.args.items()}
    for hname, fn in kernel.heuristics.items():
        if hname not in meta:
            try:
                meta[hname] = fn({**named, **meta})
            except Exception as exc:  # a user lambda failed: name it, never guess a value
                raise ArgsError(
                    f"{src.location}: heuristic {hname!r} failed: {type(exc).__name__}: {exc}"
                ) from exc
    positional: list[Any] = []
    keywords: dict[str, Any] = {}
    gap = False  # after a runtime parameter left to its default, the rest go by keyword
    for p in src.params:
        if p.constexpr:
            if p.name in meta:
                keywords[p.name] = meta[p.name]
            elif p.default is None:
                hint = "; or rank its autotune configs with `tilesight rank`" if kernel.configs else ""
                raise ArgsError(
                    f"{src.qualname}: constexpr {p.name!r} has no value; give it in --config or --args{hint}"
                )
        elif p.name in launch.args:
            if gap:
                keywords[p.name] = named[p.name]
            else:
                positional.append(named[p.name])
        elif p.default is not None:
            gap = True
        else:
            missing = [
                q.name
                for q in src.params
                if not q.constexpr and q.default is None and q.name not in launch.args
            ]
            raise ArgsError(f"--args: {src.qualname} needs {', '.join(missing)}")
    if launch.grid is None:
        raise ArgsError(
            f"{src.qualname}: give the launch grid with --grid, e.g. 'cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)'"
        )
    scalars = {k: v for k, v in launch.args.items() if not isinstance(v, TensorArg)}
    grid = eval_grid(launch.grid, {**scalars, **meta})
    options = {k: launch.config[k] for k in TRITON_LAUNCH_OPTIONS if k in launch.config}
    options.setdefault("num_warps", TRITON_DEFAULT_NUM_WARPS)
    options.setdefault("num_stages", TRITON_DEFAULT_NUM_STAGES)
    if launch.registers is not None:
        options["registers"] = launch.registers
    outcome = evaluate_call(kernel.jit, (grid, *positional), {**options, **keywords}, launch.hw)
    if not kernel.notes:
        return outcome
    # the CLI resolves the wrappers' configs itself and predicts the JITFunction under them: what the
    # frontend would say of the wrappers goes on the report here
    report = dataclasses.replace(outcome.report, notes=(*kernel.notes, *outcome.report.notes))
    return Outcome(outcome.plan, report)


def _predict_tilelang(kernel: LoadedKernel, launch: Launch) -> Outcome:
    src = kernel.source
    values = {**{k: _spec(v) for k, v in launch.args.items()}, **dict(launch.config)}
    obj = kernel.obj
    if src.kind is KernelKind.TILELANG_PRIM_FUNC and src.parent is None:
        # --args bind a program's open sizes (dynamic shapes, scalar parameters) and tensors by name
        return evaluate_call(obj, (), values, launch.hw)
    from tilesight.frontends.tilelang.frontend import split_builder_kwargs

    build = (
        getattr(obj, "get_tir", None) or obj
    )  # @tilelang.jit factories expose get_tir; plain ones are called
    # what the factory does not take binds the built program's open sizes
    own, sizes = split_builder_kwargs(getattr(obj, "func", build), values)
    # TileLang logs the whole generated builder source when a factory's program fails to build; the error
    # below names the kernel's own line instead
    builder_log = logging.getLogger("tilelang.language.eager.builder")
    quiet, builder_log.disabled = builder_log.disabled, True
    try:
        prim = build(**own)
    except TypeError as exc:
        raise ArgsError(f"{src.location}: calling factory {src.parent or src.name}: {exc}") from None
    except TileSightError:
        raise
    except Exception as exc:  # TileLang's checks (or the factory's) refused the program these arguments build
        raise _factory_error(src, exc) from exc
    finally:
        builder_log.disabled = quiet
    return evaluate_call(prim, (), sizes, launch.hw)


def _factory_error(src: KernelSource, exc: Exception) -> KernelCompileError:
    """A TileLang factory that raised while building its program: the error at the deepest line of the
    kernel's own file the traceback passes through (the statement TileLang refused), with TileLang's words."""
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if os.path.abspath(tb.tb_frame.f_code.co_filename) == os.path.abspath(src.file):
            line = tb.tb_lineno
        tb = tb.tb_next
    try:
        from tilesight.frontends.tilelang.version import installed_version

        compiler = f"TileLang {installed_version()}"
    except ImportError:  # pragma: no cover - a TileLang kernel was loaded, so TileLang imports
        compiler = "TileLang"
    statement = linecache.getline(src.file, line).strip() if line else ""
    return KernelCompileError(
        src.parent or src.name,
        f"{type(exc).__name__}: {exc}".strip().splitlines()[0],
        compiler=compiler,
        compiler_error=type(exc).__name__,
        location=f"{os.path.basename(src.file)}:{line or src.line}",
        excerpt=statement,
    )

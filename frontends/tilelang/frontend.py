"""The TileLang frontend: a ``T.prim_func`` (or a ``@tilelang.jit`` kernel with its arguments) -> TilePlan."""

from __future__ import annotations

from typing import Any

from tilesight.errors import FrontendError
from tilesight.hardware import HardwareProfile
from tilesight.plan import KernelSequence, TilePlan

from .bind import bind
from .version import check_version, installed_version


def _is_prim_func(obj: Any) -> bool:
    cls = type(obj)
    return cls.__name__ == "PrimFunc" and cls.__module__.startswith("tvm.")


def _is_jit(obj: Any) -> bool:
    cls = type(obj)
    return cls.__name__ == "JITImpl" and cls.__module__.startswith("tilelang.")


def is_autotuned(obj: Any) -> bool:
    """A ``@tilelang.autotune(configs=...)`` kernel (its ``jit_impl`` builds one config's program)."""
    cls = type(obj)
    return (
        cls.__name__ == "AutoTuneImpl" and cls.__module__.startswith("tilelang.") and hasattr(obj, "jit_impl")
    )


def autotune_ranking(obj: Any, args: tuple[Any, ...], kwargs: dict[str, Any], hw: HardwareProfile):
    """Every config of an autotuned TileLang kernel predicted for this call, fastest first (what
    ``tilelang.autotune`` would compile and time; nothing is compiled here)."""
    from tilesight.integrations.rank import rank

    configs = obj.configs(*args, **kwargs) if callable(obj.configs) else obj.configs
    if not configs:
        raise FrontendError("the autotuned kernel has no configs", construct="tilelang.autotune(configs=...)")
    # a parameter the call passes itself is fixed: the configs vary only the others (each once)
    distinct: dict[tuple, dict[str, Any]] = {}
    for cfg in configs:
        free = {k: v for k, v in dict(cfg).items() if k not in kwargs}
        distinct.setdefault(tuple(sorted(free.items(), key=lambda kv: kv[0])), free)
    return rank(obj.jit_impl, list(distinct.values()), None, *args, hw=hw, on_error="refuse", **kwargs)


class TileLangFrontend:
    """Reads TileLang 0.1.15 TIR on CPU; never compiles or launches the kernel."""

    name = "tilelang"

    def accepts(self, obj: Any) -> bool:
        return _is_prim_func(obj) or _is_jit(obj) or is_autotuned(obj)

    def plan(
        self, obj: Any, args: tuple[Any, ...], kwargs: dict[str, Any], hw: HardwareProfile
    ) -> TilePlan | KernelSequence:
        check_version(installed_version())
        if is_autotuned(obj):  # the config predicted fastest, as the autotuner would keep the fastest
            best = autotune_ranking(obj, args, kwargs, hw).best
            jit = obj.jit_impl
            config = {**kwargs, **best.config}
            return plan_built(jit.get_tir, getattr(jit, "func", jit.get_tir), args, config, hw)
        if _is_jit(obj):
            return plan_built(obj.get_tir, getattr(obj, "func", obj.get_tir), args, kwargs, hw)
        # launch arguments bind a program's dynamic shapes and scalar parameters (frontends.tilelang.bind)
        func, values = bind(obj, args, kwargs)
        return plan_prim_func(func, hw, values=values)


def plan_built(
    build: Any, builder: Any, args: tuple[Any, ...], kwargs: dict[str, Any], hw: HardwareProfile
) -> TilePlan | KernelSequence:
    """The plan of the program ``build(*args, **kwargs)`` returns, where the keywords ``builder`` (the
    function whose signature ``build`` forwards) does not take bind the built program's open sizes and its
    tensors by name (``m=4096``, ``cu_seqlens=offsets``)."""
    own, rest = split_builder_kwargs(builder, kwargs)
    func = build(*args, **own)
    # TileLang's eager style: the builder's tensor arguments are the built program's tensor parameters of the
    # same names, and bind their open sizes (T.dynamic) and the contents of integer index tensors as the
    # launch arguments would
    for name, value in builder_tensors(builder, args, own).items():
        if name not in rest and name in _tensor_params(func):
            rest[name] = value
    func, values = bind(func, (), rest)
    return plan_prim_func(func, hw, values=values)


def builder_tensors(builder: Any, args: tuple[Any, ...], own: dict[str, Any]) -> dict[str, Any]:
    """The tensors (TensorSpec, numpy array, torch tensor) among a builder's call arguments, by the builder's
    parameter names; none where its signature cannot be read or does not take the call."""
    import inspect

    from tilesight.tensorspec import is_tensor_like

    try:
        call = inspect.signature(builder).bind_partial(*args, **own)
    except (TypeError, ValueError):
        return {}
    return {name: value for name, value in call.arguments.items() if is_tensor_like(value)}


def _tensor_params(func: Any) -> set[str]:
    """Names of a built program's tensor (buffer) parameters; none for anything but a PrimFunc."""
    buffers = getattr(func, "buffer_map", None)
    if buffers is None:
        return set()
    return {buffers[h].name for h in func.params if h in buffers}


def split_builder_kwargs(builder: Any, kwargs: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``kwargs`` of a program builder's call (a ``@tilelang.jit`` function or a plain factory) split into the
    builder's own and the rest: the built program's open sizes and arguments by name."""
    import inspect

    try:
        sig = inspect.signature(builder)
    except (TypeError, ValueError):
        return dict(kwargs), {}
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.parameters.values()):
        return dict(kwargs), {}
    own = {k: v for k, v in kwargs.items() if k in sig.parameters}
    return own, {k: v for k, v in kwargs.items() if k not in sig.parameters}


def plan_prim_func(
    func: Any, hw: HardwareProfile, name: str | None = None, values: dict[str, Any] | None = None
) -> TilePlan | KernelSequence:
    """The TilePlan of a TileLang ``PrimFunc`` on ``hw``; a program launching several kernels (``T.Kernel``
    blocks one after another) gives a :class:`KernelSequence` of their plans, in launch order. ``values``:
    contents of integer tensor arguments (buffer name -> array) the kernel indexes with (``cu_seqlens``)."""
    from .expr import tensor_values
    from .lower import lower
    from .walker import program_name, walk_all

    with tensor_values(values or {}):
        plans = tuple(lower(ir, hw) for ir in walk_all(func, name))
    if len(plans) == 1:
        return plans[0]
    return KernelSequence(name=program_name(func, name), plans=plans)

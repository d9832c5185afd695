"""The Triton frontend: ``@triton.jit`` kernels (also under ``@triton.autotune`` / ``@triton.heuristics``).

``plan(kernel, (grid, *kernel_args), {num_warps, num_stages, registers, **constexprs}, hw)`` binds the
arguments with Triton's binder, compiles to TTGIR for the profile's target (cached by specialisation), walks
the TTIR and returns the TilePlan; ``registers`` (``"auto"``, ``"estimate"`` or ``"ptxas"``: :mod:`.ptxas`)
says whether ptxas, run on the CPU, gives the registers and spill frame. Nothing is launched. Under
``@triton.autotune``, :meth:`plans` yields one plan per config; :meth:`plan` takes the first config.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterator
from typing import Any

from tilesight.hardware import HardwareProfile
from tilesight.plan import TilePlan

DEFAULT_NUM_WARPS = 4  # Triton's default launch option
DEFAULT_NUM_STAGES = 3  # Triton's default launch option on NVIDIA

_KINDS = ("JITFunction", "Autotuner", "Heuristics")


# Wrappers followed through their ``.fn`` to the kernel under them at most this deep (a library's own cache or
# autotuner around Triton's: FlagGems' LibEntry and LibTuner)
_WRAPPER_DEPTH = 4


def is_triton_kernel(obj: Any) -> bool:
    """Whether ``obj`` is a Triton kernel the frontend reads: a ``@triton.jit`` function, Triton's wrappers
    around one (or subclasses of them), ``@tilesight.predict``'s, or a library's wrapper holding one in
    ``.fn``."""
    if type(obj).__name__ == "PredictedKernel":
        return is_triton_kernel(obj.kernel)
    if any(is_triton_class(obj, kind) for kind in _KINDS):  # Triton's own, or a subclass (LibTuner)
        return True
    return _foreign_wrapper(obj) is not None


def is_triton_class(obj: Any, name: str) -> bool:
    """``obj`` is Triton's class ``name`` or a subclass of it (FlagGems' LibTuner is an Autotuner)."""
    return any(c.__name__ == name and (c.__module__ or "").startswith("triton.") for c in type(obj).__mro__)


def _foreign_wrapper(obj: Any) -> str | None:
    """The class name of a wrapper from outside Triton whose ``.fn`` chain reaches a ``@triton.jit`` kernel
    (FlagGems' ``LibEntry``), or None."""
    if any(is_triton_class(obj, k) for k in _KINDS) or type(obj).__name__ == "PredictedKernel":
        return None
    inner = obj
    for _ in range(_WRAPPER_DEPTH):
        inner = getattr(inner, "fn", None)
        if inner is None:
            return None
        if is_triton_class(inner, "JITFunction"):
            return f"{type(obj).__module__}.{type(obj).__qualname__}"
    return None


def wrapper_note(obj: Any, name: str | None = None) -> str | None:
    """The note a prediction of a kernel under a library's wrapper carries (the wrapper's own work, a cache
    lookup or an argument rewrite, is not modelled), or None where there is no such wrapper. ``name`` names
    the wrapper where its module's name says nothing to the user (a file the CLI imported)."""
    wrapper = _foreign_wrapper(obj)
    if wrapper is None:
        return None
    return (
        f"read the @triton.jit kernel {name or wrapper} wraps (its .fn); the wrapper itself is not modelled"
    )


def kernel_layers(obj: Any) -> Iterator[Any]:
    """``obj`` and every wrapper under it, outermost first, ending with the JITFunction."""
    while not is_triton_class(obj, "JITFunction"):
        yield obj
        obj = obj.kernel if type(obj).__name__ == "PredictedKernel" else obj.fn
    yield obj


def unwrap(obj: Any) -> tuple[Any, list[Any], list[dict[str, Any]]]:
    """(the JITFunction, heuristics outermost first, autotune configs as kwargs dicts)."""
    heuristics: list[Any] = []
    configs: list[dict[str, Any]] = []
    for layer in kernel_layers(obj):
        if is_triton_class(layer, "Autotuner") and not configs:
            configs = [dict(cfg.all_kwargs()) for cfg in layer.configs]
        elif is_triton_class(layer, "Heuristics"):
            heuristics.append(layer)
    return layer, heuristics, configs


def autotuner_of(obj: Any) -> Any:
    """The ``triton.autotune`` wrapper around ``obj``'s kernel, or None."""
    return next((layer for layer in kernel_layers(obj) if is_triton_class(layer, "Autotuner")), None)


class TritonFrontend:
    name = "triton"

    def accepts(self, obj: Any) -> bool:
        return is_triton_kernel(obj)

    def plan(self, obj: Any, args: tuple[Any, ...], kwargs: dict[str, Any], hw: HardwareProfile) -> TilePlan:
        return next(self.plans(obj, args, kwargs, hw))

    def plans(
        self, obj: Any, args: tuple[Any, ...], kwargs: dict[str, Any], hw: HardwareProfile
    ) -> Iterator[TilePlan]:
        from .assemble import build_plan
        from .binding import bind, resolve_grid
        from .blockptr import compatible
        from .compile import compile_ir
        from .ptxas import compile_budget_s, ptxas_usage, resolve_mode, target_ptxas

        if not args:
            raise TypeError(
                "a Triton kernel's estimate needs the grid first: estimate(kernel, grid, *args, ...)"
            )
        grid, kargs = args[0], tuple(args[1:])
        jit_fn, heuristics, configs = unwrap(obj)
        note_of_wrapper = wrapper_note(obj)
        # a kernel with block pointers on a Triton that removed them: their pointer-tensor rewrite
        jit_fn, rewrite_note = compatible(jit_fn)
        names = [p.name for p in jit_fn.params]
        # ``registers=`` chooses where registers come from (.ptxas.MODES), unless the kernel has a
        # parameter of that name
        mode = resolve_mode(None if "registers" in names else kwargs.get("registers"))
        if "registers" not in names:
            kwargs = {k: v for k, v in kwargs.items() if k != "registers"}
        # "auto" bounds the compile it asks for; "ptxas" waits for it
        budget = compile_budget_s() if mode == "auto" else None
        if mode != "estimate":
            target_ptxas(hw)  # a $TILESIGHT_PTXAS that names no ptxas is an error before any compile
        for cfg in configs or [{}]:
            # a kernel parameter named like a launch option (the fused-softmax tutorial's ``num_stages``) is
            # the parameter; the launch option keeps Triton's default then, as when Triton launches it
            defaults = {"num_warps": DEFAULT_NUM_WARPS, "num_stages": DEFAULT_NUM_STAGES}
            kw = {**{k: v for k, v in defaults.items() if k not in names}, **cfg, **kwargs}
            kw = {k: v for k, v in kw.items() if v is not None or k in names}
            if heuristics:
                named = {**dict(zip(names, kargs, strict=False)), **kw}
                for h in reversed(heuristics):
                    for key, fn in h.values.items():
                        if key not in kw:
                            kw[key] = named[key] = fn(named)
            binding = bind(jit_fn, kargs, kw, hw)
            compiled = compile_ir(jit_fn, binding, hw)
            plan = build_plan(
                compiled,
                binding,
                resolve_grid(grid, binding.meta),
                regs_per_thread_max=hw.regs_per_thread_max,
                regs_per_sm=hw.regs_per_sm,
                registers=mode,
                ptxas=functools.partial(ptxas_usage, jit_fn, binding, hw, budget),
                hw=hw,
            )
            notes = [n for n in (rewrite_note, note_of_wrapper) if n]
            yield dataclasses.replace(plan, notes=(*plan.notes, *notes)) if notes else plan

"""``tilesight.estimate``: one entry point for hand-written plans and every frontend."""

from __future__ import annotations

from typing import Any

from .hardware import HardwareProfile, load_profile
from .plan import KernelSequence, TilePlan
from .report import Report


def resolve_hw(hw: str | HardwareProfile) -> HardwareProfile:
    return hw if isinstance(hw, HardwareProfile) else load_profile(hw)


def estimate(obj: Any, *args: Any, hw: str | HardwareProfile = "h200", **kwargs: Any) -> Report:
    """Predict one kernel launch without running it.

    * ``estimate(plan, hw="h200")`` for a hand-written :class:`TilePlan` (or a :class:`KernelSequence` of
      them, launched back to back);
    * ``estimate(jit_fn, grid, *kernel_args, hw=..., num_warps=4, num_stages=3, **constexprs)`` for a Triton
      kernel (``grid`` a tuple or a callable of the meta dict); under ``@triton.autotune``, the report of the
      config predicted fastest, named in ``report.extras["config"]``;
    * ``estimate(prim_func, hw=...)`` for a TileLang program (one holding several ``T.Kernel`` blocks is
      predicted as its kernels back to back: ``report.extras["kernels"]``), or ``estimate(jit_kernel, *args,
      hw=..., **kwargs)`` for a ``@tilelang.jit`` kernel; under ``@tilelang.autotune``, the report of the
      config predicted fastest, named in ``report.extras["config"]``. A program with dynamic shapes or
      scalar parameters takes its launch arguments, ``estimate(prim_func, A, B, C, hw=...)`` (tensors in
      parameter order) or its sizes by name, ``estimate(prim_func, m=4096, ...)``
      (:mod:`tilesight.frontends.tilelang.bind`).
    """
    profile = resolve_hw(hw)
    if isinstance(obj, TilePlan | KernelSequence):
        if args or kwargs:
            raise TypeError(
                f"estimate(plan) takes no launch arguments, got {len(args)} positional and {sorted(kwargs)}"
            )
        plan = obj
    else:
        from tilesight.frontends import find_frontend

        frontend = find_frontend(obj)
        if frontend.name == "tilelang":
            from tilesight.frontends.tilelang.frontend import autotune_ranking, is_autotuned

            if "registers" in kwargs:
                raise TypeError(
                    "registers= chooses a Triton kernel's register source (ptxas or the estimate); "
                    "a TileLang program takes no such option"
                )

            if is_autotuned(obj):
                # a @tilelang.autotune kernel: the report of the config predicted fastest, named in
                # report.extras["config"] (the autotuner would compile and time them all, keep the fastest)
                import dataclasses

                best = autotune_ranking(obj, args, kwargs, profile).best
                assert best.report is not None
                return dataclasses.replace(best.report, extras={**best.report.extras, "config": best.config})
        if frontend.name == "triton" and args:
            from tilesight.frontends.triton.frontend import autotuner_of

            tuner = autotuner_of(obj)
            if tuner is not None:
                # an @triton.autotune kernel: as @tilesight.predict, the config predicted fastest, named in
                # report.extras["config"] (the autotuner would time them all and keep the fastest)
                from .integrations.triton_predict import best_config

                return best_config(tuner, obj, args[0], tuple(args[1:]), dict(kwargs), profile)
        plan = frontend.plan(obj, args, kwargs, profile)
    from .model.evaluate import evaluate

    return evaluate(plan, profile)

"""``tilesight.estimate``: one entry point for hand-written plans and every frontend."""

from __future__ import annotations

from typing import Any

from .hardware import HardwareProfile, load_profile
from .plan import TilePlan
from .report import Report


def resolve_hw(hw: str | HardwareProfile) -> HardwareProfile:
    return hw if isinstance(hw, HardwareProfile) else load_profile(hw)


def estimate(obj: Any, *args: Any, hw: str | HardwareProfile = "h200", **kwargs: Any) -> Report:
    """Predict one kernel launch without running it.

    * ``estimate(plan, hw="h200")`` for a hand-written :class:`TilePlan`;
    * ``estimate(jit_fn, grid, *kernel_args, hw=..., num_warps=4, num_stages=3, **constexprs)`` for a Triton
      kernel (``grid`` a tuple or a callable of the meta dict);
    * ``estimate(prim_func, hw=...)`` for a TileLang program.
    """
    profile = resolve_hw(hw)
    if isinstance(obj, TilePlan):
        if args or kwargs:
            raise TypeError(
                f"estimate(plan) takes no launch arguments, got {len(args)} positional and {sorted(kwargs)}"
            )
        plan = obj
    else:
        from tilesight.frontends import find_frontend

        plan = find_frontend(obj).plan(obj, args, kwargs, profile)
    from .model.evaluate import evaluate

    return evaluate(plan, profile)

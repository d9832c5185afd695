"""``@tilesight.predict(hw=...)``: a Triton kernel that launches as before and also predicts.

    @tilesight.predict(hw="h200")
    @triton.jit
    def kernel(...): ...

    kernel[grid](*args, **meta)            # launches, exactly as the undecorated kernel
    kernel.predict[grid](*args, **meta)    # -> Report, nothing launched

Stacked over ``@triton.autotune`` the prediction covers every config and returns the report of the config
predicted fastest (its config is in ``report.extras["config"]``). No modelling logic lives here.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from tilesight.api import resolve_hw
from tilesight.hardware import HardwareProfile
from tilesight.report import Report


class _Predictor:
    def __init__(self, kernel: Any, hw: str | HardwareProfile) -> None:
        self._kernel = kernel
        self._hw = hw

    def __getitem__(self, grid: Any) -> Any:
        return lambda *args, **meta: self.run(grid, *args, **meta)

    def run(self, grid: Any, *args: Any, **meta: Any) -> Report:
        from tilesight.frontends.triton.frontend import TritonFrontend, unwrap
        from tilesight.model.evaluate import evaluate

        profile = resolve_hw(meta.pop("hw", self._hw))
        _, _, configs = unwrap(self._kernel)
        best: Report | None = None
        plans = TritonFrontend().plans(self._kernel, (grid, *args), meta, profile)
        for i, plan in enumerate(plans):
            report = evaluate(plan, profile)
            if configs:
                report = dataclasses.replace(report, extras={**report.extras, "config": configs[i]})
            if best is None or report.latency_s < best.latency_s:
                best = report
        assert best is not None
        return best


class PredictedKernel:
    """The decorated kernel: launches through the wrapped object; ``.predict[grid](...)`` predicts."""

    def __init__(self, kernel: Any, hw: str | HardwareProfile) -> None:
        self.kernel = kernel
        self.hw = hw
        self.predict = _Predictor(kernel, hw)

    def __getitem__(self, grid: Any) -> Any:
        return self.kernel[grid]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.kernel, name)


def predict(hw: str | HardwareProfile = "h200") -> Any:
    """Decorator factory: ``@tilesight.predict(hw="h200")`` over a ``@triton.jit`` (or autotuned) kernel."""
    if not isinstance(hw, str | HardwareProfile):
        raise TypeError("use @tilesight.predict(hw=...) with parentheses")

    def wrap(kernel: Any) -> PredictedKernel:
        return PredictedKernel(kernel, hw)

    return wrap

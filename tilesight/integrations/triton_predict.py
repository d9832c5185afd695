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
        from tilesight.frontends.triton.frontend import TritonFrontend, autotuner_of
        from tilesight.model.evaluate import evaluate

        profile = resolve_hw(meta.pop("hw", self._hw))
        tuner = autotuner_of(self._kernel)
        if tuner is None:
            return evaluate(TritonFrontend().plan(self._kernel, (grid, *args), meta, profile), profile)
        return best_config(tuner, self._kernel, grid, args, meta, profile)


def best_config(
    tuner: Any, kernel: Any, grid: Any, args: tuple[Any, ...], meta: dict[str, Any], profile: HardwareProfile
) -> Report:
    """What ``triton.autotune`` would settle on, predicted: its configs as its ``early_config_prune`` leaves
    them, each after its ``pre_hook`` (:func:`~tilesight.integrations.rank.rank`), less those Triton itself
    would skip (a config that cannot launch, or trips the kernel's ``tl.static_assert``); the report of the
    one predicted fastest, with ``extras["config"]`` naming it and ``extras["refused"]`` the skipped ones and
    why. (A ``perf_model`` and its ``top_k`` are not applied: the prediction is the model.)"""
    from .rank import RankError, config_kwargs, describe, rank

    configs = list(tuner.configs)
    prune = getattr(tuner, "early_config_prune", None)
    if prune is not None:
        named = dict(zip(tuner.arg_names, args, strict=False))
        configs = list(prune(configs, named, **{k: v for k, v in meta.items() if k != "registers"}))
        if not configs:
            raise RankError("the autotuner's early_config_prune kept no config")
    ranking = rank(kernel, configs, grid, *args, hw=profile, **meta)
    best = ranking.best  # RankError naming every config's refusal when none can run
    assert best.report is not None
    extras = {**best.report.extras, "config": config_kwargs(best.config)}
    if ranking.refused:
        extras["refused"] = {describe(r.config): r.refused for r in ranking.refused}
    return dataclasses.replace(best.report, extras=extras)


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

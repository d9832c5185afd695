"""``tilesight.rank``: order a kernel's candidate configs by predicted latency, each with its Report.

    ranking = tilesight.rank(matmul_kernel, configs, grid, a, b, c, M, N, K, ..., hw="h200")
    ranking.best.config, ranking.best.report.latency_us, ranking.configs()[:4]

``configs`` are Triton ``triton.Config`` objects (or dicts of constexprs plus ``num_warps`` / ``num_stages``)
for a ``@triton.jit`` kernel, or TileLang config dicts for a ``@tilelang.jit`` kernel or a plain function
returning a ``T.prim_func`` (then ``grid`` is ``None``: a TileLang program fixes its own launch grid).

A config the model says cannot launch (its shared memory, threads or registers exceed the GPU's limits:
the engine raises :class:`~tilesight.errors.LaunchError`) is never ranked; it is listed in
``Ranking.refused`` with the reason. Any other TileSight error names the config and is raised, unless
``on_error="refuse"`` asks for it to be listed in ``refused`` too. Nothing here models anything: it binds,
calls the frontend, and sorts.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tilesight.api import resolve_hw
from tilesight.errors import LaunchError, TileSightError
from tilesight.hardware import HardwareProfile
from tilesight.plan import TilePlan
from tilesight.report import Report

ON_ERROR = ("raise", "refuse")
_WRAPPERS = ("PredictedKernel", "Autotuner", "PredictedAutotuner")


class RankError(TileSightError, ValueError):
    """Bad input to ``rank`` (no configs, a grid given to a TileLang program, ...), or a config that the
    model could not predict; the message names the config."""


@dataclass(frozen=True)
class RankedConfig:
    """One candidate: the config as the caller gave it, and its Report or the reason it was refused."""

    config: Any
    report: Report | None = None
    refused: str | None = None
    cannot_launch: bool = False  # refused because the engine raised LaunchError

    def __post_init__(self) -> None:
        if (self.report is None) == (self.refused is None):
            raise RankError("a RankedConfig has exactly one of report and refused")

    @property
    def latency_s(self) -> float:
        return self.report.latency_s if self.report is not None else float("inf")


@dataclass(frozen=True)
class Ranking:
    """Launchable configs fastest first (ties keep the input order), the refused ones in input order, and
    how long the frontends (compile to TTGIR / build TIR, then extraction) and the model took."""

    ranked: tuple[RankedConfig, ...]
    refused: tuple[RankedConfig, ...]
    frontend_s: float
    model_s: float

    @property
    def best(self) -> RankedConfig:
        if not self.ranked:
            reasons = "; ".join(f"{describe(r.config)}: {r.refused}" for r in self.refused)
            raise RankError(f"no config can launch: {reasons}")
        return self.ranked[0]

    def configs(self) -> list[Any]:
        """The launchable configs, predicted fastest first."""
        return [r.config for r in self.ranked]

    def top(self, top_k: int | float) -> list[Any]:
        """The predicted ``top_k`` (an int >= 1, or a fraction in (0, 1] of the launchable configs, at least
        one): never empty; raises RankError when no config can launch."""
        return [r.config for r in self.ranked[: top_count(top_k, len(self.ranked))]] or [self.best.config]

    def format_table(self, limit: int | None = None) -> str:
        """A plain-text table: rank, predicted latency, bottleneck, config; refused configs after."""
        lines = [f"{'rank':>4}  {'predicted_us':>12}  {'bound':<10}  config"]
        for i, r in enumerate(self.ranked[:limit] if limit else self.ranked, 1):
            assert r.report is not None
            bound = r.report.bottleneck.value
            lines.append(f"{i:>4}  {r.report.latency_us:>12.2f}  {bound:<10}  {describe(r.config)}")
        for r in self.refused:
            lines.append(f"{'-':>4}  {'refused':>12}  {'':<10}  {describe(r.config)}: {r.refused}")
        return "\n".join(lines)


def top_count(top_k: int | float, n: int) -> int:
    """How many of ``n`` configs ``top_k`` keeps: an int as is (capped at n), a fraction of ``n`` rounded
    down but at least one (Triton 3.9's rule). ``n`` = 0 gives 0."""
    if isinstance(top_k, bool) or not isinstance(top_k, int | float):
        raise RankError(f"top_k={top_k!r}: an int >= 1 or a float in (0, 1]")
    if isinstance(top_k, int):
        if top_k < 1:
            raise RankError(f"top_k={top_k!r}: an int top_k must be >= 1")
        return min(top_k, n)
    if not 0.0 < top_k <= 1.0:
        raise RankError(f"top_k={top_k!r}: a float top_k is a fraction in (0, 1]")
    return min(n, max(1, int(n * top_k)))


def describe(config: Any) -> str:
    """A short, stable text for a Triton Config or a config dict."""
    kw = config_kwargs(config)
    return ", ".join(f"{k}={v}" for k, v in kw.items())


def config_kwargs(config: Any) -> dict[str, Any]:
    """The launch keyword arguments of a config: ``Config.all_kwargs()`` or the dict itself."""
    if isinstance(config, dict):
        return dict(config)
    if hasattr(config, "all_kwargs"):
        return {k: v for k, v in config.all_kwargs().items() if v is not None}
    raise RankError(f"config {config!r}: expected a triton.Config or a dict of parameters")


def _inner_triton(kernel: Any) -> Any:
    """The kernel under any autotuning / prediction wrapper (heuristics are kept: the frontend runs them)."""
    while type(kernel).__name__ in _WRAPPERS:
        kernel = kernel.kernel if hasattr(kernel, "kernel") else kernel.fn
    return kernel


def _is_triton(kernel: Any) -> bool:
    from tilesight.frontends.triton.frontend import TritonFrontend

    return TritonFrontend().accepts(kernel)


def plan_builder(
    kernel: Any, grid: Any, args: Sequence[Any], kwargs: dict[str, Any], hw: HardwareProfile
) -> Callable[[Any], TilePlan]:
    """A function from one config to its TilePlan, for a Triton or TileLang kernel."""
    if _is_triton(kernel):
        from tilesight.frontends.triton.frontend import TritonFrontend

        frontend, inner = TritonFrontend(), _inner_triton(kernel)
        if grid is None:
            raise RankError("a Triton kernel needs its launch grid: rank(kernel, configs, grid, *args)")
        return lambda cfg: frontend.plan(inner, (grid, *args), {**kwargs, **config_kwargs(cfg)}, hw)
    if grid is not None:
        raise RankError(
            f"rank got a grid but {type(kernel).__name__} is not a @triton.jit kernel (a TileLang program "
            "fixes its own grid: pass grid=None)"
        )
    from tilesight.frontends.tilelang.frontend import TileLangFrontend, plan_prim_func

    if TileLangFrontend().accepts(kernel) and hasattr(kernel, "get_tir"):
        return lambda cfg: plan_prim_func(kernel.get_tir(*args, **kwargs, **config_kwargs(cfg)), hw)
    if callable(kernel):
        return lambda cfg: plan_prim_func(kernel(*args, **kwargs, **config_kwargs(cfg)), hw)
    raise RankError(f"rank: {type(kernel).__name__} is neither a Triton kernel nor a TileLang program")


def rank(
    kernel: Any,
    configs: Iterable[Any],
    grid: Any,
    *args: Any,
    hw: str | HardwareProfile = "h200",
    on_error: str = "raise",
    **kwargs: Any,
) -> Ranking:
    """Predict every config of ``kernel`` and order them by predicted latency (see the module docstring)."""
    if on_error not in ON_ERROR:
        raise RankError(f"on_error={on_error!r}: one of {ON_ERROR}")
    candidates = list(configs)
    if not candidates:
        raise RankError("rank needs at least one config")
    profile = resolve_hw(hw)
    build = plan_builder(kernel, grid, args, kwargs, profile)
    from tilesight.model.evaluate import evaluate

    done: list[RankedConfig] = []
    frontend_s = model_s = 0.0
    for cfg in candidates:
        start = time.perf_counter()
        try:
            plan = build(cfg)
            middle = time.perf_counter()
            frontend_s += middle - start
            report = evaluate(plan, profile)
            model_s += time.perf_counter() - middle
            done.append(RankedConfig(cfg, report=report))
        except LaunchError as exc:
            done.append(RankedConfig(cfg, refused=str(exc), cannot_launch=True))
        except TileSightError as exc:
            if on_error == "raise":
                raise RankError(f"config {describe(cfg)}: {exc}") from exc
            done.append(RankedConfig(cfg, refused=f"{type(exc).__name__}: {exc}"))
    ranked = sorted((r for r in done if r.report is not None), key=lambda r: r.latency_s)
    refused = tuple(r for r in done if r.report is None)
    return Ranking(tuple(ranked), refused, frontend_s, model_s)

"""TileLang autotuning with TileSight: predicted top-k configs, and pruning an AutoTuner before it compiles.

TileLang 0.1.15's autotuner accepts ``configs=`` as a callable of the call's arguments
(``AutoTuner.run`` calls ``configs(*args, **kwargs)`` before compiling anything). :class:`PredictedConfigs` is
such a callable: it builds each candidate's ``T.prim_func`` on CPU, predicts it, and returns the predicted
``top_k`` launchable configs::

    pick = PredictedConfigs(CANDIDATES, top_k=3, hw="h200")

    @tilelang.autotune(configs=pick)
    @tilelang.jit(out_idx=[-1])
    @pick.program                        # the function that builds the prim_func (returned as is)
    def matmul(M, N, K, block_M=128, ...): ...

For a tuner built by hand (``AutoTuner.from_kernel(kernel=fn, configs=...)``, where ``fn(**config)`` returns
the prim_func), :func:`prune_autotuner` replaces its configs by the predicted top-k before ``run()`` compiles.
The candidates that cannot launch are removed; the result is never empty.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tilesight.errors import TileSightError
from tilesight.hardware import HardwareProfile

from .rank import Ranking, rank, top_count

DEFAULT_TOP_K = 0.25  # TileLang config lists are short (tens of configs): keep a quarter, at least one


class TileLangHookError(TileSightError, ValueError):
    """No program to build, callable configs where a list is needed, or no config can launch."""


class PredictedConfigs:
    """A ``configs=`` callable for ``tilelang.autotune``: the predicted top-k of ``candidates`` for a call."""

    def __init__(
        self,
        candidates: Sequence[dict[str, Any]],
        top_k: int | float = DEFAULT_TOP_K,
        hw: str | HardwareProfile = "h200",
        program: Callable[..., Any] | None = None,
        launch: dict[str, Any] | None = None,
    ) -> None:
        """``launch``: what the built program's open sizes and index tensors are at the kernel's call, by
        name (a varlen kernel's ``cu_seqlens_q=offsets, max_seqlen_q=2048``): the autotuner hands the configs
        callable the builder's arguments only."""
        if not candidates:
            raise TileLangHookError("PredictedConfigs needs at least one candidate config")
        top_count(top_k, 1)  # validates
        self.candidates = [dict(c) for c in candidates]
        self.top_k = top_k
        self.hw = hw
        self._program = program
        self.launch = dict(launch or {})

    def program(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Decorator: bind the function that builds the prim_func from (call arguments + one config)."""
        self._program = fn
        return fn

    def ranking(self, *args: Any, **kwargs: Any) -> Ranking:
        if self._program is None:
            raise TileLangHookError("no program bound: decorate the prim_func builder with @configs.program")
        return rank(self._program, self.candidates, None, *args, hw=self.hw, **{**self.launch, **kwargs})

    def __call__(self, *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        return _top(self.ranking(*args, **kwargs), self.top_k)


def _top(ranking: Ranking, top_k: int | float) -> list[dict[str, Any]]:
    if not ranking.ranked:
        reasons = "; ".join(str(r.refused) for r in ranking.refused)
        raise TileLangHookError(f"no TileLang config can launch: {reasons}")
    return [dict(c) for c in ranking.top(top_k)]


def prune_autotuner(
    tuner: Any,
    *args: Any,
    top_k: int | float = DEFAULT_TOP_K,
    hw: str | HardwareProfile = "h200",
    **kwargs: Any,
) -> Any:
    """Replace ``tuner.configs`` (an ``AutoTuner``'s list of dicts) with the predicted top-k and return it.

    ``tuner.fn(*args, **kwargs, **config)`` must build the prim_func (as ``AutoTuner.from_kernel`` expects);
    call before ``tuner.run()``, which then compiles and benchmarks only the kept configs.
    """
    configs = tuner.configs
    if callable(configs):
        raise TileLangHookError("the tuner's configs are a callable: use configs=PredictedConfigs(...)")
    if not configs:
        raise TileLangHookError("the tuner has no configs to prune")
    tuner.configs = _top(rank(tuner.fn, configs, None, *args, hw=hw, **kwargs), top_k)
    return tuner

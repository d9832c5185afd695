"""Triton autotuning with TileSight in the loop: prune before benchmarking, or pick without benchmarking.

Drop-in for ``triton.autotune(..., prune_configs_by=...)``::

    pruner = Pruner(top_k=0.05)                   # hw=None: detect the local GPU at the first launch
    @triton.autotune(configs, key=["M", "N", "K"], prune_configs_by=pruner.prune_configs_by)
    @pruner.kernel                                # the kernel to compile (returned as is)
    @triton.jit
    def matmul(...): ...

or in one step ``@tilesight.integrations.autotune.autotune(configs, key, top_k=0.05)``; with
``mode="predict"`` it launches the predicted best config and never benchmarks.

Why the top-k is chosen inside ``early_config_prune``: Triton applies ``top_k`` after its ``perf_model``, and
the fraction means different things across versions (3.6 to 3.8: a fraction of the *unpruned* list, which can
round to zero and leave nothing; 3.9: of the list ``early_config_prune`` returned, at least one). Our
``prune_configs_by`` dict therefore holds only ``early_config_prune``: it removes the configs that cannot
launch, ranks the rest by predicted latency and keeps ``top_k`` of them itself (3.9's rule, on the launchable
list).
Triton's own ``top_k``/``perf_model`` branch never runs, so every version benchmarks the same list.
:meth:`Pruner.perf_model` is offered for callers who want Triton's branch anyway, with its version semantics.

The launch grid is read from Triton's launch kwargs (``kernel[grid](...)`` passes ``grid`` to the autotuner
from 3.0 on); a ``grid=`` given to the pruner is used when the launch does not pass one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tilesight.api import resolve_hw
from tilesight.errors import TileSightError
from tilesight.hardware import HardwareProfile, profiles

from .autotune_log import AutotuneLog
from .rank import (
    RankError,
    Ranking,
    config_kwargs,
    describe,
    rank,
    run_pre_hook,
    top_count,
    unwrap_jit,
)

# Keyword arguments Triton's runtime adds to an autotuner's launch kwargs; they are not kernel arguments.
LAUNCH_KWARGS = frozenset({"grid", "warmup"})
# A default that keeps a few configs per hundred (at least one is always kept). How often the measured best is
# among the predicted top 5% on the H200 sweeps: benchmarks/data/autotune_score_h200.json (score_autotune.py).
DEFAULT_TOP_K = 0.05
MODES = ("prune", "predict")


class AutotuneError(TileSightError, ValueError):
    """The pruner cannot run: no kernel bound, no grid, an unknown GPU, or no config can launch."""


def match_profile(device_name: str) -> str:
    """The profile whose name is a run of words of ``device_name`` (``"h200"`` in ``"NVIDIA H200"``,
    ``"rtx_pro_6000"`` in ``"NVIDIA RTX PRO 6000 Blackwell"``); exactly one must match."""
    words = "_" + "_".join(device_name.lower().replace("-", " ").split()) + "_"
    matches = [name for name in profiles() if f"_{name.lower()}_" in words]
    if len(matches) != 1:
        known = ", ".join(profiles())
        raise AutotuneError(f"device {device_name!r} matches profiles {matches} (known: {known}): pass hw=")
    return matches[0]


def detect_profile() -> str:
    """The profile of the current CUDA device; lazy (called at the first launch, never at import) and
    replaceable (``Pruner(detect=...)``)."""
    import torch

    if not torch.cuda.is_available():
        raise AutotuneError("no CUDA device to detect: pass hw= (e.g. hw='h200')")
    return match_profile(torch.cuda.get_device_name())


class Pruner:
    """Early-prunes a Triton autotuner's configs with TileSight's predictions.

    ``top_k``: an int (that many configs) or a fraction in (0, 1] of the launchable configs, at least one;
    ``top_k=1`` benchmarks nothing on Triton >= 3.9 (a single config is taken as is). ``on_error``: "raise"
    (a config the model cannot predict stops the prune, naming the config) or "keep" (such configs are kept
    for benchmarking after the predicted top-k, and are listed in the ranking's ``refused``). Configs that
    cannot launch are always removed. ``log``: an :class:`AutotuneLog` that receives every prediction.
    ``workers``: predict in that many forked processes (``tilesight.rank``'s option; compiling dominates).
    """

    def __init__(
        self,
        hw: str | HardwareProfile | None = None,
        top_k: int | float = DEFAULT_TOP_K,
        grid: Any = None,
        on_error: str = "raise",
        log: AutotuneLog | None = None,
        detect: Callable[[], str] = detect_profile,
        workers: int = 1,
    ) -> None:
        top_count(top_k, 1)  # validates
        if on_error not in ("raise", "keep"):
            raise AutotuneError(f"on_error={on_error!r}: 'raise' or 'keep'")
        self.hw = hw
        self.top_k = top_k
        self.grid = grid
        self.on_error = on_error
        self.log = log
        self._detect = detect
        self.workers = workers
        self._kernel: Any = None

    def kernel(self, fn: Any) -> Any:
        """Decorator: bind the kernel to compile (the ``@triton.jit`` function under the autotuner)."""
        self._kernel = fn
        return fn

    @property
    def prune_configs_by(self) -> dict[str, Any]:
        return {"early_config_prune": self.early_config_prune}

    def profile(self) -> HardwareProfile:
        return resolve_hw(self.hw if self.hw is not None else self._detect())

    def ranking(self, configs: Sequence[Any], named_args: dict[str, Any], **kwargs: Any) -> Ranking:
        """Every config predicted for this launch (what ``early_config_prune`` selects from)."""
        if self._kernel is None:
            raise AutotuneError("no kernel bound: decorate the @triton.jit function with @pruner.kernel")
        grid = kwargs.get("grid", self.grid)
        if grid is None:
            raise AutotuneError("the launch passed no grid and the Pruner has none: Pruner(grid=...)")
        extra = {k: v for k, v in kwargs.items() if k not in LAUNCH_KWARGS}
        on_error = "refuse" if self.on_error == "keep" else "raise"
        args = tuple(named_args.values())
        profile = self.profile()
        ranking = rank(
            self._kernel, configs, grid, *args, hw=profile, on_error=on_error, workers=self.workers, **extra
        )
        if self.log is not None:
            self.log.note(_fn_name(self._kernel), ranking)
        return ranking

    def early_config_prune(self, configs: Sequence[Any], named_args: dict[str, Any], **kwargs: Any) -> list:
        """Triton's ``early_config_prune`` hook: the predicted ``top_k`` launchable configs, never empty."""
        ranking = self.ranking(configs, named_args, **kwargs)
        if not ranking.ranked:
            reasons = "; ".join(f"{describe(r.config)}: {r.refused}" for r in ranking.refused)
            raise AutotuneError(f"no config can launch on {self.profile().name}: {reasons}")
        kept = ranking.top(self.top_k)
        if self.on_error == "keep":
            kept += [r.config for r in ranking.refused if not r.cannot_launch]
        return kept

    def perf_model(self, **launch: Any) -> float:
        """Triton's ``perf_model`` hook: predicted milliseconds of one config (Triton calls it with the
        kernel's arguments, the launch kwargs and the config's kwargs merged). Prefer
        :attr:`prune_configs_by`."""
        if self._kernel is None:
            raise AutotuneError("no kernel bound: decorate the @triton.jit function with @pruner.kernel")
        runtime = [p.name for p in unwrap_jit(self._kernel).params if not p.is_constexpr]
        args = {k: launch.pop(k) for k in runtime if k in launch}
        launch_kwargs = {k: launch.pop(k) for k in list(launch) if k in LAUNCH_KWARGS}
        return self.ranking([launch], args, **launch_kwargs).best.latency_s * MS_PER_S


MS_PER_S = 1e3  # Triton's perf_model and do_bench speak milliseconds


def _fn_name(kernel: Any) -> str:
    while not hasattr(kernel, "__name__") and hasattr(kernel, "fn"):
        kernel = kernel.fn
    return getattr(kernel, "__name__", type(kernel).__name__)


class PredictedAutotuner:
    """A Triton kernel launched with the config TileSight predicts fastest, chosen once per autotune key;
    nothing is benchmarked on any Triton version. ``kernel[grid](*args)`` as usual."""

    def __init__(self, fn: Any, configs: Sequence[Any], key: Sequence[str], pruner: Pruner) -> None:
        if not configs:
            raise AutotuneError("autotune needs at least one config")
        unknown = sorted(set(key) - set(fn.arg_names))
        if unknown:
            raise AutotuneError(f"autotune key names {unknown} are not arguments of {fn.arg_names}")
        self.fn = fn
        self.configs = list(configs)
        self.keys = list(key)
        self.arg_names = list(fn.arg_names)
        self.pruner = pruner
        self.cache: dict[tuple, Any] = {}

    def __getitem__(self, grid: Any) -> Callable[..., Any]:
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    def choose(self, *args: Any, grid: Any, **kwargs: Any) -> Any:
        """The config this launch uses, predicted once per key (the autotune key's values and dtypes)."""
        named = dict(zip(self.arg_names, args, strict=False))
        everything = {**named, **kwargs}
        key = tuple(everything[k] for k in self.keys if k in everything)
        key += tuple(str(v.dtype) for v in everything.values() if hasattr(v, "dtype"))
        if key not in self.cache:
            self.cache[key] = self.pruner.early_config_prune(self.configs, named, grid=grid, **kwargs)[0]
        return self.cache[key]

    def run(self, *args: Any, grid: Any, **kwargs: Any) -> Any:
        config = self.choose(*args, grid=grid, **kwargs)
        run_pre_hook(config, dict(zip(self.arg_names, args, strict=False)), kwargs, launch=True)
        return self.fn[grid](*args, **kwargs, **config_kwargs(config))


def autotune(
    configs: Sequence[Any],
    key: Sequence[str],
    *,
    hw: str | HardwareProfile | None = None,
    top_k: int | float = DEFAULT_TOP_K,
    mode: str = "prune",
    grid: Any = None,
    log: AutotuneLog | None = None,
    workers: int = 1,
    **triton_kwargs: Any,
) -> Callable[[Any], Any]:
    """``triton.autotune`` with TileSight pruning (``mode="prune"``) or without benchmarking at all
    (``mode="predict"``: the predicted best config, chosen once per key)."""
    if mode not in MODES:
        raise AutotuneError(f"mode={mode!r}: one of {MODES}")
    pruner = Pruner(hw=hw, top_k=1 if mode == "predict" else top_k, grid=grid, log=log, workers=workers)

    def wrap(fn: Any) -> Any:
        pruner.kernel(fn)
        if mode == "predict":
            if triton_kwargs:
                raise AutotuneError(f"mode='predict' benchmarks nothing; drop {sorted(triton_kwargs)}")
            return PredictedAutotuner(fn, configs, key, pruner)
        import triton

        if "prune_configs_by" in triton_kwargs:
            raise AutotuneError("autotune(...) sets prune_configs_by itself; use Pruner directly to combine")
        return triton.autotune(configs, key, prune_configs_by=pruner.prune_configs_by, **triton_kwargs)(fn)

    return wrap


__all__ = [
    "DEFAULT_TOP_K",
    "AutotuneError",
    "AutotuneLog",
    "PredictedAutotuner",
    "Pruner",
    "RankError",
    "autotune",
    "detect_profile",
    "match_profile",
]

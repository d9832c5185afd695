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

A Triton kernel's configs are ranked with estimated registers (``registers="estimate"``) unless the call
passes ``registers=`` or ``$TILESIGHT_REGISTERS`` is set: ``tilesight.estimate``'s default, ``"auto"``, runs
ptxas on every config whose estimate could decide its prediction (0.5-25 s each on a 2-core CPU), which
would multiply a ranking's time. The head of the ranking is then settled with ``"auto"`` (``refine``,
default 1): the predicted best is predicted again with ptxas's registers where the estimate decides it,
the list re-sorted, and so on until the first ``refine`` configs are settled (at most
:data:`REFINE_ROUNDS` times ``refine`` re-predictions). A config whose estimated registers put two blocks
on an SM where ptxas gives one (the head-dim-128 attention tile 128x32 on 8 warps: 128 estimated, 152
compiled) no longer stays first: over the 93 measured problems of ``benchmarks/score_autotune.py``,
estimated registers alone give a top-1 of mean 0.916 of the best, ``"auto"`` for every config 0.935, and
settling the head (replayed from both modes' predictions) picks what ``"auto"`` picks on every problem.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tilesight.api import resolve_hw
from tilesight.errors import LaunchError, TileSightError
from tilesight.hardware import HardwareProfile
from tilesight.plan import KernelSequence, TilePlan
from tilesight.report import Report

ON_ERROR = ("raise", "refuse")
# Errors with which Triton refuses a config, and its autotuner times the config as infinitely slow instead
# of failing (``triton.runtime.autotuner``: out of resources, a ``tl.static_assert`` of the kernel, ptxas):
# such a config is refused as one that cannot launch (matched by name: this module imports no Triton)
TRITON_SKIPPED = frozenset({"OutOfResources", "CompileTimeAssertionFailure", "PTXASError"})
# Where a Triton config's registers come from when the caller does not say (see the module docstring), and
# where the settled head of the ranking takes them from
RANK_REGISTERS = "estimate"
REFINE_REGISTERS = "auto"
# Re-predictions allowed per settled place at the head of a ranking (see the module docstring)
REFINE_ROUNDS = 3
_WRAPPERS = ("PredictedKernel", "Autotuner", "PredictedAutotuner")

# Modules that predicting a config imports lazily on its first use, imported once by ``rank`` before forking
# its workers so that no worker pays for them again (about 0.25 s of CPU per worker for a Triton kernel:
# the model, the frontend's compile and walker modules, Triton's code generator). An optimisation only: a
# name this Triton lacks is left to be imported (or not) where it is used.
WARM_MODULES = {
    "model": ("tilesight.model.evaluate",),
    "triton": (
        "tilesight.frontends.triton.assemble",
        "tilesight.frontends.triton.binding",
        "tilesight.frontends.triton.compile",
        "triton.compiler.code_generator",
    ),
}


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
            # a config the call fixes entirely (an autotuned kernel called with every tuned parameter) has no
            # text of its own: its reason alone
            named = ((describe(r.config), r.refused) for r in self.refused)
            reasons = "; ".join(f"{text}: {why}" if text else str(why) for text, why in named)
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


def run_pre_hook(
    config: Any, named_args: dict[str, Any], kwargs: dict[str, Any], *, launch: bool = False
) -> None:
    """A ``triton.Config``'s ``pre_hook``, called as Triton's autotuner calls it before timing the config:
    with the kernel's arguments by name, the launch's keywords and the config's. Tutorials set host-side
    descriptors' block shapes in it (``desc.block_shape = [BLOCK_M, HEAD_DIM]``); nothing else of a hook
    matters to a prediction. ``launch``: the config is about to run on real tensors, so whatever the hook
    raises propagates."""
    hook = getattr(config, "pre_hook", None)
    if hook is None:
        return
    nargs = {**named_args, **kwargs, **config_kwargs(config)}
    try:
        hook(nargs)
    except (AttributeError, TypeError):
        # a hook that works on the tensors' data (``nargs["c"].zero_()`` before a split-K launch) meets a
        # TensorSpec, which has none; what it does to the data does not change the prediction
        if launch:
            raise


def unwrap_jit(kernel: Any) -> Any:
    """The ``@triton.jit`` function under any wrapper."""
    from tilesight.frontends.triton.frontend import unwrap

    return unwrap(_inner_triton(kernel))[0]


def _inner_triton(kernel: Any) -> Any:
    """The kernel under any autotuning / prediction wrapper (heuristics are kept: the frontend runs them)."""
    while type(kernel).__name__ in _WRAPPERS:
        kernel = kernel.kernel if hasattr(kernel, "kernel") else kernel.fn
    return kernel


def _is_triton(kernel: Any) -> bool:
    from tilesight.frontends.triton.frontend import TritonFrontend

    return TritonFrontend().accepts(kernel)


def _registers_chosen(kernel: Any, kwargs: dict[str, Any]) -> bool:
    """Whether the caller chose a Triton kernel's register source (``registers=``, a kernel parameter of that
    name, or ``$TILESIGHT_REGISTERS``): then ``rank`` uses it for every config."""
    from tilesight.frontends.triton.ptxas import MODE_ENV

    params = {p.name for p in unwrap_jit(kernel).params}
    return "registers" in kwargs or "registers" in params or bool(os.environ.get(MODE_ENV))


def plan_builder(
    kernel: Any,
    grid: Any,
    args: Sequence[Any],
    kwargs: dict[str, Any],
    hw: HardwareProfile,
    registers: str = RANK_REGISTERS,
) -> Callable[[Any], TilePlan | KernelSequence]:
    """A function from one config to its TilePlan, for a Triton or TileLang kernel; a Triton kernel's
    registers from ``registers`` unless the caller chose (:func:`_registers_chosen`)."""
    if _is_triton(kernel):
        from tilesight.frontends.triton.frontend import TritonFrontend

        frontend, inner = TritonFrontend(), _inner_triton(kernel)
        if grid is None:
            raise RankError("a Triton kernel needs its launch grid: rank(kernel, configs, grid, *args)")
        if not _registers_chosen(kernel, kwargs):
            kwargs = {**kwargs, "registers": registers}
        names = [p.name for p in unwrap_jit(inner).params]

        def build(cfg: Any) -> TilePlan:
            run_pre_hook(cfg, dict(zip(names, args, strict=False)), kwargs)
            return frontend.plan(inner, (grid, *args), {**kwargs, **config_kwargs(cfg)}, hw)

        return build
    if grid is not None:
        raise RankError(
            f"rank got a grid but {type(kernel).__name__} is not a @triton.jit kernel (a TileLang program "
            "fixes its own grid: pass grid=None)"
        )
    from tilesight.frontends.tilelang.frontend import TileLangFrontend, plan_built

    # keywords the builder does not take bind the built program's open sizes and tensors by name
    if TileLangFrontend().accepts(kernel) and hasattr(kernel, "get_tir"):
        build, builder = kernel.get_tir, getattr(kernel, "func", kernel.get_tir)
    elif callable(kernel):
        build = builder = kernel
    else:
        raise RankError(f"rank: {type(kernel).__name__} is neither a Triton kernel nor a TileLang program")
    return lambda cfg: plan_built(build, builder, tuple(args), {**kwargs, **config_kwargs(cfg)}, hw)


def warm_imports(kind: str) -> None:
    """Import the :data:`WARM_MODULES` of ``kind`` ("model" or "triton") that this installation has."""
    for name in WARM_MODULES[kind]:
        if importlib.util.find_spec(name) is not None:
            importlib.import_module(name)


def _predict_one(
    build: Callable[[Any], TilePlan | KernelSequence], profile: HardwareProfile, cfg: Any, on_error: str
) -> tuple[Report | None, str | None, bool, float, float]:
    """(report, refusal, cannot_launch, frontend seconds, model seconds) of one config."""
    from tilesight.model.evaluate import evaluate

    start = time.perf_counter()
    try:
        plan = build(cfg)
        middle = time.perf_counter()
        report = evaluate(plan, profile)
        return report, None, False, middle - start, time.perf_counter() - middle
    except LaunchError as exc:
        return None, str(exc), True, time.perf_counter() - start, 0.0
    except Exception as exc:
        # a Triton error the frontend wrapped (KernelCompileError) is matched by the class it wraps
        name = getattr(exc, "compiler_error", None) or type(exc).__name__
        if name not in TRITON_SKIPPED:
            if isinstance(exc, TileSightError) and on_error == "refuse":
                return None, f"{type(exc).__name__}: {exc}", False, time.perf_counter() - start, 0.0
            if isinstance(exc, TileSightError):
                raise RankError(f"config {describe(cfg)}: {exc}") from exc
            raise
        # what Triton's autotuner skips: the config cannot run, whatever the model says
        reason = getattr(exc, "reason", None) or _last_line(exc)
        return None, f"{name}: {reason}", True, time.perf_counter() - start, 0.0


def _last_line(exc: Exception) -> str:
    """The last line of an error's message (a Triton compile error's own words, after the source excerpt)."""
    text = str(exc).strip()
    return text.splitlines()[-1] if text else type(exc).__name__


# The job a forked worker runs: set in the parent just before the fork, inherited by the children, so that
# kernels and closures never need to be pickled (only the reports come back).
_FORK_JOB: tuple[Callable[[Any], TilePlan | KernelSequence], HardwareProfile, list[Any], str] | None = None


def _fork_worker(index: int) -> tuple[int, tuple[Report | None, str | None, bool, float, float]]:
    assert _FORK_JOB is not None
    build, profile, candidates, on_error = _FORK_JOB
    return index, _predict_one(build, profile, candidates[index], on_error)


def _predict_all(
    build: Callable[[Any], TilePlan | KernelSequence],
    profile: HardwareProfile,
    candidates: list[Any],
    on_error: str,
    workers: int,
) -> list[tuple[Report | None, str | None, bool, float, float]]:
    if workers <= 1 or len(candidates) <= 1:
        return [_predict_one(build, profile, cfg, on_error) for cfg in candidates]
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods():
        raise RankError(f"workers={workers} needs the 'fork' start method, which this platform lacks")
    global _FORK_JOB
    _FORK_JOB = (build, profile, candidates, on_error)
    try:
        with multiprocessing.get_context("fork").Pool(min(workers, len(candidates))) as pool:
            results = dict(pool.imap_unordered(_fork_worker, range(len(candidates))))
    finally:
        _FORK_JOB = None
    return [results[i] for i in range(len(candidates))]


def settle_head(
    latency: Callable[[int], float | None], repredict: Callable[[int], None], count: int, places: int
) -> None:
    """Settle the head of a ranking of ``count`` entries: ``repredict(i)`` the fastest entry not yet
    re-predicted among the first ``places`` by ``latency(i)`` (None: refused), re-sort, and so on until
    those places are all re-predicted, at most ``REFINE_ROUNDS x places`` times (``rank`` and the command
    line's ``rank`` both settle theirs with ptxas's registers)."""
    settled: set[int] = set()
    for _ in range(REFINE_ROUNDS * places):
        launchable = [i for i in range(count) if latency(i) is not None]
        order = sorted(launchable, key=lambda i: latency(i))  # stable: ties keep the input order
        todo = [i for i in order[:places] if i not in settled]
        if not todo:
            break
        repredict(todo[0])
        settled.add(todo[0])


def rank(
    kernel: Any,
    configs: Iterable[Any],
    grid: Any,
    *args: Any,
    hw: str | HardwareProfile = "h200",
    on_error: str = "raise",
    workers: int = 1,
    refine: int = 1,
    **kwargs: Any,
) -> Ranking:
    """Predict every config of ``kernel`` and order them by predicted latency (see the module docstring).

    ``workers`` > 1 predicts in that many forked processes (compiling to TTGIR dominates and is
    single-threaded); the frontend and model seconds are then summed over the workers. ``refine``: how many
    places at the head of a Triton kernel's ranking are settled with ptxas's registers (0: none; it applies
    only where the caller did not choose the register source).
    """
    if on_error not in ON_ERROR:
        raise RankError(f"on_error={on_error!r}: one of {ON_ERROR}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise RankError(f"workers={workers!r}: an int >= 1")
    if isinstance(refine, bool) or not isinstance(refine, int) or refine < 0:
        raise RankError(f"refine={refine!r}: an int >= 0")
    candidates = list(configs)
    if not candidates:
        raise RankError("rank needs at least one config")
    profile = resolve_hw(hw)
    build = plan_builder(kernel, grid, args, kwargs, profile)
    if workers > 1:  # once here rather than once per forked worker
        warm_imports("model")
        if _is_triton(kernel):
            warm_imports("triton")
    done: list[RankedConfig] = []
    frontend_s = model_s = 0.0
    for cfg, (report, refusal, cannot, f_s, m_s) in zip(
        candidates, _predict_all(build, profile, candidates, on_error, workers), strict=True
    ):
        frontend_s += f_s
        model_s += m_s
        done.append(RankedConfig(cfg, report=report, refused=refusal, cannot_launch=cannot))
    if refine and _is_triton(kernel) and not _registers_chosen(kernel, kwargs):
        settle = plan_builder(kernel, grid, args, kwargs, profile, registers=REFINE_REGISTERS)

        def repredict(i: int) -> None:
            nonlocal frontend_s, model_s
            report, refusal, cannot, f_s, m_s = _predict_one(settle, profile, done[i].config, on_error)
            frontend_s, model_s = frontend_s + f_s, model_s + m_s
            done[i] = RankedConfig(done[i].config, report=report, refused=refusal, cannot_launch=cannot)

        def latency(i: int) -> float | None:
            return done[i].latency_s if done[i].report is not None else None

        settle_head(latency, repredict, len(done), refine)
    ranked = sorted((r for r in done if r.report is not None), key=lambda r: r.latency_s)
    refused = tuple(r for r in done if r.report is None)
    return Ranking(tuple(ranked), refused, frontend_s, model_s)

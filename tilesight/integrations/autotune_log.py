"""Predicted vs measured autotune timings, for the user to see how well TileSight tracks their GPU.

    log = AutotuneLog()
    pruner = Pruner(log=log)
    with log.listening():            # installs triton.knobs.autotuning.listener (Triton >= 3.9), chaining any
        matmul[grid](a, b, c, ...)   # listener already there
    print(log.format_table())

The log only records: nothing is learned from the measurements and no prediction changes because of them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tilesight.errors import TileSightError

if TYPE_CHECKING:
    from .rank import Ranking

MS_TO_S = 1e-3  # Triton's benchmark timings are milliseconds


class ListenerError(TileSightError):
    """The installed Triton has no autotuning listener to attach to."""


@dataclass(frozen=True)
class TimingRow:
    """One benchmarked config: TileSight's prediction (None if it was not predicted) and Triton's timing."""

    kernel: str
    key: tuple
    config: str
    predicted_s: float | None
    measured_s: float
    chosen: bool


def _measured_s(timing: Any) -> float:
    """Triton's timing of one config: a float, or do_bench's quantile list whose first entry is the median."""
    value = timing[0] if isinstance(timing, list | tuple) else timing
    return float(value) * MS_TO_S


class AutotuneLog:
    """Collects predictions (from :class:`~tilesight.integrations.autotune.Pruner`) and measured timings."""

    def __init__(self) -> None:
        self._predicted: dict[tuple[str, str], float] = {}
        self.rows: list[TimingRow] = []

    def note(self, kernel: str, ranking: Ranking) -> None:
        from .rank import describe

        for r in ranking.ranked:
            self._predicted[(kernel, describe(r.config))] = r.latency_s

    def listen(
        self,
        *,
        fn: Any,
        key: tuple,
        best_config: Any,
        configs_timings: dict[Any, Any] | None,
        duration: float | None = None,
        cache_hit: bool = False,
    ) -> None:
        """Triton's ``AutotuneListener`` protocol."""
        from .rank import describe

        name = getattr(fn, "__name__", str(fn))
        best = describe(best_config)
        for config, timing in (configs_timings or {}).items():
            text = describe(config)
            predicted = self._predicted.get((name, text))
            self.rows.append(TimingRow(name, key, text, predicted, _measured_s(timing), text == best))

    @contextlib.contextmanager
    def listening(self) -> Iterator[AutotuneLog]:
        """Attach to ``triton.knobs.autotuning.listener`` for the block, calling any listener already set."""
        import triton

        knobs = getattr(getattr(triton, "knobs", None), "autotuning", None)
        if knobs is None or not hasattr(knobs, "listener"):
            version = triton.__version__
            raise ListenerError(f"triton {version} has no knobs.autotuning.listener (needs >= 3.9)")
        previous = knobs.listener

        def chained(**kwargs: Any) -> None:
            self.listen(**kwargs)
            if previous is not None:
                previous(**kwargs)

        knobs.listener = chained
        try:
            yield self
        finally:
            knobs.listener = previous

    def format_table(self) -> str:
        """Per autotune call: configs by measured time, each with its prediction and predicted rank."""
        lines = [f"{'kernel':<20} {'measured_us':>11} {'predicted_us':>12} {'pred_rank':>9}  config"]
        groups: dict[tuple[str, tuple], list[TimingRow]] = {}
        for row in self.rows:
            groups.setdefault((row.kernel, row.key), []).append(row)
        for (kernel, key), rows in groups.items():
            lines.append(f"# {kernel} key={key}")
            by_pred = sorted((r for r in rows if r.predicted_s is not None), key=lambda r: r.predicted_s)
            pred_rank = {id(r): i for i, r in enumerate(by_pred, 1)}
            for r in sorted(rows, key=lambda r: r.measured_s):
                pred = f"{r.predicted_s * 1e6:12.2f}" if r.predicted_s is not None else f"{'-':>12}"
                rank_text = str(pred_rank.get(id(r), "-"))
                mark = " *" if r.chosen else ""
                lines.append(
                    f"{kernel:<20} {r.measured_s * 1e6:11.2f} {pred} {rank_text:>9}  {r.config}{mark}"
                )
        return "\n".join(lines)

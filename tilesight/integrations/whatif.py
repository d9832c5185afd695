"""The what-if loop: re-predict a kernel with each change the diagnosis suggests, then diagnose.

The caller supplies ``predict(config) -> Report`` (the CLI binds it to one kernel, its arguments and GPU). A
changed config the model refuses (it cannot launch: too much shared memory, a block too large, ...) is
recorded with the reason, never dropped silently.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from tilesight.diagnose import Change, Diagnosis, diagnose, find_issues, proposals
from tilesight.errors import TileSightError
from tilesight.plan import KernelSequence, TilePlan
from tilesight.report import Report

Predict = Callable[[Mapping[str, Any]], Report]


def explore(
    report: Report,
    config: Mapping[str, Any],
    predict: Predict,
    plan: TilePlan | KernelSequence | None = None,
    on_step: Callable[[Change], None] | None = None,
) -> Diagnosis:
    """Diagnose ``report`` (made with ``config``), re-predicting every suggested change with ``predict``."""
    results: dict[Change, Report | str] = {}
    for change in proposals(find_issues(report, plan, config)):
        if on_step is not None:
            on_step(change)
        try:
            results[change] = predict(change.apply(config))
        except TileSightError as exc:
            results[change] = str(exc)
    return diagnose(report, plan, config, results)

"""Optional dependencies, imported only on the path that needs them.

Ranking and prediction need numpy (and triton or tilelang for their frontends) only: scipy (the exact
binomial SDCM form and the exact normal CDF), rich (terminal rendering and the CLI) and libcst (the source
frontend) are imported through :func:`require`, which names the missing package and the path that needed it.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .errors import MissingDependencyError


def require(module: str, needed_for: str) -> ModuleType:
    """``import module`` (dotted names allowed), or :class:`MissingDependencyError` naming its top package
    and ``needed_for`` when it (or a package it imports) is not installed."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        missing = (exc.name or module).split(".")[0]
        raise MissingDependencyError(missing, needed_for) from exc

"""Source frontend: find kernels in Python files with libcst, without importing them."""

from tilesight.optional import require

require("libcst", "the source frontend (tilesight.frontends.source)")

# imported after the typed check above, so that a missing libcst is named
from .discover import KernelNotFoundError, SourceError, discover, discover_source, find_kernel  # noqa: E402
from .model import Autotune, AutotuneConfig, KernelKind, KernelSource, Param  # noqa: E402

__all__ = [
    "Autotune",
    "AutotuneConfig",
    "KernelKind",
    "KernelNotFoundError",
    "KernelSource",
    "Param",
    "SourceError",
    "discover",
    "discover_source",
    "find_kernel",
]

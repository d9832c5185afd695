"""Source frontend: find kernels in Python files with libcst, without importing them."""

from .discover import KernelNotFoundError, SourceError, discover, discover_source, find_kernel
from .model import Autotune, AutotuneConfig, KernelKind, KernelSource, Param

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

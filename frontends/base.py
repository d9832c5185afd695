"""The frontend contract: turn a kernel object (and its launch arguments) into a TilePlan.

Each frontend registers itself by name. ``tilesight.estimate`` asks every registered frontend, in order,
whether it ``accepts`` the object, and hands it to the first that does. Frontends may import triton or
tilelang; the core never imports frontends.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from tilesight.errors import FrontendError
from tilesight.hardware import HardwareProfile
from tilesight.plan import KernelSequence, TilePlan


@runtime_checkable
class Frontend(Protocol):
    """A source of tile plans.

    ``name``: registry key ("triton", "tilelang", ...).
    ``accepts(obj)``: cheap check, must not import heavy libraries unless ``obj`` is theirs.
    ``plan(obj, args, kwargs, hw)``: the TilePlan for one launch (a KernelSequence where the object launches
    several kernels one after another). ``args``/``kwargs`` are what the user passed
    to ``tilesight.estimate`` after the kernel object (for Triton: the grid first, then kernel arguments and
    launch options); raises a FrontendError subclass naming the construct and its source line.
    """

    name: str

    def accepts(self, obj: Any) -> bool: ...

    def plan(
        self, obj: Any, args: tuple[Any, ...], kwargs: dict[str, Any], hw: HardwareProfile
    ) -> TilePlan | KernelSequence: ...


_REGISTRY: dict[str, Frontend] = {}
_LAZY: dict[str, Callable[[], Frontend]] = {}


def register(frontend: Frontend) -> Frontend:
    _REGISTRY[frontend.name] = frontend
    return frontend


def register_lazy(name: str, factory: Callable[[], Frontend]) -> None:
    """Register a frontend whose module is imported only when first needed."""
    _LAZY[name] = factory


def frontends() -> dict[str, Frontend]:
    for name, factory in list(_LAZY.items()):
        if name not in _REGISTRY:
            try:
                _REGISTRY[name] = factory()
            except ImportError:
                continue  # the library behind it is not installed: that frontend is simply unavailable
    return dict(_REGISTRY)


def find_frontend(obj: Any) -> Frontend:
    for fe in frontends().values():
        if fe.accepts(obj):
            return fe
    raise FrontendError(
        f"no frontend accepts {type(obj).__module__}.{type(obj).__qualname__}; pass a TilePlan, a "
        f"@triton.jit kernel or a TileLang prim_func "
        f"(available frontends: {', '.join(frontends()) or 'none'})"
    )

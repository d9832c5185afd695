"""TileSight: predict how a tile-based GPU kernel runs without launching it."""

from __future__ import annotations

from .api import estimate
from .distributed.api import estimate_collective
from .errors import (
    FrontendError,
    LaunchError,
    PlanError,
    ProfileError,
    SettingError,
    TileSightError,
    UnknownProfileError,
    UnsupportedOpError,
)
from .hardware import HardwareProfile, load_profile, profiles
from .plan import (
    AccessMode,
    ActionKind,
    BlockResources,
    GroupSplit,
    KernelSequence,
    LaunchOrder,
    Loop,
    MemLevel,
    Pipeline,
    TensorAccess,
    TileAction,
    TileGrid,
    TilePlan,
)
from .tensorspec import TensorSpec


def __getattr__(name: str) -> object:
    if name == "predict":  # lazy: importing tilesight never imports triton
        from .integrations.triton_predict import predict

        return predict
    if name == "rank":  # lazy: ranking Triton configs imports triton
        from .integrations.rank import rank

        return rank
    if name == "tensor_descriptor":  # lazy: a host-side TMA descriptor is Triton's own class
        from .frontends.triton.binding import tensor_descriptor

        return tensor_descriptor
    raise AttributeError(f"module 'tilesight' has no attribute {name!r}")


__all__ = [
    "AccessMode",
    "ActionKind",
    "BlockResources",
    "FrontendError",
    "GroupSplit",
    "HardwareProfile",
    "KernelSequence",
    "LaunchError",
    "LaunchOrder",
    "Loop",
    "MemLevel",
    "Pipeline",
    "PlanError",
    "ProfileError",
    "SettingError",
    "TensorAccess",
    "TensorSpec",
    "TileAction",
    "TileGrid",
    "TilePlan",
    "TileSightError",
    "UnknownProfileError",
    "UnsupportedOpError",
    "estimate",
    "estimate_collective",
    "load_profile",
    "predict",
    "profiles",
    "rank",
    "tensor_descriptor",
]
__version__ = "0.1.0"

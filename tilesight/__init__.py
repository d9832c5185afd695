"""TileSight: predict how a tile-based GPU kernel runs without launching it."""

from __future__ import annotations

from .api import estimate
from .errors import (
    FrontendError,
    LaunchError,
    PlanError,
    ProfileError,
    TileSightError,
    UnknownProfileError,
    UnsupportedOpError,
)
from .hardware import HardwareProfile, load_profile, profiles
from .plan import (
    AccessMode,
    ActionKind,
    BlockResources,
    LaunchOrder,
    Loop,
    MemLevel,
    Pipeline,
    TensorAccess,
    TileAction,
    TileGrid,
    TilePlan,
)

__all__ = [
    "AccessMode",
    "ActionKind",
    "BlockResources",
    "FrontendError",
    "HardwareProfile",
    "LaunchError",
    "LaunchOrder",
    "Loop",
    "MemLevel",
    "Pipeline",
    "PlanError",
    "ProfileError",
    "TensorAccess",
    "TileAction",
    "TileGrid",
    "TilePlan",
    "TileSightError",
    "UnknownProfileError",
    "UnsupportedOpError",
    "estimate",
    "load_profile",
    "profiles",
]
__version__ = "0.1.0"

"""TileLang frontend: walks a TileLang ``PrimFunc``'s TIR on CPU into a TilePlan (no compilation)."""

from .frontend import TileLangFrontend, plan_prim_func
from .version import SUPPORTED_VERSIONS, check_version

__all__ = ["SUPPORTED_VERSIONS", "TileLangFrontend", "check_version", "plan_prim_func"]

"""Cache models: from a tile plan's execution order to L1.5/L2/DDR traffic (paper section 3.5)."""

from __future__ import annotations

from .base import CacheModel, CacheTraffic, CompulsoryCacheModel, TensorTraffic, compulsory_traffic

__all__ = [
    "CacheModel",
    "CacheTraffic",
    "CompulsoryCacheModel",
    "TensorTraffic",
    "compulsory_traffic",
    "default_cache_model",
]


def default_cache_model() -> CacheModel:
    """The cache model the engine uses unless told otherwise."""
    return CompulsoryCacheModel()

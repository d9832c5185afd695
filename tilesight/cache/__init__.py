"""Cache models: from a tile plan's execution order to L1.5/L2/DDR traffic (paper section 3.5)."""

from __future__ import annotations

from .base import CacheModel, CacheTraffic, CompulsoryCacheModel, TensorTraffic, compulsory_traffic
from .model import SdcmCacheModel

__all__ = [
    "CACHE_MODELS",
    "CacheModel",
    "CacheTraffic",
    "CompulsoryCacheModel",
    "DEFAULT_CACHE_MODEL",
    "SdcmCacheModel",
    "TensorTraffic",
    "cache_model",
    "compulsory_traffic",
    "default_cache_model",
]

# Cache models by name: "sdcm" is the tile reuse-distance model of paper 3.5; "compulsory" the baseline where
# every block crosses DRAM once and every later access hits.
CACHE_MODELS: dict[str, type] = {"sdcm": SdcmCacheModel, "compulsory": CompulsoryCacheModel}

# The engine's default: the SDCM model. Against the NCU L2 study on the H200 (benchmarks/score_l2.py on
# benchmarks/data/ncu_l2_h200.json) it is well ahead of the compulsory baseline (held-out L2 hit MAE 5.3 vs
# 17.8 pp, DRAM bytes 18 vs 51 % mean error) though short of the 2 pp target; see docs/cache-model.md
# and benchmarks/data/ncu_l2_score_h200.json.
DEFAULT_CACHE_MODEL = "sdcm"


def cache_model(name: str) -> CacheModel:
    """A cache model by name (``"sdcm"`` or ``"compulsory"``)."""
    from ..errors import TileSightError

    try:
        return CACHE_MODELS[name]()
    except KeyError:
        raise TileSightError(f"unknown cache model {name!r}; known: {', '.join(CACHE_MODELS)}") from None


def default_cache_model() -> CacheModel:
    """The cache model the engine uses unless told otherwise."""
    return cache_model(DEFAULT_CACHE_MODEL)

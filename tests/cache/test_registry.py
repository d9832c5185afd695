"""tilesight.cache: cache models by name and the engine's default."""

from __future__ import annotations

import pytest

from tilesight.cache import CompulsoryCacheModel, SdcmCacheModel, cache_model, default_cache_model
from tilesight.errors import TileSightError


def test_models_by_name():
    assert isinstance(cache_model("sdcm"), SdcmCacheModel)
    assert isinstance(cache_model("compulsory"), CompulsoryCacheModel)
    assert default_cache_model().name in ("sdcm", "compulsory")


def test_unknown_name_lists_known():
    with pytest.raises(TileSightError, match="sdcm"):
        cache_model("lru")

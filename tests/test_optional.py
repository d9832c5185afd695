"""tilesight.optional.require: an optional package is imported on use, or named in a typed error."""

from __future__ import annotations

import pytest

from tilesight.errors import MissingDependencyError, TileSightError
from tilesight.optional import require


def test_require_returns_the_module():
    import json

    assert require("json", "a test") is json


def test_require_names_the_missing_top_package_and_the_path():
    with pytest.raises(MissingDependencyError) as info:
        require("tilesight_no_such_pkg.sub", "the frobnication path")
    err = info.value
    assert err.package == "tilesight_no_such_pkg" and err.needed_for == "the frobnication path"
    assert "'tilesight_no_such_pkg'" in str(err) and "the frobnication path" in str(err)
    assert isinstance(err, TileSightError) and isinstance(err, ImportError)

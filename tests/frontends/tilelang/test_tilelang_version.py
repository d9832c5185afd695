"""The supported TileLang range is enforced with an error that names it."""

import pytest
from tilesight.frontends.tilelang import SUPPORTED_VERSIONS, TileLangFrontend, check_version

from tilesight.errors import VersionError
from tilesight.hardware import load_profile


def test_supported_version_passes():
    check_version("0.1.15")
    check_version("0.1.15+cu130.gitabc")  # local build tags do not matter
    assert SUPPORTED_VERSIONS == ("0.1.15",)


@pytest.mark.parametrize("version", ["0.1.14", "0.1.16", "0.2.0"])
def test_other_versions_name_the_supported_range(version):
    with pytest.raises(VersionError, match=r"tilelang==0\.1\.15") as err:
        check_version(version)
    assert version in str(err.value)


def test_frontend_checks_the_installed_version(monkeypatch):
    import tilesight.frontends.tilelang.frontend as fe

    monkeypatch.setattr(fe, "installed_version", lambda: "0.1.9")
    with pytest.raises(VersionError, match="0.1.9"):
        TileLangFrontend().plan(object(), (), {}, load_profile("h200"))

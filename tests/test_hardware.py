import pytest

import tilesight as ts


def test_h200_loads():
    p = ts.load_profile("h200")
    assert p.sm_count == 132
    assert "h200" in ts.profiles()


def test_unknown_profile_lists_known():
    with pytest.raises(ts.UnknownProfileError, match="known profiles: .*h200"):
        ts.load_profile("h999")

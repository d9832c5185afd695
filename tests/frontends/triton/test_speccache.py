"""The per-specialisation cache the compile and ptxas steps share."""

from tilesight.frontends.triton.speccache import SpecialisationCache


def test_the_least_recently_used_goes_first():
    c = SpecialisationCache(2)
    assert c.keep("a", 1) == 1 and c.keep("b", 2) == 2
    assert c.lookup("a") == 1  # "a" is now the most recently used
    c.keep("c", 3)  # over two entries: "b" goes
    assert c.lookup("b") is None and list(c) == ["a", "c"]
    assert c.lookup("missing") is None

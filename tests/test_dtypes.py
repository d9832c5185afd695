"""Element-type names: the aliases frameworks print resolve to one canonical name each."""

import pytest

from tilesight.dtypes import canonical_dtype, dtype_bytes
from tilesight.errors import PlanError


@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        ("fp16", "float16"),
        ("torch.bfloat16", "bfloat16"),
        ("fp8e4nv", "float8_e4m3fn"),  # Triton's name
        ("float8_e4m3", "float8_e4m3fn"),  # TileLang's T.float8_e4m3
        ("float8_e5m2", "float8_e5m2"),
    ],
)
def test_aliases(name, canonical):
    assert canonical_dtype(name) == canonical


def test_fp8_is_one_byte_and_unknown_names_list_the_known_ones():
    assert dtype_bytes(canonical_dtype("float8_e4m3")) == 1
    with pytest.raises(PlanError, match="known: .*float8_e4m3fn"):
        canonical_dtype("float7")

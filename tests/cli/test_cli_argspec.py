"""The --args / --config mini-syntax, its JSON spelling, and --grid expressions."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesight.cli.argspec import (
    ArgsError,
    TensorArg,
    format_values,
    parse_args_text,
    parse_config_text,
    referenced_names,
)
from tilesight.cli.gridexpr import eval_grid, grid_names
from tilesight.cli.loader import Target, parse_target


def test_tensors_scalars_and_references() -> None:
    got = parse_args_text(
        "a=f16[M,K] b=bf16[K,N]@[1,K] sa=a.stride(0) nb=b.shape(1) M=64 N=32 K=16 e=1e-5 f=true z=none"
    )
    assert got == {
        "a": TensorArg("float16", (64, 16)),
        "b": TensorArg("bfloat16", (16, 32), (1, 16)),
        "sa": 16,  # row-major (64, 16): stride 16 along dim 0
        "nb": 32,
        "M": 64,
        "N": 32,
        "K": 16,
        "e": 1e-5,
        "f": True,
        "z": None,
    }
    assert list(got) == ["a", "b", "sa", "nb", "M", "N", "K", "e", "f", "z"]  # the order given
    assert str(got["b"]) == "bfloat16[16,32]@[1,16]"


def test_aliases_and_the_names_other_entries_use() -> None:
    text = "x=f32[R,C]@[S,1] n_cols=C m=n_cols R=8 C=3 S=4 sx=x.stride(0) q=7"
    got = parse_args_text(text)
    assert got["x"] == TensorArg("float32", (8, 3), (4, 1))
    assert (got["n_cols"], got["m"], got["sx"]) == (3, 3, 4)  # an alias, an alias of an alias, a reference
    # names used by a shape or strides, an alias or a reference; q is used by nothing
    assert referenced_names(text) == {"R", "C", "S", "n_cols", "x"}
    assert referenced_names('{"R": 8}') == set()
    assert grid_names("cdiv(n, BLOCK), max(B, 1) * H") == {"n", "BLOCK", "B", "H"}


def test_json_spelling_means_the_same() -> None:
    text = '{"a": {"dtype": "f16", "shape": [64, 16]}, "b": "bf16[16,32]@[1,16]", "M": 64, "f": true}'
    assert parse_args_text(text) == {
        "a": TensorArg("float16", (64, 16)),
        "b": TensorArg("bfloat16", (16, 32), (1, 16)),
        "M": 64,
        "f": True,
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a=f16[4", "is not a tensor"),
        ("a", "is not NAME=VALUE"),
        ("a=1 a=2", "given twice"),
        ("a=f16[]", "empty shape"),
        ("a=f16[M]", "does not name an integer argument"),
        ("a=f16[0]", "out of range"),
        ("a=f16[4,4]@[1]", "1 strides for a 2-d shape"),
        ("s=b.stride(0)", "'b' is not a tensor argument"),
        ("a=f16[4] s=a.stride(3)", "a has 1 dimensions"),
        ("x=fast", "is not a number"),
        ("x=fast", "or the name of another integer argument"),
        ("a=f16[4] n=a", "n=a: 'a' does not name an integer argument"),
        ("a=b b=a", "a -> b -> a refer to each other in a loop"),
        ("e=1.5 n=e", "'e' does not name an integer argument"),
        ("[1, 2]", "is not NAME=VALUE"),
        ('{"a": [1]}', "unsupported JSON value"),
        ('{"a": {"dtype": "f16", "shape": 4}}', "shape and strides must be JSON lists"),
        ('{"a": {"dtype": "f16"}}', "a tensor object has"),
        ("[", "is not NAME=VALUE"),
    ],
)
def test_malformed(text: str, message: str) -> None:
    with pytest.raises(ArgsError, match=message):
        parse_args_text(text)


def test_config_holds_scalars_only() -> None:
    assert parse_config_text("BLOCK_M=128 num_warps=8") == {"BLOCK_M": 128, "num_warps": 8}
    with pytest.raises(ArgsError, match="a config holds scalars only"):
        parse_config_text("a=f16[4]")


_name = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)
_scalar = st.one_of(
    st.integers(-(10**9), 10**9), st.booleans(), st.none(), st.floats(allow_nan=False, allow_infinity=False)
)


@settings(deadline=None)
@given(st.dictionaries(_name, _scalar, max_size=6))
def test_format_then_parse_round_trips(values: dict) -> None:
    assert parse_config_text(format_values(values)) == values


def test_grid_expressions() -> None:
    names = {"M": 4096, "N": 1000, "BLOCK_M": 128, "BLOCK_N": 128}
    # cdiv(4096, 128) = 32, cdiv(1000, 128) = 8
    assert eval_grid("cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)", names) == (256,)
    assert eval_grid("triton.cdiv(N, BLOCK_N), 4", names) == (8, 4)
    assert eval_grid("max(1, M // 8192), min(2, 3), (N + 127) // 128", names) == (1, 2, 8)
    for bad, message in [
        ("__import__('os')", "is not allowed"),
        ("M.bit_length()", "is not allowed"),
        ("Q", "uses 'Q'"),
        ("0", "must be an integer >= 1"),
        ("1, 2, 3, 4", "gives 4 dimensions"),
        ("M / 3", "must be an integer"),
        ("M //", "is not an expression"),
        ("M // 0", "division"),
    ]:
        with pytest.raises(ArgsError, match=message):
            eval_grid(bad, names)


def test_targets() -> None:
    assert parse_target("k/gemm.py::matmul") == Target("k/gemm.py", "matmul")
    assert parse_target("k/gemm.py") == Target("k/gemm.py", None)
    with pytest.raises(ArgsError, match="empty kernel name"):
        parse_target("k/gemm.py::")


def test_an_index_tensor_by_its_contents():
    values = parse_args_text("cu=int32{0,100,356} mask=bool{true,false,1}")
    assert values["cu"] == TensorArg("int32", (3,), None, (0, 100, 356))
    assert values["mask"].values == (1, 0, 1) and values["mask"].shape == (3,)
    assert str(values["cu"]) == "int32{0,100,356}"
    assert values["cu"].to_dict()["values"] == [0, 100, 356]


@pytest.mark.parametrize(
    "text, message",
    [
        ("cu=f16{1,2}", "contents are for integer or bool index tensors, not float16"),
        ("cu=int32{1,x}", "content 'x' is not an integer"),
        ("cu=int32{}", "content '' is not an integer"),
    ],
)
def test_bad_contents_name_the_problem(text, message):
    with pytest.raises(ArgsError, match=message):
        parse_args_text(text)

"""benchmarks/ncu_diag/moe.py and layout.py: the probes' cases and their ncu reader, on CPU."""

from __future__ import annotations

import pytest
from _ncu import ncu_csv

pytest.importorskip("triton")


@pytest.fixture(scope="module")
def moe(load_script):
    return load_script(
        "benchmarks/ncu_diag/moe.py", name="moe"
    )  # its dataclass, and layout.py, import it as moe


@pytest.fixture(scope="module")
def layout(load_script):
    return load_script("benchmarks/ncu_diag/layout.py", name="ncu_layout")


def test_every_moe_launch_has_a_dense_twin_over_its_padded_rows(moe):
    probes = moe.probes()
    fused = [p for p in probes if not p.twin_of]
    twins = {p.twin_of: p for p in probes if p.twin_of}
    assert len(fused) == len(twins) == 8
    for p in fused:
        t = twins[p.name]
        used = int(p.args[5].values[0])  # the padded token count: programs past it return
        m, n, k = t.args[3], t.args[4], t.args[5]
        assert (m, n, k) == (used, p.args[6], p.args[7])
        # B K-major as the expert weights are: a (K, N) view with strides (1, K)
        assert t.args[1].shape == (k, n) and t.args[1].strides == (1, k)
        assert (t.kw["BLOCK_M"], t.kw["BLOCK_N"], t.kw["BLOCK_K"]) == (p.kw["BM"], p.kw["BN"], p.kw["BK"])
        assert t.grid == (-(-used // p.kw["BM"]) * -(-n // p.kw["BN"]),)


def test_ncu_rows_after_the_markers_go_to_each_cases_second_launch(moe):
    # ncu prints its rows after the program's own output; --once launches each case twice
    markers = "".join(f"{moe.MARK}{name}\n" for name in ("a", "b"))
    rows = ncu_csv([{"gpu__time_duration.sum": v} for v in ("1", "2", "3", "4,000")], "moe_gemm")
    got = moe.read_ncu("==PROF== Connected\n" + markers + rows)
    assert got == {"a": {"gpu__time_duration.sum": 2.0}, "b": {"gpu__time_duration.sum": 4000.0}}
    assert moe.read_ncu(markers) == {}


def test_layout_pairs_differ_only_in_their_strides(layout):
    probes = {p.name: p for p in layout.probes()}
    b, h, n, d = 4, 32, 2048, 128
    heads, packed = (probes[f"own_{x}_b4h32n2048d128_m128n64w8s3"] for x in ("bhnd", "bnhd"))
    assert heads.args[0].shape == packed.args[0].shape == (b, h, n, d)
    assert heads.args[0].strides == (h * n * d, n * d, d, 1)
    # (B, N, H, D) seen as (B, H, N, D): a head's rows lie H x D elements apart
    assert packed.args[0].strides == (n * h * d, d, h * d, 1)
    assert packed.args[5:9] == packed.args[0].strides and heads.grid == packed.grid == (n // 128, b * h)
    equal = probes["varlen_equal_4x2048_h32"]
    assert equal.grid == (2048 // 128, 32, 4) and list(equal.args[4].values) == [0, 2048, 4096, 6144, 8192]


def test_the_blind_moe_set_is_new_moe_launches_alone(moe, monkeypatch):
    survey = {p.name for p in moe.probes()}
    monkeypatch.setenv("MOE_SET", "blind")
    blind = moe.probes()
    assert len(blind) == 8 and not any(p.twin_of for p in blind)
    assert not {p.name for p in blind} & survey

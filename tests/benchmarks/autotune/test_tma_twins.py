"""benchmarks/autotune/tma_twins.py: descriptor launches paired with their pointer twins, the per-step gap."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def twins(load_script):
    return load_script("benchmarks/autotune/tma_twins.py", on_path=False, name="tilesight_bench_tma_twins")


def _rec(ident, p50, grid=(16, 48), n=1024, status="ok", spills=0):
    return {
        "id": ident,
        "grid": list(grid),
        "args": [{"tensor": {"shape": [2, 24, n, 64]}}],
        "status": status,
        "n_spills": spills,
        "measured_us": {"p50": p50},
    }


def _index(*recs):
    return {r["id"]: (r, f"x.jsonl:{i}") for i, r in enumerate(recs, 1)}


def test_pairs_by_id_and_skips_failed_or_spilled(twins):
    tma = "attention/tma-full/float16/b2h24n1024d64/"
    ptr = "attention/staged-full/float16/b2h24n1024d64/"
    descriptor = _index(
        _rec(tma + "m64n64w4s3", 110.0),
        _rec(tma + "m128n64w8s3", 120.0, spills=4),  # spilled: out
        _rec(tma + "m64n32w4s2", 100.0),  # no twin: out
        _rec("attention/tma-causal/float16/b2h24n1024d64/m64n64w4s3", 70.0),  # causal: not in the full pairs
    )
    pointer = _index(
        _rec(ptr + "m64n64w4s3", 100.0),
        _rec(ptr + "m128n64w8s3", 100.0),
        _rec(ptr + "m64n32w8s2", 90.0),
    )
    (pair,) = twins.pair(descriptor, pointer, causal=False)
    assert (pair.block_m, pair.block_n, pair.warps, pair.stages) == (64, 64, 4, 3)
    assert pair.ratio == pytest.approx(1.1)
    assert pair.where == "x.jsonl:1" and pair.twin_where == "x.jsonl:1"


def test_gap_per_step_by_hand(twins):
    # 16 x 48 = 768 programs, 1024 keys in blocks of 64: 16 steps each, 768 x 16 / 132 block-steps an SM;
    # 10 us more over them: 10e-6 x 132 / 12288 = 107.4 ns a step an SM
    tma = "attention/tma-full/float16/b2h24n1024d64/m64n64w4s3"
    descriptor = _index(_rec(tma, 110.0))
    pointer = _index(_rec(tma.replace("tma-full", "staged-full"), 100.0))
    (pair,) = twins.pair(descriptor, pointer, causal=False)
    assert pair.steps_per_block == 16
    assert pair.gap_per_sm_step_s() == pytest.approx(10e-6 * 132 / (768 * 16))


def test_causal_steps_are_the_mean_up_to_the_diagonal(twins):
    # 1024 rows in query blocks of 64: block i steps over (i + 1) key blocks of 64, mean (16 + 1) / 2
    tma = "attention/tma-causal/float16/b2h24n1024d64/m64n64w4s3"
    descriptor = _index(_rec(tma, 60.0))
    pointer = _index(_rec(tma.replace("tma-causal", "staged-causal"), 50.0))
    (pair,) = twins.pair(descriptor, pointer, causal=True)
    assert pair.steps_per_block == pytest.approx(8.5)
    # key blocks half the query block's rows: twice the steps
    tma = "attention/tma-causal/float16/b2h24n1024d64/m64n32w4s3"
    descriptor = _index(_rec(tma, 60.0))
    pointer = _index(_rec(tma.replace("tma-causal", "staged-causal"), 50.0))
    (pair,) = twins.pair(descriptor, pointer, causal=True)
    assert pair.steps_per_block == pytest.approx(17.0)


def test_by_stages_medians(twins):
    tma = "attention/tma-full/float16/b2h24n1024d64/"
    descriptor = _index(
        _rec(tma + "m64n64w4s2", 103.0), _rec(tma + "m64n64w8s2", 105.0), _rec(tma + "m64n64w4s3", 108.0)
    )
    pointer = _index(
        *(_rec(ident.replace("tma-full", "staged-full"), 100.0) for ident in (r for r in descriptor))
    )
    rows = twins.by_stages(twins.pair(descriptor, pointer, causal=False))
    assert rows[2] == {"pairs": 2, "measured": pytest.approx(1.04)}
    assert rows[3] == {"pairs": 1, "measured": pytest.approx(1.08)}


def test_an_id_without_a_config_is_named(twins):
    tma = "attention/tma-full/float16/b2h24n1024d64/odd"
    descriptor = _index(_rec(tma, 110.0))
    pointer = _index(_rec(tma.replace("tma-full", "staged-full"), 100.0))
    with pytest.raises(ValueError, match="x.jsonl:1.*odd"):
        twins.pair(descriptor, pointer, causal=False)

"""benchmarks/ncu_diag/tma_attn.py: the pairs of the descriptor-attention probe, read back on CPU."""

from __future__ import annotations

import json
import math

import pytest


@pytest.fixture(scope="module")
def probe(load_script):
    return load_script("benchmarks/ncu_diag/tma_attn.py")


def test_every_config_is_timed_with_both_kernels_under_distinct_names(probe):
    names = [probe.name(k, c) for c in probe.CONFIGS for k in probe.KERNELS]
    assert len(set(names)) == 2 * len(probe.CONFIGS)
    assert probe.name("tma", (False, 64, 128, 32, 8, 3)) == "tma-full/d64/m128n32w8s3"
    assert probe.name("staged", (True, 64, 64, 64, 4, 3)) == "staged-causal/d64/m64n64w4s3"


def test_pairs_divide_the_descriptor_kernel_by_its_twin_and_mark_what_is_missing(probe):
    first, second = probe.CONFIGS[:2]
    # validation 25's widest gap: 405.5 us against 348.5 -> 1.1636; the second config timed for one kernel
    timing = {
        probe.name("tma", first): 405.5,
        probe.name("staged", first): 348.5,
        probe.name("tma", second): 369.4,
    }
    rows = probe.pairs(timing)
    assert len(rows) == len(probe.CONFIGS)
    assert rows[0]["config"] == "full/d64/m128n32w8s3"
    assert rows[0]["ratio"] == pytest.approx(405.5 / 348.5)
    assert rows[1]["staged_us"] is None and math.isnan(rows[1]["ratio"])


def test_report_reads_a_run_without_its_ncu_pass(probe, tmp_path, capsys):
    c = probe.CONFIGS[0]
    lines = [{"case": probe.name(k, c), "p50_us": us, "p20_us": us, "p80_us": us} for k, us in
             (("tma", 405.5), ("staged", 348.5))]  # fmt: skip
    (tmp_path / "tma_attn_timing.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    assert probe.report(tmp_path) == 0
    out = capsys.readouterr().out
    assert "full/d64/m128n32w8s3" in out and "1.164" in out

"""benchmarks/score_autotune.py: the per-problem autotuning score, worked out by hand; the Triton reader."""

from __future__ import annotations

import json

import pytest
from _scripts import load_script

# named in sys.modules: its dataclasses look their module up by name
score_autotune = load_script("benchmarks/score_autotune.py", on_path=False, name="score_autotune")
Candidate = score_autotune.Candidate


def test_score_by_hand():
    # 40 configs: predicted (i + 1) us, measured 100 - i us, except config 1 measured 60 and config 39
    # (predicted slowest) measured fastest at 50 us. Top 5% of 40 = 2 configs (0 and 1): the best kept is 60,
    # 50 / 60 = 0.833; top-1 = config 0 measured 100 -> 0.5.
    cands = [Candidate(f"c{i}", (i + 1) * 1e-6, (100 - i) * 1e-6) for i in range(40)]
    cands[1] = Candidate("c1", 2e-6, 60e-6)
    cands[39] = Candidate("c39", 40e-6, 50e-6)
    s = score_autotune.score_problem("p", cands, 0.05)
    assert (s.k, s.n_measured, s.n_predicted) == (2, 40, 40)
    assert s.topk_ratio == pytest.approx(50 / 60)
    assert s.top1_ratio == pytest.approx(0.5)
    assert (s.best_config, s.top1_config) == ("c39", "c0")


def test_refused_and_unmeasured_configs():
    # c0 refused by the model (never kept) but measured fastest (10 us): the exhaustive best is still 10.
    # Of the predicted (c1 1 us, c2 2 us, c3 3 us) the top 34% keeps int(3 x 0.34) = 1: c1, not measured on
    # the GPU, so the top-k has no timing (ratio 0) and the top-1 has none either.
    cands = [
        Candidate("c0", None, 10e-6, "refused: ... cannot launch"),
        Candidate("c1", 1e-6, None),
        Candidate("c2", 2e-6, 20e-6),
        Candidate("c3", 3e-6, 40e-6),
    ]
    s = score_autotune.score_problem("p", cands, 0.34)
    assert s.k == 1 and s.topk_ratio == 0.0 and s.top1_ratio == 0.0 and s.unpredicted == 0
    # top 67% keeps int(3 x 0.67) = 2: c1 (no timing) and c2 (20 us): 10 / 20 = 0.5
    assert score_autotune.score_problem("p", cands, 0.67).topk_ratio == pytest.approx(0.5)
    # fewer than MIN_CONFIGS measured: not an autotuning problem
    assert score_autotune.score_problem("p", cands[:2], 0.5) is None


def test_table_has_one_row_per_problem_and_a_summary():
    cands = [Candidate(f"c{i}", (i + 1) * 1e-6, (i + 1) * 1e-6) for i in range(4)]
    s = score_autotune.score_problem("gemm/x", cands, 0.05)
    lines = score_autotune.format_table([s], 0.05).splitlines()
    assert lines[2].split()[:6] == ["gemm/x", "4", "4", "1", "1.000", "1.000"]
    assert lines[-2].split()[:5] == ["all", "mean", "top-5%", "ratio", "1.000"]
    assert lines[-1].startswith("gemm/")


def test_diagnostics_and_summary():
    # 3 configs predicted c0 < c1 < c2, measured 30, 10, 20 us: the measured best (c1) is predicted 2nd;
    # the top-1 (c0) spilled 64 bytes on the GPU. top-1 ratio 10 / 30 = 1/3, top-k (1 of 3) the same.
    cands = [
        Candidate("c0", 1e-6, 30e-6, gpu_spills=64),
        Candidate("c1", 2e-6, 10e-6, gpu_spills=0),
        Candidate("c2", 3e-6, 20e-6),
    ]
    s = score_autotune.score_problem("gemm/x", cands, 0.05)
    assert (s.best_predicted_rank, s.top1_gpu_spills) == (2, 64)
    exact = [Candidate(f"c{i}", i * 1e-6, i * 1e-6) for i in (1, 2, 3)]
    ok = score_autotune.score_problem("gemm/y", exact, 1.0)
    sm = score_autotune.summary([s, ok])
    # mean top-k (1/3 + 1) / 2 = 2/3, worst top-1 1/3: neither target is met
    assert sm["mean_topk_ratio"] == pytest.approx(2 / 3) and sm["worst_top1_ratio"] == pytest.approx(1 / 3)
    assert not sm["topk_target_met"] and not sm["top1_target_met"]
    assert score_autotune.summary([ok])["top1_target_met"]


def test_triton_reader_predicts_each_record(tmp_path):
    pytest.importorskip("triton")
    m = n = k = 1024

    def rec(bm, bn, bk, warps, stages, status, p50):
        t = {"dtype": "float16", "init": "randn"}
        tiles = (m // bm) * (n // bn)
        return {
            "id": f"gemm/grouped/float16/sq1024/m{bm}n{bn}k{bk}w{warps}s{stages}g8",
            "family": "gemm",
            "kernel": "kernels.triton.gemm:matmul_kernel",
            "grid": [tiles],
            "args": [
                {"tensor": {**t, "shape": [m, k], "strides": [k, 1]}},
                {"tensor": {**t, "shape": [k, n], "strides": [n, 1]}},
                {"tensor": {**t, "shape": [m, n], "strides": [n, 1]}},
                *({"scalar": v} for v in (m, n, k, k, 1, n, 1, n, 1)),
            ],
            "constexprs": {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8},
            "num_warps": warps,
            "num_stages": stages,
            "problem": {"op": "gemm", "M": m, "N": n, "K": k, "dtype": "float16", "variant": "grouped"},
            "split": "main",
            "status": status,
            "reason": "" if status == "ok" else "cannot launch: out of resources",
            "measured_us": {"p50": p50, "p20": p50, "p80": p50} if status == "ok" else None,
        }

    rows = [
        rec(128, 128, 64, 4, 3, "ok", 12.0),
        rec(64, 64, 32, 4, 2, "ok", 20.0),
        rec(256, 256, 64, 4, 5, "skipped", None),  # 327680 B of shared memory: refused by both
    ]
    path = tmp_path / "triton_gemm.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    problems = score_autotune.triton_problems(path, "h200", "")
    ((name, cands),) = problems.items()
    assert name == "gemm/grouped/float16/sq1024"
    assert [c.measured_s for c in cands] == [pytest.approx(12e-6), pytest.approx(20e-6), None]
    assert cands[0].predicted_s < cands[1].predicted_s and cands[2].predicted_s is None
    assert cands[2].note.startswith("refused") and "gpu skipped" in cands[2].note


def test_candidate_rows_order_and_ratios():
    # c0 refused, measured 10 us (the best); c1 predicted 2 us measured 30; c2 predicted 1 us measured 20:
    # order c2, c1, then c0 (refused, no rank); c2 measured / predicted = 20, measured / best = 2.
    cands = [
        Candidate("c0", None, 10e-6, "refused"),
        Candidate("c1", 2e-6, 30e-6),
        Candidate("c2", 1e-6, 20e-6, gpu_spills=8),
    ]
    rows = score_autotune.candidate_rows("p", cands)
    assert [r["config"] for r in rows] == ["c2", "c1", "c0"]
    assert [r["predicted_rank"] for r in rows] == [1, 2, None]
    assert rows[0]["measured_over_predicted"] == pytest.approx(20.0)
    assert rows[0]["measured_over_best"] == pytest.approx(2.0) and rows[0]["gpu_spills"] == 8
    assert rows[2]["measured_over_predicted"] is None and rows[2]["measured_over_best"] == pytest.approx(1.0)

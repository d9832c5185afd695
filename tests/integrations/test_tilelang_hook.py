"""TileLang hook: a configs= callable returning the predicted top-k, and pruning an AutoTuner's configs."""

from __future__ import annotations

import pytest

from tilesight.integrations.rank import RankError
from tilesight.integrations.tilelang_hook import PredictedConfigs, TileLangHookError, prune_autotuner

pytestmark = pytest.mark.tilelang

# 256x256x128 with 4 stages: 4 x (256x128 + 128x256) x 2 B = 524288 B of operand buffers, far beyond the
# H200's 232448 B per block, so it is refused whatever the model predicts.
CANDIDATES = [
    {"block_M": 64, "block_N": 64, "block_K": 32, "num_stages": 2, "threads": 128},
    {"block_M": 256, "block_N": 256, "block_K": 128, "num_stages": 4, "threads": 128},
    {"block_M": 128, "block_N": 256, "block_K": 64, "num_stages": 3, "threads": 256},
]


@pytest.fixture(scope="module")
def gemm():
    pytest.importorskip("tilelang")
    from tilesight.kernels.tilelang.gemm import gemm

    return gemm


def test_configs_callable_returns_the_predicted_top_k(gemm):
    pick = PredictedConfigs(CANDIDATES, top_k=1.0, hw="h200")
    assert pick.program(gemm) is gemm
    # AutoTuner.run calls configs(*call_args, **call_kwargs)
    kept = pick(4096, 4096, 4096)
    assert CANDIDATES[1] not in kept and len(kept) == 2
    # at 4096^3 the 128x256 tile moves half the operand bytes per FLOP of 64x64: predicted first
    assert kept[0] == CANDIDATES[2]
    assert PredictedConfigs(CANDIDATES, top_k=1, hw="h200", program=gemm)(4096, 4096, 4096) == [kept[0]]


def test_prune_autotuner_sets_the_configs_before_compiling(gemm):
    from tilelang.autotuner import AutoTuner

    def program(**config):
        return gemm(2048, 2048, 2048, **config)

    tuner = AutoTuner.from_kernel(kernel=program, configs=list(CANDIDATES))
    assert prune_autotuner(tuner, top_k=1, hw="h200") is tuner
    assert tuner.configs == PredictedConfigs(CANDIDATES, top_k=1, program=gemm)(2048, 2048, 2048)


def test_hook_errors_are_typed(gemm):
    with pytest.raises(TileLangHookError, match="at least one"):
        PredictedConfigs([])
    with pytest.raises(TileLangHookError, match="no program bound"):
        PredictedConfigs(CANDIDATES)(1024, 1024, 1024)
    with pytest.raises(RankError, match="top_k"):
        PredictedConfigs(CANDIDATES, top_k=0)
    with pytest.raises(TileLangHookError, match="no TileLang config can launch"):
        PredictedConfigs([CANDIDATES[1]], program=gemm)(1024, 1024, 1024)

    class Tuner:
        fn = staticmethod(gemm)
        configs = staticmethod(lambda *a: [])

    with pytest.raises(TileLangHookError, match="callable"):
        prune_autotuner(Tuner())


def test_estimate_of_an_autotuned_kernel_is_its_predicted_best(gemm):
    import tilelang

    import tilesight
    from tilesight.integrations.rank import rank

    @tilelang.autotune(configs=CANDIDATES)
    @tilelang.jit(out_idx=[-1])
    def tuned(M, N, K, block_M=64, block_N=64, block_K=32, num_stages=2, threads=128):
        return gemm(M, N, K, block_M, block_N, block_K, num_stages, threads)

    r = tilesight.estimate(tuned, 2048, 2048, 2048, hw="h200")
    ranking = rank(tuned.jit_impl, CANDIDATES, None, 2048, 2048, 2048, hw="h200", on_error="refuse")
    # the oversized config cannot launch; the report is the fastest of the other two, which it names
    assert r.extras["config"] == ranking.best.config and r.extras["config"] != CANDIDATES[1]
    assert r.latency_s == pytest.approx(ranking.best.report.latency_s)
    assert r.latency_s == pytest.approx(min(x.latency_s for x in ranking.ranked))


def test_a_parameter_the_call_fixes_is_not_tuned(gemm):
    import tilelang

    import tilesight

    @tilelang.autotune(configs=CANDIDATES)
    @tilelang.jit(out_idx=[-1])
    def tuned(M, N, K, block_M=64, block_N=64, block_K=32, num_stages=2, threads=128):
        return gemm(M, N, K, block_M, block_N, block_K, num_stages, threads)

    r = tilesight.estimate(tuned, 2048, 2048, 2048, block_M=128, hw="h200")
    assert "block_M" not in r.extras["config"]
    assert r.extras["config"] in [{k: v for k, v in c.items() if k != "block_M"} for c in CANDIDATES]


def test_launch_values_reach_the_built_program():
    # a varlen kernel's builder takes the sizes of its packed tensors; the offsets and the longest sequence
    # are the kernel call's, given once to the configs callable as ``launch``
    pytest.importorskip("tilelang")
    import numpy as np
    from tilesight.kernels.tilelang.flash_attention import flash_attention_varlen_fwd

    lens = [300, 2000, 77]
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    cands = [
        {"block_M": 64, "block_N": 64, "num_stages": 1, "threads": 128},
        {"block_M": 128, "block_N": 128, "num_stages": 2, "threads": 256},
    ]
    launch = {"cu_seqlens_q": cu, "cu_seqlens_k": cu, "max_seqlen_q": max(lens)}
    pick = PredictedConfigs(cands, top_k=1.0, hw="h200", program=flash_attention_varlen_fwd, launch=launch)
    total = int(cu[-1])
    ranking = pick.ranking(len(lens), total, total, 8, 64)
    assert len(ranking.ranked) == 2 and not ranking.refused
    without = PredictedConfigs(cands, top_k=1.0, hw="h200", program=flash_attention_varlen_fwd)
    with pytest.raises(RankError, match="leaves max_seqlen_q"):
        without.ranking(len(lens), total, total, 8, 64)

"""Triton pruning: the same configs are benchmarked on Triton 3.8 and 3.9 semantics (both restated, and the
installed Triton's own autotuner against its version's), never an empty list."""

from __future__ import annotations

import pytest
from autotune_fakes import fake_ranking, make_configs
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesight.integrations import autotune as at
from tilesight.integrations.rank import RankError

triton = pytest.importorskip("triton")
tl = pytest.importorskip("triton.language")


@triton.jit
def _copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def _prune_restated(configs, nargs, kwargs, prune_configs_by, *, of_pruned):
    """Autotuner.prune_configs, restated: ``early_config_prune``, then, only when a ``perf_model`` is given,
    the ``top_k`` fastest by it, a float ``top_k`` being a fraction of the unpruned list (3.6-3.8: int() may
    round it to zero) or, ``of_pruned``, of the pruned list and at least one config (3.9)."""
    early = prune_configs_by.get("early_config_prune")
    perf_model = prune_configs_by.get("perf_model")
    top_k = prune_configs_by.get("top_k", 1.0)
    pruned = early(configs, nargs, **kwargs) if early else configs
    if perf_model:
        if isinstance(top_k, float) and top_k <= 1.0:
            top_k = max(1, int(len(pruned) * top_k)) if of_pruned else int(len(configs) * top_k)
        if len(pruned) > top_k:
            timing = {c: perf_model(**nargs, **kwargs, **c.all_kwargs()) for c in pruned}
            pruned = sorted(timing, key=timing.get)[:top_k]
    return pruned


def prune_like_triton_38(configs, nargs, kwargs, prune_configs_by):
    """Triton 3.6-3.8's Autotuner.prune_configs, restated."""
    return _prune_restated(configs, nargs, kwargs, prune_configs_by, of_pruned=False)


def prune_like_triton_39(configs, nargs, kwargs, prune_configs_by):
    """Triton 3.9's Autotuner.prune_configs, restated."""
    return _prune_restated(configs, nargs, kwargs, prune_configs_by, of_pruned=True)


def installed_rule():
    """The restated rule the installed Triton's own autotuner follows (3.6-3.8: 3.8's, 3.9 on: 3.9's)."""
    version = tuple(int(x) for x in triton.__version__.split(".")[:2])
    return prune_like_triton_39 if version >= (3, 9) else prune_like_triton_38


def prune_with_installed_triton(configs, nargs, kwargs, prune_configs_by):
    """The installed Triton's own Autotuner.prune_configs."""
    tuner = triton.autotune(configs, key=["n"], prune_configs_by=prune_configs_by)(_copy)
    tuner.nargs = nargs
    return tuner.prune_configs(kwargs)


def _pruner(monkeypatch, latencies, configs, top_k):
    monkeypatch.setattr(at, "rank", lambda *a, **k: fake_ranking(latencies, configs))
    pruner = at.Pruner(hw="h200", top_k=top_k)
    pruner.kernel(_copy)
    return pruner


NARGS = {"x_ptr": None, "y_ptr": None, "n": 4096}
KWARGS = {"grid": (1,), "warmup": False}


@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    n=st.integers(1, 30),
    top_k=st.one_of(st.integers(1, 40), st.floats(0.01, 1.0)),
)
def test_same_list_on_38_and_39_and_never_empty(data, n, top_k):
    configs = make_configs(n)
    launchable = data.draw(st.lists(st.booleans(), min_size=n, max_size=n).filter(any))
    # distinct predicted latencies: config i takes (n - i) us when it can launch, so the last is fastest
    latencies = {i: (n - i) * 1e-6 if ok else None for i, ok in enumerate(launchable)}
    with pytest.MonkeyPatch.context() as mp:
        pruner = _pruner(mp, latencies, configs, top_k)
        old = prune_like_triton_38(configs, NARGS, KWARGS, pruner.prune_configs_by)
        new = prune_like_triton_39(configs, NARGS, KWARGS, pruner.prune_configs_by)
        real = prune_with_installed_triton(configs, NARGS, KWARGS, pruner.prune_configs_by)
    fastest_first = [configs[i] for i in sorted((i for i in latencies if latencies[i]), key=latencies.get)]
    k = top_k if isinstance(top_k, int) else max(1, int(len(fastest_first) * top_k))
    assert old == new == real == fastest_first[:k]
    assert len(new) >= 1


def test_triton_top_k_alone_differs_between_versions(monkeypatch):
    """Why top_k lives inside early_config_prune: 20 configs, 2 launchable, top_k=0.05 through Triton's own
    perf_model branch keeps int(20 * 0.05) = 1 config on 3.8 but max(1, int(2 * 0.05)) = 1 on 3.9; with
    top_k=0.04 3.8 keeps int(0.8) = 0 configs (an empty list) while 3.9 keeps 1."""
    configs = make_configs(20)
    latencies = {i: (i + 1) * 1e-6 if i < 2 else None for i in range(20)}
    pruner = _pruner(monkeypatch, latencies, configs, 1.0)
    naive = {
        "early_config_prune": pruner.early_config_prune,
        "perf_model": lambda **kw: kw["BLOCK"],
        "top_k": 0.04,
    }
    assert prune_like_triton_38(configs, NARGS, KWARGS, naive) == []
    assert len(prune_like_triton_39(configs, NARGS, KWARGS, naive)) == 1
    # the installed Triton's own autotuner does what its version's restated rule says
    assert prune_with_installed_triton(configs, NARGS, KWARGS, naive) == installed_rule()(
        configs, NARGS, KWARGS, naive
    )
    ours = _pruner(monkeypatch, latencies, configs, 0.04).prune_configs_by
    assert prune_like_triton_38(configs, NARGS, KWARGS, ours) == [configs[0]]
    assert prune_like_triton_39(configs, NARGS, KWARGS, ours) == [configs[0]]
    assert prune_with_installed_triton(configs, NARGS, KWARGS, ours) == [configs[0]]


def test_old_hook_signature_without_kwargs_uses_the_pruners_grid(monkeypatch):
    """Triton before 3.0 called early_config_prune(configs, named_args) with no launch kwargs."""
    configs = make_configs(3)
    monkeypatch.setattr(at, "rank", lambda *a, **k: fake_ranking({0: 3e-6, 1: 1e-6, 2: 2e-6}, configs))
    pruner = at.Pruner(hw="h200", top_k=2, grid=(4,))
    pruner.kernel(_copy)
    assert pruner.early_config_prune(configs, NARGS) == [configs[1], configs[2]]
    gridless = at.Pruner(hw="h200")
    gridless.kernel(_copy)
    with pytest.raises(at.AutotuneError, match="no grid"):
        gridless.early_config_prune(configs, NARGS)


def test_errors_are_typed(monkeypatch):
    configs = make_configs(2)
    with pytest.raises(at.AutotuneError, match="no kernel bound"):
        at.Pruner(hw="h200").early_config_prune(configs, NARGS, **KWARGS)
    pruner = _pruner(monkeypatch, {0: None, 1: None}, configs, 1)
    with pytest.raises(at.AutotuneError, match="no config can launch"):
        pruner.early_config_prune(configs, NARGS, **KWARGS)
    for bad in (0, -1, 0.0, 1.5, True, "3"):
        with pytest.raises(RankError, match="top_k"):
            at.Pruner(hw="h200", top_k=bad)
    with pytest.raises(at.AutotuneError, match="mode"):
        at.autotune(configs, ["n"], mode="fast")


def test_gpu_detection_is_lazy_and_replaceable(monkeypatch):
    configs = make_configs(2)
    calls = []
    ranking = fake_ranking({0: 1.0}, configs)
    monkeypatch.setattr(at, "rank", lambda *a, hw, **k: calls.append(hw.name) or ranking)
    pruner = at.Pruner(top_k=1, detect=lambda: calls.append("detect") or "h100")
    assert calls == []  # nothing detected when built
    pruner.kernel(_copy)
    pruner.early_config_prune(configs, NARGS, **KWARGS)
    assert calls == ["detect", "h100"]


def test_match_profile_by_device_name():
    assert at.match_profile("NVIDIA H200") == "h200"
    assert at.match_profile("NVIDIA H100 80GB HBM3") == "h100"
    assert at.match_profile("NVIDIA RTX PRO 6000 Blackwell Server Edition") == "rtx_pro_6000"
    with pytest.raises(at.AutotuneError, match="pass hw="):
        at.match_profile("NVIDIA GeForce RTX 4090")


class _RecordingKernel:
    """A stand-in for a JIT kernel that records every launch (grid, arguments, keywords) in ``launches``."""

    arg_names = ["x_ptr", "y_ptr", "n", "BLOCK"]

    def __init__(self, launches: list) -> None:
        self.launches = launches

    def __getitem__(self, grid):
        return lambda *args, **kw: self.launches.append((grid, args, kw))


def test_predict_mode_launches_the_predicted_best_once_per_key(monkeypatch):
    configs = make_configs(3)
    ranked = []
    monkeypatch.setattr(
        at, "rank", lambda *a, **k: ranked.append(1) or fake_ranking({0: 3e-6, 1: 1e-6, 2: 2e-6}, configs)
    )
    launches = []
    kernel = at.autotune(configs, key=["n"], hw="h200", mode="predict")(_RecordingKernel(launches))
    kernel[(8,)](None, None, 4096)
    kernel[(8,)](None, None, 4096)
    kernel[(8,)](None, None, 8192)
    assert len(ranked) == 2  # one prediction per distinct key (n=4096, n=8192)
    assert launches[0] == ((8,), (None, None, 4096), configs[1].all_kwargs())
    assert all(kw["BLOCK"] == 32 for _, _, kw in launches)  # configs[1] has BLOCK = 16 * 2


def test_predict_mode_runs_the_chosen_configs_pre_hook_before_launching(monkeypatch):
    # the launch runs on real tensors: the hook sees the arguments by name, the launch's keywords and the
    # config's, and what it raises is not swallowed (a prediction over TensorSpecs passes data errors over)
    seen = []
    configs = [triton.Config({"BLOCK": 64}, num_warps=4, pre_hook=seen.append)]
    monkeypatch.setattr(at, "rank", lambda *a, **k: fake_ranking({0: 1e-6}, configs))
    launches = []
    kernel = at.autotune(configs, key=["n"], hw="h200", mode="predict")(_RecordingKernel(launches))
    kernel[(8,)]("x", "y", 4096)
    assert len(seen) == 1 and launches
    assert {"x_ptr": "x", "y_ptr": "y", "n": 4096, "BLOCK": 64, "num_warps": 4}.items() <= seen[0].items()

    def broken(nargs):
        raise TypeError("the hook failed")

    configs[0].pre_hook = broken
    with pytest.raises(TypeError, match="the hook failed"):
        kernel[(8,)]("x", "y", 4096)


def test_prune_mode_builds_a_triton_autotuner_with_our_hook():
    configs = make_configs(4)
    tuner = at.autotune(configs, key=["n"], hw="h200", top_k=2)(_copy)
    assert type(tuner).__name__ == "Autotuner"
    assert tuner.early_config_prune is not None and tuner.perf_model is None


def test_real_gemm_prune_removes_the_config_beyond_shared_memory():
    """Compiles three GEMM configs to TTGIR. 256x256x64 with 5 stages needs 5 x (256x64 + 64x256) x 2 B =
    327680 B of shared memory > the H200's 232448 B per block, so it is never kept; top_k=1.0 keeps both
    others, predicted order first; the perf_model agrees with the ranking."""
    from tilesight.kernels.triton.gemm import matmul_kernel

    from tilesight import TensorSpec

    m = n = k = 1024
    a, b, c = (TensorSpec((m, k), "float16"), TensorSpec((k, n), "float16"), TensorSpec((m, n), "float16"))
    configs = [
        triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8}, num_warps=4, num_stages=s)
        for bm, bn, bk, s in ((64, 64, 32, 2), (256, 256, 64, 5), (128, 128, 64, 3))
    ]
    pruner = at.Pruner(hw="h200", top_k=1.0)
    tuner = triton.autotune(configs, key=["M"], prune_configs_by=pruner.prune_configs_by)(
        pruner.kernel(matmul_kernel)
    )
    tuner.nargs = dict(zip(tuner.arg_names, (a, b, c, m, n, k, k, 1, n, 1, n, 1), strict=False))

    def grid(meta):
        return (triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"]),)

    kept = tuner.prune_configs({"grid": grid, "warmup": False})
    assert configs[1] not in kept and len(kept) == 2
    times = [pruner.perf_model(**tuner.nargs, grid=grid, **cfg.all_kwargs()) for cfg in kept]
    assert times == sorted(times) and all(t > 0 for t in times)


def test_a_real_autotuner_launch_is_pruned_and_logged():
    """Triton's own Autotuner.run (the installed version) with our early_config_prune: 6 configs, top_k=2, so
    Triton benchmarks 2 (the listener sees both, each with its prediction); the interpreted launch is right.
    With equal fake timings Triton keeps the first benchmarked, the predicted best, as predict mode picks."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    pytest.importorskip("torch")
    triton = pytest.importorskip("triton")
    if not hasattr(getattr(getattr(triton, "knobs", None), "autotuning", None), "listener"):
        pytest.skip(f"triton {triton.__version__} has no autotuning listener (3.9 added it)")
    script = Path(__file__).with_name("interpreted_autotune.py")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["benchmarked"] == 2 and result["predicted_rows"] == 2
    assert result["correct"]
    assert result["chosen"] == result["predict_mode_choice"]


def test_predict_mode_checks_its_key_names():
    with pytest.raises(at.AutotuneError, match="not arguments"):
        at.autotune(make_configs(2), key=["N"], hw="h200", mode="predict")(_copy)


def test_keep_mode_benchmarks_unpredicted_configs_after_the_top_k(monkeypatch):
    """on_error="keep": a config the model could not predict (not a launch refusal) is benchmarked after the
    predicted top-k; one that cannot launch is still removed."""
    from tilesight.integrations.rank import RankedConfig, Ranking

    configs = make_configs(4)
    base = fake_ranking({0: 2e-6, 1: 1e-6, 2: None}, configs)
    unpredicted = RankedConfig(configs[3], refused="UnsupportedOpError: tt.foo")
    ranking = Ranking(base.ranked, (*base.refused, unpredicted), 0.0, 0.0)
    seen = {}
    monkeypatch.setattr(at, "rank", lambda *a, on_error, **k: seen.setdefault("mode", on_error) and ranking)
    pruner = at.Pruner(hw="h200", top_k=1, on_error="keep")
    pruner.kernel(_copy)
    assert pruner.early_config_prune(configs, NARGS, **KWARGS) == [configs[1], configs[3]]
    assert seen["mode"] == "refuse"

"""tilesight.rank: ordering, refusals, top-k counting and errors."""

from __future__ import annotations

import pytest
from autotune_fakes import fake_ranking
from hypothesis import given, settings
from hypothesis import strategies as st

import tilesight
from tilesight.integrations.rank import RankedConfig, RankError, config_kwargs, describe, rank, top_count


def test_top_count_by_hand():
    # ints are counts capped at n; floats are fractions of n rounded down, at least one
    assert top_count(3, 10) == 3
    assert top_count(30, 10) == 10
    assert top_count(0.05, 82) == 4  # int(4.1)
    assert top_count(0.05, 10) == 1  # int(0.5) = 0 -> at least one
    assert top_count(1.0, 7) == 7
    assert top_count(0.5, 0) == 0


@settings(max_examples=80, deadline=None)
@given(n=st.integers(1, 200), top_k=st.one_of(st.integers(1, 300), st.floats(1e-6, 1.0)))
def test_top_count_keeps_between_one_and_n(n, top_k):
    assert 1 <= top_count(top_k, n) <= n


@settings(max_examples=40, deadline=None)
@given(
    latencies=st.lists(st.one_of(st.none(), st.floats(1e-7, 1e-2)), min_size=1, max_size=30),
    top_k=st.one_of(st.integers(1, 40), st.floats(1e-3, 1.0)),
)
def test_top_is_fastest_first_and_never_empty(latencies, top_k):
    configs = [{"BLOCK": i} for i in range(len(latencies))]
    ranking = fake_ranking(dict(enumerate(latencies)), configs)
    if all(t is None for t in latencies):
        with pytest.raises(RankError, match="no config can launch"):
            ranking.top(top_k)
        return
    top = ranking.top(top_k)
    assert 1 <= len(top) <= sum(t is not None for t in latencies)
    times = [latencies[c["BLOCK"]] for c in top]
    assert times == sorted(times)
    assert min(times) == min(t for t in latencies if t is not None)


def test_ranked_config_has_a_report_or_a_reason():
    with pytest.raises(RankError):
        RankedConfig({"a": 1})
    assert RankedConfig({"a": 1}, refused="too big").latency_s == float("inf")


def test_no_launchable_config_names_each_reason_once():
    # a config the call fixes entirely ({}: an autotuned kernel called with every tuned parameter) has no text
    # of its own: its reason alone, not ": reason"
    ranking = fake_ranking({0: None, 1: None}, [{"BLOCK": 64}, {}])
    with pytest.raises(RankError) as err:
        _ = ranking.best
    assert str(err.value) == (
        "no config can launch: BLOCK=64: smem over the limit: the kernel cannot launch; "
        "smem over the limit: the kernel cannot launch"
    )


def test_config_kwargs_and_describe():
    assert config_kwargs({"BLOCK": 64, "num_warps": 4}) == {"BLOCK": 64, "num_warps": 4}
    assert describe({"BLOCK": 64, "num_warps": 4}) == "BLOCK=64, num_warps=4"
    with pytest.raises(RankError, match="triton.Config or a dict"):
        config_kwargs(42)


def test_bad_input_is_refused_loudly():
    with pytest.raises(RankError, match="at least one config"):
        rank(lambda **kw: None, [], None)
    with pytest.raises(RankError, match="on_error"):
        rank(lambda **kw: None, [{}], None, on_error="ignore")
    with pytest.raises(RankError, match="workers"):
        rank(lambda **kw: None, [{}], None, workers=0)
    with pytest.raises(RankError, match="grid=None"):
        rank(lambda **kw: None, [{}], (1,))


def test_importing_tilesight_does_not_import_triton_and_rank_is_lazy():
    import subprocess
    import sys

    code = "import sys, tilesight; tilesight.rank; print('triton' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_real_gemm_ranking():
    """Three fp16 GEMM configs at M = N = K = 1024, compiled to TTGIR for sm_90. 256x256x64 with 5 stages
    needs 5 x (256x64 + 64x256) x 2 B = 327680 B of shared memory > 232448 B: refused, not ranked. Of the two
    others the 128x128 tile (64 blocks, 4 x fewer operand bytes per FLOP than 64x64) is predicted faster."""
    triton = pytest.importorskip("triton")
    from tilesight.kernels.triton.gemm import matmul_kernel

    from tilesight import TensorSpec

    m = n = k = 1024
    a, b, c = (TensorSpec((m, k), "float16"), TensorSpec((k, n), "float16"), TensorSpec((m, n), "float16"))
    configs = [
        triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8}, num_warps=4, num_stages=s)
        for bm, bn, bk, s in ((64, 64, 32, 2), (256, 256, 64, 5), (128, 128, 64, 3))
    ]

    def grid(meta):
        return (triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"]),)

    ranking = tilesight.rank(matmul_kernel, configs, grid, a, b, c, m, n, k, k, 1, n, 1, n, 1, hw="h200")
    assert ranking.configs() == [configs[2], configs[0]]
    assert [r.config for r in ranking.refused] == [configs[1]]
    assert ranking.refused[0].cannot_launch and "327680" in ranking.refused[0].refused
    assert ranking.best.report.occupancy.blocks == 64  # (1024 / 128) ** 2
    assert ranking.frontend_s > 0 and ranking.model_s > 0
    # two forked workers (they inherit the compile cache) give the same ranking and the same reports
    forked = tilesight.rank(matmul_kernel, configs, grid, a, b, c, m, n, k, k, 1, n, 1, n, 1, workers=2)
    assert forked.configs() == ranking.configs() and forked.refused == ranking.refused
    assert [r.report.latency_s for r in forked.ranked] == [r.report.latency_s for r in ranking.ranked]
    table = ranking.format_table()
    assert "refused" in table and table.splitlines()[1].lstrip().startswith("1")


# Run in a fresh interpreter where scipy, rich and libcst cannot be imported (as on a GPU host that has only
# torch, triton and numpy): ranking works, and each optional path names its missing package.
_WITHOUT_OPTIONAL = """
import json, sys

torch_importer = []

class _Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("scipy", "rich", "libcst"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        if name == "torch" and not torch_importer:
            frame = sys._getframe(1)
            while frame is not None and frame.f_globals.get("__name__", "").startswith("importlib"):
                frame = frame.f_back
            # the importing code's module; code Triton generates (its argument binder) has no module name
            # but its namespace holds Triton's own functions
            g = frame.f_globals if frame is not None else {}
            owners = {getattr(v, "__module__", None) or "" for v in g.values() if callable(v)}
            name = g.get("__name__") or next((o for o in sorted(owners) if o.startswith("triton")), "?")
            torch_importer.append(name)
        return None

sys.meta_path.insert(0, _Block())
import triton
import tilesight
from tilesight import TensorSpec
from tilesight.errors import MissingDependencyError
from tilesight.kernels.triton.gemm import matmul_kernel

m = n = k = 1024
a, b, c = TensorSpec((m, k), "float16"), TensorSpec((k, n), "float16"), TensorSpec((m, n), "float16")
configs = [
    triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8}, num_warps=4, num_stages=s)
    for bm, bn, bk, s in ((64, 64, 32, 2), (128, 128, 64, 3))
]
grid = lambda meta: (triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"]),)
ranking = tilesight.rank(matmul_kernel, configs, grid, a, b, c, m, n, k, k, 1, n, 1, n, 1, workers=2)
missing = {}
from tilesight.cache.sdcm import hit_probability
for label, attempt in (
    ("exact", lambda: hit_probability(100.0, 64.0, 16, "exact")),
    ("render", lambda: ranking.best.report.__rich__()),
    ("source", lambda: __import__("tilesight.frontends.source")),
):
    try:
        attempt()
    except MissingDependencyError as exc:
        missing[label] = [exc.package, str(exc)]
print(json.dumps({
    "latency_s": {r.config.kwargs["BLOCK_M"]: r.report.latency_s for r in ranking.ranked},
    "missing": missing,
    "loaded": sorted({x.split(".")[0] for x in sys.modules} & {"scipy", "rich", "libcst", "torch"}),
    "torch_importer": torch_importer[0] if torch_importer else None,
}))
"""


def test_ranking_needs_neither_scipy_nor_rich_nor_libcst():
    """Pins the GPU-host failure: ``tilesight.cache.sdcm`` imported scipy at module level, so ranking on a
    host with only torch, triton and numpy failed. The same two configs as test_real_gemm_ranking, predicted
    in the blocked interpreter (two forked workers), give the very same latencies as here."""
    triton = pytest.importorskip("triton")
    import json
    import subprocess
    import sys

    from tilesight.kernels.triton.gemm import matmul_kernel

    from tilesight import TensorSpec

    out = subprocess.run(
        [sys.executable, "-c", _WITHOUT_OPTIONAL], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    # torch only where Triton itself imports it: Triton 3.6's argument binder asks its CUDA driver for the
    # torch device; 3.9's does not, and TileSight never does
    importer = got["torch_importer"]
    assert importer is None or importer.split(".")[0] == "triton", importer
    assert got["loaded"] == (["torch"] if importer else [])
    assert {label: package for label, (package, _) in got["missing"].items()} == {
        "exact": "scipy",
        "render": "rich",
        "source": "libcst",
    }
    assert "form='exact'" in got["missing"]["exact"][1]
    m = n = k = 1024
    a, b, c = (TensorSpec((m, k), "float16"), TensorSpec((k, n), "float16"), TensorSpec((m, n), "float16"))
    configs = [
        triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8}, num_warps=4, num_stages=s)
        for bm, bn, bk, s in ((64, 64, 32, 2), (128, 128, 64, 3))
    ]

    def grid(meta):
        return (triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"]),)

    here = tilesight.rank(matmul_kernel, configs, grid, a, b, c, m, n, k, k, 1, n, 1, n, 1)
    assert got["latency_s"] == {str(r.config.kwargs["BLOCK_M"]): r.report.latency_s for r in here.ranked}


def test_warm_imports_imports_the_modules_this_installation_has(monkeypatch):
    import sys

    from tilesight.integrations import rank as rank_mod

    monkeypatch.setitem(rank_mod.WARM_MODULES, "model", ("json", "tilesight_no_such_module"))
    rank_mod.warm_imports("model")  # the missing name is skipped: warming is an optimisation only
    assert "json" in sys.modules and "tilesight_no_such_module" not in sys.modules


def test_forked_ranking_warms_the_model_once_in_the_parent(monkeypatch):
    """Regression: each forked worker imported the model (and, before it was lazy, scipy) itself, about
    0.25 s (2.8 s with scipy) of CPU per worker; the parent now imports it once before forking."""
    from tilesight.errors import LaunchError
    from tilesight.integrations import rank as rank_mod

    warmed = []
    monkeypatch.setattr(rank_mod, "warm_imports", warmed.append)

    def build(cfg):
        raise LaunchError("smem_bytes", cfg["smem"], 100, "test-gpu")

    monkeypatch.setattr(rank_mod, "plan_builder", lambda *a: build)
    configs = [{"smem": 200}, {"smem": 300}]
    ranking = rank(lambda **kw: None, configs, None, workers=2)
    assert warmed == ["model"]  # not "triton": the kernel is not a @triton.jit function
    assert [r.config for r in ranking.refused] == configs and all(r.cannot_launch for r in ranking.refused)
    warmed.clear()
    rank(lambda **kw: None, configs, None, workers=1)
    assert warmed == []  # one process: the model is imported where it is first used, as before


def test_the_head_of_a_triton_ranking_is_settled_with_ptxas_registers(monkeypatch):
    """Estimated registers put config 1 first (1 us); ptxas's put it at 5 us (fewer blocks an SM). With
    ``refine=1`` the head is re-predicted until its first place is settled: config 1 (now 5 us), then the new
    head, config 2 (2 us, unchanged): two re-predictions, order 2, 3, 1. ``refine=0`` keeps the estimate's
    order; a caller who chose the register source gets no re-prediction."""
    from types import SimpleNamespace

    from tilesight.integrations import rank as rank_mod

    latency = {"estimate": {1: 1.0, 2: 2.0, 3: 3.0}, "auto": {1: 5.0, 2: 2.0, 3: 3.0}}
    calls = []

    def predict_one(build, profile, cfg, on_error):
        calls.append((build, cfg["x"]))
        return SimpleNamespace(latency_s=latency[build][cfg["x"]]), None, False, 0.0, 0.0

    monkeypatch.setattr(rank_mod, "_predict_one", predict_one)
    monkeypatch.setattr(rank_mod, "plan_builder", lambda *a, registers="estimate": registers)
    monkeypatch.setattr(rank_mod, "_is_triton", lambda kernel: True)
    chosen = {"now": False}
    monkeypatch.setattr(rank_mod, "_registers_chosen", lambda kernel, kwargs: chosen["now"])
    configs = [{"x": 1}, {"x": 2}, {"x": 3}]

    ranking = rank(None, configs, (1,))
    assert [c["x"] for c in ranking.configs()] == [2, 3, 1]
    assert calls[3:] == [("auto", 1), ("auto", 2)]
    calls.clear()
    assert [c["x"] for c in rank(None, configs, (1,), refine=0).configs()] == [1, 2, 3]
    assert all(build == "estimate" for build, _ in calls)
    calls.clear()
    chosen["now"] = True
    assert [c["x"] for c in rank(None, configs, (1,)).configs()] == [1, 2, 3] and len(calls) == 3
    with pytest.raises(RankError, match="refine"):
        rank(None, configs, (1,), refine=-1)

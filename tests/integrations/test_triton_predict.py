"""``tilesight.estimate`` on a Triton kernel and ``@tilesight.predict`` (CPU: nothing is launched)."""

import pytest

triton = pytest.importorskip("triton")

import triton.language as tl  # noqa: E402

import tilesight  # noqa: E402
from tilesight import TensorSpec  # noqa: E402


@triton.jit
def _add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + tl.load(y_ptr + offs, mask=offs < n))


N = 1 << 20
X = TensorSpec((N,), "float32")


def _grid(meta):
    return (triton.cdiv(N, meta["BLOCK"]),)


def test_estimate_report_fields():
    r = tilesight.estimate(_add, _grid, X, X, X, N, BLOCK=1024, hw="h200")
    assert r.latency_us > 0 and 0.0 <= r.l2_hit_rate <= 1.0
    assert isinstance(str(r.bottleneck), str) and r.to_dict()["latency_us"] == pytest.approx(r.latency_us)


def test_predict_matches_estimate_and_keeps_launcher():
    kernel = tilesight.predict(hw="h200")(_add)
    r = kernel.predict[_grid](X, X, X, N, BLOCK=1024)
    assert r.latency_us == pytest.approx(tilesight.estimate(_add, _grid, X, X, X, N, BLOCK=1024).latency_us)
    assert kernel.fn is _add.fn and kernel[_grid] is not None  # launching goes through the JIT kernel


def test_predict_over_autotune_picks_the_fastest_config():
    configs = [triton.Config({"BLOCK": b}, num_warps=4) for b in (128, 2048)]
    kernel = tilesight.predict(hw="h200")(triton.autotune(configs, key=["n"])(_add))
    r = kernel.predict[_grid](X, X, X, N)
    each = [tilesight.estimate(_add, _grid, X, X, X, N, BLOCK=b, num_warps=4).latency_us for b in (128, 2048)]
    assert r.latency_us == pytest.approx(min(each))
    assert r.extras["config"]["BLOCK"] == (128, 2048)[each.index(min(each))]


def test_predict_needs_parentheses():
    with pytest.raises(TypeError, match="parentheses"):
        tilesight.predict(_add)


def test_estimate_over_autotune_is_the_predicted_fastest_config_named():
    configs = [triton.Config({"BLOCK": b}, num_warps=4) for b in (128, 2048)]
    tuned = triton.autotune(configs, key=["n"])(_add)
    r = tilesight.estimate(tuned, _grid, X, X, X, N, hw="h200")
    each = [tilesight.estimate(_add, _grid, X, X, X, N, BLOCK=b, num_warps=4).latency_us for b in (128, 2048)]
    assert r.latency_us == pytest.approx(min(each))
    assert r.extras["config"]["BLOCK"] == (128, 2048)[each.index(min(each))]

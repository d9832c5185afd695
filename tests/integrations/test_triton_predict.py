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


@triton.jit
def _capped_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK <= 1024)  # a config beyond it does not compile, and Triton's autotuner skips it
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + tl.load(y_ptr + offs, mask=offs < n))


@triton.jit
def _gemm(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * 4096 + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * 4096 + rn[None, :], acc.to(tl.float16))


@triton.jit
def _scale_tiles(in_desc, out_desc, BM: tl.constexpr, BN: tl.constexpr):
    pm, pn = tl.program_id(0) * BM, tl.program_id(1) * BN
    out_desc.store([pm, pn], in_desc.load([pm, pn]) * 2)


def test_estimate_over_autotune_skips_what_triton_skips():
    # BLOCK 2048 trips the kernel's static_assert, a 256 x 256 x 128 tile at 4 stages needs 512 KiB of shared
    # memory: the autotuner would skip both, so the estimate is the best of the rest, naming what it skipped
    tuned = triton.autotune([triton.Config({"BLOCK": b}) for b in (2048, 256)], key=["n"])(_capped_add)
    r = tilesight.estimate(tuned, _grid, X, X, X, N, hw="h200")
    assert r.extras["config"]["BLOCK"] == 256 and "CompileTimeAssertionFailure" in next(
        iter(r.extras["refused"].values())
    )
    a, c = TensorSpec((4096, 4096), "float16"), TensorSpec((4096, 4096), "float16")
    configs = [
        triton.Config({"BM": 256, "BN": 256, "BK": 128}, num_warps=8, num_stages=4),
        triton.Config({"BM": 128, "BN": 128, "BK": 64}, num_warps=4, num_stages=3),
    ]
    gemm = triton.autotune(configs, key=["K"])(_gemm)
    grid = lambda meta: (4096 // meta["BM"], 4096 // meta["BN"])  # noqa: E731
    r = tilesight.estimate(gemm, grid, a, a, c, 4096, hw="h200")
    alone = tilesight.estimate(_gemm, grid, a, a, c, 4096, BM=128, BN=128, BK=64, num_warps=4, num_stages=3)
    assert r.extras["config"]["BM"] == 128 and r.latency_us == pytest.approx(alone.latency_us)
    (why,) = r.extras["refused"].values()
    assert "shared" in why or "smem" in why


def test_estimate_over_autotune_raises_when_no_config_can_run():
    tuned = triton.autotune([triton.Config({"BLOCK": 4096})], key=["n"])(_capped_add)
    with pytest.raises(
        tilesight.errors.TileSightError, match="no config can launch.*CompileTimeAssertionFailure"
    ):
        tilesight.estimate(tuned, _grid, X, X, X, N, hw="h200")


def test_estimate_over_autotune_runs_pre_hooks_and_early_prune():
    # host-side descriptors made with a placeholder block, which each config's pre_hook sets to its tile (as
    # the persistent-matmul and attention tutorials do); the autotuner's early_config_prune keeps one config
    x = TensorSpec((1024, 512), "float16")
    d_in, d_out = tilesight.tensor_descriptor(x, [1, 1]), tilesight.tensor_descriptor(x, [1, 1])

    def set_blocks(nargs):
        for name in ("in_desc", "out_desc"):
            nargs[name].block_shape = [nargs["BM"], nargs["BN"]]

    configs = [triton.Config({"BM": bm, "BN": 64}, num_warps=4, pre_hook=set_blocks) for bm in (32, 128)]
    kept = []

    def keep_wide(configs, named_args, **kwargs):
        assert set(named_args) == {"in_desc", "out_desc"}
        kept.append([c.kwargs["BM"] for c in configs])
        return [c for c in configs if c.kwargs["BM"] == 128]

    tuned = triton.autotune(configs, key=[], prune_configs_by={"early_config_prune": keep_wide})(_scale_tiles)
    grid = lambda meta: (1024 // meta["BM"], 512 // meta["BN"])  # noqa: E731
    r = tilesight.estimate(tuned, grid, d_in, d_out, hw="h200")
    assert kept == [[32, 128]] and r.extras["config"]["BM"] == 128 and "refused" not in r.extras
    assert d_in.block_shape == [128, 64]


def test_a_pre_hook_that_needs_tensor_data_does_not_stop_the_estimate():
    # split-K style: the hook zeroes the output before each timed launch; a TensorSpec has no data to zero
    def zero_out(nargs):
        nargs["out_ptr"].zero_()

    configs = [triton.Config({"BLOCK": 1024}, num_warps=4, pre_hook=zero_out)]
    tuned = triton.autotune(configs, key=["n"])(_add)
    r = tilesight.estimate(tuned, _grid, X, X, X, N, hw="h200")
    assert r.latency_us == pytest.approx(tilesight.estimate(_add, _grid, X, X, X, N, BLOCK=1024).latency_us)

"""frontends/triton/frontend.py: the kernel objects the Triton frontend takes, wrappers included."""

from __future__ import annotations

import pytest

triton = pytest.importorskip("triton")

import triton_fe_kernels as k  # noqa: E402

import tilesight  # noqa: E402
from tilesight import TensorSpec  # noqa: E402
from tilesight.errors import FrontendError  # noqa: E402

HW = "h200"


class LibEntry:
    """A library's cache around a kernel, as FlagGems' ``LibEntry`` is: the kernel is its ``.fn``."""

    def __init__(self, fn):
        self.fn = fn


class LibTuner(triton.runtime.autotuner.Autotuner):
    """A library's autotuner: a subclass of Triton's (FlagGems' ``LibTuner``)."""


def _softmax_args():
    x = TensorSpec((64, 1000), "float32")
    return (64,), x, x, 1000, 1000, 1000


def test_a_wrapper_around_a_kernel_is_read_through_its_fn_with_a_note():
    # was "no frontend accepts LibEntry"; the prediction is the kernel's own
    direct = tilesight.estimate(k.softmax, *_softmax_args(), hw=HW, BLOCK=1024)
    wrapped = tilesight.estimate(LibEntry(LibEntry(k.softmax)), *_softmax_args(), hw=HW, BLOCK=1024)
    assert wrapped.latency_s == direct.latency_s
    assert any("test_frontend.LibEntry" in n and "not modelled" in n for n in wrapped.notes)
    assert not any("not modelled" in n for n in direct.notes)


def test_an_autotuner_subclass_gives_its_configs():
    configs = [triton.Config({"BLOCK": b}, num_warps=w) for b, w in ((1024, 4), (1024, 8))]
    tuner = LibTuner(k.softmax, k.softmax.arg_names, configs, key=[], reset_to_zero=None, restore_value=None)
    report = tilesight.estimate(tuner, *_softmax_args(), hw=HW)
    # both configs predicted, the faster one reported (a subclass was "no frontend accepts LibTuner")
    assert report.extras["config"]["BLOCK"] == 1024 and report.extras["config"]["num_warps"] in (4, 8)


def test_an_object_whose_fn_is_no_kernel_is_refused():
    with pytest.raises(FrontendError, match="no frontend accepts"):
        tilesight.estimate(LibEntry(len), *_softmax_args(), hw=HW)

"""AutotuneLog: predicted vs measured rows from Triton's autotuning listener."""

from __future__ import annotations

import pytest
from autotune_fakes import fake_ranking, make_configs

from tilesight.integrations.autotune_log import AutotuneLog

triton = pytest.importorskip("triton")


def _kernel():
    def matmul():
        pass

    return matmul


def test_rows_pair_predictions_with_measured_medians():
    configs = make_configs(3)
    log = AutotuneLog()
    fn = _kernel()
    # predicted 3, 1 and 2 us; configs[2] was not predicted at all (refused)
    log.note("matmul", fake_ranking({0: 3e-6, 1: 1e-6, 2: None}, configs))
    # Triton 3.9 passes do_bench's quantile lists in milliseconds: [median, p20, p80]
    timings = {configs[0]: [0.004, 0.0039, 0.0041], configs[1]: [0.002, 0.0019, 0.0021], configs[2]: 0.010}
    log.listen(
        fn=fn, key=(1024,), best_config=configs[1], configs_timings=timings, duration=0.5, cache_hit=False
    )
    first, second, third = log.rows
    assert first.predicted_s == pytest.approx(3e-6) and first.measured_s == pytest.approx(4e-6)
    assert second.chosen and second.measured_s == pytest.approx(2e-6)
    assert third.predicted_s is None and third.measured_s == pytest.approx(1e-5)
    table = log.format_table().splitlines()
    assert table[1] == "# matmul key=(1024,)"
    assert table[2].split()[1:4] == ["2.00", "1.00", "1"] and table[2].endswith("*")  # measured fastest
    assert table[4].split()[2] == "-"  # not predicted


def test_listening_installs_and_restores_the_listener():
    knobs = pytest.importorskip("triton.knobs")
    if not hasattr(knobs.autotuning, "listener"):
        pytest.skip("this Triton has no autotuning listener")
    seen = []
    knobs.autotuning.listener = lambda **kw: seen.append(kw["key"])
    try:
        log = AutotuneLog()
        configs = make_configs(1)
        with log.listening():
            knobs.autotuning.listener(
                fn=_kernel(), key=(7,), best_config=configs[0], configs_timings={configs[0]: [1.0]},
                duration=None, cache_hit=False,
            )  # fmt: skip
        assert seen == [(7,)] and len(log.rows) == 1  # the previous listener still called
        assert knobs.autotuning.listener.__name__ == "<lambda>"
    finally:
        knobs.autotuning.listener = None

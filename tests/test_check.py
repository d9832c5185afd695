"""The pre-commit check's watch list, baseline file and comparison (pure; no prediction here)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tilesight.check import (
    BaselineError,
    CheckConfigError,
    Measure,
    Status,
    baseline_text,
    compare,
    find_config,
    load_baseline,
    load_config,
    save_baseline,
)

TOML = """
baseline = "perf.json"
threshold = 0.10
hw = ["h200", "h100"]

[[kernel]]
name = "gemm"
target = "k/gemm.py::matmul_kernel"
args = "M=64"
grid = "4"
config = "BLOCK_M=64"

[[kernel]]
name = "copy"
target = "k/copy.py"
hw = "a100"
"""


def test_load_config_expands_gpus(tmp_path: Path) -> None:
    (tmp_path / "tilesight.toml").write_text(TOML)
    cfg = load_config(tmp_path / "tilesight.toml")
    assert cfg.baseline == tmp_path / "perf.json"
    assert cfg.threshold == 0.10
    assert [e.key for e in cfg.entries] == ["gemm@h200", "gemm@h100", "copy@a100"]
    assert cfg.entries[0].grid == "4" and cfg.entries[0].config == "BLOCK_M=64"
    assert cfg.entries[2].args == "" and cfg.entries[2].grid is None


def test_pyproject_tool_table_and_search(tmp_path: Path) -> None:
    body = TOML.replace("[[kernel]]", "[[tool.tilesight.kernel]]")
    head, _, rest = body.partition("[[tool")
    (tmp_path / "pyproject.toml").write_text(
        "[project]\nname='x'\n[tool.tilesight]\n" + head + "[[tool" + rest
    )
    (tmp_path / ".git").mkdir()
    sub = tmp_path / "src" / "deep"
    sub.mkdir(parents=True)
    assert find_config(sub) == tmp_path / "pyproject.toml"
    assert len(load_config(tmp_path / "pyproject.toml").entries) == 3
    (tmp_path / "tilesight.toml").write_text(TOML)
    assert find_config(sub) == tmp_path / "tilesight.toml"  # the dedicated file wins


def test_no_config_found(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    with pytest.raises(CheckConfigError, match="no tilesight.toml"):
        find_config(tmp_path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("threshold = 'x'\n[[kernel]]\nname='a'\ntarget='a.py'\n", "threshold='x'"),
        ("[[kernel]]\nname='a'\n", r"kernel\[0\]: target must be a non-empty string"),
        ("[[kernel]]\nname='a'\ntarget='a.py'\nconfigs='x'\n", r"kernel\[0\]: unknown keys \['configs'\]"),
        (
            "[[kernel]]\nname='a'\ntarget='a.py'\n[[kernel]]\nname='a'\ntarget='b.py'\n",
            "duplicate kernel names",
        ),
        ("baseline = 3\n", "baseline=3"),
        ("hw = []\n[[kernel]]\nname='a'\ntarget='a.py'\n", "hw must be"),
        ("nonsense = 1\n", "unknown keys"),
        ("[[kernel]\n", "not valid TOML"),
        ("hw='h200'\n", "list the kernels"),
    ],
)
def test_bad_config_names_the_field(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "tilesight.toml"
    path.write_text(text)
    with pytest.raises(CheckConfigError, match=message) as info:
        load_config(path)
    assert str(path) in str(info.value)


def test_baseline_round_trip_is_stable(tmp_path: Path) -> None:
    measures = {"b@h200": Measure(2e-6, "ddr", 0.5, "x.py::k", "B=1"), "a@h200": Measure(1e-6, "tc")}
    path = tmp_path / "perf.json"
    save_baseline(path, measures)
    assert load_baseline(path) == measures
    text = path.read_text()
    assert text == baseline_text(dict(reversed(list(measures.items()))))  # key order does not matter
    assert list(json.loads(text)["entries"]) == ["a@h200", "b@h200"] and text.endswith("}\n")


def test_missing_and_malformed_baseline(tmp_path: Path) -> None:
    with pytest.raises(BaselineError, match=r"no baseline file; create it with `tilesight check --update`"):
        load_baseline(tmp_path / "perf.json")
    (tmp_path / "perf.json").write_text("{")
    with pytest.raises(BaselineError, match="not a readable JSON baseline"):
        load_baseline(tmp_path / "perf.json")
    (tmp_path / "perf.json").write_text(
        '{"format": 1, "entries": {"a": {"latency_s": -1, "bottleneck": "tc"}}}'
    )
    with pytest.raises(BaselineError, match="entry 'a'"):
        load_baseline(tmp_path / "perf.json")


def test_compare_classifies_by_hand() -> None:
    base = {"same": Measure(100e-6, "tc"), "slow": Measure(100e-6, "tc"), "fast": Measure(100e-6, "tc")}
    base["gone"] = Measure(1e-6, "tc")
    now = {
        "same": Measure(104e-6, "tc"),  # 104 <= 100 * 1.05: ok
        "slow": Measure(106e-6, "ddr"),  # 106 > 105: regressed
        "fast": Measure(95e-6, "tc"),  # 95 * 1.05 = 99.75 < 100: improved
        "added": Measure(1e-6, "tc"),
    }
    result = compare(base, now, 0.05)
    status = {r.key: r.status for r in result.rows}
    assert status == {
        "added": Status.NEW,
        "fast": Status.IMPROVED,
        "gone": Status.STALE,
        "same": Status.OK,
        "slow": Status.REGRESSED,
    }
    assert result.failed
    assert next(r for r in result.rows if r.key == "slow").ratio == pytest.approx(1.06)
    assert not compare(base, {k: v for k, v in base.items()}, 0.05).failed


@settings(deadline=None)
@given(st.floats(1e-7, 1.0), st.floats(0.0, 3.0), st.floats(0.0, 1.0))
def test_regression_iff_past_threshold(old: float, factor: float, threshold: float) -> None:
    new = old * factor
    if new <= 0:
        return
    row = compare({"k": Measure(old, "tc")}, {"k": Measure(new, "tc")}, threshold).rows[0]
    assert (row.status is Status.REGRESSED) == (new > old * (1 + threshold))


def test_this_repositorys_watch_list_is_valid() -> None:
    """The repo's own tilesight.toml parses, every target names a kernel discovery finds, and the committed
    baseline has an entry for each (predicting them is the hook's job, not this test's)."""
    from tilesight.frontends.source import discover, find_kernel

    root = Path(__file__).resolve().parents[1]
    cfg = load_config(root / "tilesight.toml")
    baseline = load_baseline(cfg.baseline)
    for entry in cfg.entries:
        file, _, kernel = entry.target.partition("::")
        find_kernel(discover(root / file), kernel, file)
        assert entry.key in baseline

"""benchmarks/triton_sweep/compare_runs.py: two timings of one sweep set, worked out by hand."""

from __future__ import annotations

import json

import pytest


@pytest.fixture(scope="module")
def runs(load_script):
    return load_script("benchmarks/triton_sweep/compare_runs.py", on_path=False)


def _write(folder, family, rows):
    folder.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps({"id": i, "status": s, "measured_us": {"p50": us} if us else None}) for i, s, us in rows
    ]
    (folder / f"triton_{family}.jsonl").write_text("\n".join(lines) + "\n")


def test_moves_per_family_by_hand(runs, tmp_path, monkeypatch):
    first, second = tmp_path / "a", tmp_path / "b"
    _write(
        first,
        "attention",
        [("x", "ok", 100.0), ("y", "ok", 200.0), ("z", "ok", 50.0), ("w", "skipped", None)],
    )
    # x 1.02, y 0.97 (the largest move, 3%), z 1.00; w not timed; v only in the second run
    _write(second, "attention", [("x", "ok", 102.0), ("y", "ok", 194.0), ("z", "ok", 50.0), ("v", "ok", 9.0)])
    _write(first, "gemm", [("g", "ok", 10.0)])  # no gemm in the second run: no row
    ((family, n, median, worst, ident),) = runs.compare(first, second)
    assert (family, n, ident) == ("attention", 3, "y")
    assert median == pytest.approx(1.0) and worst == pytest.approx(0.03)
    # an empty folder beside the second: nothing timed in both, said in one line
    (tmp_path / "empty").mkdir()
    monkeypatch.setattr("sys.argv", ["compare_runs.py", str(tmp_path / "empty"), str(second)])
    with pytest.raises(SystemExit, match="no launch timed ok in both"):
        runs.main()
    monkeypatch.setattr("sys.argv", ["compare_runs.py", str(tmp_path / "none"), str(second)])
    with pytest.raises(SystemExit, match="no folder"):
        runs.main()

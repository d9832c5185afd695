"""The stop 61 persistent_waits ncu reader, on a hand-written CSV."""

from __future__ import annotations

import json

import pytest
from _ncu import ncu_csv


@pytest.fixture(scope="module")
def report(load_script):
    return load_script("benchmarks/ncu_diag/persistent_waits_report.py", on_path=False)


def _case(tiles: int, k: int) -> dict:
    tile = {"kernel": "persistent", "block_m": 64, "block_n": 64}
    return {**tile, "tiles_per_program": tiles, "M": 1, "N": 1, "K": k}


def _csv(case: dict, launches: list[dict[str, str]]) -> str:
    return "\n".join(["==PROF== Connected", json.dumps(case), ncu_csv(launches, "matmul")])


def test_reads_the_second_launch_of_each_case(report):
    case = _case(2, 4096)
    warm = {"gpu__time_duration.sum": "1", "sm__cycles_active.avg": "1"}
    read = {
        "gpu__time_duration.sum": "12,800",  # ns: 12.8 us
        "sm__cycles_active.avg": "64,000",  # 2 tiles x 4096 / 64 = 128 K steps: 500 cycles a step
        "lts__t_sector_hit_rate.pct": "87.5",
        "lts__t_sectors_srcunit_tex_op_read.sum": "1000",
        "lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum": "125",
        "dram__bytes_read.sum": "2,000,000",
        "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio": "1.5",
        "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio": "0.5",
        "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active": "n/a",
    }
    (row,) = report.read(_csv(case, [warm, read]))
    s = report.summary(row)
    assert s["case"] == "persistent 64x64x64 T2" and s["copies"] is None
    assert s["us"] == pytest.approx(12.8) and s["cycles_per_step"] == pytest.approx(500.0)
    assert s["read_miss"] == pytest.approx(0.125) and s["dram_mb"] == pytest.approx(2.0)
    assert s["stalls"] == [("wait", 1.5), ("barrier", 0.5)]


def test_a_missing_launch_is_an_error(report):
    case = _case(1, 64)
    with pytest.raises(ValueError, match="1 profiled launches for 1 cases"):
        report.read(_csv(case, [{"gpu__time_duration.sum": "1"}]))


def test_a_case_with_its_tile_counts_its_copies(report):
    case = {**_case(8, 4096), "block_m": 128, "block_n": 128, "block_k": 32, "num_warps": 4, "num_stages": 3}
    metrics = {"gpu__time_duration.sum": "1000", "sm__cycles_active.avg": "512,000"}
    (row,) = report.read(_csv(case, [metrics, metrics]))
    s = report.summary(row)
    # 8 tiles x 4096 / 32 = 1024 K steps: 500 cycles a step; (128 + 128) x 32 x 2 B / 16 B / 128 threads = 8
    assert s["case"] == "persistent 128x128x32 w4 s3 T8"
    assert s["cycles_per_step"] == pytest.approx(500.0) and s["copies"] == pytest.approx(8.0)


def test_a_missing_or_empty_file_is_a_clear_error(report, tmp_path, capsys):
    assert report.main([str(tmp_path / "absent.csv")]) == 2
    assert "absent.csv" in capsys.readouterr().err
    empty = tmp_path / "empty.csv"
    empty.write_text("==PROF== Connected\n")
    assert report.main([str(empty)]) == 2
    assert "no ncu rows in the file" in capsys.readouterr().err

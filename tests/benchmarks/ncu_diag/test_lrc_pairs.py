"""benchmarks/ncu_diag/lrc_pairs.py: the coalescer-pairs probe's cases and its report, read back on CPU."""

from __future__ import annotations

import pytest
from _ncu import ncu_csv


@pytest.fixture(scope="module")
def probe(load_script):
    return load_script("benchmarks/ncu_diag/lrc_pairs.py")


@pytest.fixture(scope="module")
def partitions():
    from tilesight.hardware import load_profile

    return list(load_profile("h200").sm_l2_partition)


def test_cases_are_distinct_pairs_of_real_sms(probe):
    cases = probe.cases()
    names = [name for name, _, _ in cases]
    assert len(set(names)) == len(names) == len(probe.SOLO) + len(probe.PAIRS)
    assert all(0 <= a < 132 and b < 132 and a != b for _, a, b in cases)
    assert [b for name, _, b in cases if name.startswith("solo_")] == [-1] * len(probe.SOLO)


def test_kinds_by_hand(probe, partitions):
    # the profile's partitions: SMs 0, 1, 8 and 16 in partition 0, SM 2 in partition 1
    assert [partitions[s] for s in (0, 1, 2, 8, 16)] == [0, 0, 1, 0, 0]
    assert probe._kind(0, -1, partitions) == "one reader"
    assert probe._kind(0, 1, partitions) == "one TPC"
    assert probe._kind(0, 8, partitions) == "one block, one partition"
    assert probe._kind(0, 2, partitions) == "one block, two partitions"
    assert probe._kind(0, 16, partitions) == "two blocks, one partition"
    assert probe._kind(124, 66, partitions).startswith("unplaced SM, ")
    assert (probe._block(63), probe._block(64), probe._block(119), probe._block(120)) == (
        "b3",
        "b4",
        "b7",
        "unplaced",
    )
    kinds = {probe._kind(a, b, partitions) for a, b in probe.PAIRS}
    assert {"one TPC", "one block, one partition", "one block, two partitions", "two blocks, one partition",
            "two blocks, two partitions"} <= kinds  # fmt: skip


def test_report_reads_the_second_launch_of_each_case(probe, tmp_path, capsys):
    cases = probe.cases()
    first, second = cases[0], cases[len(probe.SOLO)]  # one reader on SM 0, the first pair (SMs 0 and 1)
    # the driver's markers, then ncu's rows: two launches a case, the second kept
    markers = f"NCU_DIAG_CASE {first[0]}\nNCU_DIAG_CASE {second[0]}\n"
    launches = [
        {probe.COALESCABLE: 1000.0, probe.COALESCED: 900.0},  # the first launch: ignored
        {probe.COALESCABLE: 1000.0, probe.COALESCED: 0.0, "lts__t_sector_hit_rate.pct": 1.5},
        {probe.COALESCABLE: 1000.0, probe.COALESCED: 900.0},
        {probe.COALESCABLE: 2000.0, probe.COALESCED: 40.0, "lts__t_sector_hit_rate.pct": 2.0},
    ]
    (tmp_path / "lrc_pairs_ncu.csv").write_text(markers + ncu_csv(launches, "pair_read"))
    assert probe.report(tmp_path) == 0
    out = capsys.readouterr().out
    (row,) = [ln for ln in out.splitlines() if ln.startswith(second[0] + " ")]
    # 40 of 2000 sectors merged, at 2.0% hits, two SMs of one TPC in partition 0
    assert row.split() == [second[0], "b0", "/", "b0", "0", "/", "0", "0.020", "2.0", "one", "TPC"]
    assert "one reader                         median merged share 0.000 (1)" in out
    assert "one TPC                            median merged share 0.020 (1)" in out


def test_report_names_a_missing_run(probe, tmp_path):
    with pytest.raises(SystemExit, match="no file .*lrc_pairs_ncu.csv"):
        probe.report(tmp_path)


def test_pairs_named_by_spec_and_read_back_from_a_run(probe):
    # LRC_PAIRS names other pairs than PAIRS, after the same one-reader cases
    cases = probe.cases("0-32,120-0")
    assert cases[-2:] == [("pair_0_32", 0, 32), ("pair_120_0", 120, 0)]
    assert len(cases) == len(probe.SOLO) + 2
    for bad in ("0-32,7", "0-0", "a-b", "0-1-2"):
        with pytest.raises(SystemExit, match="LRC_PAIRS"):
            probe.cases(bad)
    # the report takes the cases from the run's markers, whatever pairs it measured
    assert probe._cases_of(["solo_64", "pair_0_32", "pair_read", "solo_x"]) == [
        ("solo_64", 64, -1),
        ("pair_0_32", 0, 32),
    ]

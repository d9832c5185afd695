"""NCCL's tuning rule (tilesight/distributed/nccl_tuner.py) against the tables NCCL 2.28.9 printed on the
measurement host (benchmarks/data/nccl_tuning_h200x4/nccl.vm.9835.log) and the choices it logged."""

from __future__ import annotations

import pytest

from tilesight.distributed.collectives import choose_collective
from tilesight.distributed.nccl_tuner import parse_tuner
from tilesight.distributed.network import load_network
from tilesight.errors import ProfileError

MIB = 2**20


@pytest.fixture(scope="module")
def hgx():
    return load_network("h200_hgx8")


@pytest.mark.parametrize(
    ("op", "algo", "proto", "lat_us", "algbw_gbs"),
    [
        # ring all-reduce, 4 ranks, nsteps = 6: lat = base + 6 hwLat; algBw = busBw x 4/6
        ("all_reduce", "ring", "ll", 6.6 + 6 * 0.6, 141.0 * 4 / 6),  # LL bus = min(141, 360 x 0.5)
        ("all_reduce", "ring", "ll128", 14.0 + 6 * 1.9, 360 * 0.92 * 4 / 6),  # 25.4 / 220.8
        ("all_reduce", "ring", "simple", 8.4 + 6 * 3.4, 360.0 * 4 / 6),  # 28.8 / 240
        # ring all-gather, nsteps = 3: algBw = busBw x 4/3
        ("all_gather", "ring", "ll", 6.6 + 3 * 0.6, 141.0 * 4 / 3),  # 8.4 / 188
        ("all_gather", "ring", "simple", 8.4 + 3 * 3.4, 360.0 * 4 / 3),  # 18.6 / 480
        # tree all-reduce: lat = base + 2 (n-1) hwLat; bus = min(360 x 0.92, 24 x 38.7) = 331.2; algBw = bus/2
        ("all_reduce", "tree", "ll", 6.8 + 2 * 3 * 0.6, 331.2 / 3.8 / 2),  # 10.4 / 43.6
        ("all_reduce", "tree", "ll128", 14.0 + 2 * 3 * 1.25, 331.2 * 7 / 9 / 2),  # 21.5 / 128.8
        ("all_reduce", "tree", "simple", 8.4 + 2 * 3 * 4.0, 331.2 / 2),  # 32.4 / 165.6
    ],
)
def test_logged_table(hgx, op, algo, proto, lat_us, algbw_gbs):
    t = hgx.tuner
    zero = t.estimate(op, algo, proto, 0.0, 4)
    assert zero == pytest.approx(lat_us * 1e-6)
    one_gb = t.estimate(op, algo, proto, 1e9, 4) - zero
    assert 1e9 / one_gb == pytest.approx(algbw_gbs * 1e9, rel=1e-6)


@pytest.mark.parametrize(
    ("gpus", "op", "bytes_per_rank", "proto"),
    [
        # 2 GPUs (nccl_tuning_h200x2): LL up to 1 MiB, Simple from 2 MiB (LL128 never: higher lat, lower bw)
        (2, "all_reduce", 1 * MIB, "ll"),
        (2, "all_reduce", 2 * MIB, "simple"),
        (2, "all_gather", 1 * MIB, "ll"),  # nBytes = 2 MiB output
        (2, "all_gather", 2 * MIB, "simple"),
        (2, "reduce_scatter", 2 * MIB, "ll"),
        (2, "reduce_scatter", 4 * MIB, "simple"),
        # 4 GPUs: all-reduce LL to 2 MiB, LL128 at 4 and 8 MiB, Simple from 16 MiB; crossings by hand:
        # LL/LL128 at 15.2 us / (1/94 - 1/220.8 GB/s) = 2.49 MB, LL128/Simple at 3.4 us / (...) = 9.4 MB
        (4, "all_reduce", 2 * MIB, "ll"),
        (4, "all_reduce", 4 * MIB, "ll128"),
        (4, "all_reduce", 8 * MIB, "ll128"),
        (4, "all_reduce", 16 * MIB, "simple"),
        (4, "all_gather", MIB // 2, "ll"),  # 2 MiB output < 3.15 MB LL/Simple crossing
        (4, "all_gather", 1 * MIB, "simple"),
        (4, "reduce_scatter", 2 * MIB, "ll"),
        (4, "reduce_scatter", 4 * MIB, "simple"),
        # all-to-all: point-to-point, LL up to 16 KiB per peer
        (4, "all_to_all", 64 * 1024, "ll"),
        (4, "all_to_all", 128 * 1024, "simple"),
    ],
)
def test_choices_match_nccl_log(hgx, gpus, op, bytes_per_rank, proto):
    c = choose_collective(op, bytes_per_rank, hgx, tuple(range(gpus)))
    assert c.protocol == proto
    assert c.algorithm == ("all_to_all" if op == "all_to_all" else "ring")


def test_forced_protocol_still_wins(hgx):
    c = choose_collective("all_reduce", 64 * MIB, hgx, (0, 1, 2, 3), protocol="ll")
    assert (c.algorithm, c.protocol) == ("ring", "ll")


def test_bad_tuner_tables():
    good = {
        "channels": 24, "bw_per_channel_gbs": 15.0, "ll_max_bw_gbs": 141.0,
        "ring_ll128_per_channel_max_gbs": 36.7, "tree_per_channel_max_gbs": 38.7,
        "tree_ll128_per_channel_max_gbs": 36.7, "p2p_ll_threshold_bytes": 16384,
        "base_latency_us": {"tree": [6.8, 14.0, 8.4], "ring": [6.6, 14.0, 8.4]},
        "hw_latency_us": {"tree": [0.6, 1.25, 4.0], "ring": [0.6, 1.9, 3.4]}, "source": "test",
    }  # fmt: skip
    assert parse_tuner("t.toml", good).channels == 24
    with pytest.raises(ProfileError, match="source"):
        parse_tuner("t.toml", {**good, "source": ""})
    with pytest.raises(ProfileError, match=r"t.toml: .*hw_latency_s.ring"):
        parse_tuner("t.toml", {**good, "hw_latency_us": {"tree": [0.6, 1.25, 4.0], "ring": [0.6]}})
    with pytest.raises(ProfileError, match="channels"):
        parse_tuner("t.toml", {**good, "channels": -1})


def test_report_names_the_selection():
    import tilesight

    r = tilesight.estimate_collective("all_reduce", 4 * MIB, gpus=4, hw="h200")
    assert (r.extras["algorithm"], r.extras["protocol"], r.extras["selection"]) == (
        "ring",
        "ll128",
        "nccl_tuner",
    )
    forced = tilesight.estimate_collective("all_reduce", 4 * MIB, gpus=4, hw="h200", protocol="simple")
    assert forced.extras["selection"] == "forced"

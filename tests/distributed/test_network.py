"""Network files: shipped profiles load and route sensibly; bad files raise ProfileError naming the table."""

from __future__ import annotations

import pytest

from tilesight.distributed.network import load_network, networks, parse_network, standard_node
from tilesight.errors import PlanError, ProfileError, UnknownProfileError

from .conftest import TOY_NETWORK


def test_shipped_networks():
    assert {"h200_hgx8", "b200_hgx8", "h200_nvl8", "b200_ib_cluster32", "h200_nvlink2"} <= set(networks())
    for name in networks():
        net = load_network(name)
        assert net.sources  # every table has a source
        assert all(net.route(0, d) for d in range(1, net.gpus))


def test_per_direction_bandwidths():
    # NVLink 4: 900 GB/s bidirectional = 450e9 B/s per direction; NVLink 5 twice that; IB NDR 400 Gb/s = 50e9
    assert load_network("h200_hgx8").route(0, 1)[0].link_class.bw_bytes_per_s == 450e9
    assert load_network("b200_hgx8").route(0, 1)[0].link_class.bw_bytes_per_s == 900e9
    assert load_network("b200_ib_cluster32").route(0, 8)[0].link_class.bw_bytes_per_s == 50e9


def test_standard_node():
    assert standard_node("h200").name == "h200_hgx8"
    assert standard_node("b200").name == "b200_hgx8"


def test_routes_prefer_fast_links():
    # inside a node of the cluster the NVSwitch route wins; across nodes the IB fabric is the only way
    cl = load_network("b200_ib_cluster32")
    assert [lk.name for lk in cl.route(0, 7)] == ["gpu0->switch0", "switch0->gpu7"]
    assert [lk.name for lk in cl.route(0, 8)] == ["gpu0->fabric", "fabric->gpu8"]
    # H200 NVL: bridged peers are one hop apart; the two bridge groups meet over PCIe (two hops)
    nvl = load_network("h200_nvl8")
    assert [lk.name for lk in nvl.route(1, 3)] == ["gpu1->gpu3"]
    assert [lk.link_class.name for lk in nvl.route(1, 6)] == ["pcie5", "pcie5"]


def test_custom_link_override():
    # a custom hop with its own 10 GB/s and 3 us: beta = 1e-10 s/B (the protocol's efficiency is 1.0 here)
    text = TOY_NETWORK.replace('kind = "switched"', 'kind = "custom"').replace("gpus = 8", "gpus = 2")
    text = text.replace("nodes = 1\ngpus_per_node = 8", "gpus_per_node = 2")
    text += '[[link]]\nsrc = "gpu0"\ndst = "gpu1"\nclass = "nv"\nbw_bytes_per_s = 10e9\nalpha_s = 3e-6\n'
    text += "bidirectional = true\n"
    net = parse_network(text)
    (link,) = net.route(1, 0)
    assert link.alpha("simple") == 3e-6
    assert link.beta("simple") == pytest.approx(1e-10)


def test_protocol_thresholds(toy):
    assert toy.protocol_for(65536).name == "ll"
    assert toy.protocol_for(65537).name == "simple"


@pytest.mark.parametrize(
    ("old", "new", "match"),
    [
        (
            'source = "test"\n[link_class.nv.protocol.ll]',
            "[link_class.nv.protocol.ll]",
            "link_class.nv needs",
        ),
        ('intra = "nv"', 'intra = "nope"', "names link class 'nope'"),
        ('kind = "switched"', 'kind = "mesh"', "topology.kind='mesh'"),
        ("bw_efficiency = 0.5", "bw_efficiency = 1.5", "bw_efficiency=1.5"),
        (
            "base_latency_s = 5e-6",
            'base_latency_s = 5e-6\n[[runtime.protocol]]\nname = "xx"\nbase_latency_s = 1e-6',
            "protocol 'xx' unknown",
        ),
    ],
)
def test_bad_files(old, new, match):
    assert old in TOY_NETWORK
    with pytest.raises(ProfileError, match=match):
        parse_network(TOY_NETWORK.replace(old, new, 1), origin="bad.toml")


def test_unknown_network_and_device(toy):
    with pytest.raises(UnknownProfileError, match="h200_hgx8"):
        load_network("nope")
    with pytest.raises(PlanError, match="exchange.device"):
        toy.route(0, 8)

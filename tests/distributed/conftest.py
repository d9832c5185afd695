"""A round-number network for hand-worked expected values: 8 GPUs on one switch, 100 GB/s per direction."""

from __future__ import annotations

import pytest

from tilesight.distributed.network import NetworkHierarchy, parse_network

# Per hop: alpha 1 us for every protocol; Simple reaches the full 100 GB/s (beta = 1e-11 s/B), LL half of it.
# Base latency 5 us (LL, up to 64 KiB) and 7 us (Simple, beyond). A switched route is two hops (tx, rx).
TOY_NETWORK = """
name = "toy8"
gpu = "h200"
gpus = 8
[topology]
kind = "switched"
nodes = 1
gpus_per_node = 8
intra = "nv"
source = "test"
[link_class.nv]
bw_bytes_per_s = 100e9
source = "test"
[link_class.nv.protocol.ll]
alpha_s = 1e-6
bw_efficiency = 0.5
source = "test"
[link_class.nv.protocol.ll128]
alpha_s = 1e-6
bw_efficiency = 1.0
source = "test"
[link_class.nv.protocol.simple]
alpha_s = 1e-6
bw_efficiency = 1.0
source = "test"
[runtime]
comm_sms = 16
source = "test"
[runtime.algorithms]
all_reduce = ["ring", "tree"]
all_gather = ["ring"]
reduce_scatter = ["ring"]
all_to_all = ["all_to_all"]
[[runtime.protocol]]
name = "ll"
max_bytes = 65536
base_latency_s = 5e-6
[[runtime.protocol]]
name = "simple"
base_latency_s = 7e-6
"""


@pytest.fixture(scope="session")
def toy() -> NetworkHierarchy:
    return parse_network(TOY_NETWORK, origin="toy8")

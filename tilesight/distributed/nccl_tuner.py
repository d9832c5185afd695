"""NCCL's own algorithm/protocol choice (its documented tuning model, ``src/graph/tuning.cc``), single node.

NCCL does not pick the fastest (algorithm, protocol) by measurement: it evaluates, for each candidate, its
internal estimate ``t = latency + nBytes / algBw`` and takes the smallest. TileSight follows that rule so
that it prices the algorithm and protocol NCCL actually runs; the *time* is then TileSight's own (Eq. 11 with
the calibrated link alpha/beta), not NCCL's estimate.

NCCL's estimate, per collective ``c`` on ``n`` ranks of one node:

* latency: ring: ``baseLat[ring][p] + nsteps(c) x hwLat[ring][p]`` with ``nsteps`` = 2(n-1) (all-reduce) or
  n-1 (all-gather, reduce-scatter); tree all-reduce: ``baseLat[tree][p] + 2 (n-1) hwLat[tree][p]``.
* bus bandwidth: ``channels x bw_per_channel``, then the protocol refinements below (ring LL: half, capped at
  ``ll_max_bw``; ring LL128: x0.92, capped per channel; tree all-reduce: x0.92 capped per channel, LL /3.8,
  LL128 x7/9), converted to algorithm bandwidth by ``n / nsteps`` (ring) or ``1/2`` (tree).
* ``nBytes``: the all-gather output, the all-reduce / reduce-scatter input (NCCL multiplies the per-rank
  count of all-gather and reduce-scatter by n).

The machine-specific inputs (channel count, per-channel bandwidth, latencies, caps) live in the network
file's ``[runtime.tuner]`` table with their sources (NCCL's INIT/TUNING log prints them). NCCL's per-size
tree correction factors are not modelled (tree never wins on one NVSwitch node). All-to-all is not tuned by
NCCL: it is grouped point-to-point, LL below ``p2p_ll_threshold_bytes`` per peer, else Simple.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ..errors import PlanError, ProfileError

TUNER_PROTOCOLS: tuple[str, ...] = ("ll", "ll128", "simple")
TUNER_ALGORITHMS: tuple[str, ...] = ("ring", "tree")

# NCCL tuning.cc model refinements (NCCL 2.28; constants of NCCL's model, not of the hardware):
RING_LL_BW_FACTOR = 0.5  # LL moves 8-byte lines carrying 4 data bytes
RING_LL128_BW_FACTOR = 0.92  # LL128: 120 of 128 bytes are data
TREE_BW_FACTOR = 0.92  # tree all-reduce bus-bandwidth derating
TREE_LL_BW_DIVISOR = 3.8  # tree LL bus bandwidth divisor
TREE_LL128_BW_FACTOR_ONE_NODE = 7.0 / 9.0  # tree LL128 on a single node
TREE_ALGBW_RATIO = 0.5  # tree all-reduce: bus to algorithm bandwidth
US = 1e-6
GB = 1e9


@dataclass(frozen=True)
class NcclTuner:
    """The inputs of NCCL's tuning model for one machine (``[runtime.tuner]``)."""

    channels: int
    bw_per_channel_bytes_per_s: float
    ll_max_bw_bytes_per_s: float
    ring_ll128_per_channel_max_bytes_per_s: float
    tree_per_channel_max_bytes_per_s: float
    tree_ll128_per_channel_max_bytes_per_s: float
    base_latency_s: Mapping[str, tuple[float, float, float]]
    hw_latency_s: Mapping[str, tuple[float, float, float]]
    p2p_ll_threshold_bytes: float
    source: str = ""

    def __post_init__(self) -> None:
        if self.channels < 1:
            raise ProfileError(f"runtime.tuner.channels={self.channels!r} must be >= 1")
        for table in ("base_latency_s", "hw_latency_s"):
            got = getattr(self, table)
            for algo in TUNER_ALGORITHMS:
                vals = got.get(algo)
                if vals is None or len(vals) != len(TUNER_PROTOCOLS) or min(vals) < 0:
                    raise ProfileError(
                        f"runtime.tuner.{table}.{algo} needs {len(TUNER_PROTOCOLS)} latencies >= 0 "
                        f"(LL, LL128, Simple)"
                    )
            object.__setattr__(self, table, MappingProxyType({k: tuple(v) for k, v in got.items()}))

    def bus_bandwidth(self, algorithm: str, protocol: str, all_reduce: bool) -> float:
        """NCCL's bus bandwidth for (algorithm, protocol), bytes/s."""
        bus = self.channels * self.bw_per_channel_bytes_per_s
        if algorithm == "ring":
            if protocol == "ll":
                return min(self.ll_max_bw_bytes_per_s, bus * RING_LL_BW_FACTOR)
            if protocol == "ll128":
                cap = self.channels * self.ring_ll128_per_channel_max_bytes_per_s
                return min(bus * RING_LL128_BW_FACTOR, cap)
            return bus
        if not all_reduce:
            return 0.0
        bus = min(bus * TREE_BW_FACTOR, self.channels * self.tree_per_channel_max_bytes_per_s)
        if protocol == "ll":
            return min(bus / TREE_LL_BW_DIVISOR, self.ll_max_bw_bytes_per_s)
        if protocol == "ll128":
            cap = self.channels * self.tree_ll128_per_channel_max_bytes_per_s
            return min(bus * TREE_LL128_BW_FACTOR_ONE_NODE, cap)
        return bus

    def estimate(self, op: str, algorithm: str, protocol: str, n_bytes: float, n: int) -> float:
        """NCCL's estimated time (seconds) of ``op`` with (algorithm, protocol) on ``n`` ranks; inf if NCCL
        cannot run it."""
        if algorithm not in TUNER_ALGORITHMS or protocol not in TUNER_PROTOCOLS:
            raise PlanError("nccl_tuner.candidate", (algorithm, protocol), "not modelled by NCCL's tuner")
        p = TUNER_PROTOCOLS.index(protocol)
        all_reduce = op == "all_reduce"
        nsteps = 2 * (n - 1) if all_reduce else n - 1
        bus = self.bus_bandwidth(algorithm, protocol, all_reduce)
        if bus <= 0:
            return math.inf
        if algorithm == "ring":
            algbw = bus * n / nsteps
            lat = self.base_latency_s["ring"][p] + nsteps * self.hw_latency_s["ring"][p]
        else:
            algbw = bus * TREE_ALGBW_RATIO
            lat = self.base_latency_s["tree"][p] + 2 * (n - 1) * self.hw_latency_s["tree"][p]
        return lat + n_bytes / algbw

    def choose(self, op: str, algorithms: tuple[str, ...], n_bytes: float, n: int) -> tuple[str, str]:
        """NCCL's pick: the (algorithm, protocol) of least estimated time (ties: listed order)."""
        best: tuple[float, str, str] | None = None
        for a in algorithms:
            for p in TUNER_PROTOCOLS:
                t = self.estimate(op, a, p, n_bytes, n)
                if best is None or t < best[0]:
                    best = (t, a, p)
        if best is None or math.isinf(best[0]):
            raise PlanError("collective.algorithm", algorithms, f"NCCL's tuner can run none for {op}")
        return best[1], best[2]

    def p2p_protocol(self, bytes_per_peer: float) -> str:
        """NCCL's protocol for a grouped send/recv of ``bytes_per_peer``."""
        return "ll" if bytes_per_peer <= self.p2p_ll_threshold_bytes else "simple"


def parse_tuner(origin: str, table: Mapping[str, Any]) -> NcclTuner:
    """``[runtime.tuner]`` of a network file (GB/s and microseconds, as NCCL prints them)."""
    where = "runtime.tuner"

    def num(key: str) -> float:
        v = table.get(key)
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v < 0:
            raise ProfileError(f"{origin}: {where}.{key}={v!r} must be a finite number >= 0")
        return float(v)

    def lat(key: str) -> dict[str, tuple[float, ...]]:
        sub = table.get(key)
        if not isinstance(sub, Mapping):
            raise ProfileError(f"{origin}: {where}.{key} must be a table of [LL, LL128, Simple] per algo")
        return {a: tuple(float(x) * US for x in v) for a, v in sub.items()}

    src = str(table.get("source", "")).strip()
    if not src:
        raise ProfileError(f"{origin}: {where} needs a non-empty source")
    try:
        return NcclTuner(
            channels=int(num("channels")),
            bw_per_channel_bytes_per_s=num("bw_per_channel_gbs") * GB,
            ll_max_bw_bytes_per_s=num("ll_max_bw_gbs") * GB,
            ring_ll128_per_channel_max_bytes_per_s=num("ring_ll128_per_channel_max_gbs") * GB,
            tree_per_channel_max_bytes_per_s=num("tree_per_channel_max_gbs") * GB,
            tree_ll128_per_channel_max_bytes_per_s=num("tree_ll128_per_channel_max_gbs") * GB,
            base_latency_s=lat("base_latency_us"),
            hw_latency_s=lat("hw_latency_us"),
            p2p_ll_threshold_bytes=num("p2p_ll_threshold_bytes"),
            source=src,
        )
    except ProfileError as exc:
        raise ProfileError(f"{origin}: {exc}") from None

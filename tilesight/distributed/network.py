"""The network hierarchy (paper sections 3.6 and 4): GPUs, switches and directed links, read from data files.

A network file (``hw_profiles/networks/*.toml``) describes one machine or cluster:

* ``[link_class.NAME]``: a kind of link (NVLink 4, NVLink 5, PCIe Gen5 x16, InfiniBand NDR) with its
  per-direction bandwidth and, per runtime protocol (``ll``, ``ll128``, ``simple``), the per-hop startup
  latency
  ``alpha_s`` and the fraction of the link bandwidth that protocol achieves (``bw_efficiency``). The inverse
  bandwidth of Eq. 11 is ``beta_l = 1 / (bw_bytes_per_s x bw_efficiency)``.
* ``[topology]``: ``kind = "switched"`` builds ``nodes`` nodes of ``gpus_per_node`` GPUs, each GPU with one
  transmit and one receive link of class ``intra`` to its node's switch (NVSwitch) and, when ``nodes > 1``,
  one
  of class ``inter`` to the cluster fabric (a rail-optimised NIC per GPU, InfiniBand). ``kind = "custom"``
  takes
  explicit ``[[link]]`` entries (``src``, ``dst``, ``class``, optional per-hop ``bw_bytes_per_s`` and
  ``alpha_s``, ``bidirectional``) between named vertices; GPUs are the vertices ``gpu0 .. gpu{N-1}``.
* ``[runtime]``: the collective runtime (NCCL): its protocols in order of size (``max_bytes`` is the largest
  collective for which it picks that protocol, ``base_latency_s`` its fixed per-call cost), the algorithms it
  may use per collective, and ``comm_sms`` (SMs its kernels occupy while overlapping compute). An optional
  ``[runtime.tuner]`` holds the inputs of NCCL's tuning model (:mod:`.nccl_tuner`); when present, the
  algorithm and protocol follow NCCL's rule instead of the size thresholds.

Every table carries a ``source`` string. Routes minimise the summed inverse bandwidth of their links.
"""

from __future__ import annotations

import functools
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any

import networkx as nx

from ..errors import PlanError, ProfileError, UnknownProfileError
from .nccl_tuner import NcclTuner, parse_tuner

PROTOCOLS: tuple[str, ...] = ("ll", "ll128", "simple")
COLLECTIVE_OPS: tuple[str, ...] = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all")


def gpu_vertex(device: int) -> str:
    """The graph vertex of GPU ``device`` (global index over the whole network)."""
    return f"gpu{device}"


@dataclass(frozen=True)
class ProtocolLink:
    """One protocol's cost on one link class: per-hop startup latency and achieved bandwidth fraction."""

    alpha_s: float
    bw_efficiency: float

    def __post_init__(self) -> None:
        if not (math.isfinite(self.alpha_s) and self.alpha_s >= 0):
            raise ProfileError(f"protocol alpha_s={self.alpha_s!r} must be a finite number >= 0")
        if not (0 < self.bw_efficiency <= 1):
            raise ProfileError(f"protocol bw_efficiency={self.bw_efficiency!r} must be in (0, 1]")


@dataclass(frozen=True)
class LinkClass:
    """A kind of link: per-direction bandwidth and the per-protocol costs."""

    name: str
    bw_bytes_per_s: float
    protocols: Mapping[str, ProtocolLink]
    source: str = ""

    def __post_init__(self) -> None:
        if not (math.isfinite(self.bw_bytes_per_s) and self.bw_bytes_per_s > 0):
            raise ProfileError(
                f"link class {self.name!r}: bw_bytes_per_s={self.bw_bytes_per_s!r} must be > 0"
            )
        missing = [p for p in PROTOCOLS if p not in self.protocols]
        if missing:
            raise ProfileError(f"link class {self.name!r}: missing protocol tables {missing}")
        object.__setattr__(self, "protocols", MappingProxyType(dict(self.protocols)))


@dataclass(frozen=True)
class Link:
    """One directed physical link. ``bw_bytes_per_s`` / ``alpha_s`` override the class's per-hop numbers."""

    name: str
    src: str
    dst: str
    link_class: LinkClass
    bw_bytes_per_s: float | None = None
    alpha_s: float | None = None

    def alpha(self, protocol: str) -> float:
        """Startup latency of one hop under ``protocol`` (seconds)."""
        if self.alpha_s is not None:
            return self.alpha_s
        return self.link_class.protocols[protocol].alpha_s

    def beta(self, protocol: str) -> float:
        """Inverse bandwidth under ``protocol`` (seconds per byte)."""
        bw = self.bw_bytes_per_s if self.bw_bytes_per_s is not None else self.link_class.bw_bytes_per_s
        return 1.0 / (bw * self.link_class.protocols[protocol].bw_efficiency)


@dataclass(frozen=True)
class RuntimeProtocol:
    """A runtime protocol: used for collectives up to ``max_bytes``; ``base_latency_s`` is paid once per
    call."""

    name: str
    max_bytes: float
    base_latency_s: float

    def __post_init__(self) -> None:
        if self.name not in PROTOCOLS:
            raise ProfileError(f"runtime protocol {self.name!r} unknown; one of {list(PROTOCOLS)}")
        if not (self.max_bytes > 0):
            raise ProfileError(f"runtime protocol {self.name!r}: max_bytes={self.max_bytes!r} must be > 0")
        if not (math.isfinite(self.base_latency_s) and self.base_latency_s >= 0):
            raise ProfileError(f"runtime protocol {self.name!r}: base_latency_s must be a finite number >= 0")


@dataclass(frozen=True)
class NetworkHierarchy:
    """A machine or cluster of ``gpus`` GPUs (``gpus_per_node`` per node) and the links between them."""

    name: str
    display_name: str
    gpu: str
    gpus: int
    gpus_per_node: int
    links: tuple[Link, ...]
    protocols: tuple[RuntimeProtocol, ...]
    algorithms: Mapping[str, tuple[str, ...]]
    comm_sms: int
    standard_node: bool = False
    tuner: NcclTuner | None = None
    sources: Mapping[str, str] = field(default_factory=dict, compare=False)
    calibration: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if self.gpus < 1 or self.gpus_per_node < 1:
            raise ProfileError(f"network {self.name!r}: gpus and gpus_per_node must be >= 1")
        if not self.protocols:
            raise ProfileError(f"network {self.name!r}: [runtime] needs at least one protocol")
        sizes = [p.max_bytes for p in self.protocols]
        if sizes != sorted(sizes) or not math.isinf(sizes[-1]):
            raise ProfileError(
                f"network {self.name!r}: runtime protocols must be in increasing max_bytes, the last "
                f"unbounded"
            )
        for op, algos in self.algorithms.items():
            if op not in COLLECTIVE_OPS or not algos:
                raise ProfileError(f"network {self.name!r}: [runtime.algorithms] {op}={algos!r} invalid")
        object.__setattr__(
            self, "algorithms", MappingProxyType({k: tuple(v) for k, v in self.algorithms.items()})
        )
        vertices = {v for link in self.links for v in (link.src, link.dst)}
        absent = [gpu_vertex(d) for d in range(self.gpus) if gpu_vertex(d) not in vertices]
        if absent:
            raise ProfileError(f"network {self.name!r}: GPUs {absent} have no link")

    @functools.cached_property
    def graph(self) -> nx.DiGraph:
        g = nx.DiGraph()
        for link in self.links:
            g.add_edge(link.src, link.dst, link=link, weight=link.beta("simple"))
        return g

    @functools.cached_property
    def _routes(self) -> dict[tuple[int, int], tuple[Link, ...]]:
        return {}

    def route(self, src: int, dst: int) -> tuple[Link, ...]:
        """The links an exchange from GPU ``src`` to GPU ``dst`` crosses: the path of least summed inverse
        bandwidth, so a slow link (PCIe, InfiniBand) is used only when no faster path exists."""
        key = (src, dst)
        if key not in self._routes:
            self._routes[key] = self._find_route(src, dst)
        return self._routes[key]

    def _find_route(self, src: int, dst: int) -> tuple[Link, ...]:
        for d in (src, dst):
            if not (isinstance(d, int) and 0 <= d < self.gpus):
                raise PlanError("exchange.device", d, f"not a GPU of {self.name} (0..{self.gpus - 1})")
        if src == dst:
            return ()
        try:
            path = nx.shortest_path(self.graph, gpu_vertex(src), gpu_vertex(dst), weight="weight")
        except nx.NetworkXNoPath:
            raise ProfileError(f"network {self.name!r}: no route from gpu{src} to gpu{dst}") from None
        return tuple(self.graph.edges[u, v]["link"] for u, v in zip(path, path[1:], strict=False))

    def protocol_for(self, collective_bytes: float) -> RuntimeProtocol:
        """The protocol the runtime picks for a collective moving ``collective_bytes`` by the file's size
        thresholds (used when the network has no ``[runtime.tuner]``)."""
        for p in self.protocols:
            if collective_bytes <= p.max_bytes:
                return p
        return self.protocols[-1]

    def runtime_protocol(self, name: str) -> RuntimeProtocol:
        """The runtime protocol table of ``name``."""
        for p in self.protocols:
            if p.name == name:
                return p
        raise PlanError("collective.protocol", name, f"not a protocol of {self.name}'s runtime")

    def node_of(self, device: int) -> int:
        return device // self.gpus_per_node


# -- loading ----------------------------------------------------------------------------------------------
def _network_dir() -> Path:
    return Path(str(resources.files("tilesight.hw_profiles"))) / "networks"


@functools.cache
def networks() -> tuple[str, ...]:
    """Names of the known network files."""
    return tuple(sorted(p.stem for p in _network_dir().glob("*.toml")))


@functools.cache
def load_network(name: str) -> NetworkHierarchy:
    """Load a network by name (``"h200_hgx8"``) or by path to a TOML file."""
    if not isinstance(name, str) or not name:
        raise UnknownProfileError(repr(name), list(networks()))
    path = Path(name)
    if path.suffix == ".toml" and path.exists():
        return parse_network(path.read_text(), origin=str(path))
    candidate = _network_dir() / f"{name.lower().replace('-', '_')}.toml"
    if not candidate.exists():
        raise UnknownProfileError(name, list(networks()))
    return parse_network(candidate.read_text(), origin=str(candidate))


@functools.cache
def standard_node(gpu: str) -> NetworkHierarchy:
    """The network file marked ``standard_node = true`` for GPU profile ``gpu`` (for "h200": the HGX
    board)."""
    key = gpu.lower().replace("-", "_")
    found = [n for n in networks() if (net := load_network(n)).standard_node and net.gpu == key]
    if len(found) != 1:
        raise ProfileError(f"GPU {gpu!r} has {len(found)} standard network files (need exactly one): {found}")
    return load_network(found[0])


def _need(origin: str, table: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in table:
        raise ProfileError(f"{origin}: {where} is missing {key!r}")
    return table[key]


def _number(origin: str, table: Mapping[str, Any], key: str, where: str) -> float:
    v = _need(origin, table, key, where)
    if isinstance(v, bool) or not isinstance(v, int | float) or math.isnan(v):
        raise ProfileError(f"{origin}: {where}.{key}={v!r} must be a number")
    return float(v)


def _sourced(origin: str, table: Mapping[str, Any], where: str) -> str:
    src = str(table.get("source", "")).strip()
    if not src:
        raise ProfileError(f"{origin}: {where} needs a non-empty source")
    return src


def parse_network(text: str, origin: str = "<string>") -> NetworkHierarchy:
    """Parse a network file; every problem raises ProfileError naming the file and the table or field."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"{origin}: not valid TOML: {exc}") from None
    sources: dict[str, str] = {}
    classes: dict[str, LinkClass] = {}
    for cname, ctab in _need(origin, doc, "link_class", "file").items():
        where = f"link_class.{cname}"
        sources[where] = _sourced(origin, ctab, where)
        protos = {}
        for pname, ptab in _need(origin, ctab, "protocol", where).items():
            pw = f"{where}.protocol.{pname}"
            sources[pw] = _sourced(origin, ptab, pw)
            protos[pname] = ProtocolLink(
                _number(origin, ptab, "alpha_s", pw), _number(origin, ptab, "bw_efficiency", pw)
            )
        classes[cname] = LinkClass(
            cname, _number(origin, ctab, "bw_bytes_per_s", where), protos, sources[where]
        )

    def cls(name: str, where: str) -> LinkClass:
        if name not in classes:
            raise ProfileError(f"{origin}: {where} names link class {name!r}; known: {sorted(classes)}")
        return classes[name]

    topo = _need(origin, doc, "topology", "file")
    sources["topology"] = _sourced(origin, topo, "topology")
    kind = _need(origin, topo, "kind", "topology")
    gpus = int(_number(origin, doc, "gpus", "file"))
    per_node = int(_number(origin, topo, "gpus_per_node", "topology"))
    links: list[Link] = []
    if kind == "switched":
        nodes = int(_number(origin, topo, "nodes", "topology"))
        if nodes * per_node != gpus:
            raise ProfileError(
                f"{origin}: topology nodes x gpus_per_node = {nodes * per_node} != gpus = {gpus}"
            )
        intra = cls(_need(origin, topo, "intra", "topology"), "topology.intra")
        inter = cls(_need(origin, topo, "inter", "topology"), "topology.inter") if nodes > 1 else None
        for d in range(gpus):
            g, sw = gpu_vertex(d), f"switch{d // per_node}"
            links += [Link(f"{g}->{sw}", g, sw, intra), Link(f"{sw}->{g}", sw, g, intra)]
        if inter is not None:
            for d in range(gpus):
                g = gpu_vertex(d)
                links += [Link(f"{g}->fabric", g, "fabric", inter), Link(f"fabric->{g}", "fabric", g, inter)]
    elif kind == "custom":
        for i, ltab in enumerate(_need(origin, doc, "link", "custom topology")):
            where = f"link[{i}]"
            src, dst = str(_need(origin, ltab, "src", where)), str(_need(origin, ltab, "dst", where))
            c = cls(_need(origin, ltab, "class", where), f"{where}.class")
            bw = _number(origin, ltab, "bw_bytes_per_s", where) if "bw_bytes_per_s" in ltab else None
            alpha = _number(origin, ltab, "alpha_s", where) if "alpha_s" in ltab else None
            if bw is not None and not bw > 0:
                raise ProfileError(f"{origin}: {where}.bw_bytes_per_s={bw!r} must be > 0")
            links.append(Link(f"{src}->{dst}", src, dst, c, bw, alpha))
            if ltab.get("bidirectional", False):
                links.append(Link(f"{dst}->{src}", dst, src, c, bw, alpha))
    else:
        raise ProfileError(f"{origin}: topology.kind={kind!r} unknown; one of ['switched', 'custom']")

    rt = _need(origin, doc, "runtime", "file")
    sources["runtime"] = _sourced(origin, rt, "runtime")
    protocols = []
    for i, ptab in enumerate(_need(origin, rt, "protocol", "runtime")):
        where = f"runtime.protocol[{i}]"
        max_bytes = _number(origin, ptab, "max_bytes", where) if "max_bytes" in ptab else math.inf
        protocols.append(
            RuntimeProtocol(
                str(_need(origin, ptab, "name", where)),
                max_bytes,
                _number(origin, ptab, "base_latency_s", where),
            )
        )
    for p in protocols:
        for c in classes.values():
            if p.name not in c.protocols:
                raise ProfileError(f"{origin}: link class {c.name!r} has no [protocol.{p.name}] table")
    algorithms = {op: tuple(v) for op, v in _need(origin, rt, "algorithms", "runtime").items()}
    return NetworkHierarchy(
        name=str(_need(origin, doc, "name", "file")),
        display_name=str(doc.get("display_name", doc["name"])),
        gpu=str(_need(origin, doc, "gpu", "file")).lower(),
        gpus=gpus,
        gpus_per_node=per_node,
        links=tuple(links),
        protocols=tuple(protocols),
        algorithms=algorithms,
        comm_sms=int(_number(origin, rt, "comm_sms", "runtime")),
        standard_node=bool(doc.get("standard_node", False)),
        tuner=parse_tuner(origin, rt["tuner"]) if "tuner" in rt else None,
        sources=MappingProxyType(sources),
        calibration=MappingProxyType(doc.get("calibration", {})),
    )

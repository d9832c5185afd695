"""Collective algorithms as stage decompositions (paper section 3.6), one family: protocol, registry, members.

Every algorithm turns ``(op, bytes_per_rank, devices)`` into ordered :class:`~.stages.Stage` s of logical
exchanges; the network prices them with Eq. 11. ``bytes_per_rank`` is each rank's input buffer (nccl-tests
convention: all-gather output is ``n x`` that, reduce-scatter output is that ``/ n``).

* ``ring``: reduce-scatter = n-1 steps of S/n; all-gather = n-1 steps of S; all-reduce = both, 2(n-1) steps of
  S/n (every rank sends to its successor in every step).
* ``tree``: all-reduce over a double binary tree (NCCL's): two heap-ordered binary trees, the second over the
  mirrored rank order, each carrying half the buffer; reduce level by level from the leaves, then broadcast
  back down: 2 x depth stages of S/2 per exchange.
* ``recursive_doubling``: log2(n) steps exchanging with rank ``r xor 2^k``: all-reduce sends S each step,
  all-gather S x 2^k (power-of-two n).
* ``rabenseifner``: all-reduce as recursive-halving reduce-scatter (S/2, S/4, ..., S/n) then
  recursive-doubling
  all-gather (S/n, ..., S/2); reduce-scatter is its first half (power-of-two n).
* ``all_to_all``: one stage in which every rank sends S/n to every other rank (NCCL's grouped send/recv).

:func:`choose_collective` prices every algorithm the runtime allows for the op (``[runtime.algorithms]`` of
the network file). With a ``[runtime.tuner]`` the algorithm and protocol are the ones NCCL's tuning model
picks (:mod:`.nccl_tuner`), whatever TileSight's own times say; without one, the protocol comes from the
file's size thresholds and the fastest algorithm is kept.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Protocol

from ..errors import PlanError
from .nccl_tuner import TUNER_ALGORITHMS
from .network import PROTOCOLS, NetworkHierarchy
from .stages import Exchange, SequenceCost, Stage, sequence_cost


class CollectiveOp(StrEnum):
    ALL_REDUCE = "all_reduce"
    ALL_GATHER = "all_gather"
    REDUCE_SCATTER = "reduce_scatter"
    ALL_TO_ALL = "all_to_all"


def parse_op(op: str | CollectiveOp) -> CollectiveOp:
    try:
        return CollectiveOp(str(op).lower().replace("-", "_"))
    except ValueError:
        raise PlanError("collective.op", op, f"unknown; one of {[o.value for o in CollectiveOp]}") from None


def collective_bytes(op: CollectiveOp, bytes_per_rank: float, n: int) -> float:
    """The size the runtime keys its protocol choice on (NCCL's ``nBytes``): the all-gather output, the
    all-reduce / reduce-scatter input, and for all-to-all (point-to-point sends) one peer's message."""
    if op is CollectiveOp.ALL_GATHER:
        return bytes_per_rank * n
    if op is CollectiveOp.ALL_TO_ALL:
        return bytes_per_rank / n
    return bytes_per_rank


def bus_bandwidth_factor(op: CollectiveOp, n: int) -> float:
    """nccl-tests' busbw / algbw: 2(n-1)/n for all-reduce, (n-1)/n for the others."""
    return 2 * (n - 1) / n if op is CollectiveOp.ALL_REDUCE else (n - 1) / n


def algorithm_bytes(op: CollectiveOp, bytes_per_rank: float, n: int) -> float:
    """The size nccl-tests divides by the time for algbw: the all-gather output, else the input."""
    return bytes_per_rank * n if op is CollectiveOp.ALL_GATHER else bytes_per_rank


class CollectiveAlgorithm(Protocol):
    """A collective algorithm: which ops and GPU counts it handles, and its stage decomposition."""

    name: str

    def supports(self, op: CollectiveOp, n: int) -> bool: ...

    def stages(
        self, op: CollectiveOp, bytes_per_rank: float, devices: tuple[int, ...]
    ) -> tuple[Stage, ...]: ...


def _ring_step(devices: tuple[int, ...], nbytes: float) -> tuple[Exchange, ...]:
    n = len(devices)
    return tuple(Exchange(devices[i], devices[(i + 1) % n], nbytes) for i in range(n))


def _is_pow2(n: int) -> bool:
    return n >= 2 and n & (n - 1) == 0


@dataclass(frozen=True)
class Ring:
    name: str = "ring"

    def supports(self, op: CollectiveOp, n: int) -> bool:
        return op is not CollectiveOp.ALL_TO_ALL and n >= 2

    def stages(self, op: CollectiveOp, bytes_per_rank: float, devices: tuple[int, ...]) -> tuple[Stage, ...]:
        n = len(devices)
        chunk = bytes_per_rank / n
        if op is CollectiveOp.ALL_GATHER:
            return (Stage("ring all-gather step", _ring_step(devices, bytes_per_rank), n - 1),)
        if op is CollectiveOp.REDUCE_SCATTER:
            return (Stage("ring reduce-scatter step", _ring_step(devices, chunk), n - 1),)
        return (
            Stage("ring reduce-scatter step", _ring_step(devices, chunk), n - 1),
            Stage("ring all-gather step", _ring_step(devices, chunk), n - 1),
        )


def _heap_depth(position: int) -> int:
    return int(math.floor(math.log2(position + 1)))


@dataclass(frozen=True)
class DoubleBinaryTree:
    name: str = "tree"

    def supports(self, op: CollectiveOp, n: int) -> bool:
        return op is CollectiveOp.ALL_REDUCE and n >= 2

    def stages(self, op: CollectiveOp, bytes_per_rank: float, devices: tuple[int, ...]) -> tuple[Stage, ...]:
        n = len(devices)
        half = bytes_per_rank / 2
        trees = (devices, tuple(reversed(devices)))  # tree B: the mirrored rank order
        depth = _heap_depth(n - 1)
        # (child device, parent device) edges of both trees at each depth 1..depth
        by_level: dict[int, list[tuple[int, int]]] = {lv: [] for lv in range(1, depth + 1)}
        for order in trees:
            for pos in range(1, n):
                by_level[_heap_depth(pos)].append((order[pos], order[(pos - 1) // 2]))
        up = tuple(
            Stage(f"tree reduce level {lv}", tuple(Exchange(c, p, half) for c, p in by_level[lv]))
            for lv in range(depth, 0, -1)
        )
        down = tuple(
            Stage(f"tree broadcast level {lv}", tuple(Exchange(p, c, half) for c, p in by_level[lv]))
            for lv in range(1, depth + 1)
        )
        return up + down


def _xor_step(devices: tuple[int, ...], distance: int, nbytes: float) -> tuple[Exchange, ...]:
    return tuple(Exchange(devices[i], devices[i ^ distance], nbytes) for i in range(len(devices)))


@dataclass(frozen=True)
class RecursiveDoubling:
    name: str = "recursive_doubling"

    def supports(self, op: CollectiveOp, n: int) -> bool:
        return op in (CollectiveOp.ALL_REDUCE, CollectiveOp.ALL_GATHER) and _is_pow2(n)

    def stages(self, op: CollectiveOp, bytes_per_rank: float, devices: tuple[int, ...]) -> tuple[Stage, ...]:
        steps = int(math.log2(len(devices)))
        out = []
        for k in range(steps):
            nbytes = bytes_per_rank if op is CollectiveOp.ALL_REDUCE else bytes_per_rank * 2**k
            out.append(Stage(f"recursive-doubling step {k}", _xor_step(devices, 2**k, nbytes)))
        return tuple(out)


@dataclass(frozen=True)
class Rabenseifner:
    name: str = "rabenseifner"

    def supports(self, op: CollectiveOp, n: int) -> bool:
        return op in (CollectiveOp.ALL_REDUCE, CollectiveOp.REDUCE_SCATTER) and _is_pow2(n)

    def stages(self, op: CollectiveOp, bytes_per_rank: float, devices: tuple[int, ...]) -> tuple[Stage, ...]:
        n = len(devices)
        steps = int(math.log2(n))
        halving = tuple(
            Stage(
                f"recursive-halving step {k}", _xor_step(devices, n >> (k + 1), bytes_per_rank / 2 ** (k + 1))
            )
            for k in range(steps)
        )
        if op is CollectiveOp.REDUCE_SCATTER:
            return halving
        doubling = tuple(
            Stage(f"recursive-doubling step {k}", _xor_step(devices, 2**k, bytes_per_rank / n * 2**k))
            for k in range(steps)
        )
        return halving + doubling


@dataclass(frozen=True)
class AllToAll:
    name: str = "all_to_all"

    def supports(self, op: CollectiveOp, n: int) -> bool:
        return op is CollectiveOp.ALL_TO_ALL and n >= 2

    def stages(self, op: CollectiveOp, bytes_per_rank: float, devices: tuple[int, ...]) -> tuple[Stage, ...]:
        chunk = bytes_per_rank / len(devices)
        return (
            Stage(
                "all-to-all exchange",
                tuple(Exchange(s, d, chunk) for s in devices for d in devices if s != d),
            ),
        )


_REGISTRY: dict[str, CollectiveAlgorithm] = {}


def register_algorithm(algorithm: CollectiveAlgorithm) -> None:
    """Add an algorithm to the registry under its ``name`` (a second one of the same name replaces it)."""
    _REGISTRY[algorithm.name] = algorithm


def get_algorithm(name: str) -> CollectiveAlgorithm:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise PlanError("collective.algorithm", name, f"unknown; registered: {sorted(_REGISTRY)}") from None


def algorithm_names() -> tuple[str, ...]:
    return tuple(sorted(_REGISTRY))


for _alg in (Ring(), DoubleBinaryTree(), RecursiveDoubling(), Rabenseifner(), AllToAll()):
    register_algorithm(_alg)


@dataclass(frozen=True)
class CollectiveCost:
    """One collective, priced: the chosen algorithm and protocol, its stages, and the alternatives' times."""

    op: CollectiveOp
    algorithm: str
    protocol: str
    devices: tuple[int, ...]
    bytes_per_rank: float
    base_latency_s: float
    sequence: SequenceCost
    candidates: Mapping[str, float] = field(default_factory=dict, compare=False)

    @property
    def time_s(self) -> float:
        """Runtime base latency plus the ordered sum of the stages (Eq. 11 each)."""
        return self.base_latency_s + self.sequence.time_s

    @property
    def gpus(self) -> int:
        return len(self.devices)


def runtime_choice(
    op: CollectiveOp, bytes_per_rank: float, net: NetworkHierarchy, n: int, algorithms: tuple[str, ...]
) -> tuple[str, str]:
    """The (algorithm, protocol) the runtime runs among ``algorithms``: NCCL's tuning rule when the network
    has a ``[runtime.tuner]`` (all-to-all: its point-to-point protocol threshold), else the fastest algorithm
    under the file's size-threshold protocol (the caller prices them)."""
    tuner = net.tuner
    if tuner is None:
        return "", net.protocol_for(collective_bytes(op, bytes_per_rank, n)).name
    if op is CollectiveOp.ALL_TO_ALL:
        return algorithms[0], tuner.p2p_protocol(bytes_per_rank / n)
    tuned = tuple(a for a in algorithms if a in TUNER_ALGORITHMS)
    if not tuned:
        raise PlanError("collective.algorithm", algorithms, f"NCCL's tuner on {net.name} models none of them")
    return tuner.choose(op.value, tuned, collective_bytes(op, bytes_per_rank, n), n)


def price_collective(
    op: CollectiveOp,
    bytes_per_rank: float,
    net: NetworkHierarchy,
    devices: tuple[int, ...],
    algorithm: str,
    protocol: str | None = None,
) -> CollectiveCost:
    """Price ``op`` with one named algorithm (and, unless given, the protocol the runtime picks for it)."""
    alg = get_algorithm(algorithm)
    n = len(devices)
    if not alg.supports(op, n):
        raise PlanError("collective.algorithm", algorithm, f"does not run {op.value} on {n} GPUs")
    if protocol is None:
        known = net.tuner is None or algorithm in TUNER_ALGORITHMS or op is CollectiveOp.ALL_TO_ALL
        protocol = (
            runtime_choice(op, bytes_per_rank, net, n, (algorithm,))[1]
            if known
            else net.protocol_for(collective_bytes(op, bytes_per_rank, n)).name
        )
    elif protocol not in PROTOCOLS:
        raise PlanError("collective.protocol", protocol, f"unknown; one of {list(PROTOCOLS)}")
    proto = net.runtime_protocol(protocol)
    seq = sequence_cost(alg.stages(op, bytes_per_rank, devices), net, proto.name)
    return CollectiveCost(op, algorithm, proto.name, devices, bytes_per_rank, proto.base_latency_s, seq)


def choose_collective(
    op: CollectiveOp | str,
    bytes_per_rank: float,
    net: NetworkHierarchy,
    devices: tuple[int, ...],
    *,
    algorithm: str | None = None,
    protocol: str | None = None,
) -> CollectiveCost:
    """Price every algorithm the runtime allows for ``op`` on ``devices`` and return the fastest (ties: the
    runtime's listed order). ``algorithm`` / ``protocol`` force a choice (as ``NCCL_ALGO`` / ``NCCL_PROTO``
    do)."""
    op = parse_op(op)
    if not (isinstance(bytes_per_rank, int | float) and math.isfinite(bytes_per_rank) and bytes_per_rank > 0):
        raise PlanError("collective.bytes_per_rank", bytes_per_rank, "must be a finite number > 0")
    devices = tuple(devices)
    if len(devices) < 2 or len(set(devices)) != len(devices):
        raise PlanError("collective.devices", devices, "needs two or more distinct GPUs")
    if algorithm is not None:
        return price_collective(op, bytes_per_rank, net, devices, algorithm, protocol)
    names = net.algorithms.get(op.value, ())
    if not names:
        raise PlanError("collective.op", op.value, f"{net.name}'s runtime lists no algorithm for it")
    priced = [
        price_collective(op, bytes_per_rank, net, devices, name, protocol)
        for name in names
        if get_algorithm(name).supports(op, len(devices))
    ]
    if not priced:
        raise PlanError("collective.algorithm", names, f"none runs {op.value} on {len(devices)} GPUs")
    if net.tuner is None or protocol is not None:
        best = min(priced, key=lambda c: c.time_s)
    else:
        allowed = tuple(c.algorithm for c in priced)
        chosen, proto = runtime_choice(op, bytes_per_rank, net, len(devices), allowed)
        best = price_collective(op, bytes_per_rank, net, devices, chosen, proto)
    cands = MappingProxyType({c.algorithm: c.time_s for c in priced})
    return CollectiveCost(
        best.op,
        best.algorithm,
        best.protocol,
        best.devices,
        best.bytes_per_rank,
        best.base_latency_s,
        best.sequence,
        cands,
    )

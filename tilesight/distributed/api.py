"""``tilesight.estimate_collective``: one collective on a node or cluster, as a
:class:`~tilesight.report.Report`."""

from __future__ import annotations

from ..dtypes import canonical_dtype, dtype_bytes
from ..errors import PlanError, UnknownProfileError
from ..hardware import load_profile, profiles
from ..plan import Pipeline
from ..report import Occupancy, PhaseCost, Report
from .collectives import (
    CollectiveCost,
    CollectiveOp,
    algorithm_bytes,
    bus_bandwidth_factor,
    choose_collective,
    parse_op,
)
from .network import NetworkHierarchy, load_network, networks, standard_node


def resolve_network(hw: str | NetworkHierarchy) -> NetworkHierarchy:
    """A network by object, by network file name (``"h200_nvlink2"``) or by GPU profile name (``"h200"``: that
    GPU's standard node, the HGX board)."""
    if isinstance(hw, NetworkHierarchy):
        return hw
    if not isinstance(hw, str) or not hw:
        raise UnknownProfileError(repr(hw), [*networks(), *profiles()])
    key = hw.lower().replace("-", "_")
    if key in networks() or hw.endswith(".toml"):
        return load_network(hw)
    gpus_with_nodes = {load_network(n).gpu for n in networks()}
    if key in profiles() or key in gpus_with_nodes:
        return standard_node(key)
    raise UnknownProfileError(hw, [*networks(), *sorted(gpus_with_nodes)])


def _devices(net: NetworkHierarchy, gpus: int | None) -> tuple[int, ...]:
    n = net.gpus if gpus is None else gpus
    if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= net.gpus:
        raise PlanError("gpus", gpus, f"must be an integer in 2..{net.gpus} for {net.name}")
    return tuple(range(n))


def collective_cost(
    op: str | CollectiveOp,
    bytes_per_rank: float,
    *,
    gpus: int | None = None,
    hw: str | NetworkHierarchy = "h200",
    dtype: str = "bfloat16",
    algorithm: str | None = None,
    protocol: str | None = None,
) -> CollectiveCost:
    """The priced collective (no report): what :func:`estimate_collective` and the fused plans build on."""
    net = resolve_network(hw)
    op = parse_op(op)
    devices = _devices(net, gpus)
    elt = dtype_bytes(canonical_dtype(dtype))
    unit = elt * (len(devices) if op in (CollectiveOp.REDUCE_SCATTER, CollectiveOp.ALL_TO_ALL) else 1)
    if isinstance(bytes_per_rank, bool) or not isinstance(bytes_per_rank, int | float) or bytes_per_rank <= 0:
        raise PlanError("bytes_per_rank", bytes_per_rank, "must be a number of bytes > 0")
    if bytes_per_rank % unit:
        raise PlanError(
            "bytes_per_rank",
            bytes_per_rank,
            f"{op.value} on {len(devices)} GPUs of {dtype} needs a multiple of {unit:g} bytes",
        )
    return choose_collective(op, float(bytes_per_rank), net, devices, algorithm=algorithm, protocol=protocol)


def estimate_collective(
    op: str,
    bytes_per_rank: float,
    *,
    gpus: int | None = None,
    hw: str | NetworkHierarchy = "h200",
    dtype: str = "bfloat16",
    algorithm: str | None = None,
    protocol: str | None = None,
) -> Report:
    """Predict one collective (``all_reduce``, ``all_gather``, ``reduce_scatter``, ``all_to_all``).

    ``bytes_per_rank`` is each rank's input buffer (nccl-tests convention). ``hw`` names a GPU profile (its
    standard node, of which the first ``gpus`` GPUs are used) or a network file; ``gpus`` defaults to all of
    it.
    ``algorithm`` / ``protocol`` force the runtime's choice. The time lands in the Net pipeline; ``extras``
    holds the per-stage breakdown, the alternatives' times, and nccl-tests' algbw and busbw.
    """
    net = resolve_network(hw)
    cost = collective_cost(
        op, bytes_per_rank, gpus=gpus, hw=net, dtype=dtype, algorithm=algorithm, protocol=protocol
    )
    n = cost.gpus
    total = cost.time_s
    stages_s = cost.sequence.time_s
    worst = max(cost.sequence.stages, key=lambda s: s.total_s)
    algbw = algorithm_bytes(cost.op, cost.bytes_per_rank, n) / total
    busbw = algbw * bus_bandwidth_factor(cost.op, n)
    phases = (
        PhaseCost(
            "prologue",
            cost.base_latency_s,
            Pipeline.NET,
            {Pipeline.NET: cost.base_latency_s},
            f"{net.name} runtime base latency of the {cost.protocol} protocol (launch and synchronisation)",
        ),
        PhaseCost(
            "steady",
            stages_s,
            Pipeline.NET,
            {Pipeline.NET: stages_s},
            f"{cost.algorithm} {cost.op.value}: {cost.sequence.steps} stages; the longest, {worst.label!r} "
            f"x{worst.repeat}, is bound by link {worst.bottleneck_link} carrying "
            f"{worst.bottleneck_bytes:.4g} B",
        ),
    )
    gpu_profile = load_profile(net.gpu) if net.gpu in profiles() else None
    sm_count = gpu_profile.sm_count if gpu_profile is not None else 0
    occupancy = Occupancy(
        resident_blocks=1,
        limiter="grid",
        limits={},
        blocks=net.comm_sms,
        full_waves=0,
        tail_blocks=net.comm_sms,
        tail_active_sms=net.comm_sms,
        sm_count=sm_count,
    )
    return Report(
        kernel=f"{cost.op.value}_{int(cost.bytes_per_rank)}B_x{n}",
        hw=net.name,
        latency_s=total,
        launch_overhead_s=cost.base_latency_s,
        busy_s={Pipeline.NET: total},
        utilization={Pipeline.NET: 1.0},
        bottleneck=Pipeline.NET,
        phases=phases,
        overlap_rate=0.0,
        l2_hit_rate=0.0,
        dram_bytes=0.0,
        occupancy=occupancy,
        notes=(
            f"algorithm {cost.algorithm}, protocol {cost.protocol}, {cost.sequence.steps} stages on {n} GPUs "
            f"({', '.join(f'{k}={v * 1e6:.2f}us' for k, v in cost.candidates.items())})",
        ),
        extras={
            "op": cost.op.value,
            "gpus": n,
            "dtype": canonical_dtype(dtype),
            "bytes_per_rank": cost.bytes_per_rank,
            "algorithm": cost.algorithm,
            "protocol": cost.protocol,
            "selection": "forced"
            if algorithm is not None or protocol is not None
            else ("nccl_tuner" if net.tuner is not None else "size_thresholds"),
            "base_latency_s": cost.base_latency_s,
            "stages": [s.to_dict() for s in cost.sequence.stages],
            "stage_count": cost.sequence.steps,
            "candidates_s": dict(cost.candidates),
            "algbw_bytes_per_s": algbw,
            "busbw_bytes_per_s": busbw,
        },
    )

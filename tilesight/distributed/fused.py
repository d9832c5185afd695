"""Fused compute-communication: all-gather + GEMM and GEMM + reduce-scatter (paper sections 3.6 and 5.4).

Two views of the same workload, both pure:

* :func:`estimate_fused` prices the chunked stream pipeline the measurement runs (``benchmarks/collectives``):
  the local GEMM and the collective are cut into ``chunks`` pieces; communication runs on a side stream and
  compute on the main one, chunk ``i`` of the consumer waiting for chunk ``i`` of the producer. Its envelope
  is the two-stage pipeline recurrence (prologue: the first producer chunk; steady: the slower of the two
  per chunk; epilogue: the last consumer chunk). While a collective is in flight the runtime's kernels hold
  ``comm_sms`` SMs (network file), so overlapped GEMM chunks run on the remaining SMs.
* :func:`ag_gemm_tile_plan` / :func:`gemm_rs_tile_plan` build the tile-fused kernel (each output tile fetches
  its A panel from the GPU that owns it, or pushes its partial C tile to the GPU that reduces it) as a
  :class:`~tilesight.plan.TilePlan` with a REMOTE action, plus the per-occurrence Net time the engine charges
  to it (``evaluate(plan, hw, net_time_s=...)``), so Net overlaps TC through the same envelope.

Shapes are the whole problem's ``(M, N, K)``: all-gather + GEMM shards A's rows over the GPUs, gathers them
and multiplies by a local ``B (K, N)``; GEMM + reduce-scatter shards K, multiplies ``A (M, K/g) @ B (K/g, N)``
into a partial C and reduce-scatters C's rows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from ..dtypes import canonical_dtype, dtype_bytes
from ..errors import PlanError
from ..hardware import HardwareProfile, load_profile
from ..library.gemm import gemm_plan
from ..plan import ActionKind, Loop, MemLevel, TensorAccess, TileAction, TilePlan
from .api import collective_cost, resolve_network
from .network import NetworkHierarchy

FUSED_KINDS = ("ag_gemm", "gemm_rs")


@dataclass(frozen=True)
class GemmTile:
    """The tile configuration a library GEMM is modelled with."""

    block_m: int
    block_n: int
    block_k: int
    num_stages: int
    num_warps: int
    group_m: int


# The tile cuBLAS's Hopper bf16/fp16 GEMM kernels commonly pick for large problems (a 128x256 output tile,
# K step 64, three-stage pipeline, two consumer warpgroups, grouped launch): the configuration torch.matmul is
# modelled with. A modelling assumption about the library, not a fit; pass ``tile=`` to override.
LIBRARY_GEMM_TILE = GemmTile(block_m=128, block_n=256, block_k=64, num_stages=3, num_warps=8, group_m=8)


def gemm_plan_for(m: int, n: int, k: int, dtype: str, tile: GemmTile = LIBRARY_GEMM_TILE) -> TilePlan:
    return gemm_plan(
        m, n, k, tile.block_m, tile.block_n, tile.block_k,
        group_m=tile.group_m, num_stages=tile.num_stages, num_warps=tile.num_warps, dtype=dtype,
    )  # fmt: skip


def engine_gemm_time(
    hw: HardwareProfile, tile: GemmTile = LIBRARY_GEMM_TILE
) -> Callable[[int, int, int, str], float]:
    """GEMM time from the TileSight engine on ``hw`` (imported lazily: the engine is a sibling package)."""
    from ..model.evaluate import evaluate

    def time_s(m: int, n: int, k: int, dtype: str) -> float:
        return evaluate(gemm_plan_for(m, n, k, dtype, tile), hw).latency_s

    return time_s


def _check_shape(kind: str, M: int, N: int, K: int, gpus: int, chunks: int) -> None:
    if kind not in FUSED_KINDS:
        raise PlanError("fused.kind", kind, f"unknown; one of {list(FUSED_KINDS)}")
    for name, v in (("M", M), ("N", N), ("K", K), ("chunks", chunks)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise PlanError(f"fused.{name}", v, "must be an integer >= 1")
    sharded, what = (M, "M") if kind == "ag_gemm" else (K, "K")
    if sharded % (gpus * (chunks if kind == "ag_gemm" else 1)):
        raise PlanError(f"fused.{what}", sharded, f"must divide evenly over {gpus} GPUs x chunks")
    if kind == "gemm_rs" and M % (chunks * gpus):
        raise PlanError("fused.M", M, f"must divide evenly into {chunks} chunks x {gpus} GPUs")


@dataclass(frozen=True)
class FusedEstimate:
    """One fused case: the collective alone, the GEMM alone, both in sequence, and the chunked overlap."""

    kind: str
    shape: tuple[int, int, int]
    gpus: int
    chunks: int
    comm_s: float
    gemm_s: float
    chunk_comm_s: float
    chunk_gemm_s: float
    contended_chunk_gemm_s: float
    overlapped_s: float
    phases: tuple[tuple[str, float, str], ...]  # (phase, seconds, bounding pipeline)
    algorithm: str
    protocol: str

    @property
    def sequential_s(self) -> float:
        return self.comm_s + self.gemm_s

    @property
    def hidden_fraction(self) -> float:
        """Share of the shorter of comm and GEMM hidden by the overlap."""
        shorter = min(self.comm_s, self.gemm_s)
        return max(0.0, min(1.0, (self.sequential_s - self.overlapped_s) / shorter)) if shorter > 0 else 0.0


def pipeline_overlap(
    comm_chunk_s: float, gemm_chunk_s: float, contended_gemm_chunk_s: float, chunks: int, *, comm_first: bool
) -> tuple[float, tuple[tuple[str, float, str], ...]]:
    """The two-stream chunk pipeline and its phases.

    ``comm_first`` (all-gather + GEMM): collective chunks run back to back on the side stream; GEMM chunk i
    starts when collective chunk i and GEMM chunk i-1 are done. Otherwise (GEMM + reduce-scatter): GEMM
    chunks run back to back; reduce-scatter chunk i starts when GEMM chunk i and reduce-scatter chunk i-1 are
    done. A GEMM chunk that starts while a collective chunk is in flight takes ``contended_gemm_chunk_s``.
    Phases: prologue (the first producer chunk), steady, epilogue (the last consumer chunk).
    """
    if comm_first:
        comm_end = [comm_chunk_s * (i + 1) for i in range(chunks)]
        t = 0.0
        last = 0.0
        for i in range(chunks):
            start = max(comm_end[i], t)
            last = contended_gemm_chunk_s if start < comm_end[-1] else gemm_chunk_s
            t = start + last
        first = comm_end[0]
        ends = ("net", "tc")
    else:
        t_gemm = 0.0
        rs_end = 0.0
        first = 0.0
        for i in range(chunks):
            dur = contended_gemm_chunk_s if i > 0 and rs_end > t_gemm else gemm_chunk_s
            t_gemm += dur
            first = first or dur
            rs_end = max(t_gemm, rs_end) + comm_chunk_s
        t = rs_end
        last = comm_chunk_s
        ends = ("tc", "net")
    steady = max(t - first - last, 0.0)
    steady_bound = "net" if comm_chunk_s >= contended_gemm_chunk_s else "tc"
    phases = (
        ("prologue", first, ends[0]),
        ("steady", steady, steady_bound),
        ("epilogue", t - first - steady, ends[1]),
    )
    return t, phases


def estimate_fused(
    kind: str,
    M: int,
    N: int,
    K: int,
    *,
    gpus: int,
    hw: str | NetworkHierarchy = "h200",
    dtype: str = "bfloat16",
    chunks: int = 4,
    gemm_time: Callable[[int, int, int, str], float] | None = None,
) -> FusedEstimate:
    """Price a fused case (module docstring). ``gemm_time(m, n, k, dtype)`` defaults to the engine's."""
    _check_shape(kind, M, N, K, gpus, chunks)
    net = resolve_network(hw)
    dtype = canonical_dtype(dtype)
    gpu = load_profile(net.gpu)
    gemm_time = gemm_time if gemm_time is not None else engine_gemm_time(gpu)
    elt = dtype_bytes(dtype)
    if kind == "ag_gemm":
        op, per_rank = "all_gather", M // gpus * K * elt
        m, n, k = M, N, K
        cm, cn, ck = M // chunks, N, K
    else:
        op, per_rank = "reduce_scatter", M * N * elt
        m, n, k = M, N, K // gpus
        cm, cn, ck = M // chunks, N, K // gpus
    comm = collective_cost(op, per_rank, gpus=gpus, hw=net, dtype=dtype)
    chunk_comm = collective_cost(op, per_rank / chunks, gpus=gpus, hw=net, dtype=dtype)
    gemm = gemm_time(m, n, k, dtype)
    chunk_gemm = gemm_time(cm, cn, ck, dtype)
    contended = chunk_gemm * gpu.sm_count / (gpu.sm_count - net.comm_sms)
    total, phases = pipeline_overlap(
        chunk_comm.time_s, chunk_gemm, contended, chunks, comm_first=kind == "ag_gemm"
    )
    return FusedEstimate(
        kind=kind,
        shape=(M, N, K),
        gpus=gpus,
        chunks=chunks,
        comm_s=comm.time_s,
        gemm_s=gemm,
        chunk_comm_s=chunk_comm.time_s,
        chunk_gemm_s=chunk_gemm,
        contended_chunk_gemm_s=contended,
        overlapped_s=total,
        phases=phases,
        algorithm=comm.algorithm,
        protocol=comm.protocol,
    )


# -- tile-fused plans with remote tiles -------------------------------------------------------------------
def _net_share(total_comm_s: float, plan: TilePlan, hw: HardwareProfile) -> float:
    """Per-occurrence Net time of a remote action run once per tile: the collective's routed time spread
    evenly over the tiles each SM runs (all SMs share the links), i.e. ``T x sm_count / tiles``."""
    return total_comm_s * min(hw.sm_count, plan.grid.blocks) / plan.grid.tiles


def ag_gemm_tile_plan(
    M: int, N: int, K: int, *, gpus: int, hw: str | NetworkHierarchy = "h200", dtype: str = "bfloat16",
    tile: GemmTile = LIBRARY_GEMM_TILE,
) -> tuple[TilePlan, dict[str, float]]:  # fmt: skip
    """All-gather + GEMM as one tile-fused kernel: before its K loop each output tile fetches its A panel
    (``block_m x K``) from the GPU that owns those rows (REMOTE action ``fetch_a``). Returns the plan and the
    ``net_time_s`` for the engine (per occurrence, from the routed all-gather cost)."""
    _check_shape("ag_gemm", M, N, K, gpus, 1)
    net = resolve_network(hw)
    gpu = load_profile(net.gpu)
    dtype = canonical_dtype(dtype)
    base = gemm_plan_for(M, N, K, dtype, tile)
    panel = TensorAccess("a_peer", dtype, (M, K), (min(tile.block_m, M), K), level=MemLevel.REMOTE)
    fetch = TileAction("fetch_a", ActionKind.REMOTE, tensor="a_peer", dst=MemLevel.REG)
    body = _prepend(base.body, fetch)
    plan = TilePlan(
        name=f"ag_gemm_{M}x{N}x{K}_x{gpus}", grid=base.grid, tensors=(*base.tensors, panel), body=body,
        resources=base.resources, source="tilesight.distributed.fused.ag_gemm_tile_plan",
        notes=(*base.notes, f"A rows sharded over {gpus} GPUs; each tile fetches its A panel remotely"),
    )  # fmt: skip
    comm = collective_cost("all_gather", M // gpus * K * dtype_bytes(dtype), gpus=gpus, hw=net, dtype=dtype)
    return plan, {"fetch_a": _net_share(comm.time_s, plan, gpu)}


def gemm_rs_tile_plan(
    M: int, N: int, K: int, *, gpus: int, hw: str | NetworkHierarchy = "h200", dtype: str = "bfloat16",
    tile: GemmTile = LIBRARY_GEMM_TILE,
) -> tuple[TilePlan, dict[str, float]]:  # fmt: skip
    """GEMM + reduce-scatter as one tile-fused kernel: after its K loop over the local K shard each output
    tile pushes its partial C tile to the GPU reducing those rows (REMOTE action ``push_c``)."""
    _check_shape("gemm_rs", M, N, K, gpus, 1)
    net = resolve_network(hw)
    gpu = load_profile(net.gpu)
    dtype = canonical_dtype(dtype)
    base = gemm_plan_for(M, N, K // gpus, dtype, tile)
    part = TensorAccess(
        "c_peer", dtype, (M, N), (min(tile.block_m, M), min(tile.block_n, N)), level=MemLevel.REMOTE
    )
    push = TileAction("push_c", ActionKind.REMOTE, tensor="c_peer", src=MemLevel.REG, deps=("k_loop",))
    plan = TilePlan(
        name=f"gemm_rs_{M}x{N}x{K}_x{gpus}", grid=base.grid, tensors=(*base.tensors, part),
        body=(*base.body, push), resources=base.resources,
        source="tilesight.distributed.fused.gemm_rs_tile_plan",
        notes=(*base.notes, f"K sharded over {gpus} GPUs; each tile pushes its partial C tile remotely"),
    )  # fmt: skip
    comm = collective_cost("reduce_scatter", M * N * dtype_bytes(dtype), gpus=gpus, hw=net, dtype=dtype)
    return plan, {"push_c": _net_share(comm.time_s, plan, gpu)}


def _prepend(body: tuple, fetch: TileAction) -> tuple:
    """Put ``fetch`` first and make every top-level loop wait for it."""
    out: list = [fetch]
    for node in body:
        if isinstance(node, Loop):
            node = dataclasses.replace(node, deps=(*node.deps, fetch.name))
        out.append(node)
    return tuple(out)

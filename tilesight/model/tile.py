"""One tile's program, evaluated recursively (paper Algorithm 2, ``AnalyzeLoop`` / ``ModelOverlap``).

Every body (the tile program, or a loop's children) is list-scheduled in its best order
(:mod:`tilesight.model.schedule`). An action node uses its resource vector, scaled to the region's share
(:func:`tilesight.model.resources.region_scale`). A nested :class:`~tilesight.plan.Loop` is one node whose
usage is ``trips x U`` of its body and whose duration is its envelope time with depth ``stages - 1``
(:mod:`tilesight.model.envelope`); the envelope's pipeline bound is the busiest pipeline, or, in a loop
whose warps issue their own loads and wait for a dot's result (:func:`waits_on_dot`: attention) when the
tensor cores are busier than L2, their time plus the profile's ``l2_exposed_under_tc`` share of the L2 time
(:func:`loop_busy_s`; a GEMM loop's chained dots hide their loads at the profile's tensor-core rate, and a
loop whose loads a producer warpgroup issues, ``Loop.producer_loads``, hides them fully). A block alone on
its SM (one resident block) also waits for its own loads: at most ``stages - 1`` iterations' loads are in
flight, so an iteration takes at least the span of its loads (first issue to last arrival) over
``stages - 1`` (the envelope's ``load_s``). With other blocks resident their work fills that wait, which the
tile stream's own envelope models.

A block alone on its SM with one compute group, whose own warps load the loop's tiles and wait for its dots
(:func:`waits_on_own_loads`: Triton's attention on one warpgroup), also stops every iteration at the
block's barrier (the copies' wait makes the stage visible to every warp) with no other block to fill it: each
iteration's chain takes ``barrier_s``, the profile's cross-warp latency for the block's warps
(``HardwareProfile.reduction_latency``: the ``reductions`` probe's barrier and shared-memory exchange over
one warp's reduction). Stop 72's ``lone`` ncu set has such a block 100 cycles an iteration past the chain
without it, its warps stalled at the CTA barrier 279 warp-cycles a scheduler an iteration. Groups that meet
there already queue at it (below); a GEMM loop, whose warps do not wait for its dot, runs the barrier under
its dot.

A warp issues a pipelined loop's loads for iteration ``j + stages - 1`` in iteration ``j``; where that is
after the iteration's compute (:attr:`~tilesight.plan.Loop.refill_after_compute`, Triton's pipeliner), the
loads have ``stages - 1`` iterations less that compute to arrive in. So at every residency an iteration takes
at least :func:`refill_span_s` over ``stages - 1``: the loads' latency and transfer at the SM's L2 port, plus
the iteration's chain up to the refill (the dots the warps do not wait for in the iteration, warpgroup
``wgmma``, run on behind it). At two stages that exposes loads the chain used to hide; other resident blocks
hide it again through the tile stream's envelope.

Compute groups (``BlockResources.compute_groups``: warpgroups on their own rows) share a loop iteration's
chain. Groups whose own warps load the loop's tiles meet at the block's barrier every iteration and queue on
the busiest pipeline they share; in a loop without loads nothing holds them together, and each group keeps an
iteration of its own in flight. Consumer warpgroups that a producer warpgroup feeds run their shares side
by side; where they wait for their own dots and read the results (:func:`waits_on_dot`, FlashAttention),
each one's step also takes the profile's ``waited_step_latency_s``: the ``fa_steps`` set's FlashAttention
steps with two consumer warpgroups take ``a + b x block_N`` with ``a`` about 300 ns, where the shares of the
chain give only the slope. Such groups do not hold the tensor cores for each other's exponentials (one
group's softmax runs while the other's dots do: :mod:`.resources` leaves their SFU time off the TC
pipeline, and each group's chain keeps its own), and the step latency holds the tensor cores as well as
the chain: the groups meet at the stage's barrier every step, with no dot of theirs in flight across it.
The step latency is the ``fa_steps`` set's, of groups on their own rows; groups on their own columns of the
same rows (``BlockResources.group_split``: TileLang's two warpgroups of a 128 x 256 fp8 GEMM, each promoting
its half of the accumulator) share the chain and run side by side without it (docs/tilelang.md, stop 45).
At head dim 128, where the dots outlast a group's chain, the ``fa_steps`` steps are the dots' time at the
profile's rate plus 0.32 / 0.27 / 0.32 us at ``block_N`` 32 / 64 / 128 (against the dots' time plus the
exponentials' 0.53 us at 128 before). (One consumer warpgroup per block keeps its whole chain, already
longer than that set's 128-row one-warpgroup step.)

A loop whose own warps load its tiles and wait for their dots (:func:`waits_on_dot`: Triton's attention) runs
its softmax between them: where the profile says ``sfu_tc_serialised``, the tensor cores are held for the
longer of the softmax's SFU and CUDA-core time (:func:`softmax_busy`; the exponentials alone are added action
by action in :mod:`.resources`), and its dots run at the dot-chain rate
(:func:`~tilesight.model.resources.waited_mma_rate`). A producer warpgroup's consumers keep the profile's
rates and their own step latency, which the ``fa_steps`` set was read against.

A body's ``L_fill`` is when its first compute starts; when that node is a loop, its first iteration's own
fill is added (the loads in flight before the loop's first compute).

Each body's latency ``L`` is also split into prologue / steady / epilogue for the report: without a loop,
``L_fill`` and ``L - L_fill``; with loops, around the *main* loop (the longest one): the prologue ends when
that loop's own prologue ends, the epilogue starts when its epilogue starts. Busy time is attributed to the
phase in which each node starts (the main loop's first-iteration fill to the prologue, its last iteration's
drain to the epilogue, the rest to the steady state).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

from ..plan import DESCRIPTOR_LOAD, SYNC_LOAD, ActionKind, Loop, Node, TileAction, walk
from .envelope import Envelope, envelope
from .resources import CUDA, DDR, L2, NPIPES, SFU, TC, ActionDemand
from .schedule import BodySchedule, best_schedule


class BodyCost(NamedTuple):
    """A body's schedule, its latency split in three phases, and the busy time attributed to each."""

    names: tuple[str, ...]
    schedule: BodySchedule
    latency_s: float
    fill_s: float
    busy_s: tuple[float, ...]  # U: per pipeline, one pass of the body
    prologue_s: float
    epilogue_s: float
    busy_pro_s: tuple[float, ...]
    busy_epi_s: tuple[float, ...]
    compute_chain_s: float = 0.0  # the body's compute actions back to back (issued in order by one block)
    load_span_s: float = 0.0  # from the body's first memory action's start to its last one's end
    async_tail_s: float = 0.0  # the body's trailing asynchronous dots (see :func:`refill_span_s`)
    sync_load_s: float = 0.0  # the latencies of the body's synchronous loads (SYNC_LOAD), waited for in order
    refill_slack: float = 0.0  # share of the compute span a loaded buffer sits free (see _refill_slack)
    main_loop: Loop | None = None
    main_env: Envelope | None = None
    loops: tuple[tuple[str, BodyCost, Envelope], ...] = ()  # type: ignore[name-defined]

    @property
    def steady_s(self) -> float:
        return max(self.latency_s - self.prologue_s - self.epilogue_s, 0.0)

    def exact(self) -> bool:
        return self.schedule.exact and all(sub.exact() for _, sub, _ in self.loops)

    def orders(self, prefix: str = "tile") -> dict[str, list[str]]:
        """Best issue order of every body, by body name (``tile`` for the top level, else the loop's name)."""
        out = {prefix: [self.names[i] for i in self.schedule.order]}
        for name, sub, _ in self.loops:
            out.update(sub.orders(name))
        return out


def _add(acc: list[float], v: tuple[float, ...], k: float = 1.0) -> None:
    """``acc[r] += k v[r]`` for every pipeline (``k = 1`` adds ``v`` as is: the same sums)."""
    if k == 1:
        acc[:] = [a + x for a, x in zip(acc, v, strict=True)]
    else:
        acc[:] = [a + k * x for a, x in zip(acc, v, strict=True)]


# Answers kept per body object (a plan's bodies are immutable tuples, re-evaluated at every region and every
# call): (body, question) -> (the body, its answer); holding the body keeps its id from being reused.
DEPS_CACHE_SIZE = 1024
_PER_BODY: dict[tuple[int, str], tuple[tuple[Node, ...], Any]] = {}


def _per_body(body: tuple[Node, ...], question: str, answer: Callable[[tuple[Node, ...]], Any]) -> Any:
    key = (id(body), question)
    hit = _PER_BODY.get(key)
    if hit is not None and hit[0] is body:
        return hit[1]
    value = answer(body)
    if len(_PER_BODY) >= DEPS_CACHE_SIZE:
        _PER_BODY.clear()
    _PER_BODY[key] = (body, value)
    return value


def body_deps(body: tuple[Node, ...]) -> tuple[tuple[int, ...], ...]:
    """Each node's dependencies as indices into ``body``; kept per body object."""
    return _per_body(body, "deps", _deps)


def _deps(body: tuple[Node, ...]) -> tuple[tuple[int, ...], ...]:
    index = {n.name: i for i, n in enumerate(body)}
    return tuple(tuple(index[d] for d in n.deps) for n in body)


def waits_on_dot(body: tuple[Node, ...]) -> bool:
    """Whether work in ``body`` other than a dot reads the result of a dot of the same iteration (the
    softmax of attention's ``S = Q K^T``): the warps then wait for that dot's tensor-core work to finish
    before they go on. A GEMM loop's dot feeds only the next iteration's dot, which the tensor cores chain
    without a wait. Kept per body object."""
    return _per_body(body, "waits", _waits)


def waits_on_own_loads(loop: Loop) -> bool:
    """Whether ``loop``'s own warps load its tiles and wait for its dots (:func:`waits_on_dot`, no producer
    warpgroup): Triton's attention, whose dots run at the dot-chain rate and whose softmax holds the tensor
    cores (:func:`softmax_busy`)."""
    return not loop.producer_loads and waits_on_dot(loop.body)


def on_chip_loop(loop: Loop) -> bool:
    """Whether ``loop`` (its nested loops included) loads nothing from memory and no producer feeds it: its
    dots chain on operands already on chip (the ``dot_shapes`` and ``dot_narrow`` probes' loops)."""
    return not loop.producer_loads and not has_loads(walk(loop.body))


def has_loads(body: Iterable[Node]) -> bool:
    """Whether ``body`` itself (not a nested loop; :func:`~tilesight.plan.walk` of it for those too) holds a
    load action."""
    return any(isinstance(n, TileAction) and n.kind is ActionKind.LOAD for n in body)


def loads_by_descriptor(body: tuple[Node, ...]) -> bool:
    """Whether ``body`` itself loads a tile through a tensor descriptor
    (:data:`~tilesight.plan.DESCRIPTOR_LOAD`)."""
    return any(
        isinstance(n, TileAction) and n.kind is ActionKind.LOAD and n.variant == DESCRIPTOR_LOAD for n in body
    )


def meets_at_stage_barrier(loop: Loop) -> bool:
    """Whether ``loop``'s own warps load its tiles and wait for its dots (:func:`waits_on_own_loads`, with a
    load in the body): each iteration its warps meet at the block's barrier before they read the stage, and
    nothing of theirs runs meanwhile (the lone-block ``barrier_s`` of :func:`eval_body`)."""
    return waits_on_own_loads(loop) and has_loads(loop.body)


def _waits(body: tuple[Node, ...]) -> bool:
    dots = {n.name for n in body if isinstance(n, TileAction) and n.kind is ActionKind.DOT}
    return bool(dots) and any(
        isinstance(n, TileAction) and n.kind is not ActionKind.DOT and not dots.isdisjoint(n.deps)
        for n in body
    )


def loop_busy_s(busy: tuple[float, ...], exposed: float) -> float:
    """The busiest pipeline of one loop iteration, or, when the tensor cores are busier than L2, their time
    plus ``exposed`` of the L2 time (the profile's ``l2_exposed_under_tc``, which :func:`eval_body` passes
    for a loop whose warps issue their own loads and wait for a dot's result, :func:`waits_on_dot`).

    Only there: the ``overlap`` probe's GEMM loop (a dot chain fed by loads its own warps issue,
    ``benchmarks/data/calibration_overlap.json``) takes, at the profile's calibration point, 433 us with its
    loads and 433 us for its FLOPs at the profile's tensor-core rate (cuBLAS's, which the engine charges;
    the chain alone on chip runs faster, 338 us, which is what the 0.36 is a share over). Loads that feed a
    chained dot add nothing at the rate the engine uses; a loop that waits for its dot cannot issue while it
    waits."""
    top = max(busy)
    if exposed and busy[TC] >= busy[L2]:
        return max(top, busy[TC] + exposed * busy[L2])
    return top


def softmax_busy(busy: tuple[float, ...]) -> tuple[float, ...]:
    """One iteration's pipeline busy times in a loop whose warps wait for their dots (:func:`waits_on_dot`),
    with the tensor cores held for the softmax between the dots: the longer of its SFU time (which the
    profile's ``sfu_tc_serialised`` already adds to the TC entry, action by action) and its CUDA-core time.

    A block's warps run the score dot, then the softmax on the CUDA cores and the SFU side by side, then the
    ``P V`` dot; the exponentials alone were what the ``softmax_dot`` probe timed (an on-chip attention loop
    takes its dots' time plus its exponentials', its few CUDA-core operations hidden). Where the CUDA-core
    work outlasts the exponentials (masks, selects and rescales: the one-loop kernel's causal configs, ALU
    pipe 51-54% busy in benchmarks/data/ncu_attn_issue/), the excess holds the tensor cores too: those configs
    ran 24-28% slower than a model that hid it, at the full clock (benchmarks/data/clocks/)."""
    extra = busy[CUDA] - busy[SFU]
    if extra <= 0.0:
        return busy
    return tuple(x + extra if r == TC else x for r, x in enumerate(busy))


# Dot instruction families the issuing warps do not wait for where they issue them: a warpgroup ``wgmma`` runs
# on while the warps go on (Triton's ``warp_group_dot`` with ``isAsync``, waited for in a later iteration);
# a warp-level ``mma`` returns its result in the issuing warps' registers.
ASYNC_DOT_VARIANTS = frozenset({"wgmma"})


def async_tail(body: tuple[Node, ...]) -> tuple[int, ...]:
    """Indices of ``body``'s trailing asynchronous dots: dots of an :data:`ASYNC_DOT_VARIANTS` family that
    no other node of the body depends on (attention's ``P V``, a GEMM's dot). Kept per body object."""
    return _per_body(body, "async_tail", _async_tail)


def _async_tail(body: tuple[Node, ...]) -> tuple[int, ...]:
    needed = {d for deps in body_deps(body) for d in deps}
    return tuple(
        i
        for i, n in enumerate(body)
        if isinstance(n, TileAction)
        and n.kind is ActionKind.DOT
        and n.variant in ASYNC_DOT_VARIANTS
        and i not in needed
    )


def reload_chain_s(loop: Loop, reload_latency: tuple[float, float]) -> float:
    """How long one iteration of ``loop`` waits for its register-spill reloads, one after another: its
    :attr:`~tilesight.plan.Loop.reload_waits` and :attr:`~tilesight.plan.Loop.stored_reload_waits` at
    ``reload_latency`` (:func:`~tilesight.model.resources.reload_latency_s`) each."""
    return loop.reload_waits * reload_latency[0] + loop.stored_reload_waits * reload_latency[1]


def refill_span_s(
    loop: Loop,
    sub: BodyCost,
    demands: Mapping[str, ActionDemand],
    port: tuple[float, float],
    chain: float,
    groups: int,
) -> float:
    """How long one iteration's loads take from the start of the iteration that issues them until they have
    arrived, which ``stages - 1`` iterations in flight must cover (the envelope's ``load_s``): the loads'
    latency, the longest of their mean line latencies (:attr:`ActionDemand.refill_latency_s`: L2's for the
    bytes the caches serve, DRAM's for the rest) and at least ``port[0]`` (the profile's L2 latency), plus
    their bytes at the SM's L2 port rate ``port[1]``,
    and, where the warps issue them after the iteration's compute
    (:attr:`~tilesight.plan.Loop.refill_after_compute`), that compute too: ``chain`` (the iteration's chain
    per compute group) less its share of the trailing asynchronous dots (:attr:`BodyCost.async_tail_s`,
    which run on behind the refill). 0 for a loop without loads.

    Triton's two-stage attention loop (``ttg.async_wait {num = 0}`` at the top, the copies for the next
    iteration after ``P V`` is issued) waits for each K/V tile behind ``S = Q K^T`` and the softmax; at
    three stages the same tile has a whole iteration more. A GEMM loop's dot is its asynchronous tail: its
    refill waits only for the latency."""
    loads = [demands[n.name] for n in loop.body if isinstance(n, TileAction) and n.kind is ActionKind.LOAD]
    nbytes = sum(d.bytes for d in loads)
    if nbytes <= 0:
        return 0.0
    latency, rate = port
    latency = max(latency, *(d.refill_latency_s for d in loads))
    before = max(chain - sub.async_tail_s / groups, 0.0) if loop.refill_after_compute else 0.0
    return latency + nbytes / rate + before


def eval_body(
    body: tuple[Node, ...],
    demands: Mapping[str, ActionDemand],
    scale: tuple[float, ...],
    groups: int = 1,
    refill: bool = False,
    exposed: float = 0.0,
    alone: bool = False,
    step_latency: float = 0.0,
    port: tuple[float, float] | None = None,
    softmax_serial: bool = False,
    groups_own_rows: bool = True,
    reload_latency: tuple[float, float] = (0.0, 0.0),
    barrier_s: float = 0.0,
    meeting_s: float = 0.0,
) -> BodyCost:
    """Best schedule and phase split of ``body`` at the region scale ``scale`` (module docstring);
    ``refill``: the body is a producer-loads loop's, so its buffers' refill slack is worked out too;
    ``exposed``: the profile's ``l2_exposed_under_tc`` (:func:`loop_busy_s`); ``alone``: the block is the only
    one on its SM, so a loop waits for its own loads (see the module docstring); ``step_latency``: the
    profile's ``waited_step_latency_s``, which each consumer warpgroup's step of a producer-loads loop that
    waits for its dots takes on top of its share of the chain (see the module docstring); ``port``: the
    profile's ``(l2_latency_s, l2_bw_per_sm_bytes_per_s)``, for the refill bound of pipelined loops
    (:func:`refill_span_s`; None leaves it out); ``softmax_serial``: the profile's ``sfu_tc_serialised``,
    under which a loop that waits for its dots also holds the tensor cores for its CUDA-core work beyond its
    SFU work (:func:`softmax_busy`); ``groups_own_rows``: the compute groups split the tile's rows
    (``BlockResources.group_split``), where the waited step latency was measured; ``reload_latency``: what
    one of a loop's :attr:`~tilesight.plan.Loop.reload_waits` and one of its
    :attr:`~tilesight.plan.Loop.stored_reload_waits` cost its warps
    (:func:`~tilesight.model.resources.reload_latency_s`): an iteration's chain, and its latency, are at
    least their sum, or, in a loop whose warps wait for their dots (:func:`waits_on_dot`), the sum is added
    to them; ``barrier_s``: what one meeting of the block's warps at its barrier adds to an iteration's chain
    of a lone one-group loop that waits for its own loads and dots (see the module docstring; 0 leaves it
    out)."""
    vecs: list[tuple[float, ...]] = []
    svecs: list[tuple[float, ...]] = []  # what each node holds its pipelines for in the schedule
    bursts = False
    durs: list[float] = []
    mems: list[bool] = []
    loops: list[tuple[int, BodyCost, Envelope]] = []
    for i, node in enumerate(body):
        if isinstance(node, TileAction):
            d = demands[node.name]
            b = d.busy_s
            v = (
                b[0] * scale[0], b[1] * scale[1], b[2] * scale[2], b[3] * scale[3], b[4] * scale[4],
                b[5] * scale[5], b[6] * scale[6], b[7] * scale[7], b[8] * scale[8],
            )  # fmt: skip
            vecs.append(v)
            if d.burst_bytes_per_s:
                # a lone block's burst: its transfer holds the SM's L2 port for bytes / port rate (the DRAM
                # fetch behind it is in its latency), not its share of the chip's L2 and DRAM; its busy
                # times still count in full towards the pipelines' sums
                burst_s = d.bytes / d.burst_bytes_per_s
                bursts = True
                svecs.append(tuple(burst_s if r == L2 else 0.0 if r == DDR else x for r, x in enumerate(v)))
                top = max(x for r, x in enumerate(v) if r not in (L2, DDR))
                durs.append(max(top, burst_s, d.floor_s) + d.latency_s)
            else:
                svecs.append(v)
                durs.append(max(max(v), d.floor_s) + d.latency_s)
            mems.append(d.memory)
        else:
            sub = eval_body(
                node.body, demands, scale, groups, node.producer_loads, exposed, alone, step_latency, port,
                softmax_serial, groups_own_rows, reload_latency, barrier_s, meeting_s,
            )  # fmt: skip
            trips = node.work_trips
            chain = sub.compute_chain_s / groups  # independent compute groups share one iteration's chain
            # the warps stop for their spill reloads one after another in program order, while the tensor
            # cores run the dots they issued: the iteration takes the longer of the two chains (other
            # resident blocks run meanwhile: the tile stream's envelope). Where the warps wait for their
            # dots' results within the iteration (waits_on_dot: attention's softmax reads S, the next
            # rescale reads P V), no dot is in flight while they stop for a reload: the stops add to the
            # chain, and to an iteration's latency
            reload_s = reload_chain_s(node, reload_latency)
            waits = waits_on_dot(node.body)
            if waits:
                chain += reload_s
                iteration_s = sub.latency_s + reload_s
            else:
                chain = max(chain, reload_s)
                iteration_s = max(sub.latency_s, reload_s)
            if node.waits_sync_loads and not node.producer_loads:
                # a load the pipeliner left synchronous is issued in the iteration that uses it and waited for
                # before its compute: its latency is on the chain, however many stages the copies run ahead
                chain += sub.sync_load_s
            # consumer warpgroups that a producer feeds and that wait for their own dots (FlashAttention)
            waiting_consumers = groups > 1 and waits and node.producer_loads and groups_own_rows
            # the groups meet at the block's barrier every iteration only where their own warps load the
            # loop's tiles (the stage's wait); a loop without loads has no barrier between them
            loads = has_loads(node.body)
            if alone and barrier_s and groups == 1 and meets_at_stage_barrier(node):
                # a lone warpgroup meets its warps at the stage's barrier, nothing to fill the wait
                chain += barrier_s
            if meeting_s and waits and not node.producer_loads and loads_by_descriptor(node.body):
                # tiles a tensor descriptor brings: warp 0 issues each copy between CTA barriers the block's
                # warps meet at every step, one meeting more than a loop whose warps issue their own copies
                chain += meeting_s
            if groups > 1 and loads and not node.producer_loads:
                # groups whose own warps load the loop's tiles meet at the block's barrier every iteration:
                # each runs its share of the chain, one after another on the busiest pipeline they share,
                # so the last ends its own share plus the others' time there
                chain += (groups - 1) / groups * max(sub.busy_s)
            elif waiting_consumers:
                # each consumer group's step also takes the time a step takes whatever its width (the
                # profile's waited_step_latency_s)
                chain += step_latency
            depth = node.ahead + sub.refill_slack  # 0 unless a producer refills the loop's buffers
            if groups > 1 and not loads and not node.producer_loads:
                # no barrier between the groups: each runs its own iterations, so a group's iteration is in
                # flight while another's runs (the on-chip softmax_dot probes' 128-row tiles on two
                # warpgroups run at their pipelines' busy time, not one iteration's latency after another)
                depth = max(depth, groups - 1)
            # a lone block waits for its own loads; a producer-loads loop's are the ring of its stages, which
            # the envelope's L / (d + 1) already is (a stage is refilled only once its tiles are consumed)
            load_s = sub.load_span_s if alone and not node.producer_loads else 0.0
            if port is not None and node.stages >= 2 and not node.producer_loads:
                load_s = max(load_s, refill_span_s(node, sub, demands, port, chain, groups))
            # the exposed share of L2 (loop_busy_s) shows only where the loop's own warps issue its loads
            # and wait for a dot's result; a producer warpgroup's loads hide under the consumers'
            # tensor-core work, and a GEMM loop's chained dots hide their own
            sub_busy = softmax_busy(sub.busy_s) if softmax_serial and waits_on_own_loads(node) else sub.busy_s
            busy = loop_busy_s(sub_busy, exposed if waits and not node.producer_loads else 0.0)
            if waiting_consumers:
                # ... and every step's latency holds the tensor cores too (module docstring)
                busy = max(busy, sub_busy[TC] + step_latency)
            env = envelope(iteration_s, sub.fill_s, busy, trips, depth, chain, load_s)
            vecs.append(tuple(u * trips for u in sub_busy))
            svecs.append(vecs[-1])
            durs.append(env.total_s)
            mems.append(False)
            loops.append((i, sub, env))
    deps = body_deps(body)
    sched = best_schedule(deps, tuple(svecs), tuple(durs), tuple(mems))
    busy_s = tuple(sum(v[r] for v in vecs) for r in range(NPIPES)) if bursts else sched.busy_s
    lat, starts = sched.latency_s, sched.starts
    # L_fill: when the first compute starts; inside a loop node that is its first iteration's fill.
    loop_fill = {i: sub.fill_s for i, sub, env in loops if env.iterations > 0}
    zero_trip = {i for i, _, env in loops if env.iterations == 0}
    fill = lat
    for i in range(len(body)):
        if not mems[i] and i not in zero_trip:
            t = starts[i] + loop_fill.get(i, 0.0)
            if t < fill:
                fill = t
    busy_pro = [0.0] * NPIPES
    busy_epi = [0.0] * NPIPES
    main = max((lp for lp in loops if lp[2].iterations > 0), key=lambda lp: lp[2].total_s, default=None)
    if main is None:
        pro, epi = fill, lat - fill
        for i, v in enumerate(vecs):
            _add(busy_pro if starts[i] < fill else busy_epi, v)
        main_loop = main_env = None
    else:
        mi, sub, env = main
        s = starts[mi]
        pro = s + env.prologue_s
        steady_end = s + env.prologue_s + env.steady_total_s
        epi = lat - steady_end
        filled = max(min(env.iterations, max(env.depth, 1)) - 1, 0)
        _add(busy_pro, sub.busy_pro_s)
        _add(busy_pro, sub.busy_s, filled)
        _add(busy_epi, sub.busy_epi_s)
        for i, v in enumerate(vecs):
            if i == mi:
                continue
            if starts[i] < s:
                _add(busy_pro, v)
            elif starts[i] >= steady_end:
                _add(busy_epi, v)
        main_loop = body[mi]
        main_env = env
        assert isinstance(main_loop, Loop)
    return BodyCost(
        refill_slack=_refill_slack(body, deps, starts, durs, mems) if refill else 0.0,
        names=tuple(n.name for n in body),
        schedule=sched,
        latency_s=lat,
        fill_s=fill,
        busy_s=busy_s,
        prologue_s=pro,
        epilogue_s=max(epi, 0.0),
        busy_pro_s=tuple(busy_pro),
        busy_epi_s=tuple(busy_epi),
        compute_chain_s=sum(d for d, m in zip(durs, mems, strict=True) if not m),
        async_tail_s=sum(durs[i] for i in async_tail(body)),
        sync_load_s=sum(
            demands[n.name].latency_s
            for n in body
            if isinstance(n, TileAction) and n.kind is ActionKind.LOAD and n.variant == SYNC_LOAD
        ),
        load_span_s=max((starts[i] + durs[i] for i in range(len(body)) if mems[i]), default=0.0)
        - min((starts[i] for i in range(len(body)) if mems[i]), default=0.0),
        main_loop=main_loop,
        main_env=main_env,
        loops=tuple((body[i].name, sub, env) for i, sub, env in loops),
    )


def _refill_slack(
    body: tuple[Node, ...],
    deps: tuple[tuple[int, ...], ...],
    starts: tuple[float, ...],
    durs: list[float],
    mems: list[bool],
) -> float:
    """How early in an iteration its loaded buffers free up: for each load, ``1 - hold / chain``, where
    ``chain`` is the iteration's compute run back to back and ``hold`` the part of it from the load's first
    direct consumer to its last (compute nodes in schedule order, waits left out); the smallest over the
    loads (0 without loads or compute).

    A producer warpgroup refills a buffer as soon as its last consumer is done, so that share of the next
    iteration's load overlaps this one's remaining compute: a FlashAttention loop frees K after S = QK^T and
    V is not needed before P V, while a decode loop whose one buffer feeds its first and last dots frees it
    only at the end.
    """
    compute = sorted((starts[i], i) for i, m in enumerate(mems) if not m)
    chain = sum(durs[i] for _, i in compute)
    if chain <= 0:
        return 0.0
    position = {i: k for k, (_, i) in enumerate(compute)}
    before = [0.0]
    for _, i in compute:
        before.append(before[-1] + durs[i])  # chain time before each compute node, in schedule order
    slack = None
    for j, node in enumerate(body):
        if not mems[j] or not isinstance(node, TileAction) or node.kind is not ActionKind.LOAD:
            continue
        users = [position[i] for i, d in enumerate(deps) if j in d and i in position]
        if not users:
            continue
        hold = before[max(users) + 1] - before[min(users)]
        f = max(0.0, 1.0 - hold / chain)
        slack = f if slack is None else min(slack, f)
    return slack or 0.0


__all__ = [
    "ASYNC_DOT_VARIANTS",
    "NPIPES",
    "BodyCost",
    "body_deps",
    "eval_body",
    "loop_busy_s",
    "refill_span_s",
    "waits_on_dot",
]

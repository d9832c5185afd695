"""The tile reuse-distance cache model (paper 3.5): execution order -> reuse distances -> SDCM -> traffic.

The reuse universe is tile-sized blocks: block = (tensor, reuse key of the tile (Eq. 6), iteration index of
the loops around the access). Tiles of one wave run in lockstep; within one loop step the wave's tiles issue
their accesses tile after tile, in wave order. Reuse distances are counted in *bytes* of distinct blocks and
converted to units of the re-accessed tensor's tile (``D_T = D_bytes / tile_bytes``, ``B_T = capacity /
tile_bytes``): the SDCM mean ``D_T A / B_T`` then does not depend on the tile size, which keeps plans whose
tensors have different tile sizes (A, B and C of a GEMM) on one consistent scale.

Distinct bytes between two accesses are summed per (wave, step) from each wave's distinct keys; this is exact
when the previous access of a block lies in the same or the previous wave (the dominant case) and an upper
bound when it lies further back (a block touched in two intervening waves is counted twice).

A tile that reads a tensor's blocks again later in its own program (a second loop over its row) re-reads the
blocks of its earlier read stream; that reuse's distance is what its wave reads in between.

Reads go through the SDCM; writes (stores) are absorbed by the write-back L2 (NCU counts their sectors as
hits, :data:`WRITE_SECTOR_HIT_RATE`) and occupy capacity like reads; a written block reaches DRAM when it is
evicted before the kernel ends (the SDCM of its distance to the end, see :data:`WRITEBACK_AT_KERNEL_END`).
Two effects refine the walk: tiles of a wave drift apart through deep loops (:data:`EXECUTION_SKEW`), and
the L2 is split into partitions joined by a fabric (:data:`L2_PARTITIONS`, the profile's ``[sm_placement]``).
Each partition caches what its own SMs read, whichever partition the line's address is homed in, plus the
lines homed in it that the other partition fetched over the fabric. Per read the model takes ``p_all`` (the
block is somewhere in L2: a whole-L2 walk) and ``p_near`` (the reader's partition holds it: a walk per
partition, SMs grouped by the measured partition map, blocks placed by the measured dispatch order); a line
homed in the reader's partition (``1 / partitions`` of them) hits there with ``p_all``, one homed elsewhere
with ``p_near``, and on a near miss is looked up again across the fabric, hitting with ``p_all - p_near``.
DRAM reads are ``1 - p_all``. Lines read from several partitions are stored once per partition (plus at
home), so the walks run at the capacity left after those copies (:func:`_replica_share`).

NCU's ``lts__t_sector_hit_rate`` counts the lookups that reach the L2 slices: the near lookups, less the
requests the L2 request coalescer (LRC) merged with an identical request already in flight, plus the fabric
lookups. Merging is modelled for same-wave reuses (the block's previous request lies in the same wave and
partition) by a merge window (:func:`_merge_window`): a reuse merges with probability ``1 / (1 + lag)``, its
lag behind the block's first request in the wave and partition growing with the blocks per SM and the wave
positions between them (:data:`LRC_WINDOW_POSITION_LAG`); merged requests are served without an L2 lookup, so
they count neither as hits nor as lookups. The L2 pipeline's work (``TensorTraffic.l2_lookups``) takes the
merges by the older one-knob rule, ``1 / (1 + LRC_MERGE_SPREAD x r)`` at ``r = LRC_TIMING_BLOCKS_PER_SM``
blocks per SM whatever the kernel's residency (:data:`LRC_TIMING_BLOCKS_PER_SM` says why): the calibrated
L2 rate is that of a private-line re-read, one lookup per byte, and the ``l2_shared`` probe reads lines that
several SMs request in step at 14.5 TB/s against 8.3.

On GPUs with an L1.5 tier the same walk runs per SM group with the L1.5 capacity; per access the L1.5 serves
``P15``, L2 ``max(P2 - P15, 0)`` (an LRU stack property: what hits the small cache hits the large one), and
DRAM the rest.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from ..errors import TileSightError
from ..hardware import HardwareProfile
from ..plan import AccessMode, ActionKind, Loop, MemLevel, Node, TileAction, TilePlan
from .base import CacheTraffic, TensorTraffic
from .order import ExecutionOrder, execution_order
from .reuse import reuse_keys
from .sdcm import FORMS, hit_probability_table

# Fraction of written L2 sectors NCU's lts__t_sector_hit_rate counts as hits: full-sector stores into a
# write-back L2 allocate without fetching from DRAM.
WRITE_SECTOR_HIT_RATE = 1.0

# Loop iterations sampled per access along the reduction axis (paper 3.5.2: sample reuse events along the
# reduction axis instead of replaying every iteration), at the midpoints of equal strata. Over the NCU study's
# cases two samples stay within 0.005 pp of replaying every iteration (tests/cache/test_model.py checks one).
REDUCTION_SAMPLES = 2

# Request coalescing in front of the L2 (Hopper's L2 request coalescer, NCU's ``lrc__`` metrics): a same-wave
# reuse (the block's previous request came from a tile of the same wave and partition, at the same loop step)
# is merged with that request, and never looked up in L2. The timing's rule (the L2 pipeline's work): with
# probability ``1 / (1 + LRC_MERGE_SPREAD x r)``, ``r`` the blocks resident per SM: an SM that interleaves
# more blocks spreads one block's identical requests over a longer time, past the window in which the first
# is still in flight. Merging never changes the DRAM bytes or the L2 service fraction. One global value, set
# from the NCU study's calibration third (benchmarks/score_l2.py --sweep; NCU's
# lrc__request_sectors_op_read_coalescing_achieved_type_hardware is the measured counterpart), never per case;
# the reported hit rate takes the merge window below instead (stop 36).
LRC_MERGE_SPREAD = 1.5
# The L2 pipeline's work (TensorTraffic.l2_lookups, what the timing charges) takes the coalescer's merges
# at this many blocks per SM, whatever the kernel's residency. NCU's merge counts do fall with residency (run
# 3 of the NCU study, merged share of the coalescable read sectors: median 0.26 at one block per SM, 0.18 at
# two, 0.17 at three, 0.09 at four, 0.07 at six), but the time of L2-bound loops does not rise with them:
# charged at each kernel's own residency, the committed Triton sweep's aligned L2-bound GEMMs came out 10%
# fast at one block per SM, 6% at two and 5-9% slow at three to five (median predicted / measured 0.90, 0.94,
# 1.05, 1.08, 1.09); at two blocks per SM (the NCU study's median residency; merge probability
# 1 / (1 + 1.5 x 2) = 0.25) they are 0.97, 0.94, 0.99, 1.02, 1.00 (``python benchmarks/probe_report.py
# merges`` and ``residency``). A modelling choice read from measured timings' residuals by residency, one
# value for every kernel, never per case; NCU's hit rates keep the residency rule.
LRC_TIMING_BLOCKS_PER_SM = 2
# NCU's hit rates take the coalescer's merges from a merge window (:func:`_merge_window`): a same-wave reuse
# is merged when its request reaches the coalescer while the block's first request in the wave and partition
# (the leader, which goes to L2) is still in flight. Its lag behind the leader, in leader lifetimes, is
# ``LRC_WINDOW_BLOCK_LAG`` per block resident on its SM (an SM interleaving more blocks issues one block's
# requests later in its round) plus ``LRC_WINDOW_POSITION_LAG`` per wave position it is dispatched behind the
# leader (tiles run in dispatch order, a later tile's step later); with an exponentially spread window the
# merge probability is ``1 / (1 + lag)``. Both global, set on the NCU study's calibration third (run 3's
# lrc__request_sectors_op_read_coalescing_achieved_type_hardware): the calibration hit-rate MAE, among the
# values whose merged share fits the counters at least as well as the residency rule (benchmarks/score_l2.py
# --sweep), never per case. ``LRC_MERGE_SPREAD`` stays the rule of the L2 pipeline's work (timing).
LRC_WINDOW_BLOCK_LAG = 0.2
LRC_WINDOW_POSITION_LAG = 0.12

# Inter-SM execution skew (paper 3.5.3): tiles of one wave do not run their loops in exact lockstep. A tile
# dispatched ``f`` of a wave after another (``f`` = difference of their positions over the wave's size) lags
# it by ``skew x f`` of the whole loop, so a block it shares with the earlier tile is re-read after that share
# of the wave's loop traffic has gone through the cache (deep K loops lag by more bytes). 0 is lockstep, 1 a
# dispatch staggered over one whole tile duration: the distance is the blend
# ``(1 - skew) D_lockstep + skew D_staggered`` (see :func:`_staggered_window_bytes`).
#
# How far tiles drift apart depends on what paces them (:func:`execution_skew`): a tile whose tensor-core
# work per byte it reads through L2 is at or above the GPU's ridge (tensor-core rate over L2 bandwidth) runs
# at the tensor cores' steady rate and its wave stays close to lockstep (``EXECUTION_SKEW_COMPUTE``); a tile
# paced by memory takes as long as its L2 and DRAM requests do, which vary with every neighbour's hits and
# misses, and drifts further (``EXECUTION_SKEW_MEMORY`` with no tensor-core work, linear in the intensity's
# shortfall in between). Seen in NCU: 16- and 32-row GEMM tiles (intensity 13-26 FLOP/B against a ridge of
# 79) with GROUP_M=1 on LLM shapes hit L2 on 12-26% of sectors where lockstep sharing between the rows of a
# wave would give 55-80% (``benchmarks/data/ncu_l2_narrow_h200.json``), while 128x128 and 128x256 tiles on
# the same shapes keep it. Two global values, set on the calibration thirds of both NCU studies
# (``benchmarks/score_l2.py --sweep``), never per case; an explicit ``skew`` overrides the rule.
#
# The drift builds up wave by wave (:data:`EXECUTION_SKEW_RAMP_WAVES`): the first wave's blocks are dispatched
# together and start their loops in step, so its tiles share blocks in lockstep; each later wave is dispatched
# as the previous one's tiles finish, inheriting (and adding to) their spread of finish times, a random walk
# over refills. Wave ``w`` runs at ``skew x sqrt(min(1, w / EXECUTION_SKEW_RAMP_WAVES))``: lockstep in the
# first wave, the pacing rule's full skew from wave ``EXECUTION_SKEW_RAMP_WAVES`` on. Seen in NCU: GROUP_M=1
# GEMMs of a few waves (M=1024, N=16384, K=8192: 4-6 waves) keep more of their same-wave B reuse than the
# full skew gives them, those of 10-20 waves lose more. The ramp and the pacing skews were set together on
# the calibration thirds of both NCU studies (``benchmarks/score_l2.py --sweep``), never per case.
#
# Blocks that share an SM drift apart too (:data:`EXECUTION_SKEW_PER_BLOCK`, stop 56): its warp schedulers
# interleave the resident blocks' warps unevenly (the oldest warps first), so one block runs ahead of another
# on the same SM whatever paces them, and the more blocks an SM holds the wider their spread. Each block an
# SM holds beyond the first (the wave's mean, ``concurrency / SMs``) adds ``EXECUTION_SKEW_PER_BLOCK`` to the
# pacing rule's skew, up to :data:`EXECUTION_SKEW_BLOCKS_SEEN` blocks (the most the NCU studies measured: no
# extrapolation past them). Seen in NCU: the GROUP_M=1 GEMMs whose skew decides their hit rate (a range of 20
# pp or more over skews 0.05-1) match at 0.1-0.3 with one or two blocks an SM, 0.25-0.3 with three, 0.35-0.45
# with four and 0.45-0.5 with six (64 x 64 x 32 tiles at 4096 x 11008 x 4096: B read 77% from DRAM, rows of
# tiles passing B to the next row no better than the fully staggered schedule), where the pacing rule alone
# gave 0.2-0.35. Set with the pacing skews and the ramp on the calibration thirds of both NCU studies
# (``benchmarks/score_l2.py --sweep``: pooled calibration MAE 3.25 -> 3.14 pp, the memory-paced skew 0.45 ->
# 0.35 and the ramp 4 -> 6 waves with it), never per case.
EXECUTION_SKEW_COMPUTE = 0.2
EXECUTION_SKEW_MEMORY = 0.35
EXECUTION_SKEW_RAMP_WAVES = 6
EXECUTION_SKEW_PER_BLOCK = 0.04
EXECUTION_SKEW_BLOCKS_SEEN = 6
# The single value the model used before the pacing rule (kept for callers that pass one skew).
EXECUTION_SKEW = 0.2
# A loop that keeps one iteration of loads in flight (at most ``LATENCY_PACED_STAGES`` stages) and moves so
# few bytes an iteration that their transfer at the SM's L2 port takes no longer than the L2 latency waits out
# that latency every iteration: every block's step takes the same round trip, whatever its neighbours' hits
# and misses, so its wave stays close to lockstep, as a compute-paced one does (``EXECUTION_SKEW_COMPUTE``,
# and no per-block drift: :func:`_latency_paced`). Seen in NCU (stop 62, the ``crowded`` set,
# ``benchmarks/data/ncu_l2_crowded_h200{,_run2}.json``): 16 x 64 x 32 GEMM tiles at two stages, 9-14 blocks
# an SM, GROUP_M=1 on the LLM shapes hit L2 on 58-87% of sectors where the memory-paced skew gave 17-41%
# (DRAM 1.8-10 GB against 18-28 GB predicted), while 16 x 128 x 32 at four stages on the same shapes drifts
# as the rule says (25% on llm_up), and the narrow study's 16 x 256 x 128 at two stages (68 KB an
# iteration, twice the latency at the port) keeps its misses. No value is fitted: the skew is the compute
# one, the threshold the latency itself.
LATENCY_PACED_STAGES = 2

# L2 partitions where the profile gives no ``l2_partitions`` (see the module docstring for the partitioned
# model). SMs map to partitions by the profile's ``[sm_placement] l2_partition`` when it describes this many
# partitions, else evenly in SM order. Not applied where the profile has an L1.5 tier (that cascade models the
# split).
L2_PARTITIONS = 1

# Whether dirty lines still in L2 when the kernel ends count as the kernel's DRAM writes. NCU measures a
# kernel between its own cache flushes (--cache-control all): the write-back of what is still resident
# happens after the measured range, so NCU-comparable DRAM writes are the blocks evicted during the kernel.
WRITEBACK_AT_KERNEL_END = False

_CACHED_LEVELS = frozenset({MemLevel.DDR, MemLevel.L2, MemLevel.L1_5})


@dataclass(frozen=True)
class _Stream:
    """One memory action of the tile program: tensor, occurrence slots in a tile's timeline, block bytes."""

    action: str
    tensor: str
    write: bool
    slots: np.ndarray  # sorted slot of every occurrence in one tile's program
    block_bytes: float  # average bytes of one block (masked edge blocks included)
    keys: np.ndarray  # reuse key per launch index (time order)
    nkeys: int
    reverse: bool = False  # the loop visits the blocks last first (TileAction.reverse)
    # share of the walked occurrences the mean program runs: the product over the enclosing loops of their
    # mean over their walked trip counts (a guarded block some programs take is walked once, run by a share)
    weight: float = 1.0
    rereads: tuple[tuple[int, float], ...] = ()  # TileAction.rereads: (gap, share) of its own earlier reads


@dataclass(frozen=True)
class AccessBreakdown:
    """Hit fractions of one memory action over the kernel (reads; writes report their constant)."""

    action: str
    tensor: str
    write: bool
    accesses: int
    requested_bytes: float
    l15_hit: float
    l2_hit: float
    ddr_bytes: float
    compulsory_fraction: float  # first-touch share of the accesses
    l2_sector_hit: float = -1.0  # NCU-counted L2 hits per requested byte (-1: equals l2_hit)
    l2_lookups: float = 1.0  # NCU-counted L2 lookups per requested byte (coalesced requests out, fabric in)
    l2_merged: float = 0.0  # requests per requested byte the coalescer merged (already out of l2_lookups)
    l2_work: float = 1.0  # the same lookups with merges at LRC_TIMING_BLOCKS_PER_SM: the L2 pipeline's work
    l2_work_merged: float = 0.0  # the merges of l2_work (already out of it)
    resident_at_end: float = 0.0  # writes: share of the written lines still in L2 when the kernel ends
    ddr_wait: float = -1.0  # reads waiting for a DRAM fetch, own or a same-wave one's (see _ddr_wait)


def _timeline(body: tuple[Node, ...], start: int, out: dict[str, list[np.ndarray]]) -> int:
    """Assign slots to every action: consecutive actions share a slot, a loop takes trips x body slots.

    Returns the length in slots; ``out[action]`` collects arrays of the action's occurrence slots.
    """
    pos = start
    open_slot = False
    for node in body:
        if isinstance(node, Loop):
            if open_slot:
                pos += 1
                open_slot = False
            inner: dict[str, list[np.ndarray]] = {}
            length = max(_timeline(node.body, 0, inner), 1)
            base = pos + np.arange(node.trips, dtype=np.int64) * length
            for name, parts in inner.items():
                slots = np.concatenate(parts)
                out.setdefault(name, []).append((base[:, None] + slots[None, :]).ravel())
            pos += node.trips * length
        else:
            out.setdefault(node.name, []).append(np.array([pos], dtype=np.int64))
            open_slot = True
    return pos + (1 if open_slot else 0) - start


def early_returns(plan: TilePlan) -> tuple[Loop, np.ndarray] | None:
    """The guard an early return leaves (``if pid_m * BLOCK_M >= num_tokens_post_padded: return``, a varlen
    batch's spare query blocks) and the launch indices that run past it, where the plan says which
    (:attr:`Loop.trips_by_program` of one iteration or none, at the top of an ordinary grid's tile program)
    and the programs that return do no tiled memory work before they do (their scalar reads of the bound
    only).
    None otherwise.

    The cache model walks only the tiles that run past it: a tile that returns frees its slot at once and
    reads nothing the others could find in L2, so walking it (at the guard's mean share of the work, with the
    keys of the tiles it stands beside) would share the live tiles' first touches with tiles that never make
    them: a fused MoE's expert weights came out 0.88-0.95 of what the experts routed to must read, a paged
    decode's pages 0.80 (stop 87)."""
    if plan.grid.persistent:
        return None
    guards = [
        n
        for n in plan.body
        if isinstance(n, Loop)
        and n.trips == 1
        and n.trips_by_program is not None
        and set(n.trips_by_program) == {0, 1}
    ]
    if len(guards) != 1:
        return None
    (guard,) = guards
    for act, loops in plan.actions():
        if any(loop is guard for loop in loops):
            continue
        if act.kind in (ActionKind.LOAD, ActionKind.STORE) and act.tensor is not None:
            if math.prod(plan.tensor(act.tensor).tile) > 1:
                return None
    live = np.asarray(guard.trips_by_program, dtype=bool)
    if live.size != plan.grid.tiles:
        return None
    return guard, live


def _streams(
    plan: TilePlan, coords: np.ndarray, guard: Loop | None = None, spread: float = 1.0
) -> list[_Stream]:
    """``guard``: the early-return guard whose tiles alone are walked (:func:`early_returns`): its actions run
    in every walked tile, the ones outside it (``spread``: all tiles over the walked ones) in all."""
    slots: dict[str, list[np.ndarray]] = {}
    _timeline(plan.body, 0, slots)
    tiles = coords.shape[0]
    streams = []
    for act, loops in plan.actions():
        if act.kind not in (ActionKind.LOAD, ActionKind.STORE) or act.tensor is None:
            continue
        t = plan.tensor(act.tensor)
        if t.level not in _CACHED_LEVELS:
            continue
        occ = np.sort(np.concatenate(slots[act.name]))
        keys, nkeys = reuse_keys(plan.grid, t, coords)
        # the tensor's bytes are spread over every occurrence's block, re-reads of an action's own earlier
        # steps (TileAction.rereads) included: what a re-read costs the L2 is its share of the tensor, not a
        # whole tile. Measured (stop 40, the reread set): Triton hoists a loop-invariant load out of a loop
        # without stores (it moves once a tile), and plain loads re-read from a small panel are served by L1;
        # charging the re-reads whole tiles at the L2 made that set 35% off against 15% this way. Asynchronous
        # copies (cp.async, TMA) do re-read from L2, which this understates (the overlap_alone probe).
        distinct = int(_distinct_per_bin(keys, nkeys, 1)[0]) * occ.size
        # masked edge blocks move fewer bytes: spread the tensor's bytes over the blocks that cover it. Not
        # where the addresses come from data (a MoE block's rows gathered through token ids, a varlen
        # sequence's blocks walked over the mean trip count): there the keys are not regions tiling the
        # tensor (a token's row is read once for each of its experts), and every access moves its whole tile
        if not distinct:
            block_bytes = 0.0
        elif t.indirect:
            block_bytes = t.tile_bytes
        else:
            block_bytes = t.tile_bytes * min(1.0, t.tensor_bytes / (distinct * t.tile_bytes))
        write = act.kind is ActionKind.STORE or t.mode in (AccessMode.WRITE, AccessMode.ATOMIC)
        walked = math.prod(loop.trips for loop in loops)
        weight = math.prod(loop.trips if loop is guard else loop.work_trips for loop in loops)
        weight = weight / walked if walked > 0 else 1.0
        if guard is not None and not any(loop is guard for loop in loops):
            weight *= spread
        if tiles:
            streams.append(
                _Stream(
                    act.name, t.name, write, occ, block_bytes, keys, nkeys, act.reverse, weight, act.rereads
                )
            )
    return streams


# Largest dense table (entries) used to count distinct keys with a flag array instead of a sort.
_DENSE_DISTINCT_MAX = 1 << 26
# Bins of at most this many ids are counted column by column (:func:`_distinct_per_bin`; speed only).
_FEW_PER_BIN = 8


def _distinct_per_bin(ids: np.ndarray, per_bin: int, bins: int) -> np.ndarray:
    """Number of distinct ids in each bin, where bin = id // per_bin."""
    if per_bin * bins <= _DENSE_DISTINCT_MAX:
        flag = np.zeros(per_bin * bins, dtype=bool)
        flag[ids] = True
        table = flag.reshape(bins, per_bin)
        if per_bin > _FEW_PER_BIN:
            return table.sum(axis=1)
        # a few ids per bin (the L2 partitions of a key): added column by column, which numpy does an order
        # of magnitude faster than a reduction over the short axis of many rows
        count = table[:, 0].astype(np.int64)
        for column in range(1, per_bin):
            count += table[:, column]
        return count
    ordered = np.sort(ids)  # distinct ids by a sort (numpy 2's hash-based np.unique is far slower on int64)
    keep = np.ones(ordered.size, dtype=bool)
    keep[1:] = ordered[1:] != ordered[:-1]
    return np.bincount(ordered[keep] // per_bin, minlength=bins)


# Keys that fit numpy's 16-bit radix sort (np.iinfo(np.uint16).max + 1).
_UINT16_KEYS = 1 << 16


def _previous_same_key(keys: np.ndarray, nkeys: int) -> np.ndarray:
    """For each position, the latest earlier position holding the same key (-1 for none)."""
    prev = np.full(keys.size, -1, dtype=np.int64)
    if keys.size == 0 or np.bincount(keys, minlength=nkeys).max() <= 1:
        return prev  # every key appears once (e.g. an output tile per tile)
    # stable sort keeps time order within a key; 16-bit keys take numpy's linear-time radix sort
    small = keys.astype(np.uint16) if nkeys <= _UINT16_KEYS else keys
    srt = np.argsort(small, kind="stable")
    ordered = small[srt]  # keys in sorted order (the narrow copy is lossless: every key < nkeys)
    same = ordered[1:] == ordered[:-1]
    prev[srt[1:][same]] = srt[:-1][same]
    return prev


def _sample_indices(n: int, samples: int) -> np.ndarray:
    """Stratified midpoints: ``n`` iterations in ``samples`` equal strata, the middle of each."""
    k = min(n, samples)
    # a few Python floats (the same IEEE arithmetic as numpy's) instead of np.unique, slow on tiny arrays;
    # the midpoints are non-decreasing, so dropping repeats keeps them sorted
    mids = [math.floor((i + 0.5) * n / k) for i in range(k)]
    return np.array(list(dict.fromkeys(mids)), dtype=np.int64)


def _sampled_steps(streams: list[_Stream], samples: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per stream: its sampled occurrences, and for every stream (rows) how many of its occurrences come
    before each sampled slot and whether one falls on it (floats, for the byte sums). Depends only on the
    tile program's timeline, so every cache walk of a plan shares it."""
    out = []
    for s in streams:
        idx = _sample_indices(s.slots.size, samples)
        sig = s.slots[idx]  # sampled slots
        before = _occurrences_before(streams, sig)
        at = np.empty((len(streams), idx.size))
        for r, o in enumerate(streams):
            k = before[r].astype(np.int64)  # o.slots is sorted: a match sits at k
            at[r] = (k < o.slots.size) & (o.slots[np.minimum(k, o.slots.size - 1)] == sig)
        out.append((idx, before, at))
    return out


def _occurrences_before(streams: list[_Stream], slots: np.ndarray) -> np.ndarray:
    """For every stream (rows), how many of its occurrences come before each of ``slots`` (floats, for the
    byte sums: ``uniq @`` the difference of two of these is what the wave reads between two slots)."""
    return np.stack([np.searchsorted(o.slots, slots, side="left") for o in streams]).astype(float)


def _staggered_window_bytes(
    streams: list[_Stream], prevs: list[np.ndarray], tiles: int, ngroups: int
) -> np.ndarray:
    """Distinct bytes one cache sees while ``n`` launch indices go by, in the staggered schedule, for every
    ``n`` in ``0..tiles`` (the array's index).

    In the staggered schedule tile ``q`` runs loop step ``k`` at time ``q K / slots + k``: between two tiles
    ``n`` launch indices apart reading the same block at the same step, each step ``k'`` of every stream is
    run by ``n`` consecutive launch indices, so the distinct blocks are ``sum_streams occurrences x D(n)``,
    with ``D(n)`` the expected distinct keys among ``n`` consecutive launch indices of one cache group:
    ``n / groups`` positions minus those whose previous same-key position (gap ``g``) lies in the window too,
    which over all window placements is ``sum_q max(0, n - g_q) / tiles``.
    """
    hists = []
    for prev in prevs:
        j = np.flatnonzero(prev >= 0)
        hists.append(np.bincount(j - prev[j], minlength=tiles + 1))
    return _window_at(streams, hists, tiles, ngroups, np.arange(tiles + 1))


def _window_at(
    streams: list[_Stream], hists: list[np.ndarray] | np.ndarray, tiles: int, ngroups: int, at: np.ndarray
) -> np.ndarray:
    """:func:`_staggered_window_bytes` at the launch distances ``at`` only (sorted, distinct, in
    ``0..tiles``), from each stream's histogram of reuse gaps (launch index minus that of the previous
    same-key access, ``tiles + 1`` bins).

    ``c0(n)``, the count of gaps below ``n``, and ``c1(n)``, their sum, are integers (exact in float64), so
    evaluating them at a few distances gives the same numbers as the full prefix sums.
    """
    n = at.astype(np.float64)
    per_group = n / ngroups
    # every stream at once: row r of ``counts`` is stream r's histogram; c0 and c1 are exclusive prefix
    # sums (gaps below n, not up to n). They are taken over the gaps that occur only (the histograms' nonzero
    # bins, few against ``tiles + 1``): the sum over the first ``k`` of them, where ``k`` of them lie below n
    nstreams = len(streams)
    counts = np.asarray(hists, dtype=np.int64).reshape(nstreams, tiles + 1)
    gap = np.flatnonzero(counts.any(axis=0))
    cnt = counts[:, gap]
    sums = np.zeros((2 * nstreams, gap.size + 1), dtype=np.int64)
    np.cumsum(np.concatenate((cnt, cnt * gap)), axis=1, out=sums[:, 1:])
    sums = sums[:, np.searchsorted(gap, at, side="left")]
    c0, c1 = sums[:nstreams].astype(np.float64), sums[nstreams:].astype(np.float64)
    keys = np.array([[float(s.nkeys)] for s in streams])
    distinct = per_group - (n * c0 - c1) / max(tiles, 1)
    np.maximum(distinct, 0.0, out=distinct)
    np.minimum(distinct, keys, out=distinct)
    total = np.zeros(at.size)
    for s, row in zip(streams, distinct, strict=True):  # summed stream by stream, in stream order
        total += s.slots.size * s.block_bytes * row
    return total


# Accesses handled per vectorised pass in the cache walk: each pass's temporaries then stay small enough for
# the allocator to reuse them (one pass over a 64k-tile grid would allocate, and page-fault, fresh
# half-megabyte arrays at every step). Speed only: the result does not depend on it.
WALK_CHUNK = 16384


def _chunks(index: np.ndarray):
    """``index`` in consecutive slices of at most :data:`WALK_CHUNK` entries."""
    for lo in range(0, index.size, WALK_CHUNK):
        yield index[lo : lo + WALK_CHUNK]


def _scatter(hits: np.ndarray, index: np.ndarray, values: np.ndarray) -> None:
    """``hits[:, index] = values.T`` row by row (``values`` is (accesses, samples))."""
    for k, row in enumerate(hits):
        row[index] = values[:, k]


def _hit_matrix(
    streams: list[_Stream],
    wave: np.ndarray,
    group: np.ndarray,
    capacity_bytes: float,
    associativity: int,
    form: str,
    samples: int,
    skew: float = EXECUTION_SKEW,
    reads_only: bool = False,
    sampled: list[tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None,
) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Hit probability per (sampled occurrence, launch index) for every read stream, in caches split by
    ``group`` (one cache per group id); plus the mask of compulsory (first-touch) accesses and the mask of
    concurrent reuses (the previous access of the block lies in the same wave)."""
    tiles = wave.size
    ngroups = int(group.max()) + 1 if tiles else 1
    nwaves = int(wave.max()) + 1 if tiles else 0
    cell = wave * ngroups + group  # one (wave, group) cell = the tiles one cache sees concurrently
    ncells = nwaves * ngroups
    cell_size = np.bincount(cell, minlength=ncells).astype(np.float64)
    # position of each tile within its cell, in time order
    order = np.argsort(cell, kind="stable")
    first = np.concatenate(([0], np.cumsum(cell_size)[:-1])).astype(np.int64)
    pos = np.empty(tiles, dtype=np.int64)
    pos[order] = np.arange(tiles) - first[cell[order]]

    # distinct bytes per cell and stream per occurrence
    # previous access of the same block (same key, same cache group) in time order, per stream; a tile whose
    # previous access lies in another cell is its cell's first touch of the block
    prevs = []
    uniq = np.zeros((ncells, len(streams)))
    for j, s in enumerate(streams):
        prev = _previous_same_key(group * s.nkeys + s.keys, s.nkeys * ngroups)
        prevs.append(prev)
        first = prev < 0
        first[~first] = cell[prev[~first]] != cell[~first]
        uniq[:, j] = np.bincount(cell[first], minlength=ncells) * s.block_bytes
    per_wave_bytes = uniq @ np.array([s.slots.size for s in streams], dtype=np.float64)
    # bytes of all earlier waves of the same group
    prefix = np.zeros(ncells)
    by_group = per_wave_bytes.reshape(nwaves, ngroups)
    prefix[:] = (np.cumsum(by_group, axis=0) - by_group).ravel()

    # bytes each group's cache has seen by the end of the kernel
    total = (np.cumsum(by_group, axis=0)[-1] if nwaves else np.zeros(ngroups))[group]

    reuse = [np.flatnonzero(prev >= 0) for prev in prevs]  # launch indices re-reading a block
    gaps = [j - prev[j] for j, prev in zip(reuse, prevs, strict=True)]
    window = None
    ramp_end = 0
    if skew > 0:
        # the staggered window is needed only at the gaps of the reuses; looked up by gap in a full-size array
        hists = np.array([np.bincount(g, minlength=tiles + 1) for g in gaps], dtype=np.int64)
        at = np.flatnonzero(hists.reshape(len(streams), tiles + 1).sum(axis=0))
        window = np.zeros(tiles + 1)
        window[at] = _window_at(streams, hists, tiles, ngroups, at)
        # the skew each wave has built up (EXECUTION_SKEW_RAMP_WAVES); waves from the ramp's end on run at
        # ``skew`` itself, so a chunk of reuses past it (waves never decrease in time order) keeps the scalar
        ramp = min(max(math.ceil(EXECUTION_SKEW_RAMP_WAVES), 0), nwaves)
        wave_skew = skew * np.sqrt(np.arange(ramp) / max(EXECUTION_SKEW_RAMP_WAVES, 1.0))
        ramp_end = int(np.searchsorted(wave, ramp))  # first launch index past the ramp

    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    frac = pos / cell_size[cell]  # position of each tile within its cell, as a share of the cell
    if sampled is None:
        sampled = _sampled_steps(streams, samples)
    for s, prev, rj, gj, (idx, before, at) in zip(streams, prevs, reuse, gaps, sampled, strict=True):
        before_bytes = uniq @ before  # (cells, samples)
        step_bytes = uniq @ at
        has = prev >= 0
        hits = np.zeros((idx.size, tiles))  # (samples, launch index): rows are written per sample
        if s.block_bytes <= 0 or (s.write and reads_only):
            out[s.action] = (hits, ~has, np.zeros(tiles, dtype=bool))
            continue
        hit_of = hit_probability_table(capacity_bytes / s.block_bytes, associativity, form)
        if s.write:
            # a written block's last write: the probability it is still resident (dirty) when the kernel ends
            last = np.ones(tiles, dtype=bool)
            last[prev[has]] = False
            for lj in _chunks(np.nonzero(last)[0]):
                c = cell[lj]
                cum = prefix[c][:, None] + before_bytes[c] + frac[lj][:, None] * step_bytes[c]
                dist = np.maximum(total[lj][:, None] - cum - s.block_bytes, 0.0) / s.block_bytes
                _scatter(hits, lj, hit_of(dist))
            out[s.action] = (hits, last, np.zeros(tiles, dtype=bool))
            continue
        # reuse inside one cell: the distance is the share of one step's bytes between the two tiles; when the
        # step's bytes do not vary over the samples it is the same for every sample (most reuses in a wave)
        step_const = np.all(step_bytes == step_bytes[:, :1], axis=1)
        start = prefix[:, None] + before_bytes  # bytes before each cell's sampled step, (cells, samples)
        start_t, step_t = np.ascontiguousarray(start.T), np.ascontiguousarray(step_bytes.T)
        concurrent = np.zeros(tiles, dtype=bool)
        # the reuses in the skew's ramp (the first waves, the first launch indices) in chunks of their own
        split = int(np.searchsorted(rj, ramp_end))
        bounds = [*range(0, split, WALK_CHUNK), *range(split, rj.size, WALK_CHUNK), rj.size]
        for lo, hi in itertools.pairwise(bounds):
            j, gap = rj[lo:hi], gj[lo:hi]
            i = prev[j]
            cj, ci = cell[j], cell[i]
            frac_j, frac_i = frac[j], frac[i]
            same = cj == ci
            inner = same & step_const[cj]
            ji, cin = j[inner], cj[inner]
            d_in = np.maximum((frac_j[inner] - frac_i[inner]) * step_bytes[cin, 0] - s.block_bytes, 0.0)
            o = ~inner
            sk_in = sk_o = skew
            if lo < split:
                sk_j = wave_skew[wave[j]]
                sk_in, sk_o = sk_j[inner], sk_j[o]
            if window is not None:
                d_st = np.maximum(window[gap[inner]] - s.block_bytes, 0.0)
                d_in = (1.0 - sk_in) * d_in + sk_in * d_st
            jo, cjo, cio = j[o], cj[o], ci[o]
            fjo, fio = frac_j[o], frac_i[o]
            if window is not None:
                skewed = sk_o * np.maximum(window[gap[o]] - s.block_bytes, 0.0)
            # one sampled step at a time (rows of the transposed byte tables: plain 1-D gathers)
            dists = []
            for st_k, sb_k in zip(start_t, step_t, strict=True):
                dist = st_k[cjo] - st_k[cio]
                dist += fjo * sb_k[cjo]
                dist -= fio * sb_k[cio]
                dist -= s.block_bytes
                np.maximum(dist, 0.0, out=dist)
                if window is not None:
                    dist *= 1.0 - sk_o
                    dist += skewed
                dist *= 1.0 / s.block_bytes
                dists.append(dist)
            # the hit probabilities of the in-step reuses and of every sampled step's other reuses, in one
            # evaluation (each keeps the call it had on its own: _HitTable.many)
            p_in, *p_out = hit_of.many([d_in / s.block_bytes, *dists])
            for row, p_k in zip(hits, p_out, strict=True):
                row[ji] = p_in
                row[jo] = p_k
            concurrent[j[same]] = True
        out[s.action] = (hits, ~has, concurrent)
    _in_tile_rereads(streams, out, uniq, cell, capacity_bytes, associativity, form)
    _own_rereads(streams, out, uniq, cell, sampled, capacity_bytes, associativity, form)
    return out


def _own_rereads(
    streams: list[_Stream],
    out: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]],
    uniq: np.ndarray,
    cell: np.ndarray,
    sampled: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
    capacity_bytes: float,
    associativity: int,
    form: str,
) -> None:
    """A read stream's re-reads of its own earlier occurrences (:attr:`~tilesight.plan.TileAction.rereads`:
    ``share`` of occurrence ``i``'s bytes were read at occurrence ``i - gap`` by the same tile). At each
    sampled occurrence that share hits with the larger of its cross-tile probability and that of the
    distance between the two occurrences: what the tile's wave reads in between (every stream's distinct
    bytes per occurrence in the tile's cell, times its occurrences between the two slots, as
    :func:`_in_tile_rereads` counts). Occurrences before ``gap`` keep their cross-tile probability. Updates
    ``out`` in place."""
    for s, (idx, before, _) in zip(streams, sampled, strict=True):
        if s.write or not s.rereads or s.block_bytes <= 0:
            continue
        hits, first, concurrent = out[s.action]
        hit_of = hit_probability_table(capacity_bytes / s.block_bytes, associativity, form)
        new = hits.copy()
        for gap, share in s.rereads:
            has = idx >= gap  # sampled occurrences with an earlier read `gap` occurrences back
            if not has.any():
                continue
            before_e = _occurrences_before(streams, s.slots[idx[has] - gap])
            between = uniq @ np.maximum(before[:, has] - before_e, 0.0)  # (cells, occurrences)
            p_in = hit_of(np.maximum(between - s.block_bytes, 0.0) / s.block_bytes)  # (cells, has)
            rows = np.flatnonzero(has)
            for k, r in enumerate(rows):
                base = hits[r]
                new[r] += share * np.maximum(p_in[cell, k] - base, 0.0)
        out[s.action] = (np.minimum(new, 1.0), first, concurrent)


def _in_tile_rereads(
    streams: list[_Stream],
    out: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]],
    uniq: np.ndarray,
    cell: np.ndarray,
    capacity_bytes: float,
    associativity: int,
    form: str,
) -> None:
    """Blocks a tile reads again later in its own program (a normalisation kernel's second pass over its
    row): a read stream of the same tensor, tile and occurrence count as an earlier read stream re-reads that
    stream's blocks, occurrence for occurrence, or last first where one of the two walks its blocks
    backwards (:attr:`~tilesight.plan.TileAction.reverse`: occurrence ``i`` re-reads ``n - 1 - i``). The
    reuse distance is what the tile's wave reads between the
    two occurrences (every stream's distinct bytes per occurrence in the wave's cell, times its occurrences
    in between); the access hits with the larger of that probability and its cross-tile one, and is no first
    touch. Updates ``out`` in place."""
    earlier: dict[tuple, int] = {}
    for j, s in enumerate(streams):
        if s.write:
            continue
        key = (s.tensor, s.slots.size, s.block_bytes)
        r = earlier.get(key)
        earlier[key] = j
        if r is None or s.block_bytes <= 0:
            continue
        # every occurrence, not the sampled ones: the distance grows with the step (from nothing, for a
        # backward pass's first step), so its hits are not spread evenly over the loop
        n = s.slots.size
        mirrored = s.reverse != streams[r].reverse
        slot_r = streams[r].slots[::-1] if mirrored else streams[r].slots
        between = uniq @ np.maximum(  # (cells, occurrences) bytes read in between
            _occurrences_before(streams, s.slots) - _occurrences_before(streams, slot_r), 0.0
        )
        hit_of = hit_probability_table(capacity_bytes / s.block_bytes, associativity, form)
        p_in = hit_of(np.maximum(between - s.block_bytes, 0.0) / s.block_bytes).sum(axis=1) / n  # (cells,)
        hits, first, concurrent = out[s.action]
        out[s.action] = (np.maximum(hits, p_in[cell][None, :]), np.zeros_like(first), concurrent)


def _ddr_wait(miss: float, concurrent: float) -> float:
    """Share of a stream's reads that wait for DRAM: the misses, and the reads of the same block later in the
    same wave (``concurrent``: the share of reads whose block the wave already asked for) that arrive while
    the first request's fetch is still in flight. Only a wave's first request of a block can miss (a repeat in
    the wave finds it at a distance of a few tiles), so ``miss / (1 - concurrent)`` of the first requests
    miss, and with them the repeats that follow them; the wave's blocks ask for a tile within a few steps of
    one another, so every repeat is counted as waiting with its first request."""
    miss = min(max(miss, 0.0), 1.0)
    first = 1.0 - min(max(concurrent, 0.0), 1.0)
    return 1.0 if miss >= first else miss / first


def execution_skew(plan: TilePlan, hw: HardwareProfile, blocks_per_sm: float = 1.0) -> float:
    """The plan's execution skew (see :data:`EXECUTION_SKEW_COMPUTE`): from its tile's tensor-core FLOPs per
    byte it reads from cached memory, against the ridge ``tensor-core rate / L2 bandwidth`` at the rates of
    its own dots (a warp-level ``mma`` has a lower rate, so a lower ridge); plus
    :data:`EXECUTION_SKEW_PER_BLOCK` for each of the ``blocks_per_sm`` (a wave's mean) beyond the first, up to
    :data:`EXECUTION_SKEW_BLOCKS_SEEN`; at most 1. A plan whose loops are paced by the L2 latency
    (:func:`_latency_paced`) keeps ``EXECUTION_SKEW_COMPUTE`` however many blocks an SM holds."""
    if _latency_paced(plan, hw):
        return EXECUTION_SKEW_COMPUTE
    extra = min(max(blocks_per_sm - 1.0, 0.0), EXECUTION_SKEW_BLOCKS_SEEN - 1.0) * EXECUTION_SKEW_PER_BLOCK
    return min(_pacing_skew(plan, hw) + extra, 1.0)


def _latency_paced(plan: TilePlan, hw: HardwareProfile) -> bool:
    """Whether every loop at the top of the tile program (``plan.body``; the loops nested in them are not
    looked at) keeps at most :data:`LATENCY_PACED_STAGES` stages (one iteration of loads in flight) and loads,
    with its own load actions, no more bytes an iteration than the SM's L2 port moves in the L2 latency: each
    iteration then waits out the round trip, which paces every block alike (see
    :data:`LATENCY_PACED_STAGES`). False for a program without loops or with a top-level loop that loads
    nothing itself. A one-trip loop around loops (the code past an early return, timed as the share of the
    programs that reach it) is looked through: its loops are the program's."""
    loops = _top_loops(plan.body)
    if not loops:
        return False
    for loop in loops:
        if loop.stages > LATENCY_PACED_STAGES:
            return False
        loads = [
            node for node in loop.body
            if isinstance(node, TileAction) and node.kind is ActionKind.LOAD and node.tensor is not None
        ]  # fmt: skip
        nbytes = sum(plan.tensor(a.tensor).tile_bytes for a in loads)
        if not loads or nbytes / hw.l2_bw_per_sm_bytes_per_s > hw.l2_latency_s:
            return False
    return True


def _top_loops(body: tuple[Node, ...]) -> list[Loop]:
    """The loops at the top of a tile program, those inside one-trip loops around loops in their place (a
    branch's or an early return's share of the programs: ``if pid_m * BM >= n: return`` ahead of a MoE
    GEMM's K loop)."""
    out: list[Loop] = []
    for node in body:
        if not isinstance(node, Loop):
            continue
        inner = _top_loops(node.body) if node.trips == 1 else []
        out.extend(inner or [node])
    return out


def _pacing_skew(plan: TilePlan, hw: HardwareProfile) -> float:
    """The pacing rule alone (:func:`execution_skew` for one block an SM)."""
    flops = tc_seconds = read_bytes = 0.0
    for act, loops in plan.actions():
        n = math.prod(loop.work_trips for loop in loops)
        if act.kind is ActionKind.DOT and act.flops > 0:
            flops += act.flops * n
            tc_seconds += act.flops * n / hw.tc_rate(act.dtype or "", act.variant)
        elif act.kind is ActionKind.LOAD and act.tensor is not None:
            t = plan.tensor(act.tensor)
            if t.level in _CACHED_LEVELS:
                read_bytes += t.tile_bytes * n
    if flops <= 0 or read_bytes <= 0 or hw.l2_bw_bytes_per_s <= 0:
        return EXECUTION_SKEW_MEMORY if read_bytes > 0 else EXECUTION_SKEW_COMPUTE
    ridge = flops / tc_seconds / hw.l2_bw_bytes_per_s
    shortfall = min(max(1.0 - flops / read_bytes / ridge, 0.0), 1.0)
    return EXECUTION_SKEW_COMPUTE + (EXECUTION_SKEW_MEMORY - EXECUTION_SKEW_COMPUTE) * shortfall


def _leader_positions(cell: np.ndarray, pos: np.ndarray, ncells: int) -> np.ndarray:
    """Per launch index, the smallest ``pos`` among the indices of its ``cell``: a dense table where the cells
    fit (:data:`_DENSE_DISTINCT_MAX`), else one sort."""
    if ncells > _DENSE_DISTINCT_MAX:
        _, cell = np.unique(cell, return_inverse=True)
        ncells = int(cell.max()) + 1
    lead = np.full(ncells, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(lead, cell, pos)
    return lead[cell]


def _merge_window(
    streams: list[_Stream],
    near: dict[str, tuple[np.ndarray, ...]],
    eo: ExecutionOrder,
    part: np.ndarray,
    per_sm: int,
) -> dict[str, np.ndarray]:
    """Per read stream and launch index, the probability that the coalescer merges the read (see
    :data:`LRC_WINDOW_POSITION_LAG`): 0 unless it is a same-wave reuse in its partition (``concurrent`` of the
    near walk), else ``1 / (1 + LRC_WINDOW_BLOCK_LAG x blocks per SM + LRC_WINDOW_POSITION_LAG x positions
    behind the block's first request in its (wave, partition) cell)``."""
    groups = int(part.max()) + 1 if part.size else 1
    waves = int(eo.wave.max()) + 1 if eo.wave.size else 0
    wave_part = eo.wave.astype(np.int64) * groups + part
    pos = eo.pos.astype(np.int64)
    out = {}
    for s in streams:
        if s.write or s.action not in near:
            continue
        cell = wave_part * s.nkeys + s.keys
        behind = (pos - _leader_positions(cell, pos, waves * groups * s.nkeys)).astype(np.float64)
        lag = LRC_WINDOW_BLOCK_LAG * per_sm + LRC_WINDOW_POSITION_LAG * behind
        out[s.action] = near[s.action][2] / (1.0 + lag)
    return out


def _partition_of(sm: np.ndarray, hw: HardwareProfile, partitions: int) -> np.ndarray:
    """L2 partition of each SM: the profile's measured map where it has ``partitions`` parts, else SMs split
    evenly in SM order."""
    if hw.sm_l2_partition and partitions == max(hw.l2_partitions, 1):
        return np.asarray(hw.sm_l2_partition, dtype=np.int64)[sm]
    return sm * partitions // hw.sm_count


def _replica_share(
    streams: list[_Stream], part: np.ndarray, partitions: int, rounds: np.ndarray | None = None
) -> float:
    """Share of the calibrated L2 capacity left for distinct lines once lines read from several partitions
    are copied into each (see the module docstring).

    A block read from ``k`` of ``P`` partitions is held ``k`` times, once more at its home partition when that
    is not one of the readers (probability ``(P - k) / P``). The profile's ``l2_effective_bytes`` comes from a
    read sweep in which every line is read from one partition (``2 - 1 / P`` copies on average), so the
    share is that over the plan's mean copies (bytes-weighted over its read blocks); 1 for one partition.

    ``k`` counts the partitions that read the block over the whole launch, or, with ``rounds`` (a round index
    per launch index), within each round: a persistent program keeps its SM for the whole launch, so a line
    its readers hand from one partition to the other round by round (a B column walked by programs two apart,
    66 programs over 64 tile columns) is held in the partitions reading it now, and the copy the earlier
    readers left ages out of the LRU unread. A block of an ordinary grid lands, after the first wave, on
    whichever SM frees a slot first, which drifts from the first wave's placement as tiles finish unevenly,
    so its readers spread over the partitions as the launch goes on: the whole-launch count (windows of 1-4
    waves for every grid made the NCU study's held-out third 2.55-2.73 pp against 2.28, stop 49). (NCU,
    persistent GEMMs at M = N = 8192, K = 2048, 128 x 128 tiles, GROUP_M 1: 66 programs hit L2 on 91% of
    sectors and 132 on 74%, where the whole-launch count gives them 62 and 67%; round by round, 85 and 70%.)
    """
    ref = 2.0 - 1.0 / partitions
    nrounds = 1 if rounds is None or rounds.size == 0 else int(rounds.max()) + 1
    num = den = 0.0
    for s in streams:
        if s.write or s.block_bytes <= 0 or s.keys.size == 0:
            continue
        key = s.keys if rounds is None else rounds * s.nkeys + s.keys  # a key per round with rounds
        k = _distinct_per_bin(key * partitions + part, partitions, s.nkeys * nrounds)  # partitions per key
        k = k[k > 0]
        weight = s.block_bytes * s.slots.size
        num += weight * float((k + (partitions - k) / partitions).sum())
        den += weight * k.size
    return ref / (num / den) if den > 0 else 1.0


def _compute(
    plan: TilePlan,
    hw: HardwareProfile,
    l2_capacity_bytes: float,
    form: str,
    samples: int,
    resident: int | None,
    merge_spread: float | None = LRC_MERGE_SPREAD,
    skew: float | None = None,
    partitions: int = L2_PARTITIONS,
) -> tuple[CacheTraffic, tuple[AccessBreakdown, ...]]:
    returns = early_returns(plan)
    guard, live = returns if returns is not None and returns[1].any() else (None, None)
    eo = execution_order(plan, hw, resident, keep=live)
    if skew is None:
        skew = execution_skew(plan, hw, eo.concurrency / hw.sm_count)
    spread = live.size / int(live.sum()) if live is not None else 1.0
    every = _streams(plan, eo.coords, guard, spread)
    # an action no walked iteration reaches (a loop whose mean trip count rounds to none) stays out of the
    # walk: it gets a row of no traffic below
    streams = [s for s in every if s.slots.size]
    tiles = eo.wave.size
    zeros = np.zeros(tiles, dtype=np.int64)
    sampled = _sampled_steps(streams, samples)
    split = partitions > 1 and not hw.has_l15
    part = _partition_of(eo.sm, hw, partitions) if split else zeros
    # a persistent grid's programs keep their SMs: lines are copied where they are read round by round
    rounds = eo.wave if plan.grid.persistent else None
    capacity = l2_capacity_bytes * (_replica_share(streams, part, partitions, rounds) if split else 1.0)
    l2 = _hit_matrix(
        streams, eo.wave, zeros, capacity, hw.l2_associativity, form, samples, skew, sampled=sampled
    )
    near = l2
    if split:
        # each SM looks a block up in its own partition first (see the module docstring)
        near = _hit_matrix(
            streams, eo.wave, part, capacity / partitions, hw.l2_associativity, form, samples, skew,
            reads_only=True, sampled=sampled,
        )  # fmt: skip
    # lines homed in another partition than the reader's: looked up again across the fabric on a near miss
    far = (partitions - 1) / partitions if split else 0.0
    per_sm = math.ceil(eo.concurrency / hw.sm_count) if eo.concurrency else 1
    merge_window = None if merge_spread is None else _merge_window(streams, near, eo, part, per_sm)
    merge_work = 0.0 if merge_spread is None else 1.0 / (1.0 + merge_spread * LRC_TIMING_BLOCKS_PER_SM)
    l15 = None
    if hw.has_l15 and hw.l15_sms_per_group > 0:
        groups = eo.sm // hw.l15_sms_per_group
        # no L1.5 associativity field in the profile: the L1.5 tier is modelled with the L2's associativity
        l15 = _hit_matrix(
            streams, eo.wave, groups, hw.l15_effective_bytes, hw.l2_associativity, form, samples, skew,
            sampled=sampled,
        )  # fmt: skip

    rows: list[AccessBreakdown] = []
    warm = dict(plan.l2_warm)  # tensors an earlier kernel left (partly) in L2
    for s in every:
        accesses = int(s.slots.size * tiles)
        requested = accesses * s.block_bytes
        if not s.slots.size:  # out of the walk (above): no traffic
            rows.append(AccessBreakdown(s.action, s.tensor, s.write, 0, 0.0, 0.0, 0.0, 0.0, 0.0))
            continue
        if s.write:
            resident, last, _ = l2[s.action]
            at_end = float(resident[:, last].mean()) if last.any() else 0.0
            distinct = int(last.sum()) * s.slots.size * s.block_bytes
            if not WRITEBACK_AT_KERNEL_END:
                distinct *= 1.0 - at_end if last.any() else 1.0
            rows.append(
                AccessBreakdown(
                    s.action, s.tensor, True, accesses, requested, 0.0, WRITE_SECTOR_HIT_RATE, distinct, 1.0,
                    resident_at_end=at_end,
                )
            )  # fmt: skip
            continue
        p2, first, _ = l2[s.action]
        if warm.get(s.tensor):
            # a first touch finds the line in L2 with the share the earlier kernel left there
            p2 = p2.copy()
            p2[:, first] = np.maximum(p2[:, first], warm[s.tensor])
        p_near, _, concurrent = near[s.action]
        if l15 is not None:
            p15 = l15[s.action][0]
            h15 = float(p15.mean())
            l2_only = np.maximum(p2 - p15, 0.0)
            h2 = float(l2_only.mean())
            h2_sector, lookups, merged_share = h2, 1.0, 0.0
            work, work_merged = lookups, merged_share
        else:
            h15, h2 = 0.0, float(p2.mean())
            mprob = merge_window[s.action] if merge_window is not None else np.zeros(tiles)
            merged = mprob[None, :]  # requests the coalescer answers without an L2 lookup
            hits = (1.0 - far) * p2 + far * np.maximum(p2, p_near) - merged
            h2_sector = float(np.maximum(hits, 0.0).mean())
            reuses = float(concurrent.mean())  # share of the reads that are same-wave reuses
            merged_share, work_merged = float(mprob.mean()), merge_work * reuses
            fabric = far * (1.0 - float(p_near.mean()))
            lookups = 1.0 - merged_share + fabric
            work = 1.0 - work_merged + fabric
        ddr = requested * max(0.0, 1.0 - h15 - h2)
        rows.append(
            AccessBreakdown(
                s.action, s.tensor, False, accesses, requested, h15, h2, ddr, float(first.mean()), h2_sector,
                lookups, merged_share, work, work_merged,
                ddr_wait=_ddr_wait(1.0 - h15 - h2, float(concurrent.mean())),
            )
        )  # fmt: skip

    tensors: dict[str, TensorTraffic] = {}
    for name in dict.fromkeys(r.tensor for r in rows):
        mine = [r for r in rows if r.tensor == name]
        acc = sum(r.accesses for r in mine)
        req = sum(r.requested_bytes for r in mine)
        if req <= 0:
            continue
        h15 = sum(r.l15_hit * r.requested_bytes for r in mine) / req
        h2 = min(sum(r.l2_hit * r.requested_bytes for r in mine) / req, 1.0 - h15)
        ddr = sum(r.ddr_bytes for r in mine)
        lookups = sum(r.l2_work * r.requested_bytes for r in mine) / req
        merged = sum(r.l2_work_merged * r.requested_bytes for r in mine) / req
        write = all(r.write for r in mine)
        wrote = [r for r in mine if r.write]
        wrote_bytes = sum(r.requested_bytes for r in wrote)
        at_end = sum(r.resident_at_end * r.requested_bytes for r in wrote)
        at_end = at_end / wrote_bytes if wrote_bytes > 0 else 0.0
        read_bytes = sum(r.requested_bytes for r in mine if not r.write)
        waits = sum(r.ddr_wait * r.requested_bytes for r in mine if not r.write)
        wait = waits / read_bytes if read_bytes else -1.0
        tensors[name] = TensorTraffic(
            name, acc, req, h15, h2, ddr, write=write, l2_lookups=lookups, l2_merged=merged,
            l2_resident_at_end=at_end, ddr_wait=min(wait, 1.0),
        )  # fmt: skip
    reads = [r for r in rows if not r.write]
    writes = [r for r in rows if r.write]
    readers = Counter(r.tensor for r in reads)
    per_read = {
        r.action: TensorTraffic(
            r.tensor,
            r.accesses,
            r.requested_bytes,
            r.l15_hit,
            min(r.l2_hit, 1.0 - r.l15_hit),
            r.ddr_bytes,
            l2_lookups=r.l2_work,
            l2_merged=r.l2_work_merged,
            ddr_wait=min(r.ddr_wait, 1.0),
        )
        for r in reads
        if readers[r.tensor] > 1 and r.requested_bytes > 0
    }
    # the report's rates and DRAM bytes are the mean program's: each action's walked traffic times the share
    # of its walked occurrences that run (_Stream.weight)
    weight = {s.action: s.weight for s in every}
    at_l2 = sum(r.requested_bytes * weight[r.action] * (r.l2_lookups - r.l15_hit) for r in reads) + sum(
        r.requested_bytes * weight[r.action] for r in writes
    )
    l2_hits = sum(
        r.requested_bytes * weight[r.action] * (r.l2_hit if r.l2_sector_hit < 0 else r.l2_sector_hit)
        for r in rows
    )
    l2_rate = l2_hits / at_l2 if at_l2 > 0 else 0.0
    req_reads = sum(r.requested_bytes * weight[r.action] for r in reads)
    l15_rate = (
        (
            sum(r.requested_bytes * weight[r.action] * r.l15_hit for r in reads) / req_reads
            if req_reads
            else 0.0
        )
        if l15
        else None
    )
    traffic = CacheTraffic(
        tensors=tensors,
        l2_hit_rate=l2_rate,
        l15_hit_rate=l15_rate,
        dram_read_bytes=sum(r.ddr_bytes * weight[r.action] for r in reads),
        dram_write_bytes=sum(r.ddr_bytes * weight[r.action] for r in writes),
        model="sdcm",
        reads=per_read,
    )
    return traffic, tuple(rows)


def _hw_key(hw: HardwareProfile) -> tuple:
    return (
        hw.name,
        hw.sm_count,
        hw.l2_effective_bytes,
        hw.l2_associativity,
        hw.l15_bytes,
        hw.l15_effective_bytes,
        hw.l15_bw_bytes_per_s,
        hw.l15_sms_per_group,
        hw.warp_size,
        hw.max_threads_per_sm,
        hw.max_warps_per_sm,
        hw.max_blocks_per_sm,
        hw.smem_per_sm_bytes,
        hw.smem_reserved_per_block_bytes,
        hw.smem_alloc_unit_bytes,
        hw.regs_per_sm,
        hw.reg_alloc_unit_regs,
        hw.l2_partitions,
        hw.sm_dispatch_order,
        hw.sm_dispatch_order_sparse,
        hw.sm_l2_partition,
    )


def sdcm_breakdown(
    plan: TilePlan,
    hw: HardwareProfile,
    *,
    l2_capacity_bytes: float | None = None,
    form: str = "gaussian",
    samples: int = REDUCTION_SAMPLES,
    resident: int | None = None,
    merge_spread: float | None = LRC_MERGE_SPREAD,
    skew: float | None = None,
    partitions: int | None = None,
) -> tuple[CacheTraffic, tuple[AccessBreakdown, ...]]:
    """Traffic and per-action breakdown; memoised per (plan, profile fields, options). ``partitions``
    defaults to the profile's ``l2_partitions`` (``L2_PARTITIONS`` where it gives none)."""
    cap = float(l2_capacity_bytes if l2_capacity_bytes is not None else hw.l2_effective_bytes)
    if partitions is None:
        partitions = hw.l2_partitions or L2_PARTITIONS
    key = _hw_key(hw)
    return _evaluate_keyed(
        plan, key, _Unhashed(hw), cap, form, samples, resident,
        None if merge_spread is None else float(merge_spread),
        None if skew is None else float(skew), partitions,
    )  # fmt: skip


class _Unhashed:
    """Carries the profile through the memo without taking part in its key."""

    __slots__ = ("hw",)

    def __init__(self, hw: HardwareProfile) -> None:
        self.hw = hw

    def __hash__(self) -> int:
        return 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Unhashed)


@functools.lru_cache(maxsize=256)
def _evaluate_keyed(
    plan: TilePlan,
    hw_key: tuple,
    hw: _Unhashed,
    cap: float,
    form: str,
    samples: int,
    resident: int | None,
    merge_spread: float | None,
    skew: float | None,
    partitions: int,
) -> tuple[CacheTraffic, tuple[AccessBreakdown, ...]]:
    return _compute(plan, hw.hw, cap, form, samples, resident, merge_spread, skew, partitions)


class SdcmCacheModel:
    """Tile reuse distance + stochastic distance cache model (paper 3.5), with an L1.5 -> L2 cascade."""

    name = "sdcm"

    def __init__(
        self,
        *,
        form: str = "gaussian",
        samples: int = REDUCTION_SAMPLES,
        l2_capacity_bytes: float | None = None,
        resident: int | None = None,
        merge_spread: float | None = LRC_MERGE_SPREAD,
        skew: float | None = None,
        partitions: int | None = None,
    ) -> None:
        if form not in FORMS:
            raise TileSightError(f"SdcmCacheModel form={form!r}: one of {FORMS}")
        if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
            raise TileSightError(f"SdcmCacheModel samples={samples!r}: must be an integer >= 1")
        if merge_spread is not None and (
            isinstance(merge_spread, bool)
            or not isinstance(merge_spread, int | float)
            or not (math.isfinite(merge_spread) and merge_spread >= 0.0)
        ):
            raise TileSightError(
                f"SdcmCacheModel merge_spread={merge_spread!r}: must be a finite number >= 0, or None (no"
                " request coalescing)"
            )
        if partitions is not None and (
            isinstance(partitions, bool) or not isinstance(partitions, int) or partitions < 1
        ):
            raise TileSightError(f"SdcmCacheModel partitions={partitions!r}: must be an integer >= 1")
        if skew is not None and not 0.0 <= skew <= 1.0:
            raise TileSightError(f"SdcmCacheModel skew={skew!r}: must lie in [0, 1]")
        if l2_capacity_bytes is not None and not l2_capacity_bytes > 0:
            raise TileSightError(f"SdcmCacheModel l2_capacity_bytes={l2_capacity_bytes!r}: must be > 0")
        self.form = form
        self.samples = samples
        self.l2_capacity_bytes = l2_capacity_bytes
        self.resident = resident
        self.merge_spread = merge_spread
        self.skew = skew
        self.partitions = partitions

    def traffic(self, plan: TilePlan, hw: HardwareProfile) -> CacheTraffic:
        return self.breakdown(plan, hw)[0]

    def breakdown(
        self, plan: TilePlan, hw: HardwareProfile
    ) -> tuple[CacheTraffic, tuple[AccessBreakdown, ...]]:
        return sdcm_breakdown(
            plan,
            hw,
            l2_capacity_bytes=self.l2_capacity_bytes,
            form=self.form,
            samples=self.samples,
            resident=self.resident,
            merge_spread=self.merge_spread,
            skew=self.skew,
            partitions=self.partitions,
        )


def clear_memo() -> None:
    """Forget memoised results (speed benchmarks measuring cold evaluations use it)."""
    _evaluate_keyed.cache_clear()
    hit_probability_table.cache_clear()

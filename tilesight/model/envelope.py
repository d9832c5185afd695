"""The prologue-steady-epilogue pipeline envelope (paper section 3.4, Eq. 2 and 3).

A body repeated ``N`` times with effective depth ``d`` (``d + 1`` iterations in flight), whose best list
schedule gives one iteration's latency ``L``, its fill time ``L_fill`` (until the first non-memory action
starts) and its per-pipeline busy sums ``U_r``, costs::

    T_steady = max(max_r U_r, L / (d + 1), S, M / max(d, 1))
                                                  # pipeline throughput, Little's law on latency, the in-order
                                                  # compute chain S of one iteration (serial_s), or the span
                                                  # M of its loads over the d iterations' loads in flight
                                                  # (load_s; 0 unless the block is alone on its SM)
    T_pro    = L_fill + (min(N, d') - 1)^+ T_steady   # fill: the first d' iterations' loads in flight
    T_epi    = L - L_fill                         # drain: the last iteration's compute and stores
    T        = T_pro + max(N - d', 0) T_steady + T_epi   (N >= 1; T = 0 for N = 0)

with ``d' = max(d, 1)``. For ``d >= 1`` this is the paper's Eq. 2 with ``d' = d``; in every case it equals
the classic pipeline ``L + (N - 1) T_steady``. (With ``d = 0`` the paper's ``N - d`` would count the first
iteration both in the fill and in the steady state; ``d'`` counts it once, and ``T_steady = L`` then gives
the serial ``N L``.) A mean below one iteration (``0 < N < 1``: a body only a share of the programs or of an
enclosing loop's iterations run, such as an ``if`` some of them take) costs that share of one iteration,
``N L``.

``queued``: the ``d + 1`` units in flight are blocks resident on one SM, each spending ``max_r U_r`` on the
busiest pipeline and the rest of ``L`` elsewhere. Where Little's law sets ``T_steady``, the blocks queue for
that pipeline near the knee where the two asymptotes meet, and a unit completes every :func:`closed_cycle_s`
(exact mean value analysis of that closed network): up to a fifth above both asymptotes at the knee, within a
few percent of them far from it. The tile stream's envelope (:mod:`.evaluate`) takes it; a loop's iterations,
whose stages the pipeliner issues in program order, do not.
"""

from __future__ import annotations

from typing import NamedTuple


class Envelope(NamedTuple):
    """One envelope evaluation: its inputs, its three phases and its total."""

    iterations: int
    depth: int
    latency_s: float  # L: one iteration standalone
    fill_s: float  # L_fill
    steady_s: float  # T_steady per iteration
    prologue_s: float
    steady_count: int  # max(N - d', 0)
    epilogue_s: float
    total_s: float
    # which term sets T_steady: "pipeline" (max_r U_r), "ring" (L / (d + 1): too few iterations in flight),
    # "chain" (S: the iteration's compute, one action after another) or "loads" (M / d')
    bound: str = "pipeline"

    @property
    def latency_bound(self) -> bool:
        """T_steady set by L / (d + 1), S or M / d' rather than a pipeline."""
        return self.bound != "pipeline"

    @property
    def steady_total_s(self) -> float:
        return self.steady_count * self.steady_s


def envelope(
    latency_s: float,
    fill_s: float,
    max_busy_s: float,
    iterations: int,
    depth: int,
    serial_s: float = 0.0,
    load_s: float = 0.0,
    queued: bool = False,
) -> Envelope:
    """Evaluate the envelope for ``iterations`` repetitions at effective depth ``depth`` (see module doc).

    ``serial_s`` is the part of one iteration that cannot overlap the next one however deep the pipeline:
    the compute actions one block issues in program order (a loop's software-pipeline stages make its
    *loads* asynchronous; its dots, CUDA-core and SFU work still run one after another in the same warps).
    It bounds ``T_steady`` from below like the pipelines do; other resident blocks hide it, which the tile
    stream's own envelope models. ``load_s`` is the span of one iteration's loads: with at most ``depth``
    iterations' loads in flight, an iteration takes at least ``load_s / max(depth, 1)``. ``queued``: the
    iterations in flight queue for the busiest pipeline (module doc).
    """
    if iterations < 0:
        raise ValueError(f"iterations={iterations} must be >= 0")
    if depth < 0:
        raise ValueError(f"depth={depth} must be >= 0")
    if fill_s > latency_s:
        raise ValueError(f"fill_s={fill_s} exceeds latency_s={latency_s}")
    ring, chain, loads = latency_s / (depth + 1), min(serial_s, latency_s), load_s / max(depth, 1)
    little = max(ring, chain, loads)
    steady = max(max_busy_s, little)
    if queued and ring >= loads and depth > 0 and max_busy_s > 0:
        steady = max(steady, closed_cycle_s(max_busy_s, latency_s, depth + 1))
    # of equal terms the first names the bound: ring, then chain, then loads
    if little <= max_busy_s:
        bound = "pipeline"
    else:
        bound = "ring" if little == ring else "chain" if little == chain else "loads"
    if iterations == 0:
        return Envelope(0, depth, latency_s, fill_s, steady, 0.0, 0, 0.0, 0.0, bound)
    if iterations < 1:
        # a body the mean program runs in a share of cases (an ``if`` some programs or some iterations take):
        # that share of one iteration
        share = float(iterations)
        pro, epi = share * fill_s, share * (latency_s - fill_s)
        return Envelope(iterations, depth, latency_s, fill_s, steady, pro, 0, epi, pro + epi, bound)
    d = max(depth, 1)
    pro = fill_s + max(min(iterations, d) - 1, 0) * steady
    count = max(iterations - d, 0)
    epi = latency_s - fill_s
    return Envelope(
        iterations,
        depth,
        latency_s,
        fill_s,
        steady,
        pro,
        count,
        epi,
        pro + count * steady + epi,
        bound,
    )


def closed_cycle_s(service_s: float, latency_s: float, customers: int) -> float:
    """Time between completions of ``customers`` units circulating in a closed network of one queue (the
    busiest pipeline, ``service_s`` a unit) and a delay (the rest of a unit's ``latency_s``): exact mean value
    analysis with exponential service. Above both of the envelope's asymptotes (``service_s`` and
    ``latency_s / customers``) and closest to them far from the knee where they meet."""
    think = max(latency_s - service_s, 0.0)
    queue = 0.0
    rate = 0.0
    for n in range(1, customers + 1):
        residence = service_s * (1.0 + queue)
        rate = n / (residence + think)
        queue = rate * residence
    return 1.0 / rate

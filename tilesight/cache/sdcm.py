"""Stochastic distance cache model (SDCM, paper section 3.5.2, Eq. 7 to 10).

A block is re-accessed after ``D`` distinct blocks went through a cache of ``B`` block-sized slots organised
in sets of ``A`` ways (``B / A`` sets). Each intervening block lands in the re-accessed block's set with
probability ``A / B``; with LRU replacement the block survives while fewer than ``A`` of them landed there:

    P(h | D) = sum_{a=0}^{A-1} C(D, a) (A/B)^a (1 - A/B)^(D-a)                                   (Eq. 7)

For large ``D`` the binomial is replaced by a normal of mean ``mu = D A / B`` and variance
``sigma^2 = D (A / B)(1 - A / B)`` (Eq. 9), ``P ~ Phi((A - 1 + 1/2 - mu) / sigma)`` (Eq. 8, written there with
``1 - Q(|x|)`` for the non-negative half), with ``Phi`` from the Zelen-Severo polynomial (Eq. 10).

Deviations from the paper, both standard for a normal approximation of a binomial CDF: a continuity correction
of one half (:data:`CONTINUITY_CORRECTION`), and the symmetric branch ``Phi(x) = 1 - Phi(-x)`` for ``x < 0``.
A first access (infinite distance, ``np.inf``) misses. Capacities smaller than the associativity make the
cache one fully associative set of ``floor(B)`` slots.

Every function is vectorised over ``distance`` and returns a numpy array of probabilities in ``[0, 1]``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from ..errors import ProfileError, TileSightError
from ..optional import require

# Zelen-Severo approximation of the standard normal CDF (Abramowitz & Stegun 26.2.16), |error| < 1e-5:
# Phi(x) ~ 1 - phi(x) (a1 t + a2 t^2 + a3 t^3), t = 1 / (1 + p x), x >= 0.
ZELEN_SEVERO_P = 0.33267
ZELEN_SEVERO_A1 = 0.4361836
ZELEN_SEVERO_A2 = -0.1201676
ZELEN_SEVERO_A3 = 0.9372980
# Accuracy of the polynomial for Phi: A&S state |error| < 1e-5; with these 7-digit constants the largest error
# over the real line is 1.2e-5 (checked against scipy in tests/cache/test_sdcm.py).
ZELEN_SEVERO_MAX_ERROR = 2e-5
# |x| beyond which the density term is held at its value there (exp(-37^2 / 2) ~ 1e-297, a normal double)
ZELEN_SEVERO_TAIL_CLIP = 37.0

# Continuity correction of the normal approximation to a binomial CDF:
# P(X <= A - 1) ~ Phi((A - 1 + 1/2 - mu) / sigma).
CONTINUITY_CORRECTION = 0.5

# Where the Gaussian form stands for the exact binomial: the count's variance D p (1 - p) at least this large.
# The textbook "D p >= 5 and D (1 - p) >= 5" lets the binomial's skew through (0.029 absolute error at A = 6,
# D p (1 - p) = 5.4); at a variance of 12 the largest error over A = 1..32 and B / A = 1.5..2000 is 0.019.
NORMAL_APPROX_MIN_VARIANCE = 12.0


def zelen_severo_cdf(x: np.ndarray | float) -> np.ndarray:
    """Standard normal CDF by the Zelen-Severo polynomial (Eq. 10), for any real ``x``."""
    x = np.asarray(x, dtype=np.float64)
    ax = np.abs(x)
    t = 1.0 / (1.0 + ZELEN_SEVERO_P * ax)
    poly = t * ZELEN_SEVERO_A3
    poly += ZELEN_SEVERO_A2
    poly *= t
    poly += ZELEN_SEVERO_A1
    poly *= t
    # the density, taken as 0 beyond |x| = ZELEN_SEVERO_TAIL_CLIP (the CDF is 0 or 1 to double precision
    # there): the clip keeps exp() clear of underflow under any np.seterr setting, cheaper than an
    # np.errstate block (which costs more than the polynomial on a few hundred values)
    tail = np.minimum(ax, ZELEN_SEVERO_TAIL_CLIP, out=np.empty_like(ax))
    tail *= tail
    tail *= -0.5
    np.exp(tail, out=tail)
    tail *= poly
    np.copyto(tail, 0.0, where=ax > ZELEN_SEVERO_TAIL_CLIP)
    tail *= 1.0 / np.sqrt(2.0 * np.pi)
    return np.where(x >= 0, 1.0 - tail, tail)


def _geometry(capacity_blocks: float, associativity: int) -> tuple[float, int]:
    """(capacity in blocks, effective ways): a cache smaller than its ways is one fully associative set."""
    if not capacity_blocks > 0:
        raise ProfileError(f"SDCM capacity_blocks={capacity_blocks!r}: the cache capacity must be > 0")
    if isinstance(associativity, bool) or int(associativity) != associativity or associativity < 1:
        raise ProfileError(f"SDCM associativity={associativity!r}: must be an integer >= 1")
    ways = int(min(int(associativity), max(1, int(np.floor(capacity_blocks)))))
    return float(capacity_blocks), ways


def hit_probability_exact(
    distance: np.ndarray | float, capacity_blocks: float, associativity: int
) -> np.ndarray:
    """Exact SDCM (Eq. 7): the binomial CDF ``P(X <= A - 1)``, ``X ~ Bin(D, A / B)``.

    Non-integer distances (byte distances divided by a tile size) use the regularised incomplete beta form of
    the binomial CDF, which interpolates smoothly between integers.
    """
    b, a = _geometry(capacity_blocks, associativity)
    d = np.asarray(distance, dtype=np.float64)
    if np.any(d < 0) or np.any(np.isnan(d)):
        raise TileSightError("SDCM distance must be >= 0 (np.inf for a first access)")
    p = min(a / b, 1.0)
    out = np.ones_like(d)
    finite = np.isfinite(d)
    out[~finite] = 0.0
    big = finite & (d > a - 1)
    if np.any(big):
        if p >= 1.0:
            out[big] = 0.0
        else:
            # P(X <= a-1) for X ~ Bin(n, p) is I_{1-p}(n - a + 1, a) (regularised incomplete beta).
            special = require("scipy.special", "the exact binomial SDCM form (form='exact')")
            out[big] = special.betainc(d[big] - (a - 1), a, 1.0 - p)
    return np.clip(out, 0.0, 1.0)


def hit_probability_gaussian(
    distance: np.ndarray | float, capacity_blocks: float, associativity: int, *, exact_cdf: bool = False
) -> np.ndarray:
    """Gaussian SDCM (Eq. 8, 9) with the Zelen-Severo CDF (Eq. 10); ``exact_cdf`` uses scipy's normal CDF."""
    b, a = _geometry(capacity_blocks, associativity)
    return _gaussian(np.asarray(distance, dtype=np.float64), a, min(a / b, 1.0), exact_cdf=exact_cdf)


def _gaussian(d: np.ndarray, a: int, p: float, *, exact_cdf: bool = False) -> np.ndarray:
    """:func:`hit_probability_gaussian` at ``a`` effective ways and set probability ``p = min(A / B, 1)``, the
    geometry already checked (:func:`_geometry`)."""
    if d.size and not d.min() >= 0:
        raise TileSightError("SDCM distance must be >= 0 (np.inf for a first access)")
    if p >= 1.0:
        return np.where(d > a - 1, 0.0, 1.0)
    # distances up to A - 1 always hit and first accesses (np.inf) miss: the form runs on the rest only
    out = np.ones(d.shape)
    out[np.isinf(d)] = 0.0
    at = (d > a - 1) & np.isfinite(d)
    dd = d[at]
    z = (a - 1 + CONTINUITY_CORRECTION - dd * p) / np.sqrt(dd * (p * (1.0 - p)))
    if exact_cdf:
        out[at] = require("scipy.stats", "the Gaussian SDCM with exact_cdf=True").norm.cdf(z)
    else:
        out[at] = zelen_severo_cdf(z)
    return out


def gaussian_valid(distance: np.ndarray | float, capacity_blocks: float, associativity: int) -> np.ndarray:
    """Where the normal approximation is trustworthy: ``D p (1 - p) >= NORMAL_APPROX_MIN_VARIANCE``."""
    b, a = _geometry(capacity_blocks, associativity)
    d = np.asarray(distance, dtype=np.float64)
    p = min(a / b, 1.0)
    return np.isfinite(d) & (d * p * (1.0 - p) >= NORMAL_APPROX_MIN_VARIANCE)


FORMS = ("gaussian", "exact")


def hit_probability(
    distance: np.ndarray | float, capacity_blocks: float, associativity: int, form: str = "gaussian"
) -> np.ndarray:
    """The model's hit probability in the chosen form: ``"gaussian"`` (Eq. 8 to 10, the paper's fast path)
    or ``"exact"`` (Eq. 7)."""
    if form == "gaussian":
        return hit_probability_gaussian(distance, capacity_blocks, associativity)
    if form == "exact":
        return hit_probability_exact(distance, capacity_blocks, associativity)
    raise TileSightError(f"SDCM form={form!r}: one of {FORMS}")


# Hit-probability tables kept per (capacity in blocks, ways, form): a plan sweep re-uses a few tile sizes.
HIT_TABLE_CACHE_SIZE = 256

# Nodes of the tabulated hit-probability curve the cache model interpolates (linear) instead of evaluating
# the SDCM per access: the curve is monotone and smooth, and at this density the interpolation error is
# below 1e-5 (tests/cache/test_sdcm.py), far under the Gaussian form's own error.
TABLE_POINTS = 4096
# The table spans distances up to the mean plus this many standard deviations of the set-occupancy count,
# where the hit probability is below 1e-12 (beyond it the interpolation returns 0).
TABLE_SPAN_SIGMAS = 8.0


# Calls with fewer distances than this evaluate the chosen form directly: building the table costs about as
# much as evaluating :data:`TABLE_POINTS` distances, so a small grid (a few hundred tiles, the common case of
# a new shape) would pay more for the table than it saves. The choice depends only on the call's size, so a
# prediction never depends on what was evaluated before it.
TABLE_MIN_CALL = TABLE_POINTS // 4


class _HitTable:
    """``distance -> P(h | D)`` for one cache geometry: the chosen form itself for small calls, linear
    interpolation on :data:`TABLE_POINTS` nodes (built at the first large call) otherwise.

    Distances up to ``A - 1`` hit; beyond ``D_hi`` (mean ``A - 1`` reached plus :data:`TABLE_SPAN_SIGMAS`
    standard deviations of the count of blocks landing in the set) the table takes the probability as 0.
    """

    def __init__(self, capacity_blocks: float, associativity: int, form: str) -> None:
        self.b, self.a = _geometry(capacity_blocks, associativity)
        if form not in FORMS:
            raise TileSightError(f"SDCM form={form!r}: one of {FORMS}")
        self.form = form
        self.p = min(self.a / self.b, 1.0)
        self._nodes: tuple | None = None

    def _build(self) -> tuple:
        a, p = self.a, self.p
        # smallest D with (mean - (A - 1)) >= span * sigma, solved on the safe side
        hi = (a + TABLE_SPAN_SIGMAS * np.sqrt(a) + TABLE_SPAN_SIGMAS**2) / p
        # quadratic spacing: denser near A - 1, where the Gaussian curve rises like sqrt(D) for few ways
        nodes = (a - 1) + (hi - (a - 1)) * np.linspace(0.0, 1.0, TABLE_POINTS) ** 2
        values = hit_probability(nodes, self.b, a, self.form)
        slope = np.diff(values) / np.diff(nodes)
        return nodes, values, slope, a - 1.0, 1.0 / (hi - (a - 1.0)), hi

    def _direct(self, d: np.ndarray) -> np.ndarray:
        """The chosen form itself, as :func:`hit_probability` evaluates it (the geometry checked once, in
        ``__init__``): what a call of fewer than :data:`TABLE_MIN_CALL` distances returns."""
        if self.p >= 1.0:
            return np.where(d > self.a - 1, 0.0, 1.0)
        if self.form == "gaussian":
            return _gaussian(d, self.a, self.p)
        return hit_probability(d, self.b, self.a, self.form)

    def many(self, parts: Sequence[np.ndarray]) -> list[np.ndarray]:
        """``[self(d) for d in parts]`` for 1-D float64 ``parts``, the same numbers: each part keeps the
        choice its own size makes (the form under :data:`TABLE_MIN_CALL` distances, else the table), and the
        parts the form evaluates go through it in one call. The form is elementwise, so a distance's
        probability does not depend on the other distances of its call; a few calls of a few hundred
        distances cost mostly their per-call overhead."""
        out: list[np.ndarray | None] = [None] * len(parts)
        small = []
        for k, d in enumerate(parts):
            if d.size < TABLE_MIN_CALL:
                small.append(k)
            else:
                out[k] = self(d)
        if small:
            flat = self._direct(np.concatenate([parts[k] for k in small]))
            lo = 0
            for k in small:
                hi = lo + parts[k].size
                out[k] = flat[lo:hi]
                lo = hi
        return out  # type: ignore[return-value]

    def __call__(self, d: np.ndarray) -> np.ndarray:
        d = np.asarray(d, dtype=np.float64)
        if self.p >= 1.0:
            return np.where(d > self.a - 1, 0.0, 1.0)
        if d.size < TABLE_MIN_CALL:
            return self._direct(d)  # (p >= 1 returned above, as _direct would)
        if self._nodes is None:
            self._nodes = self._build()
        nodes, values, slope, lo, inv_span, hi = self._nodes
        last = TABLE_POINTS - 1
        # the node index follows from the quadratic spacing directly (no search): i = floor(sqrt(u) * last)
        # in place, in the order of: i = min(floor(sqrt(clip((d - lo) / span, 0, 1)) * last), last - 1);
        # P = clip(values[i] + slope[i] (d - nodes[i]), 0, 1), 1 for d <= lo, 0 for d >= hi
        shape = d.shape
        d = d.reshape(-1)
        u = d - lo
        u *= inv_span
        np.clip(u, 0.0, 1.0, out=u)
        np.sqrt(u, out=u)
        u *= last
        i = u.astype(np.int64)
        np.minimum(i, last - 1, out=i)
        out = d - nodes[i]
        out *= slope[i]
        out += values[i]
        np.clip(out, 0.0, 1.0, out=out)
        np.copyto(out, 1.0, where=d <= lo)
        np.copyto(out, 0.0, where=d >= hi)
        return out.reshape(shape)


@functools.lru_cache(maxsize=HIT_TABLE_CACHE_SIZE)
def hit_probability_table(capacity_blocks: float, associativity: int, form: str = "gaussian") -> _HitTable:
    """A vectorised ``distance -> P(h | D)`` of the chosen form for one cache geometry: evaluated directly for
    calls of under :data:`TABLE_MIN_CALL` distances, interpolated on :data:`TABLE_POINTS` nodes otherwise
    (:class:`_HitTable`)."""
    return _HitTable(capacity_blocks, associativity, form)

"""The pipeline envelope as per-pipeline lanes over time (the paper's Figure 3(e)), as plain data.

Two sources, in order of preference:

* ``report.extras["timeline"]``: when the engine records one, an iterable of ``(pipeline, start_s, end_s,
  label)`` intervals (``pipeline`` a :class:`~tilesight.plan.Pipeline` or its value). Drawn as given.
* Otherwise the lanes are **derived from the phases**: the phases are laid end to end in
  :data:`~tilesight.report.PHASES` order (or from the starts in ``report.extras["phase_starts_s"]``: a kernel
  sequence's phases, kernel after kernel), and inside each phase every pipeline's busy time is one interval
  that starts with the phase (clipped to the phase's length). When the engine gives the steady time per
  repeated unit (``report.extras["steady_per_unit_s"]``), the steady phase is cut into that many repeated
  chunks (at most :data:`MAX_DRAWN_UNITS`), each pipeline's busy time shared evenly among them. This shows how
  much of each phase each pipeline works and which one bounds it, not the order of actions inside a unit.

Pure: no drawing here (see :mod:`tilesight.integrations.plot`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .errors import TileSightError
from .plan import PIPELINES, Pipeline
from .report import PHASES, Report

TIMELINE_EXTRA = "timeline"  # the report.extras key the engine may fill with explicit intervals
# report.extras key with the start of each of report.phases, in their order (a kernel sequence's phases, each
# kernel's after the kernels before it); without it the phases are laid end to end in PHASES order
PHASE_STARTS_EXTRA = "phase_starts_s"
STEADY_UNIT_EXTRA = "steady_per_unit_s"  # the engine's steady-state time per repeated unit, when it gives one
MAX_DRAWN_UNITS = 16  # the steady phase is drawn as at most this many repeated chunks (readability only)


class TimelineError(TileSightError, ValueError):
    """A report's explicit timeline has a malformed interval."""


@dataclass(frozen=True)
class Segment:
    pipeline: Pipeline
    start_s: float
    end_s: float
    label: str = ""

    def __post_init__(self) -> None:
        if not (0.0 <= self.start_s <= self.end_s):
            raise TimelineError(
                f"segment {self.label!r} on {self.pipeline}: [{self.start_s}, {self.end_s}] is empty"
            )

    @property
    def duration_s(self) -> float:
        return self.end_s - self.start_s

    def to_dict(self) -> dict[str, Any]:
        return {
            "pipeline": self.pipeline.value,
            "start_s": self.start_s,
            "end_s": self.end_s,
            "label": self.label,
        }


@dataclass(frozen=True)
class PhaseSpan:
    phase: str
    start_s: float
    end_s: float
    bottleneck: Pipeline

    def to_dict(self) -> dict[str, Any]:
        return {
            "phase": self.phase,
            "start_s": self.start_s,
            "end_s": self.end_s,
            "bottleneck": self.bottleneck.value,
        }


@dataclass(frozen=True)
class Lane:
    pipeline: Pipeline
    segments: tuple[Segment, ...]

    @property
    def busy_s(self) -> float:
        return sum(s.duration_s for s in self.segments)

    def to_dict(self) -> dict[str, Any]:
        return {
            "pipeline": self.pipeline.value,
            "busy_s": self.busy_s,
            "segments": [s.to_dict() for s in self.segments],
        }


@dataclass(frozen=True)
class Timeline:
    kernel: str
    hw: str
    latency_s: float
    bottleneck: Pipeline
    phases: tuple[PhaseSpan, ...]
    lanes: tuple[Lane, ...]
    derived: bool  # True when built from phases (no explicit engine timeline)

    @property
    def end_s(self) -> float:
        ends = [p.end_s for p in self.phases] + [s.end_s for lane in self.lanes for s in lane.segments]
        return max(ends, default=0.0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kernel": self.kernel,
            "hw": self.hw,
            "latency_s": self.latency_s,
            "bottleneck": self.bottleneck.value,
            "derived": self.derived,
            "phases": [p.to_dict() for p in self.phases],
            "lanes": [lane.to_dict() for lane in self.lanes],
        }


def _phase_spans(report: Report) -> tuple[PhaseSpan, ...]:
    starts = report.extras.get(PHASE_STARTS_EXTRA)
    if isinstance(starts, list | tuple) and len(starts) == len(report.phases):
        return tuple(
            PhaseSpan(p.phase, float(t), float(t) + p.time_s, p.bottleneck)
            for p, t in zip(report.phases, starts, strict=True)
            if p.time_s > 0
        )
    order = {name: i for i, name in enumerate(PHASES)}
    spans = []
    t = 0.0
    for phase in sorted(report.phases, key=lambda p: order.get(p.phase, len(order))):
        if phase.time_s <= 0:
            continue
        spans.append(PhaseSpan(phase.phase, t, t + phase.time_s, phase.bottleneck))
        t += phase.time_s
    return tuple(spans)


def _chunks(report: Report, span: PhaseSpan) -> int:
    unit = report.extras.get(STEADY_UNIT_EXTRA)
    if span.phase != "steady" or not isinstance(unit, int | float) or unit <= 0:
        return 1
    units = round((span.end_s - span.start_s) / unit)
    return max(1, min(units, MAX_DRAWN_UNITS))


def _derived_segments(report: Report, spans: tuple[PhaseSpan, ...]) -> list[Segment]:
    by_name = {p.phase: p for p in report.phases}
    out = []
    for span in spans:
        chunks = _chunks(report, span)
        length = (span.end_s - span.start_s) / chunks
        for pipe, busy in by_name[span.phase].busy_s.items():
            if busy <= 0:
                continue
            for c in range(chunks):
                start = span.start_s + c * length
                out.append(Segment(Pipeline(pipe), start, start + min(busy / chunks, length), span.phase))
    return out


def _explicit_segments(raw: Iterable[Any]) -> list[Segment]:
    out = []
    for i, item in enumerate(raw):
        try:
            pipe, start, end, label = item
            out.append(Segment(Pipeline(pipe), float(start), float(end), str(label)))
        except (TypeError, ValueError) as exc:
            raise TimelineError(f"report.extras['{TIMELINE_EXTRA}'][{i}]={item!r}: {exc}") from None
    return out


def build_timeline(report: Report) -> Timeline:
    """Lanes for every pipeline that does any work, in the resource vector's order."""
    spans = _phase_spans(report)
    raw = report.extras.get(TIMELINE_EXTRA)
    segments = _explicit_segments(raw) if raw is not None else _derived_segments(report, spans)
    lanes = []
    for pipe in PIPELINES:
        mine = tuple(sorted((s for s in segments if s.pipeline is pipe), key=lambda s: s.start_s))
        if mine:
            lanes.append(Lane(pipe, mine))
    return Timeline(
        report.kernel, report.hw, report.latency_s, report.bottleneck, spans, tuple(lanes), raw is None
    )

"""Terminal renderings of a Report: plain text (``report_text``) and a rich renderable (``render_report``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .optional import require
from .plan import PIPELINES

if TYPE_CHECKING:
    from .report import Report


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:,.2f} us"


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100.0 * x:.1f}%"


def _bytes(n: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= scale:
            return f"{n / scale:.2f} {unit}"
    return f"{n:.0f} B"


def summary_lines(report: Report) -> list[str]:
    occ = report.occupancy
    lines = [
        f"{report.kernel} on {report.hw}: {_us(report.latency_s)} (launch {_us(report.launch_overhead_s)})",
        f"bottleneck: {report.bottleneck.value} - {report.bottleneck_reason}",
        f"overlap {_pct(report.overlap_rate)}, L2 hit {_pct(report.l2_hit_rate)}, "
        f"DRAM {_bytes(report.dram_bytes)}, {report.flops / 1e9:,.3g} GFLOP",
        f"occupancy: {occ.resident_blocks} block(s)/SM ({occ.limiter}-limited), {occ.blocks} blocks, "
        f"{occ.full_waves} full wave(s), tail {occ.tail_blocks} block(s) on {occ.tail_active_sms} SM(s)",
    ]
    for k in report.extras.get("kernels", ()):  # a kernel sequence: one line per kernel, in launch order
        lines.append(
            f"  kernel {k['kernel']}: {_us(k['latency_s'])}, {k['bottleneck']}-bound, "
            f"L2 hit {_pct(k['l2_hit_rate'])}, {k['occupancy']['blocks']} blocks"
        )
    return lines


def report_text(report: Report) -> str:
    """A readable plain-text rendering (what ``str(report)`` prints)."""
    lines = summary_lines(report)
    lines.append("pipelines (busiest SM):")
    for p in PIPELINES:
        b = report.busy_s.get(p, 0.0)
        if b > 0:
            lines.append(f"  {p.value:>5}  busy {_us(b):>14}  util {_pct(report.utilization.get(p, 0.0)):>6}")
    lines.append("phases:")
    for ph in report.phases:
        lines.append(f"  {ph.phase:>8}  {_us(ph.time_s):>14}  {ph.bottleneck.value:>5}  {ph.reason}")
    if report.actions:
        lines.append("actions:")
        for a in report.actions:
            top = a.bottleneck.value if a.bottleneck else "-"
            busy = a.busy_s.get(a.bottleneck, 0.0) if a.bottleneck else 0.0
            lines.append(
                f"  {a.name:>12} {a.kind:>11} x{a.count:<8} {top:>5} {_us(busy):>14}  "
                f"bytes {_bytes(a.bytes):>10}  L2 hit {_pct(a.l2_hit_rate)}"
            )
    for n in report.notes:
        lines.append(f"note: {n}")
    return "\n".join(lines)


def render_report(report: Report) -> Any:
    """A rich renderable: summary, pipeline, phase and action tables."""
    require("rich", "rich rendering of a Report (Report.__rich__)")
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    head = Text("\n".join(summary_lines(report)))
    pipes = Table(title="pipelines (busiest SM)", show_edge=False)
    for col in ("pipeline", "busy", "util"):
        pipes.add_column(col, justify="right")
    for p in PIPELINES:
        b = report.busy_s.get(p, 0.0)
        if b > 0:
            pipes.add_row(p.value, _us(b), _pct(report.utilization.get(p, 0.0)))
    phases = Table(title="phases", show_edge=False)
    for col in ("phase", "time", "bottleneck", "reason"):
        phases.add_column(col)
    for ph in report.phases:
        phases.add_row(ph.phase, _us(ph.time_s), ph.bottleneck.value, ph.reason)
    acts = Table(title="actions", show_edge=False)
    for col in ("action", "kind", "count", "bound", "bytes", "L2 hit"):
        acts.add_column(col)
    for a in report.actions:
        acts.add_row(
            a.name,
            a.kind,
            str(a.count),
            a.bottleneck.value if a.bottleneck else "-",
            _bytes(a.bytes),
            _pct(a.l2_hit_rate),
        )
    notes = Text("\n".join(f"note: {n}" for n in report.notes))
    return Group(head, pipes, phases, acts, notes)

"""Draw a :class:`~tilesight.timeline.Timeline` with matplotlib: one lane per pipeline, phases as bands."""

from __future__ import annotations

from pathlib import Path

from tilesight.errors import TileSightError
from tilesight.timeline import Timeline

SECONDS_TO_US = 1e6  # unit conversion for the time axis
LANE_HEIGHT = 0.7  # fraction of a lane's row the bars fill
FIGURE_WIDTH_IN = 10.0
ROW_HEIGHT_IN = 0.45  # figure height per lane, plus a fixed margin
MARGIN_HEIGHT_IN = 1.6
PHASE_COLOURS = {"prologue": "#e8f0fe", "steady": "#ffffff", "epilogue": "#fef3e8", "tail": "#f1f1f1"}
DPI = 150


class PlotError(TileSightError):
    """matplotlib is missing or the picture cannot be written."""


def draw_timeline(timeline: Timeline, path: str | Path) -> Path:
    """Write the timeline picture to ``path`` (format from its suffix, e.g. ``.png`` or ``.svg``)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlotError("drawing a timeline needs matplotlib: pip install 'tilesight[plot]'") from None
    lanes = list(reversed(timeline.lanes))  # first pipeline on top
    fig, ax = plt.subplots(figsize=(FIGURE_WIDTH_IN, MARGIN_HEIGHT_IN + ROW_HEIGHT_IN * max(1, len(lanes))))
    try:
        for span in timeline.phases:
            ax.axvspan(
                span.start_s * SECONDS_TO_US,
                span.end_s * SECONDS_TO_US,
                color=PHASE_COLOURS.get(span.phase, "#ffffff"),
                zorder=0,
            )
            ax.axvline(span.end_s * SECONDS_TO_US, color="#999999", linestyle="--", linewidth=0.8, zorder=1)
            ax.text(
                (span.start_s + span.end_s) / 2 * SECONDS_TO_US,
                len(lanes) - 0.35,
                f"{span.phase}\n({span.bottleneck.value}-bound)",
                ha="center",
                va="bottom",
                fontsize=8,
            )
        cmap = plt.get_cmap("tab10")
        for row, lane in enumerate(lanes):
            bars = [(s.start_s * SECONDS_TO_US, s.duration_s * SECONDS_TO_US) for s in lane.segments]
            ax.broken_barh(
                bars,
                (row - LANE_HEIGHT / 2, LANE_HEIGHT),
                facecolors=cmap(row % 10),
                edgecolor="black",
                zorder=2,
            )
        ax.set_yticks(range(len(lanes)))
        ax.set_yticklabels(
            [
                f"{lane.pipeline.value} *" if lane.pipeline is timeline.bottleneck else lane.pipeline.value
                for lane in lanes
            ]
        )
        ax.set_ylim(-0.6, len(lanes) + 0.6)
        ax.set_xlim(0, max(timeline.end_s, timeline.latency_s) * SECONDS_TO_US)
        ax.set_xlabel("time (us)")
        how = "derived from phase busy times" if timeline.derived else "engine timeline"
        ax.set_title(
            f"{timeline.kernel} on {timeline.hw}: {timeline.latency_s * SECONDS_TO_US:.1f} us, "
            f"{timeline.bottleneck.value}-bound (* = bottleneck; {how})",
            fontsize=9,
        )
        fig.tight_layout()
        out = Path(path)
        try:
            fig.savefig(out, dpi=DPI)
        except (OSError, ValueError) as exc:
            raise PlotError(f"cannot write {out}: {exc}") from None
        return out
    finally:
        plt.close(fig)

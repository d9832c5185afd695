"""``tilesight timeline FILE::KERNEL ... -o out.png``: the pipeline envelope as lanes over time."""

from __future__ import annotations

import argparse

from tilesight.integrations.plot import draw_timeline
from tilesight.timeline import build_timeline

from .common import Output, add_launch_options, prepare
from .runner import predict

DEFAULT_OUTPUT = "timeline.png"
US_PER_S = 1e6  # display unit


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("timeline", help="draw the per-pipeline timeline of the envelope (matplotlib)")
    add_launch_options(p)
    p.add_argument(
        "-o", "--output", default=DEFAULT_OUTPUT, help=f"picture to write (default {DEFAULT_OUTPUT})"
    )
    p.set_defaults(run=run)


def run(ns: argparse.Namespace, out: Output) -> int:
    prep = prepare(ns)
    timeline = build_timeline(predict(prep.kernel, prep.launch).report)
    path = draw_timeline(timeline, ns.output)
    if out.json_mode:
        out.json({"target": ns.target, "output": str(path), "timeline": timeline.to_dict()})
        return 0
    out.out.print(f"wrote {path}: {len(timeline.lanes)} lanes, {timeline.latency_s * US_PER_S:.2f} us")
    for lane in timeline.lanes:
        out.out.print(f"  {lane.pipeline.value:>5}  busy {lane.busy_s * US_PER_S:10.2f} us")
    return 0

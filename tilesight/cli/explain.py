"""``tilesight explain FILE::KERNEL ...``: the diagnosis, with the predicted effect of each change."""

from __future__ import annotations

import argparse
import dataclasses

from rich.panel import Panel
from rich.text import Text

from tilesight.diagnose import Diagnosis
from tilesight.integrations.whatif import explore

from .common import Output, add_launch_options, prepare
from .runner import predict

US_PER_S = 1e6  # display unit


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("explain", help="diagnose the bottleneck and predict the effect of tile-level changes")
    add_launch_options(p)
    p.set_defaults(run=run)


def run(ns: argparse.Namespace, out: Output) -> int:
    prep = prepare(ns)
    first = predict(prep.kernel, prep.launch)
    base = prep.launch

    def again(config: object) -> object:
        launch = dataclasses.replace(base, config=config)
        return predict(prep.kernel, launch).report

    with out.progress() as bar:
        task = bar.add_task("what-if predictions", total=None)
        diagnosis = explore(first.report, dict(base.config), again, first.plan, lambda c: bar.advance(task))  # type: ignore[arg-type]
    if out.json_mode:
        out.json({"target": ns.target, "config": dict(base.config), "diagnosis": diagnosis.to_dict()})
        return 0
    out.out.print(render(diagnosis))
    return 0


def render(d: Diagnosis) -> Panel:
    text = Text()
    text.append(
        f"{d.kernel} on {d.hw}: {d.latency_s * US_PER_S:.2f} us, {d.bottleneck.value}-bound\n", style="bold"
    )
    if d.reason:
        text.append(f"{d.reason}\n")
    if not d.findings:
        text.append(
            "\nNo recurring bottleneck class applies: the busiest pipeline's own work bounds the kernel.\n"
        )
    for i, f in enumerate(d.findings, 1):
        text.append(f"\n{i}. {f.issue.cls.value}", style="bold yellow")
        text.append(f" ({f.issue.share:.0%} of the time)\n")
        text.append(f"   why: {f.issue.evidence}\n")
        text.append(f"   try: {f.issue.advice}\n")
        for e in f.effects:
            style = "green" if (e.speedup or 0) > 1 else "red" if e.error else ""
            text.append(f"   -> {e.sentence()}\n", style=style)
    return Panel(text, title="tilesight explain", expand=False)

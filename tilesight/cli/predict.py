"""``tilesight predict FILE::KERNEL --args ... --config ... --grid ...``: one prediction, printed."""

from __future__ import annotations

import argparse

from .common import Output, add_launch_options, prepare
from .runner import predict


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("predict", help="predict one launch and print the report")
    add_launch_options(p)
    p.set_defaults(run=run)


def run(ns: argparse.Namespace, out: Output) -> int:
    prep = prepare(ns)
    report = predict(prep.kernel, prep.launch).report
    if out.json_mode:
        out.json({"target": ns.target, "config": dict(prep.launch.config), "report": report.to_dict()})
        return 0
    out.out.print(report)
    return 0

#!/usr/bin/env python3
"""Print a robustness sweep's results file: its counts, refusals grouped by message, harness failures, crashes
and predictions the sanity checks flagged. With rich installed (a dev dependency) as tables, else as text.

    python benchmarks/robustness/summary.py benchmarks/data/robustness/flaggems_results.json [--full]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

OUTCOMES = ("predicted", "refused", "harness", "crash")
MESSAGE_CHARS = 240  # a grouped message is shown cut to this unless --full

# What differs between messages of one cause: FlagGems' generated-code file names carry a hash.
_VOLATILE = re.compile(r"[0-9a-f]{32,}")


def _message(record: dict[str, Any]) -> str:
    return f"{record.get('error', '?')}: {_VOLATILE.sub('<hash>', record.get('detail', ''))}"


def _label(record: dict[str, Any]) -> str:
    return f"{record['case']}#{record.get('idx', 0)}"


def grouped(records: list[dict[str, Any]], outcome: str) -> list[tuple[str, list[str]]]:
    """(message, case#launch labels) for every distinct message of ``outcome``, the most frequent first."""
    groups: dict[str, list[str]] = defaultdict(list)
    for r in records:
        if r["outcome"] == outcome:
            groups[_message(r)].append(_label(r))
    return sorted(groups.items(), key=lambda item: (-len(item[1]), item[0]))


def _cut(text: str, full: bool) -> str:
    text = " ".join(text.split())
    return text if full or len(text) <= MESSAGE_CHARS else text[: MESSAGE_CHARS - 3] + "..."


def _tilesight(results: dict[str, Any]) -> str:
    text = str(results.get("tilesight_commit") or "an unrecorded commit")
    if changed := results.get("tilesight_uncommitted_changes"):
        text += f" with {len(changed)} package files changed"
    if path := results.get("tilesight_path"):
        text += f" (a copy at {path})"
    return text


def _source(source: dict[str, Any]) -> str:
    """A repository at a commit, or (the serving sweep) released archives with their sha256."""
    if archives := source.get("archives"):
        return ", ".join(f"{a['file']} (sha256 {a['sha256'][:12]})" for a in archives)
    return f"{source.get('repo', '?')} at {source.get('commit') or 'an unrecorded commit'}"


def _header(results: dict[str, Any]) -> list[tuple[str, str]]:
    versions = ", ".join(f"{k} {v}" for k, v in results.get("versions", {}).items() if v)
    return [
        ("sweep", results.get("sweep", "?")),
        ("command", results.get("command", "?")),
        ("date", f"{results.get('date', '?')} ({results.get('wall_s', '?')} s)"),
        ("tilesight", _tilesight(results)),
        ("source", _source(results.get("source", {}))),
        ("versions", versions),
    ]


def _crash_lines(r: dict[str, Any]) -> list[str]:
    lines = [f"{_label(r)} {r.get('kernel', '')}: {_message(r)[:400]}"]
    lines += [f"    {frame}" for frame in r.get("frames", [])]
    if r.get("last_tilesight_frame"):
        lines.append(
            f"    last tilesight frame: {r['last_tilesight_frame']} (raised in {r.get('raised_in')})"
        )
    if r.get("stderr_tail"):
        lines.append("    stderr: " + " | ".join(r["stderr_tail"].strip().splitlines()[-4:]))
    return lines


def _flagged(records: list[dict[str, Any]]) -> list[str]:
    return [f"{_label(r)} {r.get('kernel', '')}: {'; '.join(r['flags'])}" for r in records if r.get("flags")]


def print_plain(results: dict[str, Any], full: bool = False) -> None:
    records = results["records"]
    for key, value in _header(results):
        print(f"{key:10} {value}")
    print("  ".join(f"{o} {results['counts'].get(o, 0)}" for o in OUTCOMES) + f"  (of {len(records)})")
    for outcome in ("refused", "harness"):
        groups = grouped(records, outcome)
        if groups:
            print(f"\n{outcome}, by message:")
        for message, labels in groups:
            print(f"{len(labels):4d}  {_cut(message, full)}\n      {', '.join(labels)}")
    crashes = [r for r in records if r["outcome"] == "crash"]
    if crashes:
        print("\ncrashes:")
        for r in crashes:
            print("\n".join(_crash_lines(r)))
    if flagged := _flagged(records):
        print("\nflagged predictions:")
        print("\n".join(flagged))


def print_rich(results: dict[str, Any], full: bool = False) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    records = results["records"]
    head = Table.grid(padding=(0, 2))
    for key, value in _header(results):
        head.add_row(f"[bold]{key}", value)
    console.print(head)
    tally = Table(title="outcomes")
    for outcome in OUTCOMES:
        tally.add_column(outcome, justify="right")
    tally.add_column("total", justify="right")
    tally.add_row(*(str(results["counts"].get(o, 0)) for o in OUTCOMES), str(len(records)))
    console.print(tally)
    for outcome in ("refused", "harness"):
        groups = grouped(records, outcome)
        if not groups:
            continue
        table = Table(title=f"{outcome}, by message", show_lines=True)
        table.add_column("n", justify="right")
        table.add_column("message", ratio=3)
        table.add_column("case#launch", ratio=1)
        for message, labels in groups:
            table.add_row(str(len(labels)), _cut(message, full), ", ".join(labels))
        console.print(table)
    crashes = [r for r in records if r["outcome"] == "crash"]
    if crashes:
        console.print("[bold red]crashes")
        for r in crashes:
            console.print("\n".join(_crash_lines(r)), markup=False)
    if flagged := _flagged(records):
        console.print("[bold]flagged predictions")
        console.print("\n".join(flagged), markup=False)


def print_summary(results: dict[str, Any], full: bool = False, plain: bool = False) -> None:
    """Print with rich where it is installed (and not ``plain``), else as text."""
    if not plain:
        try:
            import rich  # noqa: F401  (only asked whether it is installed)
        except ImportError:
            plain = True
    (print_plain if plain else print_rich)(results, full)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", type=Path, nargs="+", help="a results file written by a sweep's run.py")
    ap.add_argument("--full", action="store_true", help="print messages whole")
    ap.add_argument("--plain", action="store_true", help="plain text even where rich is installed")
    args = ap.parse_args()
    for path in args.results:
        print_summary(json.loads(path.read_text()), full=args.full, plain=args.plain)
    return 0


if __name__ == "__main__":
    sys.exit(main())

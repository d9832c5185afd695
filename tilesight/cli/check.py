"""``tilesight check``: the pre-commit performance check.

Predicts every kernel the watch list (tilesight.toml or [tool.tilesight]) names, compares with the committed
baseline and exits 1 with a table when a prediction is slower than the threshold allows (or a watched kernel
has no baseline yet). ``--update`` rewrites the baseline instead. Bad input exits 2, like every command.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.table import Table

from tilesight.check import (
    CheckConfig,
    CheckResult,
    Measure,
    Status,
    WatchEntry,
    compare,
    find_config,
    load_baseline,
    load_config,
    save_baseline,
)
from tilesight.hardware import load_profile

from .argspec import format_values, parse_args_text, parse_config_text, referenced_names
from .common import Output, add_json
from .loader import load, parse_target, resolve
from .runner import Launch, predict

EXIT_REGRESSED = 1
US_PER_S = 1e6  # display unit
_STYLE = {Status.REGRESSED: "red", Status.NEW: "red", Status.IMPROVED: "green", Status.STALE: "yellow"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check", help="pre-commit check: fail when a watched kernel's prediction regresses")
    p.add_argument(
        "--config-file", default=None, help="tilesight.toml or pyproject.toml (default: search upwards)"
    )
    p.add_argument("--update", action="store_true", help="rewrite the baseline with the current predictions")
    add_json(p)
    p.set_defaults(run=run)


def measure(entry: WatchEntry, root: Path) -> Measure:
    target = parse_target(entry.target)
    target = type(target)(str(root / target.file), target.kernel)
    load_profile(entry.hw)
    source = resolve(target)
    config = parse_config_text(entry.config, f"{entry.name}: config")
    args = parse_args_text(entry.args, f"{entry.name}: args")
    launch = Launch(args, config, entry.grid, entry.hw, sizes=referenced_names(entry.args))
    report = predict(load(source), launch).report
    return Measure(
        report.latency_s, report.bottleneck.value, report.l2_hit_rate, entry.target, format_values(config)
    )


def run(ns: argparse.Namespace, out: Output) -> int:
    path = Path(ns.config_file) if ns.config_file else find_config(Path.cwd())
    cfg = load_config(path)
    baseline = (
        None if ns.update else load_baseline(cfg.baseline)
    )  # a missing baseline fails before predicting
    current = {}
    with out.progress() as bar:
        task = bar.add_task(f"predicting {len(cfg.entries)} watched kernels", total=len(cfg.entries))
        for entry in cfg.entries:
            current[entry.key] = measure(entry, cfg.root)
            bar.advance(task)
    if ns.update:
        save_baseline(cfg.baseline, current)
        if out.json_mode:
            out.json({"updated": str(cfg.baseline), "entries": {k: m.to_dict() for k, m in current.items()}})
        else:
            out.out.print(f"wrote {cfg.baseline} ({len(current)} entries)")
        return 0
    assert baseline is not None
    result = compare(baseline, current, cfg.threshold)
    if out.json_mode:
        out.json({"config": str(cfg.path), "baseline": str(cfg.baseline), **result.to_dict()})
    else:
        out.out.print(table(result, cfg))
        if result.failed:
            out.out.print(
                "[red]tilesight check failed[/red]: a watched kernel is predicted slower than its "
                f"baseline by more than {cfg.threshold:.0%} (or is not in it). If intended, run "
                "`tilesight check --update` and commit the baseline."
            )
    return EXIT_REGRESSED if result.failed else 0


def table(result: CheckResult, cfg: CheckConfig) -> Table:
    t = Table(
        title=f"tilesight check: {len(result.rows)} kernels vs {cfg.baseline.name} "
        f"(threshold {cfg.threshold:.0%})"
    )
    for col in ("kernel@gpu", "status", "baseline (us)", "now (us)", "change", "bottleneck"):
        t.add_column(col)
    for row in result.rows:
        old, new = row.baseline, row.current
        change = f"{row.ratio - 1:+.1%}" if row.ratio is not None else "-"
        neck = " -> ".join(dict.fromkeys(m.bottleneck for m in (old, new) if m is not None))
        style = _STYLE.get(row.status, "")
        t.add_row(
            row.key,
            f"[{style}]{row.status.value}[/{style}]" if style else row.status.value,
            f"{old.latency_s * US_PER_S:.2f}" if old else "-",
            f"{new.latency_s * US_PER_S:.2f}" if new else "-",
            change,
            neck,
        )
    return t

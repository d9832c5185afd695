"""``tilesight rank FILE::KERNEL``: predict every config and rank them, fastest first.

Configs come from the kernel's ``@triton.autotune`` list, from ``--config`` (repeatable), or from a
``--sweep 'BLOCK_M=64,128 num_stages=3,4'`` cartesian product over a base ``--config``.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import os

from rich.table import Table

from tilesight.errors import TileSightError
from tilesight.integrations.rank import RANK_REGISTERS, REFINE_REGISTERS, settle_head

from .argspec import ArgsError, Scalar, parse_config_text
from .common import REGISTER_MODE_ENV, Output, add_launch_options, config_label, prepare
from .runner import predict

DEFAULT_TOP = 20


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "rank", help="rank the kernel's configs (autotune list, --config or --sweep) by prediction"
    )
    add_launch_options(p, config=False)
    p.add_argument("--config", action="append", default=[], help="a config to rank (repeatable)")
    p.add_argument("--sweep", default="", help="NAME=v1,v2 ... : rank the product of these values")
    p.add_argument("--top", type=int, default=DEFAULT_TOP, help=f"rows to print (default {DEFAULT_TOP})")
    p.set_defaults(run=run)


def sweep_configs(base: dict[str, Scalar], text: str) -> list[dict[str, Scalar]]:
    """The cartesian product of ``NAME=v1,v2`` axes, each over ``base``."""
    axes: list[tuple[str, list[Scalar]]] = []
    for token in text.split():
        name, sep, values = token.partition("=")
        if not sep or not values:
            raise ArgsError(f"--sweep: {token!r} is not NAME=v1,v2,...")
        axes.append((name, [parse_config_text(f"{name}={v}", "--sweep")[name] for v in values.split(",")]))
    names = [name for name, _ in axes]
    return [
        {**base, **dict(zip(names, combo, strict=True))} for combo in itertools.product(*(v for _, v in axes))
    ]


def _latency(row: tuple) -> float:
    """A row's predicted latency, a refused config's infinite (sorted last)."""
    return row[1].latency_s if row[1] is not None else float("inf")


def _settle_head(prep, rows: list, out: Output) -> list:
    """As ``tilesight.rank`` settles its head (``refine=1``, with the same
    :func:`~tilesight.integrations.rank.settle_head`): the predicted best again with ptxas's registers where
    the estimate decides it, re-sorted, until the best has been re-predicted."""

    def repredict(i: int) -> None:
        cfg = rows[i][0]
        launch = dataclasses.replace(prep.launch, config=cfg, registers=REFINE_REGISTERS)
        with out.progress() as bar:
            bar.add_task("settling the best with ptxas's registers", total=None)
            try:
                rows[i] = (cfg, predict(prep.kernel, launch).report, None)
            except TileSightError as exc:
                rows[i] = (cfg, None, str(exc))

    settle_head(lambda i: _latency(rows[i]) if rows[i][1] is not None else None, repredict, len(rows), 1)
    return sorted(rows, key=_latency)


def run(ns: argparse.Namespace, out: Output) -> int:
    base_texts = ns.config or [""]
    prep = prepare(ns, config_text=base_texts[0])
    configs: list[dict[str, Scalar]]
    if ns.sweep:
        if len(ns.config) > 1:
            raise ArgsError("--sweep takes at most one base --config")
        configs = sweep_configs(dict(prep.launch.config), ns.sweep)
    elif ns.config:
        configs = [parse_config_text(t) for t in ns.config]
    elif prep.kernel.configs:
        configs = [dict(c) for c in prep.kernel.configs]
    elif prep.source.autotune and prep.source.autotune.configs:
        configs = [c.as_config() for c in prep.source.autotune.configs]
    else:
        raise ArgsError(
            f"{prep.source.qualname} has no @triton.autotune configs; give --config (repeatable) or --sweep"
        )
    # like tilesight.rank: the register estimate unless --registers or $TILESIGHT_REGISTERS says otherwise
    registers = prep.launch.registers or (None if os.environ.get(REGISTER_MODE_ENV) else RANK_REGISTERS)
    rows = []
    with out.progress() as bar:
        task = bar.add_task(f"predicting {len(configs)} configs", total=len(configs))
        for cfg in configs:
            launch = dataclasses.replace(prep.launch, config=cfg, registers=registers)
            try:
                rows.append((cfg, predict(prep.kernel, launch).report, None))
            except TileSightError as exc:  # a config that cannot launch ranks last, with its reason
                rows.append((cfg, None, str(exc)))
            bar.advance(task)
    rows.sort(key=_latency)
    if registers == RANK_REGISTERS:
        rows = _settle_head(prep, rows, out)
    if out.json_mode:
        out.json(
            {
                "target": ns.target,
                "hw": ns.hw,
                "ranking": [
                    {
                        "rank": i + 1,
                        "config": cfg,
                        "latency_s": rep.latency_s if rep else None,
                        "bottleneck": rep.bottleneck.value if rep else None,
                        "l2_hit_rate": rep.l2_hit_rate if rep else None,
                        "error": err,
                    }
                    for i, (cfg, rep, err) in enumerate(rows)
                ],
            }
        )
        return 0
    best = rows[0][1]
    table = Table(title=f"{prep.source.qualname} on {ns.hw}: {len(rows)} configs, fastest first")
    for col in ("#", "config", "latency (us)", "vs best", "bottleneck", "L2 hit", "occupancy"):
        table.add_column(col)
    for i, (cfg, rep, err) in enumerate(rows[: ns.top]):
        if rep is None:
            table.add_row(str(i + 1), config_label(cfg), "-", "-", f"[red]{err}[/red]", "-", "-")
            continue
        slower = rep.latency_s / best.latency_s if best else 1.0
        table.add_row(
            str(i + 1),
            config_label(cfg),
            f"{rep.latency_us:.2f}",
            f"{slower:.2f}x",
            rep.bottleneck.value,
            f"{rep.l2_hit_rate:.0%}",
            f"{rep.occupancy.resident_blocks}/SM ({rep.occupancy.limiter})",
        )
    out.out.print(table)
    return 0

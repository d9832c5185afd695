"""``tilesight kernels FILE``: the kernels discovery finds in a file (without importing it)."""

from __future__ import annotations

import argparse

from rich.table import Table

from tilesight.frontends.source import discover

from .common import Output, add_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("kernels", help="list the kernels in a Python file (no import)")
    p.add_argument("file", help="a Python source file")
    add_json(p)
    p.set_defaults(run=run)


def run(ns: argparse.Namespace, out: Output) -> int:
    kernels = discover(ns.file)
    if out.json_mode:
        out.json({"file": ns.file, "kernels": [k.to_dict() for k in kernels]})
        return 0
    table = Table(title=f"kernels in {ns.file}")
    for col in ("kernel", "kind", "line", "parameters", "constexprs", "autotune"):
        table.add_column(col)
    for k in kernels:
        if k.autotune is None:
            tune = ""
        elif k.autotune.static:
            tune = f"{len(k.autotune.configs)} configs, key={list(k.autotune.key)}"
        else:
            tune = f"computed configs, key={list(k.autotune.key)}"
        table.add_row(
            k.qualname, k.kind.value, str(k.line), ", ".join(k.runtime_params), ", ".join(k.constexprs), tune
        )
    out.out.print(table)
    return 0

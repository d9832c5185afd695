"""Pieces every command shares: the launch options, the console, JSON output and kernel preparation."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from tilesight.frontends.source import KernelSource
from tilesight.frontends.triton.ptxas import AUTO_COMPILE_BUDGET_S, BUDGET_ENV, PTXAS_ENV, target_ptxas
from tilesight.frontends.triton.ptxas import MODE_ENV as REGISTER_MODE_ENV
from tilesight.frontends.triton.ptxas import MODES as REGISTER_MODES
from tilesight.hardware import load_profile

from .argspec import Scalar, parse_args_text, parse_config_text, referenced_names
from .loader import LoadedKernel, load, parse_target, resolve
from .runner import Launch

DEFAULT_HW = "h200"


def add_launch_options(p: argparse.ArgumentParser, *, config: bool = True) -> None:
    p.add_argument("target", help="FILE.py::KERNEL (the kernel may be omitted when the file holds one)")
    p.add_argument("--args", default="", help="kernel arguments, e.g. 'a=f16[4096,4096] M=4096' or JSON")
    if config:
        p.add_argument(
            "--config", default="", help="meta-parameters and launch options, e.g. 'BLOCK_M=128 num_warps=8'"
        )
    p.add_argument(
        "--grid", default=None, help="launch grid expression, e.g. 'cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)'"
    )
    p.add_argument(
        "--hw", default=DEFAULT_HW, help=f"GPU profile (default {DEFAULT_HW}; see `tilesight profiles`)"
    )
    p.add_argument(
        "--registers",
        choices=REGISTER_MODES,
        default=None,
        help="where a Triton kernel's registers come from: 'auto' (ptxas, run on the CPU, where the estimate "
        f"decides, within a compile budget of {AUTO_COMPILE_BUDGET_S:g} s that ${BUDGET_ENV} changes; the "
        "default, `rank`'s is 'estimate'), 'estimate' (never ptxas), 'ptxas' (always, however long it "
        f"takes); ${REGISTER_MODE_ENV} sets the default",
    )
    p.add_argument(
        "--ptxas",
        default=None,
        metavar="PATH",
        help="the ptxas the GPU's Triton runs, for those register counts (e.g. Triton 3.6's "
        f"backends/nvidia/bin/ptxas, CUDA 12.8, where 3.9 is installed); ${PTXAS_ENV} sets the default, "
        "else the installed Triton's own",
    )
    add_json(p)


def add_json(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print machine-readable JSON on stdout")


@dataclass(frozen=True)
class Prepared:
    source: KernelSource
    kernel: LoadedKernel
    launch: Launch


def prepare(ns: argparse.Namespace, config_text: str | None = None) -> Prepared:
    """Check the cheap things first (GPU name, syntax, the kernel's presence), then import the kernel."""
    load_profile(ns.hw)
    if getattr(ns, "ptxas", None):
        os.environ[PTXAS_ENV] = ns.ptxas  # this process's compiles (and any it starts) use it
        target_ptxas()  # a path that is no ptxas fails here, before the kernel is imported
    args = parse_args_text(ns.args)
    config = parse_config_text(ns.config if config_text is None else config_text)
    source = resolve(parse_target(ns.target))
    registers = getattr(ns, "registers", None)
    launch = Launch(args, config, ns.grid, ns.hw, registers=registers, sizes=referenced_names(ns.args))
    return Prepared(source, load(source), launch)


class Output:
    """stdout for results (rich or JSON), stderr for progress."""

    def __init__(self, json_mode: bool) -> None:
        self.json_mode = json_mode
        self.out = Console(file=sys.stdout, highlight=False, soft_wrap=False, width=_width())
        self.err = Console(file=sys.stderr, highlight=False)

    def json(self, doc: Any) -> None:
        sys.stdout.write(json.dumps(doc, indent=2, default=_jsonable) + "\n")

    def progress(self) -> Progress:
        return Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=self.err,
            transient=True,
            disable=self.json_mode or not self.err.is_terminal,
        )


def _width() -> int | None:
    return None if sys.stdout.isatty() else 120


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, Mapping):
        return dict(obj)
    if isinstance(obj, set | frozenset | tuple):
        return list(obj)
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    return str(obj)


def config_label(config: Mapping[str, Scalar]) -> str:
    from .argspec import format_values

    return format_values(config) or "(defaults)"

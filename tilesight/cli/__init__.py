"""The ``tilesight`` command: predict, rank, explain, timeline, kernels, profiles, check.

Every command takes ``--json``. Bad input (a file that does not parse, an unknown kernel or GPU, malformed
``--args``, a missing baseline) prints one line on stderr and exits 2; ``tilesight check`` exits 1 when a
prediction regresses.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence

from tilesight.errors import TileSightError
from tilesight.optional import require

require("rich", "the tilesight command line")  # before the commands import it, so that its absence is named

from . import check, explain, kernels, predict, profiles, rank, timeline  # noqa: E402
from .common import Output  # noqa: E402

EXIT_USAGE = 2
COMMANDS = (predict, rank, explain, timeline, kernels, profiles, check)


class UsageError(TileSightError):
    """A command line argparse refused."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # main() prints "tilesight: error: "; a subcommand's refusal names the subcommand once
        # ("predict: ..."), and every one says where the usage is
        command = self.prog.removeprefix("tilesight").strip()
        where = f"{command}: " if command else ""
        raise UsageError(f"{where}{message} (see `{self.prog} --help`)")


def parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="tilesight", description="Predict how tile-based GPU kernels run, without launching them."
    )
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser, metavar="COMMAND")
    for command in COMMANDS:
        command.register(sub)
    p.commands = sub.choices  # each subcommand's parser, by name
    return p


def main(argv: Sequence[str] | None = None) -> int:
    # Triton 3.9 warns on every compile that leaves fp fusion to its default, which will change in 3.10; the
    # CLI compiles what the user would launch, under the same default, so the notice is only noise here
    warnings.filterwarnings("ignore", message="TRITON_DEFAULT_FP_FUSION is unset")
    try:
        top = parser()
        ns, extra = top.parse_known_args(argv)
        if extra:  # argparse refuses them at the top level: the subcommand they were given to refuses them
            top.commands[ns.command].error(f"unrecognized arguments: {' '.join(extra)}")
        return int(ns.run(ns, Output(getattr(ns, "json", False))))
    except TileSightError as exc:
        print(f"tilesight: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("tilesight: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

"""Accuracy of TileSight's Triton predictions against the committed measurements (CPU only).

    python benchmarks/accuracy.py [--data benchmarks/data] [--hw h200] [--plot fig.png] [--json out.json]
                                  [--only SUBSTRING] [--jobs N] [--allow-errors]

Reads ``triton_{gemm,memory,attention}.jsonl`` (written by ``benchmarks/triton_sweep/run.sh`` on the GPU),
rebuilds every measured launch with ``tilesight.TensorSpec`` arguments and predicts it with
``tilesight.estimate(jit_fn, grid, *args, hw=..., num_warps=..., num_stages=..., **constexprs)``. Prints MAPE
of the p50 latency per family beside the roofline baseline (``benchmarks/roofline.py``) on the same cases,
for the held-out third and the rest separately; launches that spilled registers form their own row and are
left out of their family's. ``--plot`` writes a log-log predicted-vs-measured scatter per family (like the
paper's Figure 5), ``--json`` the rows and every case.

A case that cannot be rebuilt or predicted stops the script with the file:line and id; ``--allow-errors``
instead lists such cases (and counts them in the table) so a partial frontend can still be scored.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import importlib
import json
import math
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "triton_sweep"))

import roofline  # noqa: E402
import sweep_schema  # noqa: E402

from tilesight.errors import TileSightError  # noqa: E402

FAMILIES = ("gemm", "memory", "attention")
SPILLS = "spills"
SPLITS = ("main", "holdout")
# The acceptance bounds: MAPE per family (percent), and held-out MAPE over the rest's.
TARGET_MAPE_PCT = {"gemm": 10.0, "memory": 8.0, "attention": 12.0}
TARGET_HOLDOUT_RATIO = 1.5
# The harness names kernels by their path from the repository root; installed, they live under tilesight.
# Kernels of other packages (a library's own kernels, validation 31's Liger-Kernel ops) keep their names.
KERNEL_PACKAGE_PREFIX = "tilesight."
IN_REPO_KERNEL_PACKAGES = ("kernels",)
# Packages of other projects' kernels that measured sets name, and where their sources are put (git-ignored,
# benchmarks/data/README.md says how): a case whose package is missing says so, not only "not importable".
EXTERNAL_KERNEL_PACKAGES = {"liger_kernel": "external/liger"}


class DataError(TileSightError, ValueError):
    """A measured case that cannot be rebuilt or predicted; names the file:line and the case id."""


class NotMeasured(DataError):
    """A validation set whose predictions are recorded (:data:`RECORDED_FILE`) but which has not run on the
    GPU yet: no measured file at all."""


@dataclass(frozen=True)
class Launch:
    fn: Any
    grid: tuple[int, ...]
    args: tuple[Any, ...]
    options: dict[str, Any]


@dataclass(frozen=True)
class Scored:
    id: str
    family: str  # the record's family, or "spills"
    split: str
    measured_us: float
    predicted_us: float
    roofline_us: float
    n_spills: int
    where: str


@dataclass(frozen=True)
class Row:
    name: str
    n: int
    mape_pct: float
    roofline_mape_pct: float
    main_mape_pct: float
    holdout_mape_pct: float
    target_pct: float | None

    @property
    def holdout_ratio(self) -> float:
        """Held-out over main MAPE; NaN when either split is empty (a data set that is all held out)."""
        if math.isnan(self.main_mape_pct) or math.isnan(self.holdout_mape_pct):
            return float("nan")
        return self.holdout_mape_pct / self.main_mape_pct if self.main_mape_pct > 0 else float("inf")

    @property
    def passed(self) -> bool | None:
        if self.target_pct is None:
            return None
        ratio_ok = math.isnan(self.holdout_ratio) or self.holdout_ratio <= TARGET_HOLDOUT_RATIO
        return self.mape_pct <= self.target_pct and ratio_ok


def rebuild(record: dict, where: str) -> Launch:
    """The launch a record describes, with TensorSpec arguments, ready for ``tilesight.estimate``."""
    from tilesight import TensorSpec

    module_name, _, fn_name = record["kernel"].partition(":")
    if module_name.split(".", 1)[0] in IN_REPO_KERNEL_PACKAGES:
        module_name = KERNEL_PACKAGE_PREFIX + module_name
    try:
        fn = getattr(importlib.import_module(module_name), fn_name)
    except (ImportError, AttributeError) as e:
        problem = f"kernel {record['kernel']!r} not importable: {e}"
        package = module_name.split(".", 1)[0]
        absent = isinstance(e, ModuleNotFoundError) and e.name == package  # not there at all, not broken
        if package in EXTERNAL_KERNEL_PACKAGES and absent:
            folder = EXTERNAL_KERNEL_PACKAGES[package]
            problem += f" (its sources go in {folder}: PYTHONPATH={folder}, benchmarks/data/README.md)"
        raise DataError(f"{where}: case {record['id']!r}: {problem}") from e
    args: list[Any] = []
    for i, arg in enumerate(record["args"]):
        if "tensor" in arg:
            t = arg["tensor"]
            try:
                args.append(TensorSpec(tuple(t["shape"]), t["dtype"], tuple(t["strides"])))
            except TileSightError as e:
                raise DataError(f"{where}: case {record['id']!r}: args[{i}]: {e}") from e
        else:
            args.append(arg["scalar"])
    options = {"num_warps": record["num_warps"], "num_stages": record["num_stages"], **record["constexprs"]}
    return Launch(fn=fn, grid=tuple(record["grid"]), args=tuple(args), options=options)


def predict_us(record: dict, where: str, hw: str) -> float:
    import tilesight

    launch = rebuild(record, where)
    try:
        report = tilesight.estimate(launch.fn, launch.grid, *launch.args, hw=hw, **launch.options)
    except TileSightError as e:
        raise DataError(f"{where}: case {record['id']!r}: tilesight.estimate failed: {e}") from e
    return report.latency_s * 1e6


def score(record: dict, where: str, hw_name: str, recorded_us: float | None = None) -> Scored:
    """One measured case scored; ``recorded_us`` (a prediction written before the case was measured) stands
    in for predicting it now."""
    from tilesight.hardware import load_profile

    hw = load_profile(hw_name)
    spills = int(record["n_spills"])
    return Scored(
        id=record["id"],
        family=SPILLS if spills > 0 else record["family"],
        split=record["split"],
        measured_us=float(record["measured_us"]["p50"]),
        predicted_us=recorded_us if recorded_us is not None else predict_us(record, where, hw_name),
        roofline_us=roofline.roofline(record, hw).latency_s * 1e6,
        n_spills=spills,
        where=where,
    )


def _score_job(job: tuple[dict, str, str, float | None]) -> Scored | str:
    record, where, hw, recorded_us = job
    try:
        return score(record, where, hw, recorded_us)
    except DataError as e:
        return str(e)


# Where a validation set keeps the predictions written before it was measured (its blind score).
RECORDED_FILE = "predicted_before_measuring.json"


def recorded_predictions(data: Path, name: str = RECORDED_FILE) -> dict[str, float]:
    """Case id -> the microseconds recorded in ``data``'s :data:`RECORDED_FILE` (or the file ``name``: a
    set predicted twice before it ran, with and without a rule, keeps the second in its own file)."""
    path = data / name
    if not path.exists():
        raise DataError(f"{path} is missing: this set has no predictions recorded before it was measured")
    return {k: float(v) for k, v in json.loads(path.read_text())["predicted_us"].items()}


def load(data: Path, only: str = "") -> list[tuple[dict, str]]:
    """(record, "file:line") for every measured ("ok") record whose id contains ``only``. Raises
    :class:`NotMeasured` for a set predicted before measuring that has no measured file yet."""
    if (data / RECORDED_FILE).exists() and not any(
        (data / f"triton_{family}.jsonl").exists() for family in FAMILIES
    ):
        raise NotMeasured(
            f"{data}: predictions recorded before measuring, not measured yet: run `bash "
            f"benchmarks/triton_sweep/run.sh --{data.name}` on the H200 and commit its output"
        )
    found = []
    for family in FAMILIES:
        path = data / f"triton_{family}.jsonl"
        if not path.exists():
            run = "bash benchmarks/triton_sweep/run.sh"
            raise DataError(f"{path} is missing: run `{run}` on the H200 and commit its output")
        with open(path) as f:
            lines = f.read().splitlines()
        for lineno, line in enumerate(lines, 1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            rec = sweep_schema.validate_record(json.loads(line), where)
            if rec["status"] == "ok" and only in rec["id"]:
                found.append((rec, where))
    return found


def mape_pct(pairs: list[tuple[float, float]]) -> float:
    """Mean absolute percentage error of (predicted, measured) pairs; nan for none."""
    if not pairs:
        return float("nan")
    return 100.0 * sum(abs(p - m) / m for p, m in pairs) / len(pairs)


def summarize(cases: list[Scored]) -> list[Row]:
    rows = []
    for name in (*FAMILIES, SPILLS):
        mine = [c for c in cases if c.family == name]
        if not mine:
            continue
        model = {sp: [(c.predicted_us, c.measured_us) for c in mine if c.split == sp] for sp in SPLITS}
        rows.append(
            Row(
                name=name,
                n=len(mine),
                mape_pct=mape_pct(model["main"] + model["holdout"]),
                roofline_mape_pct=mape_pct([(c.roofline_us, c.measured_us) for c in mine]),
                main_mape_pct=mape_pct(model["main"]),
                holdout_mape_pct=mape_pct(model["holdout"]),
                target_pct=TARGET_MAPE_PCT.get(name),
            )
        )
    return rows


def _num(x: float, fmt: str) -> str:
    """A table cell: '-' for a split with no cases."""
    return "-" if math.isnan(x) else format(x, fmt)


def measured_on(folders: list[Path]) -> str:
    """The GPUs the folders' ``triton_meta.json`` name (``"gpu"``), in order of first appearance; "H200" where
    none does (the committed sets are the H200's)."""
    gpus: dict[str, None] = {}
    for folder in folders:
        meta = folder / "triton_meta.json"
        if meta.exists():
            gpu = json.loads(meta.read_text()).get("gpu")
            if gpu:
                gpus.setdefault(str(gpu).removeprefix("NVIDIA ").split(" ")[0], None)
    return " / ".join(gpus) or "H200"


def render(rows: list[Row], errors: list[str], gpu: str = "H200") -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"TileSight vs {gpu} measurements (p50 latency, MAPE %)")
    for col in ("family", "n", "TileSight", "roofline", "main", "held-out", "held/main", "target", "pass"):
        table.add_column(col, justify="left" if col == "family" else "right")
    for r in rows:
        verdict = {None: "-", True: "yes", False: "NO"}[r.passed]
        target = f"<= {r.target_pct:g}" if r.target_pct is not None else "-"
        table.add_row(
            r.name,
            str(r.n),
            f"{r.mape_pct:.1f}",
            f"{r.roofline_mape_pct:.1f}",
            _num(r.main_mape_pct, ".1f"),
            _num(r.holdout_mape_pct, ".1f"),
            _num(r.holdout_ratio, ".2f"),
            target,
            verdict,
        )
    console = Console()
    console.print(table)
    console.print(f"'{SPILLS}': launches with register spills, left out of their family's row.")
    if errors:
        console.print(f"[red]{len(errors)} case(s) could not be predicted:[/red]")
        for e in errors[:20]:
            console.print(f"  {e}")
        for package, folder in EXTERNAL_KERNEL_PACKAGES.items():
            missing = sum(f"No module named '{package}'" in e for e in errors)
            if missing:
                console.print(
                    f"[red]{missing} of them are {package}'s kernels, left out of every row above: put its "
                    f"sources in {folder} and run with PYTHONPATH={folder} (benchmarks/data/README.md)[/red]"
                )


def plot(cases: list[Scored], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [n for n in (*FAMILIES, SPILLS) if any(c.family == n for c in cases)]
    fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 4.2), squeeze=False)
    for ax, name in zip(axes[0], names, strict=True):
        mine = [c for c in cases if c.family == name]
        meas = [c.measured_us for c in mine]
        ax.scatter(meas, [c.roofline_us for c in mine], s=8, c="tab:gray", alpha=0.5, label="roofline")
        for split, color in (("main", "tab:blue"), ("holdout", "tab:orange")):
            sel = [c for c in mine if c.split == split]
            predicted = [c.predicted_us for c in sel]
            ax.scatter([c.measured_us for c in sel], predicted, s=10, c=color, label=split)
        lo = min(meas + [c.predicted_us for c in mine] + [c.roofline_us for c in mine])
        hi = max(meas + [c.predicted_us for c in mine] + [c.roofline_us for c in mine])
        ax.plot([lo, hi], [lo, hi], "k-", lw=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{name} (MAPE {mape_pct([(c.predicted_us, c.measured_us) for c in mine]):.1f}%)")
        ax.set_xlabel("measured latency (us)")
        ax.set_ylabel("predicted latency (us)")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--data",
        type=Path,
        nargs="+",
        default=[HERE / "data"],
        help="measured-data folders, scored together (e.g. benchmarks/data/validation* for a pooled figure)",
    )
    ap.add_argument("--hw", default="h200")
    ap.add_argument("--plot", type=Path, help="PNG path for the predicted-vs-measured scatter")
    ap.add_argument("--json", type=Path, help="write rows and cases as JSON here")
    ap.add_argument("--only", default="", help="score only case ids containing this substring")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes for the predictions")
    ap.add_argument("--allow-errors", action="store_true", help="list failing cases instead of stopping")
    ap.add_argument("--tilelang", action="store_true", help="score the TileLang sweep instead")
    ap.add_argument(
        "--recorded",
        action="store_true",
        help=f"score the predictions recorded in DATA/{RECORDED_FILE} before measuring, not predict now",
    )
    ap.add_argument(
        "--recorded-file",
        default=RECORDED_FILE,
        help="with --recorded: the file in DATA to read them from (e.g. predicted_without_the_rule.json)",
    )
    args = ap.parse_args(argv)
    if args.tilelang:
        return _score_tilelang(args)

    jobs = []
    for folder in args.data:
        try:
            measured = load(folder, args.only)
        except NotMeasured as e:
            if len(args.data) == 1:
                raise
            print(f"note: {e}; left out", file=sys.stderr)  # a pooled run over every set goes on
            continue
        recorded = recorded_predictions(folder, args.recorded_file) if args.recorded else None
        for rec, where in measured:
            if recorded is not None and rec["id"] not in recorded:
                raise DataError(
                    f"{where}: case {rec['id']!r} has no prediction in {folder / args.recorded_file}"
                )
            jobs.append((rec, where, args.hw, recorded[rec["id"]] if recorded is not None else None))
    if not jobs:
        folders = ", ".join(str(f) for f in args.data)
        raise DataError(f"no measured cases in {folders} match {args.only!r}")
    if args.jobs > 1:
        with cf.ProcessPoolExecutor(max_workers=args.jobs) as pool:
            results = list(pool.map(_score_job, jobs, chunksize=8))
    else:
        results = [_score_job(job) for job in jobs]
    errors = [r for r in results if isinstance(r, str)]
    if errors and not args.allow_errors:
        raise DataError(f"{len(errors)} case(s) failed; first: {errors[0]}")
    cases = [r for r in results if isinstance(r, Scored)]
    rows = summarize(cases)
    render(rows, errors, measured_on(args.data))
    if args.plot:
        plot(cases, args.plot)
    if args.json:
        out = {
            "rows": [
                {
                    k: (None if isinstance(v, float) and math.isnan(v) else v)  # strict JSON: an empty split
                    for k, v in dict(asdict(r), holdout_ratio=r.holdout_ratio, passed=r.passed).items()
                }
                for r in rows
            ],
            "cases": [asdict(c) for c in cases],
            "errors": errors,
        }
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0 if all(r.passed is not False for r in rows) and not errors else 1


def _score_tilelang(args: argparse.Namespace) -> int:
    """The TileLang sweep through the same table (benchmarks/tilelang_sweep/score.py holds its loader)."""
    sys.path.insert(0, str(HERE / "tilelang_sweep"))
    import score as tilelang_score

    if len(args.data) > 1:
        raise DataError("--tilelang scores one --data folder at a time")
    forwarded = ["--data", str(args.data[0]), "--hw", args.hw, "--only", args.only]
    if args.json:
        forwarded += ["--json", str(args.json)]
    if args.allow_errors:
        forwarded.append("--allow-errors")
    if args.recorded:
        forwarded.append("--recorded")
    return tilelang_score.main(forwarded)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except DataError as e:  # a missing or unreadable data file: its name and what is wrong, no traceback
        sys.exit(f"accuracy.py: error: {e}")

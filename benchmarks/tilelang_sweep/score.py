"""Accuracy of TileSight's TileLang predictions against the committed H200 sweep (CPU only).

    python benchmarks/tilelang_sweep/score.py [--data benchmarks/data] [--hw h200] [--json out.json]
    python benchmarks/accuracy.py --tilelang [...]      # the same, through the project's accuracy script

Reads ``tilelang_h200.jsonl`` (written by ``benchmarks/tilelang_sweep/run.sh`` on the GPU), rebuilds
every measured case's ``T.prim_func`` from its parameters, predicts it with ``tilesight.estimate`` and prints
the MAPE of the p50 latency per family beside the roofline baseline on the same cases, in the table of
``benchmarks/accuracy.py``. Nothing is fitted to these measurements; the held-out split (every third case)
only shows that the error does not hinge on a subset. A case that cannot be rebuilt or predicted stops the
script naming file:line and id (``--allow-errors`` lists them instead).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import accuracy  # noqa: E402
import cases as case_list  # noqa: E402

from tilesight.errors import TileSightError  # noqa: E402

DATA_FILE = "tilelang_h200.jsonl"
FAMILIES = ("gemm", "flash_attention", "mla_decode", "dequant_gemm")
# The acceptance bounds (MAPE %): GEMM <= 10 over >= 60 cases, FlashAttention <= 12 over >= 20.
TARGET_MAPE_PCT = {"gemm": 10.0, "flash_attention": 12.0}
MIN_CASES = {"gemm": 60, "flash_attention": 20}
HOLDOUT_EVERY = 3  # every third measured case forms the held-out split
# The block configuration of each family (the rest of a case's parameters are its problem shape and dtype):
# residuals are also reported per configuration, where frontend and engine errors show up as biases.
CONFIG_KEYS = {
    "gemm": ("block_M", "block_N", "block_K", "num_stages", "threads", "use_swizzle"),
    "flash_attention": ("block_M", "block_N", "num_stages", "threads", "causal"),
    "mla_decode": ("block_H", "block_N", "num_stages", "threads"),
    "dequant_gemm": ("block_M", "block_N", "block_K", "num_stages", "threads"),
}


# Configuration parameters of kernel variants beyond their family's (``CONFIG_KEYS``).
EXTRA_CONFIG_KEYS = {"gemm_splitk": ("split_k",), "gemm_persistent": ("programs", "form")}


def load(data: Path) -> list[tuple[dict, str]]:
    """(record, "file:line") for every timed record."""
    path = data / DATA_FILE
    if not path.exists():
        raise accuracy.DataError(
            f"{path} is missing: run `bash benchmarks/tilelang_sweep/run.sh` on the H200, commit its output"
        )
    found = []
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        rec = json.loads(line)
        if rec.get("error") is None and rec.get("ms") is not None:
            found.append((rec, f"{path}:{lineno}"))
    return found


def roofline_us(record: dict, plan, hw) -> float:
    """``max(useful FLOPs / TC rate, every global tensor once / DDR bandwidth) + launch overhead``; a program
    of several kernels (a KernelSequence) moves each of its tensors once and pays each kernel's launch."""
    dtype = record["params"].get("dtype", "float16")
    compute_s = case_list.flops(record) / hw.tc_rate(dtype)
    plans = getattr(plan, "plans", (plan,))
    tensors = {t.name: t.tensor_bytes for p in plans for t in p.tensors}
    memory_s = sum(tensors.values()) / hw.ddr_bw_bytes_per_s
    return (max(compute_s, memory_s) + len(plans) * hw.launch_overhead_s) * 1e6


def score(record: dict, where: str, index: int, hw, recorded_us: float | None = None) -> accuracy.Scored:
    """One measured case scored; ``recorded_us`` (a prediction written before the case was measured) stands
    in for predicting it now (the plan is still built, for the roofline)."""
    from tilesight.frontends.tilelang import TileLangFrontend

    import tilesight

    try:
        func = case_list.build(record)
        # a varlen case's launch arguments carry its offsets' contents, which the walker reads
        plan = TileLangFrontend().plan(func, case_list.launch_args(record), {}, hw)
        predicted_us = (
            recorded_us if recorded_us is not None else tilesight.estimate(plan, hw=hw).latency_s * 1e6
        )
    except TileSightError as e:
        raise accuracy.DataError(f"{where}: case {record['id']!r}: {e}") from e
    return accuracy.Scored(
        id=record["id"],
        family=record["family"],
        split="holdout" if index % HOLDOUT_EVERY == HOLDOUT_EVERY - 1 else "main",
        measured_us=float(record["ms"]) * 1e3,
        predicted_us=predicted_us,
        roofline_us=roofline_us(record, plan, hw),
        n_spills=0,
        where=where,
    )


def summarize(scored: list[accuracy.Scored]) -> list[accuracy.Row]:
    rows = []
    for name in FAMILIES:
        mine = [c for c in scored if c.family == name]
        if not mine:
            continue
        split = {
            sp: [(c.predicted_us, c.measured_us) for c in mine if c.split == sp] for sp in accuracy.SPLITS
        }
        enough = len(mine) >= MIN_CASES.get(name, 0)
        rows.append(
            accuracy.Row(
                name=name,
                n=len(mine),
                mape_pct=accuracy.mape_pct(split["main"] + split["holdout"]),
                roofline_mape_pct=accuracy.mape_pct([(c.roofline_us, c.measured_us) for c in mine]),
                main_mape_pct=accuracy.mape_pct(split["main"]),
                holdout_mape_pct=accuracy.mape_pct(split["holdout"]),
                target_pct=TARGET_MAPE_PCT.get(name) if enough else None,
            )
        )
    return rows


def code_commit() -> str:
    """The commit whose code scored: ``TILESIGHT_COMMIT`` from benchmarks/autotune/committed_copy.sh, else
    this checkout's HEAD, marked ``-dirty`` when the model, profiles or frontends have uncommitted changes."""
    import os
    import subprocess

    given = os.environ.get("TILESIGHT_COMMIT")
    if given:
        return given
    root = HERE.parent.parent
    git = ["git", "-C", str(root)]
    head = subprocess.run(
        [*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    paths = ["tilesight", "frontends", "kernels", "hw_profiles"]
    dirty = subprocess.run(
        [*git, "status", "--porcelain", "--", *paths], capture_output=True, text=True, check=True
    )
    return head + ("-dirty" if dirty.stdout.strip() else "")


def config_name(record: dict) -> str:
    """The block configuration of a case; a kernel variant (``gemm_splitk``) adds its own parameters."""
    params = record["params"]
    keys = [k for k in CONFIG_KEYS[record["family"]] if k in params]
    if record.get("kernel", record["family"]) != record["family"]:
        keys = ["kernel", *keys, *(k for k in EXTRA_CONFIG_KEYS.get(record["kernel"], ()) if k in params)]
    return " ".join(f"{k}={record['kernel'] if k == 'kernel' else params[k]}" for k in keys)


def by_config(scored: list[accuracy.Scored], records: dict[str, dict]) -> list[dict]:
    """MAPE and mean signed error (bias, %) of every family x block configuration."""
    groups: dict[tuple[str, str], list[accuracy.Scored]] = {}
    for c in scored:
        rec = records[c.id]
        groups.setdefault((rec["family"], config_name(rec)), []).append(c)
    out = []
    for (family, config), mine in groups.items():
        errs = [(c.predicted_us - c.measured_us) / c.measured_us * 100.0 for c in mine]
        out.append(
            {
                "family": family,
                "config": config,
                "n": len(mine),
                "mape_pct": accuracy.mape_pct([(c.predicted_us, c.measured_us) for c in mine]),
                "bias_pct": sum(errs) / len(errs),
            }
        )
    return out


def main(argv: list[str] | None = None) -> int:
    from tilesight.hardware import load_profile

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=HERE.parent / "data")
    ap.add_argument("--hw", default="h200")
    ap.add_argument("--json", type=Path, help="write rows and cases as JSON here")
    ap.add_argument("--only", default="", help="score only case ids containing this substring")
    ap.add_argument("--allow-errors", action="store_true", help="list failing cases instead of stopping")
    ap.add_argument("--by-config", action="store_true", help="also print MAPE and bias per block config")
    ap.add_argument(
        "--recorded",
        action="store_true",
        help=f"score the predictions in DATA/{accuracy.RECORDED_FILE}, recorded before measuring",
    )
    ap.add_argument(
        "--recorded-file",
        default=accuracy.RECORDED_FILE,
        help="with --recorded: the file in DATA to read them from (e.g. predicted_without_the_rule.json)",
    )
    args = ap.parse_args(argv)
    recorded = accuracy.recorded_predictions(args.data, args.recorded_file) if args.recorded else None
    hw = load_profile(args.hw)
    scored: list[accuracy.Scored] = []
    errors: list[str] = []
    found = load(args.data)
    records = {rec["id"]: rec for rec, _ in found}
    for i, (rec, where) in enumerate(found):
        if args.only not in rec["id"]:
            continue
        if recorded is not None and rec["id"] not in recorded:
            raise accuracy.DataError(f"{where}: case {rec['id']!r} has no recorded prediction")
        try:
            scored.append(score(rec, where, i, hw, recorded[rec["id"]] if recorded is not None else None))
        except accuracy.DataError as e:
            if not args.allow_errors:
                raise
            errors.append(str(e))
    rows = summarize(scored)
    accuracy.render(rows, errors)
    configs = by_config(scored, records)
    if args.by_config:
        for g in configs:
            print(
                f"{g['family']:16s} {g['config']:70s} n={g['n']:3d}  MAPE {g['mape_pct']:5.1f}%  "
                f"bias {g['bias_pct']:+6.1f}%"
            )
    if args.json:
        out = {
            "command": "python benchmarks/tilelang_sweep/score.py --json "
            + (str(args.json) if not args.json.is_absolute() else args.json.name),
            "commit": code_commit(),
            "hw": args.hw,
            "rows": [dict(asdict(r), holdout_ratio=r.holdout_ratio, passed=r.passed) for r in rows],
            "configs": configs,
            "cases": [asdict(c) for c in scored],
            "errors": errors,
        }
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0 if all(r.passed is not False for r in rows) and not errors else 1


if __name__ == "__main__":
    sys.exit(main())

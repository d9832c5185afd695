"""Score the distributed model against a measured collectives sweep (CPU only, from stored data).

    python benchmarks/score_collectives.py benchmarks/data/collectives_h200x2.json \
        [--network h200_nvlink2] [--holdout all_gather all_gather+all_reduce] \
        [--out benchmarks/data/collectives_score_h200x2.json]

* Collectives: every measured (op, bytes per rank) against ``estimate_collective`` on the network file;
  wMAPE = sum |predicted - measured| / sum measured, per op and over all four.
* Held-out view (``--holdout OPS``): calibrate the link on OPS of the 2-GPU sweep alone
  (``calibrate_network.py``'s fit, in memory, not written), put those link constants into the scored
  network (the 2-GPU file, or the HGX node file for 4 and 8 GPUs: one calibration per link type), and score
  every op not used by the fit (on 4 GPUs, all of them: nothing there was seen by the calibration).
* Fused kernels: comm, GEMM, sequential and overlapped times against ``estimate_fused``, twice: with the
  engine's GEMM time (fully predictive) and with the measured GEMM time (chunk = whole / chunks), which
  isolates the communication and overlap model from the single-GPU GEMM model.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import sys
from collections import defaultdict
from pathlib import Path

from tilesight.distributed.api import estimate_collective
from tilesight.distributed.fused import estimate_fused
from tilesight.distributed.network import NetworkHierarchy, load_network, parse_network

HERE = Path(__file__).resolve().parent


def wmape(pairs: list[tuple[float, float]]) -> float:
    """sum |p - m| / sum m over (predicted, measured) pairs."""
    den = sum(m for _, m in pairs)
    return sum(abs(p - m) for p, m in pairs) / den if den else float("nan")


def _calibration_module():
    spec = importlib.util.spec_from_file_location("calibrate_network", HERE / "calibrate_network.py")
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules["calibrate_network"] = mod  # dataclasses look their module up while the class is built
    spec.loader.exec_module(mod)
    return mod


def holdout_network(
    data_path: Path, ops: str | list[str], template: str, link_class: str, target: str | None = None
) -> NetworkHierarchy:
    """The ``target`` network (default: the template) with link constants calibrated on ``ops`` of the sweep
    at ``data_path`` alone (in memory; nothing written)."""
    cal = _calibration_module()
    ops = [ops] if isinstance(ops, str) else list(ops)
    net = load_network(template)
    samples, gpus = cal.load_samples(data_path, ops, net)
    fit = cal.calibrate(samples, net, link_class)
    into = load_network(target or template)
    text = cal.render(into, link_class, fit, data_path, ops, gpus)
    return parse_network(text, origin=f"holdout:{'+'.join(ops)}")


def score_collectives(data: dict, net: NetworkHierarchy, ops: set[str] | None = None) -> dict:
    gpus = int(data["world_size"])
    by_op: dict[str, list[tuple[float, float]]] = defaultdict(list)
    rows = []
    for row in data["collectives"]:
        if ops is not None and row["op"] not in ops:
            continue
        r = estimate_collective(
            row["op"], row["bytes_per_rank"], gpus=gpus, hw=net, dtype=data.get("dtype", "bfloat16")
        )
        by_op[row["op"]].append((r.latency_s, row["time_s"]))
        rows.append(
            {
                "op": row["op"],
                "bytes_per_rank": row["bytes_per_rank"],
                "measured_s": row["time_s"],
                "predicted_s": r.latency_s,
                "algorithm": r.extras["algorithm"],
                "protocol": r.extras["protocol"],
            }
        )
    everything = [p for pairs in by_op.values() for p in pairs]
    return {
        "network": net.name,
        "wmape": wmape(everything),
        "wmape_by_op": {op: wmape(pairs) for op, pairs in by_op.items()},
        "rows": rows,
    }


def score_fused(data: dict, net: NetworkHierarchy) -> dict:
    gpus = int(data["world_size"])
    dtype = data.get("dtype", "bfloat16")
    views: dict[str, dict[str, list[tuple[float, float]]]] = {
        "engine_gemm": defaultdict(list),
        "measured_gemm": defaultdict(list),
    }
    rows = []
    for row in data.get("fused", []):
        shape = (row["M"], row["N"], row["K"])
        measured_gemm = row["gemm"]["time_s"]
        full = (row["M"], row["N"], row["K"] // (gpus if row["kind"] == "gemm_rs" else 1))

        def from_measurement(m: int, n: int, k: int, _dtype: str, full=full, t=measured_gemm) -> float:
            return t * (m * n * k) / (full[0] * full[1] * full[2])

        out = {"kind": row["kind"], "shape": shape, "chunks": row["chunks"]}
        for view, gemm_time in (("engine_gemm", None), ("measured_gemm", from_measurement)):
            e = estimate_fused(
                row["kind"], *shape, gpus=gpus, hw=net, dtype=dtype, chunks=row["chunks"], gemm_time=gemm_time
            )
            pred = {
                "comm": e.comm_s,
                "gemm": e.gemm_s,
                "sequential": e.sequential_s,
                "overlapped": e.overlapped_s,
            }
            for key, p in pred.items():
                views[view][key].append((p, row[key]["time_s"]))
            out[view] = pred
        out["measured"] = {k: row[k]["time_s"] for k in ("comm", "gemm", "sequential", "overlapped")}
        rows.append(out)
    summary = {}
    for view, parts in views.items():
        summary[view] = {k: wmape(v) for k, v in parts.items()}
        summary[view]["fused"] = wmape(parts["sequential"] + parts["overlapped"])
    return {"wmape": summary, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", type=Path)
    ap.add_argument("--network", default=None, help="default: h200_nvlink2 for 2 GPUs, else h200_hgx8")
    ap.add_argument(
        "--holdout",
        nargs="*",
        default=["all_gather", "all_gather+all_reduce"],
        help="op sets ('+'-joined) to calibrate on alone, from --calibration-data",
    )
    ap.add_argument("--calibration-data", type=Path, default=HERE / "data" / "collectives_h200x2.json")
    ap.add_argument("--template", default="h200_nvlink2")
    ap.add_argument("--link-class", default="nvlink4")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    data = json.loads(args.data.read_text())
    gpus = int(data["world_size"])
    net = load_network(args.network or ("h200_nvlink2" if gpus == 2 else "h200_hgx8"))
    command = "python benchmarks/score_collectives.py " + " ".join(
        str(a) for a in (sys.argv[1:] if argv is None else argv)
    )
    result = {
        "command": command,
        "date": datetime.date.today().isoformat(),
        "data": args.data.name,
        "gpus": gpus,
        "network": net.name,
        "calibration": dict(net.calibration),
        "collectives": score_collectives(data, net),
    }
    c = result["collectives"]
    print(
        f"collectives on {net.name} ({gpus} GPUs): wMAPE {c['wmape']:.1%}  "
        + "  ".join(f"{k} {v:.1%}" for k, v in c["wmape_by_op"].items())
    )
    held = {}
    same_sweep = args.calibration_data.resolve() == args.data.resolve()
    for spec in args.holdout:
        ops = spec.split("+")
        hnet = holdout_network(args.calibration_data, ops, args.template, args.link_class, target=net.name)
        scored = {r["op"] for r in data["collectives"]} - (set(ops) if same_sweep else set())
        s = score_collectives(data, hnet, scored)
        held[spec] = {
            "calibrated_on": f"{args.calibration_data.name}: {', '.join(ops)}",
            "scored_ops": sorted(scored),
            "wmape": s["wmape"],
            "wmape_by_op": s["wmape_by_op"],
        }
        print(
            f"calibrated on {spec} of {args.calibration_data.name}; held out: wMAPE {s['wmape']:.1%}  "
            + "  ".join(f"{k} {v:.1%}" for k, v in s["wmape_by_op"].items())
        )
    result["holdout"] = held
    if data.get("fused"):
        f = score_fused(data, net)
        f["headline"] = "measured_gemm"
        f["note"] = (
            "measured_gemm: the measured single-GPU GEMM time (scaled by FLOPs for the chunks) isolates the "
            "communication and overlap model, and is the headline; engine_gemm: fully predictive, with the "
            "engine's GEMM time (still being improved)"
        )
        result["fused"] = f
        for view, parts in f["wmape"].items():
            print(f"fused ({view}): " + "  ".join(f"{k} {v:.1%}" for k, v in parts.items()))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

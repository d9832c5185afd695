"""Score the distributed model against a measured collectives sweep (CPU only, from stored data).

    python benchmarks/score_collectives.py benchmarks/data/collectives_h200x2.json \
        [--network h200_nvlink2] [--holdout all_gather] [--out benchmarks/data/collectives_score_h200x2.json]

* Collectives: every measured (op, bytes per rank) against ``estimate_collective`` on the network file;
  wMAPE = sum |predicted - measured| / sum measured, per op and over all four.
* Held-out view (``--holdout OP``): calibrate the link on OP alone (``calibrate_network.py``'s fit, in memory,
  not written) and score the other three ops against that network.
* Fused kernels: comm, GEMM, sequential and overlapped times against ``estimate_fused``, twice: with the
  engine's GEMM time (fully predictive) and with the measured GEMM time (chunk = whole / chunks), which
  isolates the communication and overlap model from the single-GPU GEMM model.
"""

from __future__ import annotations

import argparse
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


def holdout_network(data_path: Path, op: str, template: str, link_class: str) -> NetworkHierarchy:
    """The network calibrated on ``op`` alone (not written anywhere)."""
    cal = _calibration_module()
    net = load_network(template)
    samples, gpus = cal.load_samples(data_path, [op], net)
    fit = cal.calibrate(samples, net, link_class)
    return parse_network(cal.render(net, link_class, fit, data_path, [op], gpus), origin=f"holdout:{op}")


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
        "--holdout", nargs="*", default=["all_gather", "all_reduce"], help="ops to calibrate on alone"
    )
    ap.add_argument("--template", default="h200_nvlink2")
    ap.add_argument("--link-class", default="nvlink4")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    data = json.loads(args.data.read_text())
    gpus = int(data["world_size"])
    net = load_network(args.network or ("h200_nvlink2" if gpus == 2 else "h200_hgx8"))
    result = {"data": args.data.name, "gpus": gpus, "collectives": score_collectives(data, net)}
    c = result["collectives"]
    print(
        f"collectives on {net.name}: wMAPE {c['wmape']:.1%}  "
        + "  ".join(f"{k} {v:.1%}" for k, v in c["wmape_by_op"].items())
    )
    held = {}
    if gpus == load_network(args.template).gpus:
        for op in args.holdout:
            hnet = holdout_network(args.data, op, args.template, args.link_class)
            others = {r["op"] for r in data["collectives"]} - {op}
            s = score_collectives(data, hnet, others)
            held[op] = {"wmape_others": s["wmape"], "wmape_by_op": s["wmape_by_op"]}
            print(
                f"calibrated on {op} alone, the other ops: wMAPE {s['wmape']:.1%}  "
                + "  ".join(f"{k} {v:.1%}" for k, v in s["wmape_by_op"].items())
            )
    result["holdout"] = held
    if data.get("fused"):
        f = score_fused(data, net)
        result["fused"] = f
        for view, parts in f["wmape"].items():
            print(f"fused ({view}): " + "  ".join(f"{k} {v:.1%}" for k, v in parts.items()))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1))
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Calibrate one link class's per-protocol alpha/beta and the runtime's protocol thresholds from a sweep.

    python benchmarks/calibrate_network.py benchmarks/data/collectives_h200x2.json \
        [--ops all_gather all_reduce] [--write --also h200_hgx8]

This is hardware calibration, done once per link: it reads the measured sweep of one collective (or two), and
fits, for each runtime protocol (LL, LL128, Simple, in order of size), the per-call base latency, the per-hop
startup latency alpha and the achieved bandwidth fraction of the link, plus the size at which the runtime
switches protocol (with a ``[runtime.tuner]`` in the network file, each measured size's protocol is the one
NCCL's tuning rule picks instead; protocols NCCL never ran in the sweep are derived from Simple by NCCL's
bandwidth ratios). The model it fits is the one TileSight predicts with (Eq. 11 per stage, summed, plus the
base latency): ``T(S) = base_p + L(S) x alpha_p + X(S) x beta_p`` where ``L`` counts the routed hops of the
stages and ``X`` sums each stage's bottleneck-link bytes, both taken from the algorithm's stage decomposition
on the network. With one op on two GPUs ``L`` is constant, so alpha stays at the template's value (NCCL's
documented per-step latency) and only base and beta are fitted; with two ops of different stage counts all
three are. The protocol boundaries are chosen among the measured sizes to minimise the squared relative error.

The fitted values are written into the network file given by ``--write`` (default: print only), with a
``[calibration]`` table naming the data file, the ops, the date and the fit's residual.
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.optimize import nnls

from tilesight.distributed.collectives import choose_collective, collective_bytes, get_algorithm, parse_op
from tilesight.distributed.network import PROTOCOLS, NetworkHierarchy, _network_dir, load_network

TEMPLATE = "h200_nvlink2"
# The fit's weighting: False minimises the squared absolute error, the error the score (wMAPE = sum |p - m| /
# sum m) weighs, so the long transfers that dominate any workload's time set the bandwidth; True weighs each
# measured size equally (relative error), which lets the latency-dominated sizes pull the bandwidth down.
RELATIVE = False
# The smallest number of measured sizes one protocol's segment may hold: at least one more than the fitted
# parameters, so that every protocol's fit is over-determined.
MIN_POINTS_OVER_PARAMS = 1


@dataclass(frozen=True)
class Sample:
    op: str
    bytes_per_rank: float
    time_s: float
    size_key: float  # the runtime's protocol-selection size (NCCL nBytes)
    hops: float  # L: summed routed hops over the stages (x repeat)
    bottleneck_bytes: float  # X: summed bottleneck-link bytes over the stages (x repeat)
    protocol: str = ""  # the protocol the runtime runs it with


def features(op: str, bytes_per_rank: float, net: NetworkHierarchy, gpus: int) -> tuple[float, float, str]:
    """(L, X, protocol) of what the runtime runs for ``op`` on ``gpus`` GPUs: routed hop count, bottleneck
    bytes, and the protocol (NCCL's tuning rule when the network has a tuner)."""
    cop = parse_op(op)
    devices = tuple(range(gpus))
    chosen = choose_collective(cop, bytes_per_rank, net, devices)
    stages = get_algorithm(chosen.algorithm).stages(cop, bytes_per_rank, devices)
    hops = xbytes = 0.0
    for st in stages:
        link_bytes: dict[str, float] = {}
        worst_hops = 0
        for ex in st.exchanges:
            if ex.src == ex.dst or ex.bytes == 0:
                continue
            route = net.route(ex.src, ex.dst)
            worst_hops = max(worst_hops, len(route))
            for link in route:
                link_bytes[link.name] = link_bytes.get(link.name, 0.0) + ex.bytes
        hops += st.repeat * worst_hops
        xbytes += st.repeat * max(link_bytes.values(), default=0.0)
    return hops, xbytes, chosen.protocol


def load_samples(path: Path, ops: list[str], net: NetworkHierarchy) -> tuple[list[Sample], int]:
    data = json.loads(path.read_text())
    gpus = int(data["world_size"])
    out = []
    for row in data["collectives"]:
        if row["op"] not in ops:
            continue
        op = parse_op(row["op"])
        s = float(row["bytes_per_rank"])
        hops, xb, proto = features(op.value, s, net, gpus)
        out.append(Sample(op.value, s, float(row["time_s"]), collective_bytes(op, s, gpus), hops, xb, proto))
    if not out:
        raise SystemExit(f"{path}: no rows for ops {ops}")
    return sorted(out, key=lambda x: (x.size_key, x.op)), gpus


def fit_segment(samples: list[Sample], alpha_fixed: float | None) -> tuple[np.ndarray, float]:
    """Non-negative least squares (absolute or relative error, ``RELATIVE``): ([base, alpha, beta], sum of
    squared relative errors)."""
    t = np.array([s.time_s for s in samples])
    w = 1.0 / t if RELATIVE else np.ones_like(t)
    if alpha_fixed is None:
        a = np.array([[1.0, s.hops, s.bottleneck_bytes] for s in samples])
        coef, _ = nnls(a * w[:, None], t * w)
    else:
        a = np.array([[1.0, s.bottleneck_bytes] for s in samples])
        rhs = t - alpha_fixed * np.array([s.hops for s in samples])
        c2, _ = nnls(a * w[:, None], rhs * w)
        coef = np.array([c2[0], alpha_fixed, c2[1]])
    pred = (
        coef[0]
        + coef[1] * np.array([s.hops for s in samples])
        + coef[2] * np.array([s.bottleneck_bytes for s in samples])
    )
    return coef, float(np.sum(((pred - t) / t) ** 2))


def _protocol_entry(coef, err, seg, bw, link_class, p, upper, hops_per_route) -> dict:
    base, alpha, beta = (float(c) for c in coef)
    eff = 1.0 if beta <= 0 else 1.0 / (beta * bw)
    if eff > 1.0 and p != "simple":  # a latency-bound segment: its bandwidth term is noise
        beta, eff = 0.0, 1.0
    if eff > 1.0:
        raise SystemExit(
            f"protocol {p}: fitted bandwidth {1 / beta / 1e9:.1f} GB/s exceeds link class {link_class}'s "
            f"{bw / 1e9:.1f} GB/s; check the link class's bandwidth in the template"
        )
    return {
        "base_latency_s": base,
        "alpha_s": alpha,
        "bw_efficiency": eff,
        "beta_resolved": beta > 0,
        "max_bytes": upper,
        "points": len(seg),
        "sizes": [s.size_key for s in seg],
        "residual_sq_rel": err,
        "hops_per_route": hops_per_route,
        "derived": "",
    }


def calibrate(samples: list[Sample], net: NetworkHierarchy, link_class: str, fit_alpha: bool = False) -> dict:
    """Per protocol: base latency and link bandwidth fraction (alpha too with ``fit_alpha`` and two ops of
    different stage counts). With a runtime tuner each sample's protocol is the one NCCL's rule picks; a
    protocol the runtime never picked in the sweep is derived from Simple (NCCL's ring bandwidth ratio, and
    NCCL's base-latency difference). Without a tuner, the size thresholds are searched (legacy)."""
    if net.tuner is None:
        return _calibrate_thresholds(samples, net, link_class)
    template = net_link_class(net, link_class)
    solve_alpha = fit_alpha and len({s.hops for s in samples}) > 1
    hops_per_route = max(len(net.route(0, d)) for d in range(1, net.gpus))
    result = {"residual_sq_rel": 0.0, "solved_alpha": solve_alpha, "protocols": {}, "tuner": True}
    min_pts = (3 if solve_alpha else 2) + MIN_POINTS_OVER_PARAMS
    for p in PROTOCOLS:
        seg = [s for s in samples if s.protocol == p]
        if len(seg) < min_pts:
            continue
        coef, err = fit_segment(seg, None if solve_alpha else template.protocols[p].alpha_s)
        result["residual_sq_rel"] += err
        result["protocols"][p] = _protocol_entry(
            coef, err, seg, template.bw_bytes_per_s, link_class, p, math.inf, hops_per_route
        )
    if "simple" not in result["protocols"]:
        raise SystemExit("the sweep has no sizes NCCL runs with Simple: cannot calibrate the link bandwidth")
    base_lat = net.tuner.base_latency_s["ring"]

    def ratio(p: str) -> float:  # NCCL's own ring bus bandwidth of p relative to Simple's
        return net.tuner.bus_bandwidth("ring", p, False) / net.tuner.bus_bandwidth("ring", "simple", False)

    for p, f in result["protocols"].items():
        if p != "simple" and not f["beta_resolved"]:  # all at the latency floor: NCCL's bandwidth ratio
            f["bw_efficiency"] = result["protocols"]["simple"]["bw_efficiency"] * ratio(p)
            f["derived"] = (
                f"bandwidth not resolved by the data (all at the floor): Simple's x NCCL's ratio "
                f"{ratio(p):.3f}"
            )
            f["beta_resolved"] = True
    for p in PROTOCOLS:
        if p in result["protocols"]:
            continue
        simple = result["protocols"]["simple"]
        i, j = PROTOCOLS.index(p), PROTOCOLS.index("simple")
        factor = ratio(p)
        result["protocols"][p] = {
            **simple,
            "base_latency_s": simple["base_latency_s"] + base_lat[i] - base_lat[j],
            "alpha_s": template.protocols[p].alpha_s,
            "bw_efficiency": simple["bw_efficiency"] * factor,
            "points": 0,
            "sizes": [],
            "residual_sq_rel": 0.0,
            "derived": f"not run by NCCL in the sweep: Simple's bandwidth x NCCL's ratio {factor:.3f} and "
            f"Simple's base latency + NCCL's base-latency difference "
            f"({(base_lat[i] - base_lat[j]) * 1e6:+.1f} us)",
        }
    return result


def _calibrate_thresholds(samples: list[Sample], net: NetworkHierarchy, link_class: str) -> dict:
    """Best split of the sizes into len(PROTOCOLS) contiguous segments and each segment's fit."""
    solve_alpha = len({s.hops for s in samples}) > 1
    template = net_link_class(net, link_class)
    nparams = 3 if solve_alpha else 2
    min_pts = nparams + MIN_POINTS_OVER_PARAMS
    keys = sorted({s.size_key for s in samples})
    best = None
    for cuts in itertools.combinations(range(1, len(keys)), len(PROTOCOLS) - 1):
        bounds = [0, *cuts, len(keys)]
        segs = [
            [s for s in samples if keys[lo] <= s.size_key < (keys[hi] if hi < len(keys) else math.inf)]
            for lo, hi in itertools.pairwise(bounds)
        ]
        if any(len(seg) < min_pts for seg in segs):
            continue
        fits = [
            fit_segment(seg, None if solve_alpha else template.protocols[p].alpha_s)
            for seg, p in zip(segs, PROTOCOLS, strict=True)
        ]
        err = sum(f[1] for f in fits)
        if best is None or err < best[0]:
            best = (err, cuts, fits, segs)
    if best is None:
        raise SystemExit(f"need at least {min_pts * len(PROTOCOLS)} distinct sizes, have {len(keys)}")
    err, cuts, fits, segs = best
    hops_per_route = max(len(net.route(0, d)) for d in range(1, net.gpus))
    result = {"residual_sq_rel": err, "solved_alpha": solve_alpha, "protocols": {}, "tuner": False}
    for i, (p, (coef, e), seg) in enumerate(zip(PROTOCOLS, fits, segs, strict=True)):
        upper = math.sqrt(keys[cuts[i] - 1] * keys[cuts[i]]) if i < len(cuts) else math.inf
        result["protocols"][p] = _protocol_entry(
            coef, e, seg, template.bw_bytes_per_s, link_class, p, upper, hops_per_route
        )
    return result


def net_link_class(net: NetworkHierarchy, name: str):
    for link in net.links:
        if link.link_class.name == name:
            return link.link_class
    raise SystemExit(f"{net.name} has no link class {name!r}")


def _set(lines: list[str], header: str, key: str, value: str | None, name: str | None = None) -> None:
    """Set ``key = value`` (None: delete the key) inside table ``header`` of a TOML file's lines (for an
    array of tables, the one whose ``name`` matches)."""
    i = 0
    while i < len(lines):
        if lines[i].strip() == header:
            j = i + 1
            while j < len(lines) and not lines[j].lstrip().startswith("["):
                j += 1
            block = lines[i + 1 : j]
            if name is None or any(b.replace(" ", "") == f'name="{name}"' for b in block):
                at = [k for k in range(i + 1, j) if lines[k].split("=")[0].strip() == key]
                if value is None:
                    for k in reversed(at):
                        del lines[k]
                elif at:
                    lines[at[0]] = f"{key} = {value}"
                else:
                    lines.insert(j if lines[j - 1].strip() else j - 1, f"{key} = {value}")
                return
            i = j
        else:
            i += 1
    raise SystemExit(f"no table {header} {name or ''} in the network file")


def render(net: NetworkHierarchy, link_class: str, fit: dict, data: Path, ops: list[str], gpus: int) -> str:
    """``net``'s network file with the fitted per-protocol link numbers and base latencies written in (every
    other line kept); a ``[calibration]`` table records the command, data, ops and date."""
    today = datetime.date.today().isoformat()
    cmd = "python benchmarks/calibrate_network.py " + " ".join(sys.argv[1:])
    src = f"calibrated {today} from {data.name} ({', '.join(ops)} on {gpus} GPUs) by calibrate_network.py"
    text = (_network_dir() / f"{net.name}.toml").read_text()
    lines = text.split("\n")
    cal_at = next((i for i, x in enumerate(lines) if x.strip() == "[calibration]"), None)
    if cal_at is not None:
        lines = lines[:cal_at]
    for p in PROTOCOLS:
        f = fit["protocols"][p]
        note = "" if f["beta_resolved"] else "; bandwidth term not resolved by the data, set to the full link"
        alpha_note = "fitted" if fit["solved_alpha"] else "kept from the template (NCCL's per-step latency)"
        how = f"; {f['derived']}" if f["derived"] else ""
        header = f"[link_class.{link_class}.protocol.{p}]"
        _set(lines, header, "alpha_s", f"{f['alpha_s']:.6g}")
        _set(lines, header, "bw_efficiency", f"{f['bw_efficiency']:.6g}")
        _set(lines, header, "source", json.dumps(f"{src}; alpha {alpha_note}{note}{how}"))
        _set(lines, "[[runtime.protocol]]", "base_latency_s", f"{f['base_latency_s']:.6g}", name=p)
        if fit.get("tuner"):
            _set(lines, "[[runtime.protocol]]", "max_bytes", None, name=p)
        elif math.isfinite(f["max_bytes"]):
            _set(lines, "[[runtime.protocol]]", "max_bytes", f"{f['max_bytes']:.6g}", name=p)
    while lines and not lines[-1].strip():
        lines.pop()
    lines += [
        "",
        "[calibration]",
        f'date = "{today}"',
        f"command = {json.dumps(cmd)}",
        f'data = "{data.name}"',
        f"ops = [{', '.join(chr(34) + o + chr(34) for o in ops)}]",
        f"gpus = {gpus}",
        f"residual_sq_rel = {fit['residual_sq_rel']:.6g}",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", type=Path)
    ap.add_argument("--ops", nargs="+", default=["all_gather", "all_reduce"])
    ap.add_argument(
        "--network", default=TEMPLATE, help="network file whose structure and priors to start from"
    )
    ap.add_argument("--link-class", default="nvlink4")
    ap.add_argument("--fit-alpha", action="store_true", help="fit the per-hop alpha too (two ops needed)")
    ap.add_argument("--write", action="store_true", help="write the fit into the --network file")
    ap.add_argument(
        "--also",
        nargs="*",
        default=[],
        help="other network files with the same link class to write the same link constants into (one "
        "calibration per link type, e.g. h200_hgx8)",
    )
    args = ap.parse_args(argv)
    net = load_network(args.network)
    samples, gpus = load_samples(args.data, args.ops, net)
    if gpus != net.gpus:
        raise SystemExit(f"{args.data} was measured on {gpus} GPUs; {net.name} has {net.gpus}")
    fit = calibrate(samples, net, args.link_class, fit_alpha=args.fit_alpha)
    for p, f in fit["protocols"].items():
        print(
            f"{p:7s} base {f['base_latency_s'] * 1e6:6.2f} us, alpha/hop {f['alpha_s'] * 1e6:5.2f} us, "
            f"efficiency {f['bw_efficiency']:.3f} ({f['points']} points) {f['derived']}"
        )
    if args.write:
        for target in (net, *(load_network(n) for n in args.also)):
            path = _network_dir() / f"{target.name}.toml"
            path.write_text(render(target, args.link_class, fit, args.data, args.ops, gpus))
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Calibrate one link class's per-protocol alpha/beta and the runtime's protocol thresholds from a sweep.

    python benchmarks/calibrate_network.py benchmarks/data/collectives_h200x2.json \
        [--ops all_gather] [--write hw_profiles/networks/h200_nvlink2.toml]

This is hardware calibration, done once per link: it reads the measured sweep of one collective (or two), and
fits, for each runtime protocol (LL, LL128, Simple, in order of size), the per-call base latency, the per-hop
startup latency alpha and the achieved bandwidth fraction of the link, plus the size at which the runtime
switches protocol. The model it fits is the one TileSight predicts with (Eq. 11 per stage, summed, plus the
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

from tilesight.distributed.collectives import collective_bytes, get_algorithm, parse_op
from tilesight.distributed.network import PROTOCOLS, NetworkHierarchy, load_network

TEMPLATE = "h200_nvlink2"
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


def features(op: str, bytes_per_rank: float, net: NetworkHierarchy, gpus: int) -> tuple[float, float]:
    """(L, X) of the runtime's first algorithm for ``op`` on ``gpus`` GPUs: hop count and bottleneck bytes."""
    cop = parse_op(op)
    devices = tuple(range(gpus))
    names = [a for a in net.algorithms[cop.value] if get_algorithm(a).supports(cop, gpus)]
    stages = get_algorithm(names[0]).stages(cop, bytes_per_rank, devices)
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
    return hops, xbytes


def load_samples(path: Path, ops: list[str], net: NetworkHierarchy) -> tuple[list[Sample], int]:
    data = json.loads(path.read_text())
    gpus = int(data["world_size"])
    out = []
    for row in data["collectives"]:
        if row["op"] not in ops:
            continue
        op = parse_op(row["op"])
        s = float(row["bytes_per_rank"])
        hops, xb = features(op.value, s, net, gpus)
        out.append(Sample(op.value, s, float(row["time_s"]), collective_bytes(op, s, gpus), hops, xb))
    if not out:
        raise SystemExit(f"{path}: no rows for ops {ops}")
    return sorted(out, key=lambda x: (x.size_key, x.op)), gpus


def fit_segment(samples: list[Sample], alpha_fixed: float | None) -> tuple[np.ndarray, float]:
    """Non-negative least squares on relative error: ([base, alpha, beta], sum of squared relative errors)."""
    t = np.array([s.time_s for s in samples])
    w = 1.0 / t
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


def calibrate(samples: list[Sample], net: NetworkHierarchy, link_class: str) -> dict:
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
    result = {"residual_sq_rel": err, "solved_alpha": solve_alpha, "protocols": {}}
    for i, (p, (coef, e), seg) in enumerate(zip(PROTOCOLS, fits, segs, strict=True)):
        base, alpha, beta = (float(c) for c in coef)
        bw = template.bw_bytes_per_s
        eff = 1.0 if beta <= 0 else 1.0 / (beta * bw)
        if eff > 1.0:
            raise SystemExit(
                f"protocol {p}: fitted bandwidth {1 / beta / 1e9:.1f} GB/s exceeds link class {link_class}'s "
                f"{bw / 1e9:.1f} GB/s; check the link class's bandwidth in the template"
            )
        upper = math.sqrt(keys[cuts[i] - 1] * keys[cuts[i]]) if i < len(cuts) else math.inf
        result["protocols"][p] = {
            "base_latency_s": base,
            "alpha_s": alpha,
            "bw_efficiency": eff,
            "beta_resolved": beta > 0,
            "max_bytes": upper,
            "points": len(seg),
            "sizes": [s.size_key for s in seg],
            "residual_sq_rel": e,
            "hops_per_route": hops_per_route,
        }
    return result


def net_link_class(net: NetworkHierarchy, name: str):
    for link in net.links:
        if link.link_class.name == name:
            return link.link_class
    raise SystemExit(f"{net.name} has no link class {name!r}")


def render(net: NetworkHierarchy, link_class: str, fit: dict, data: Path, ops: list[str], gpus: int) -> str:
    """The h200_nvlink2 network file with the fitted numbers."""
    cls = net_link_class(net, link_class)
    today = datetime.date.today().isoformat()
    cmd = "python benchmarks/calibrate_network.py " + " ".join(sys.argv[1:])
    src = f"calibrated {today} from {data.name} ({', '.join(ops)} on {gpus} GPUs) by calibrate_network.py"
    lines = [
        "# The project's two-GPU measurement machine: 2x H200 SXM linked by NVLink (NV18). Per-protocol link",
        "# alpha/beta and the runtime's protocol thresholds are written by benchmarks/calibrate_network.py",
        "# from the measured sweep (see [calibration]); do not edit them by hand.",
        f'name = "{net.name}"',
        f'display_name = "{net.display_name}"',
        f'gpu = "{net.gpu}"',
        f"gpus = {net.gpus}",
        "",
        "[topology]",
        'kind = "switched"',
        "nodes = 1",
        f"gpus_per_node = {net.gpus_per_node}",
        f'intra = "{link_class}"',
        f'source = "{net.sources["topology"]}"',
        "",
        f"[link_class.{link_class}]",
        f"bw_bytes_per_s = {cls.bw_bytes_per_s:.6g}",
        f'source = "{cls.source}"',
    ]
    for p in PROTOCOLS:
        f = fit["protocols"][p]
        note = "" if f["beta_resolved"] else "; bandwidth term not resolved by the data, set to the full link"
        alpha_note = "fitted" if fit["solved_alpha"] else "kept from the template (one op: not separable)"
        lines += [
            "",
            f"[link_class.{link_class}.protocol.{p}]",
            f"alpha_s = {f['alpha_s']:.6g}",
            f"bw_efficiency = {f['bw_efficiency']:.6g}",
            f'source = "{src}; alpha {alpha_note}{note}"',
        ]
    algos = ", ".join(
        f"{k} = [{', '.join(chr(34) + a + chr(34) for a in v)}]" for k, v in net.algorithms.items()
    )
    lines += [
        "",
        "[runtime]",
        'name = "nccl"',
        f"comm_sms = {net.comm_sms}",
        f'source = "{src}: base latencies, protocol size thresholds; comm_sms: placeholder, NCCL channels"',
        f"algorithms = {{ {algos} }}",
    ]
    for p in PROTOCOLS:
        f = fit["protocols"][p]
        lines += ["", "[[runtime.protocol]]", f'name = "{p}"']
        if math.isfinite(f["max_bytes"]):
            lines.append(f"max_bytes = {f['max_bytes']:.6g}")
        lines.append(f"base_latency_s = {f['base_latency_s']:.6g}")
    lines += [
        "",
        "[calibration]",
        f'date = "{today}"',
        f'command = "{cmd}"',
        f'data = "{data.name}"',
        f"ops = [{', '.join(chr(34) + o + chr(34) for o in ops)}]",
        f"residual_sq_rel = {fit['residual_sq_rel']:.6g}",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", type=Path)
    ap.add_argument("--ops", nargs="+", default=["all_gather"])
    ap.add_argument(
        "--network", default=TEMPLATE, help="network file whose structure and priors to start from"
    )
    ap.add_argument("--link-class", default="nvlink4")
    ap.add_argument("--write", type=Path, default=None, help="network file to (over)write")
    args = ap.parse_args(argv)
    net = load_network(args.network)
    samples, gpus = load_samples(args.data, args.ops, net)
    if gpus != net.gpus:
        raise SystemExit(f"{args.data} was measured on {gpus} GPUs; {net.name} has {net.gpus}")
    fit = calibrate(samples, net, args.link_class)
    for p, f in fit["protocols"].items():
        print(
            f"{p:7s} up to {f['max_bytes']:>12.4g} B: base {f['base_latency_s'] * 1e6:6.2f} us, alpha/hop "
            f"{f['alpha_s'] * 1e6:5.2f} us, efficiency {f['bw_efficiency']:.3f} ({f['points']} points)"
        )
    text = render(net, args.link_class, fit, args.data, args.ops, gpus)
    if args.write:
        args.write.write_text(text)
        print(f"wrote {args.write}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

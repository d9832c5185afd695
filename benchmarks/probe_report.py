"""The figures stop 15's notes quote from probes that no profile field reads, recomputed on CPU from the data.

    python benchmarks/probe_report.py overlap    # calibration_alone.json: overlap_alone
    python benchmarks/probe_report.py overlap_model  # the same points predicted: measured / predicted
    python benchmarks/probe_report.py narrow     # calibration_alone.json: narrow_tiles
    python benchmarks/probe_report.py tilelang   # calibration_tilelang_wait.json: both TileLang probes
    python benchmarks/probe_report.py merges     # ncu_l2_h200_run3.json: the coalescer's merges by residency
                                                 # (--case SUBSTRING: and each matching case's)
    python benchmarks/probe_report.py residency  # the Triton GEMM sweep's predicted / measured by residency
    python benchmarks/probe_report.py smem       # calibration_smem_transform.json: the serial-chain fit
    python benchmarks/probe_report.py feed       # calibration_smem_feed.json: unpack + T.gemm in one step
    python benchmarks/probe_report.py tma        # calibration_tma_latency.json: the lone TMA pipeline's ring
    python benchmarks/probe_report.py steps      # tilelang_fa_steps/: FlashAttention step time by block_N
    python benchmarks/probe_report.py attn_mix   # calibration_attn_mix.json: element-wise work between dots
    python benchmarks/probe_report.py stage_latency   # calibration_stage_latency*.json: stages x residency
    python benchmarks/probe_report.py lone_step       # calibration_lone_step.json: a lone DRAM step by bytes
    python benchmarks/probe_report.py lone_deep       # calibration_lone_deep.json: the same at 2-5 stages
    python benchmarks/probe_report.py persistent_tiles  # persistent_tiles/: a persistent program's tile cost
    python benchmarks/probe_report.py chains_model  # the on-chip attention loop probes predicted: pred / meas
    python benchmarks/probe_report.py mask_model [--data DIR]  # calibration_mask.json: the mask's cost, both
    python benchmarks/probe_report.py wrapped       # the attention loop's two dots alone, 8 warps against 4
    python benchmarks/probe_report.py probes_model  # stop 48's narrow_ept, replicated dots and strided_paced
    python benchmarks/probe_report.py bottlenecks [--family memory]  # pooled launches by predicted bottleneck
    python benchmarks/probe_report.py row_rates  # stop 49's narrow_width / narrow_private rates by lane
    python benchmarks/probe_report.py row_ring   # calibration_row_ring{,_wide}.json: pipelined row loops,
                                                 # the profile's row_loop_step_s and row_element_step_s
    python benchmarks/probe_report.py tile_loop  # calibration_tile_loop.json: a GEMM tile's loop against
                                                 # max(tensor cores, L2), shared lines against private
    python benchmarks/probe_report.py tile_loop_model  # the same probe's private-panel points predicted
    python benchmarks/probe_report.py balance    # pooled GEMMs by block_K, residency and TC / L2 balance
    python benchmarks/probe_report.py causal_twins  # pooled causal attention beside its non-causal twins
    python benchmarks/probe_report.py ddr_mix    # calibration_ddr_mix.json: DRAM read / write mixes against
                                                 # the profile's read and copy rates
    python benchmarks/probe_report.py ddr_flush  # calibration_ddr_flush.json: DRAM streams after a dirty
                                                 # (do_bench's) and a clean L2
    python benchmarks/probe_report.py split_mix  # calibration_split_mix.json: split stores beside their
                                                 # aligned twins, predicted; split_store_pacing_* fit
    python benchmarks/probe_report.py reduce_mix  # calibration_reduce_mix.json: element-wide row loads and
                                                  # cross-warp reductions, odd widths beside aligned twins
    python benchmarks/probe_report.py atomics_hot  # calibration_atomics_hot.json: a bincount's adds by bins
    python benchmarks/probe_report.py local      # calibration_local*.json: the local_l2 and local_runs
                                                 # probes (frames served by L2, dependent reload runs)
    python benchmarks/probe_report.py sfu_mix [--data FILE]  # calibration_sfu_mix_h100.json: exp2 beside
                                                 # FMAs against the two pipelines' max
    python benchmarks/probe_report.py alu_forms [--data FILE]  # calibration_alu_forms.json (`queued.sh alu`):
                                                 # the CUDA cores' issue rate by instruction form

``overlap``: per programs per SM, warps, stages and BN, the loop with loads (``both``), its loads alone (the
BN = 16 loop, whose dots hide under them) and its dots alone; the exposed share ``(both - max) / min`` of the
smaller side, and the medians at three and four stages split by which side is larger and by one or two
programs per SM. ``residency`` predicts every non-spilling aligned GEMM launch of the committed sweep with the
installed model and groups predicted / measured by resident blocks per SM and bottleneck; run it with an older
commit's package on ``PYTHONPATH`` (``benchmarks/autotune/committed_copy.sh DIR COMMIT``) to see that model's
figures (e.g. 6485f10, before the timing took the coalescer's merges at a fixed residency).
``overlap_model`` predicts every ``overlap_alone`` point with loads (the probe's Triton kernel,
``benchmarks/calibrate/kernels.py::overlap_dot``, compiled on the CPU) and prints measured / predicted by
programs per SM, warps, stages and BN, with the predicted bottleneck: how far the engine is from the probe
the profile's ``l2_exposed_under_tc`` was read from.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import functools
import importlib.util
import itertools
import json
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
SM_COUNT = 132  # the H200 the probes ran on
CHAIN_ITERS = 1024  # the softmax_dot probes' iterations (measure.SOFTMAX_DOT_ITERS)
DOT_ITERS = 4096  # the dot_chain probes' (measure.DOT_CHAIN_ITERS)
EPT_ELEMENTS = 1 << 26  # the narrow_ept probe's elements (measure.NARROW_EPT_ELEMENTS)
# the row_ring points the profile's row_loop_step_s is read from: the softmax body at 1024 columns (2-8
# elements a thread) with 5 row stages at one program an SM, where more rows in flight no longer help
ROW_STEP_POINTS = {"body": 2, "width": 1024, "stages": 5, "per_sm": 1}
PACED_BLOCK, PACED_WARPS = 1024, 4  # the strided_paced probe's launch (measure.STRIDED_BLOCK, STRIDED_WARPS)
sys.path.insert(0, str(HERE))

OVERLAP_LOADS_BN = 16  # the loop whose dots hide under its loads: the loads' own time


def overlap_exposure(points: list[dict]) -> list[dict]:
    """Per (programs per SM, warps, stages, BN > 16) point measured with and without loads: the loads' time
    (the same configuration at BN 16), the dots' time, both together, and the exposed share of the smaller."""
    t = {(p["programs_per_sm"], p["warps"], p["stages"], p["BN"], p["load"]): p["s"] for p in points}
    rows = []
    for (per_sm, warps, stages, bn, load), both in sorted(t.items()):
        loads = t.get((per_sm, warps, stages, OVERLAP_LOADS_BN, True))
        dots = t.get((per_sm, warps, stages, bn, False))
        if not load or bn == OVERLAP_LOADS_BN or loads is None or dots is None:
            continue
        rows.append(
            {"programs_per_sm": per_sm, "warps": warps, "stages": stages, "BN": bn, "loads_s": loads,
             "dots_s": dots, "both_s": both, "dots_larger": dots > loads,
             "exposed": (both - max(loads, dots)) / min(loads, dots)}
        )  # fmt: skip
    return rows


def merges_by_residency(
    cases: list[dict], sm_count: int, regs_per_sm: int, smem_per_sm: int
) -> dict[int, float]:
    """Median NCU merged share of the coalescable read sectors per resident blocks per SM (registers, shared
    memory and threads as the occupancy rule counts them; 256-register allocation granules per warp)."""
    out = collections.defaultdict(list)
    for c in cases:
        coalescable = c.get("lrc__request_sectors_op_read_coalescable.sum")
        achieved = c.get("lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum")
        if not coalescable or achieved is None:
            continue
        warps = c["threads"] // 32
        regs = -(-max(c["n_regs"], 1) * 32 // 256) * 256 * warps
        by_smem = smem_per_sm // (c["shared_bytes"] + 1024) if c["shared_bytes"] else 32
        resident = max(1, min(regs_per_sm // regs, by_smem, 2048 // c["threads"], 32))
        out[resident].append(achieved / coalescable)
    return {r: statistics.median(v) for r, v in sorted(out.items())}


def _overlap(_: argparse.Namespace) -> None:
    doc = json.loads((DATA / "calibration_alone.json").read_text())
    rows = overlap_exposure(doc["measurements"]["overlap_alone"]["points"])
    for r in rows:
        print(
            f"per_sm {r['programs_per_sm']} w{r['warps']} s{r['stages']} BN{r['BN']:3d}: "
            f"loads {r['loads_s'] * 1e6:6.0f} us, dots {r['dots_s'] * 1e6:6.0f} us, "
            f"both {r['both_s'] * 1e6:6.0f} us, {'dots' if r['dots_larger'] else 'loads'} larger, "
            f"exposed {r['exposed']:.2f} of the smaller"
        )
    for per_sm in (1, 2):
        for larger in (False, True):
            es = [r["exposed"] for r in rows if r["programs_per_sm"] == per_sm and r["stages"] >= 3
                  and r["dots_larger"] == larger]  # fmt: skip
            if es:
                side = "dots" if larger else "loads"
                spread = f"{min(es):.2f}-{max(es):.2f}, median {statistics.median(es):.2f}"
                print(
                    f"{per_sm} program(s) per SM, 3-4 stages, {side} larger: exposed {spread} ({len(es)} pts)"
                )


def overlap_model_rows(points: list[dict], predict) -> list[dict]:
    """Measured / predicted of every ``overlap_alone`` point with loads; ``predict(point)`` gives the
    predicted seconds and the steady state's reason (a Report's)."""
    rows = []
    for p in points:
        if not p["load"]:
            continue
        seconds, reason = predict(p)
        rows.append({**{k: p[k] for k in ("programs_per_sm", "warps", "stages", "BN")}, "measured_s": p["s"],
                     "predicted_s": seconds, "ratio": p["s"] / seconds, "reason": reason})  # fmt: skip
    return rows


@functools.cache
def _probe_kernels():
    """benchmarks/calibrate/kernels.py, loaded once by its path (a module name of its own: the repository's
    ``kernels`` package is another)."""
    spec = importlib.util.spec_from_file_location("calibrate_kernels", HERE / "calibrate" / "kernels.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _predict_overlap_point(p: dict) -> tuple[float, str]:
    """The installed model's prediction of one ``overlap_alone`` point (h200 profile)."""
    import tilesight
    from tilesight import TensorSpec

    programs = SM_COUNT * p["programs_per_sm"]
    bm, bk, bn, k = p["BM"], p["BK"], p["BN"], p["K"]
    a = TensorSpec((programs * bm, k), "float16", (k, 1))
    b = TensorSpec((bk, bn), "float16", (bn, 1))
    out = TensorSpec((programs * bm, bn), "float32", (bn, 1))
    report = tilesight.estimate(
        _probe_kernels().overlap_dot, (programs,), a, b, out, k, p["iters"], p["share"], hw="h200",
        BM=bm, BK=bk, BN=bn, LOAD=True, num_warps=p["warps"], num_stages=p["stages"],
    )  # fmt: skip
    steady = next((ph.reason for ph in report.phases if ph.phase == "steady"), "")
    return report.latency_s, steady


def _predict_chain_point(p: dict, softmax: bool = True) -> float:
    """The installed model's seconds for one ``softmax_dot`` / ``replicated`` point (the on-chip attention
    loop, ``benchmarks/calibrate/kernels.py::softmax_dot_chain``, 1024 iterations; h200 profile), or with
    ``softmax=False`` one ``wrapped`` point (its two dots alone); a ``masked_softmax`` point's ``mask``
    builds the kernel with its causal-style mask (``MASK``)."""
    import tilesight

    bm, bn, d, programs = p["BM"], p["BN"], p["D"], SM_COUNT * p["blocks_per_sm"]
    report = tilesight.estimate(
        _probe_kernels().softmax_dot_chain, (programs,), *_chain_args(bm, bn, d, programs), hw="h200",
        BM=bm, BN=bn, D=d, MASK=bool(p.get("mask")), SOFTMAX=softmax, num_warps=p["warps"],
    )  # fmt: skip
    return report.latency_s


def _chain_args(bm: int, bn: int, d: int, programs: int) -> tuple:
    """``softmax_dot_chain``'s arguments for ``programs`` programs of ``bm x bn`` tiles at head dim ``d``:
    Q, K^T and V loaded once, the output, the probe's iterations."""
    from tilesight import TensorSpec

    q, k, v = (TensorSpec(s, "float16") for s in ((bm, d), (d, bn), (bn, d)))
    return q, k, v, TensorSpec((programs * bm * d,), "float32"), CHAIN_ITERS


def mask_ps_per_element(cost_s: float, p: dict) -> float:
    """A mask's cost (``cost_s``: the masked point's time less its unmasked twin's) in picoseconds per score
    element of an SM: over the probe's iterations and the ``BM x BN`` scores of each of its blocks an SM."""
    return cost_s / CHAIN_ITERS / (p["BM"] * p["BN"] * p["blocks_per_sm"]) * 1e12


def _mask_model(args: argparse.Namespace) -> None:
    """The installed model against the ``masked_softmax`` probe (``calibration_mask.json``: the on-chip
    attention loop with and without a causal-style mask, 1-2 blocks an SM; h200 profile): per tile, head dim,
    warps and blocks an SM, the mask's cost (masked less unmasked) measured and predicted, in us and in ps a
    score element of an SM. The probe times what the one-loop causal kernels' mask costs without their loads
    and schedule (known-gaps: the mask is priced per element alike for every tile, the GPU's cost is not)."""
    writer = "python3 benchmarks/calibrate/run.py --out FILE --only masked_softmax,softmax_dot"
    path = _probe_file(args, "calibration_mask.json", "", writer)
    points = [p for p in json.loads(path.read_text())["measurements"]["masked_softmax"]["points"] if "s" in p]
    by_key = {(p["BM"], p["BN"], p["D"], p["warps"], p["blocks_per_sm"], bool(p["mask"])): p for p in points}
    for key, masked in sorted(by_key.items()):
        plain = by_key.get((*key[:5], False))
        if not key[5] or plain is None:
            continue
        measured = masked["s"] - plain["s"]
        predicted = _predict_chain_point(masked) - _predict_chain_point(plain)
        bm, bn, d, warps, per_sm = key[:5]
        print(
            f"{bm:4d} x {bn:<4d} d{d:<4d} w{warps} per_sm {per_sm}: mask measured {measured * 1e6:7.1f} us "
            f"({mask_ps_per_element(measured, masked):5.1f} ps a score), predicted {predicted * 1e6:7.1f} us "
            f"({mask_ps_per_element(predicted, masked):5.1f} ps)"
        )
    if getattr(args, "sass", False):
        builds = sorted({(p["BM"], p["BN"], p["D"], p["warps"], bool(p["mask"])) for p in points})
        for bm, bn, d, warps, mask in builds:
            kind = "masked" if mask else "plain "
            print(f"{bm} x {bn} d{d} w{warps} {kind}: {_chain_segments(bm, bn, d, warps, mask)}")


def _chain_segments(bm: int, bn: int, d: int, warps: int, mask: bool) -> str:
    """The probe kernel's loop iteration (this CPU's compile, the profile's ptxas or ``$TILESIGHT_PTXAS``)
    split at its waits and barriers: each segment's instruction count and commonest opcodes, then the wait
    that ends it (``causal_mask.segments``)."""
    import types
    from collections import Counter

    from autotune.causal_mask import segments
    from spill_frames import _cubin_sass
    from tilesight.frontends.triton.sass import instruction_opcode, mma_loop_bodies

    from tilesight.hardware import load_profile

    launch = types.SimpleNamespace(
        fn=_probe_kernels().softmax_dot_chain, args=_chain_args(bm, bn, d, SM_COUNT),
        options=dict(BM=bm, BN=bn, D=d, MASK=mask, SOFTMAX=True, num_warps=warps),
    )  # fmt: skip
    text, _ = _cubin_sass(launch, load_profile("h200"))
    body = mma_loop_bodies(text)[0]
    parts = []
    for ops, wait in segments([instruction_opcode(t) for t in body]):
        common = ",".join(f"{o} {c}" for o, c in Counter(ops).most_common(3))
        parts.append(f"{len(ops)} ({common}) -> {wait}" if ops else f"0 -> {wait}")
    return " | ".join(parts)


def _chains_model(_: argparse.Namespace) -> None:
    chains = json.loads((DATA / "calibration_chains.json").read_text())["measurements"]
    extra = json.loads((DATA / "calibration_replicated.json").read_text())["measurements"]["replicated"]
    for p in (*chains["softmax_dot"]["points"], *extra["softmax"]):
        if "s" not in p:
            continue
        predicted = _predict_chain_point(p)
        print(
            f"{p['BM']:4d} x {p['BN']:<4d} d{p['D']:<4d} w{p['warps']} per_sm {p['blocks_per_sm']}: measured "
            f"{p['s'] * 1e6:7.1f} us, predicted {predicted * 1e6:7.1f} us, predicted / measured "
            f"{predicted / p['s']:.2f}"
        )


def _probe_file(args: argparse.Namespace, name: str, step: str, writer: str = "") -> Path:
    """The probe file ``name`` in ``--data`` (a folder), or ``--data`` itself (a file: another GPU's run);
    exits naming the missing file and the ``queued.sh`` step that writes it (or ``writer``, the command,
    where no step does)."""
    path = Path(args.data or DATA)
    if path.is_dir():
        path = path / name
    if not path.is_file():
        writer = writer or f"queued.sh {step}"
        raise SystemExit(f"probe_report.py: no file {path} (`{writer}` writes it on a GPU)")
    return path


def _predict_dot_chain_point(p: dict) -> float:
    """The installed model's seconds for one ``dot_chain`` point (h200 profile; ``a_regs``: A computed in
    registers, dot_chain's ``A_REGS``)."""
    import tilesight
    from tilesight import TensorSpec

    bm, bn, bk, programs = p["BM"], p["BN"], p["BK"], SM_COUNT * p["blocks_per_sm"]
    regs = bool(p.get("a_regs"))
    a = TensorSpec((bm, bk), "float32" if regs else "float16")
    b = TensorSpec((bk, bn), "float16")
    out = TensorSpec((programs * bm * bn,), "float32")
    kw = {"A_REGS": True} if regs else {}
    report = tilesight.estimate(
        _probe_kernels().dot_chain, (programs,), a, b, out, DOT_ITERS, hw="h200", BM=bm, BN=bn, BK=bk,
        num_warps=p["warps"], **kw,
    )  # fmt: skip
    return report.latency_s


def _regs_a_model(args: argparse.Namespace) -> None:
    """The installed model against the ``regs_a`` probe (stop 72, ``calibration_regs_a.json``: dependent dot
    chains of 64-row tiles at N 16 / 32 / 64 with A from shared memory and from registers; h200 profile),
    then each register-A chain's rate over its shared-memory twin's, measured and predicted, and per N the
    register-A chains' mean rate over the profile's ``wgmma_chain_flops_per_s``: the profile's
    ``[wgmma_n_efficiency_registers]`` (``[wgmma_n_efficiency]`` is of shared-memory A)."""
    path = _probe_file(args, "calibration_regs_a.json", "regsa")
    points = [p for p in json.loads(path.read_text())["measurements"]["regs_a"]["points"] if "s" in p]
    measured, predicted = {}, {}
    for p in points:
        key = (p["BN"], p["BK"], p["blocks_per_sm"], bool(p["a_regs"]))
        measured[key], predicted[key] = p["s"], _predict_dot_chain_point(p)
        where = "registers" if key[3] else "shared   "
        _ratio(f"64 x {key[0]:<3d} K {key[1]:<3d} per_sm {key[2]} A in {where}", p["s"], predicted[key])
    for (bn, bk, per_sm, regs), s in sorted(measured.items()):
        twin = (bn, bk, per_sm, False)
        if regs and twin in measured:
            ratio = predicted[twin] / predicted[bn, bk, per_sm, True]
            print(
                f"64 x {bn} K {bk} per_sm {per_sm}: registers' rate over shared memory's, measured "
                f"{measured[twin] / s:.2f}, predicted {ratio:.2f}"
            )
    from tilesight.hardware import load_profile

    hw = load_profile("h200")
    for n in sorted({p["BN"] for p in points if p["a_regs"]}):
        rates = [p["flops_per_s"] for p in points if p["a_regs"] and p["BN"] == n]
        mean = sum(rates) / len(rates)
        share = mean / hw.wgmma_chain_flops_per_s
        print(
            f"register A, N = {n}: mean {mean / 1e12:.0f} TFLOP/s = {share:.2f} of "
            f"the chain rate (profile [wgmma_n_efficiency_registers]: "
            f"{hw.mma_n_efficiency(n, a_registers=True):.2f})"
        )


def _wrapped_model(args: argparse.Namespace) -> None:
    """The installed model against the ``wrapped`` probe (stop 71, ``calibration_wrapped.json``: the attention
    loop's two dots alone, ``benchmarks/calibrate/kernels.py::softmax_dot_chain`` with ``SOFTMAX=False``; h200
    profile), each 8-warp 64-row point beside its 4-warp twin: what the score dot's wrapped copy costs,
    measured and predicted."""
    path = _probe_file(args, "calibration_wrapped.json", "wrapped")  # --data FILE: another run (an H100's)
    points = [p for p in json.loads(path.read_text())["measurements"]["wrapped"]["points"] if "s" in p]
    measured, predicted = {}, {}
    for p in points:
        key = (p["BM"], p["BN"], p["D"], p["warps"], p["blocks_per_sm"])
        measured[key], predicted[key] = p["s"], _predict_chain_point(p, softmax=False)
        _ratio(f"wrapped {key[0]} x {key[1]} d{key[2]} w{key[3]} per_sm {key[4]}", p["s"], predicted[key])
    for (bm, bn, d, warps, per_sm), s in sorted(measured.items()):
        twin = (bm, bn, d, 4, per_sm)
        if warps == 8 and bm == 64 and twin in measured:
            ratio = predicted[bm, bn, d, warps, per_sm] / predicted[twin]
            print(
                f"64 x {bn} d{d} per_sm {per_sm}: 8 warps over 4, measured {s / measured[twin]:.2f}, "
                f"predicted {ratio:.2f}"
            )


def _ratio(label: str, measured_s: float, predicted_s: float) -> None:
    print(
        f"{label}: measured {measured_s * 1e6:7.1f} us, predicted {predicted_s * 1e6:7.1f} us, predicted / "
        f"measured {predicted_s / measured_s:.2f}"
    )


def _probes_model(_: argparse.Namespace) -> None:
    """The installed model against stop 48's probes (h200 profile): ``narrow_ept``'s row copies and reads,
    ``replicated``'s dot chains, ``strided_paced``'s paced writes and loaded copies."""
    import tilesight
    from tilesight import TensorSpec

    k = _probe_kernels()

    def load(name: str) -> dict:
        return json.loads((DATA / f"calibration_{name}.json").read_text())["measurements"][name]

    for p in load("narrow_ept")["points"]:
        block, rows = p["block"], EPT_ELEMENTS // p["block"]
        stride = block + 1 if p["odd"] else block
        src = TensorSpec((rows, block), "float16", (stride, 1))
        if p["what"] == "copy":
            fn, args = k.copy_rows, (src, src, stride, block)
        else:
            fn, args = k.read_rows, (src, TensorSpec((rows,), "float32"), stride, block)
        r = tilesight.estimate(fn, (rows,), *args, hw="h200", BLOCK=block, num_warps=p["warps"])
        odd = "odd " if p["odd"] else "even"
        _ratio(f"narrow_ept {p['what']} b{block} w{p['warps']} {odd}", p["s"], r.latency_s)
    for p in load("replicated")["dot"]:
        label = f"replicated dot {p['BM']}x{p['BN']}x{p['BK']} w{p['warps']} per_sm {p['blocks_per_sm']}"
        _ratio(label, p["s"], _predict_dot_chain_point(p))
    for p in load("strided_paced")["points"]:
        n, grid = p["n"], (-(-p["n"] // PACED_BLOCK),)
        dst = TensorSpec((n,), "float16")
        fn, args = (k.flat_copy_paced, (dst, dst, n)) if p.get("loaded") else (k.flat_write_paced, (dst, n))
        r = tilesight.estimate(
            fn, grid, *args, hw="h200", BLOCK=PACED_BLOCK, FMAS=p["fmas"], num_warps=PACED_WARPS
        )
        what = "copy " if p.get("loaded") else "write"
        _ratio(f"strided_paced {what} n={n} fmas={p['fmas']:3d}", p["s"], r.latency_s)


def row_ring_rows(points: list[dict], predict) -> list[dict]:
    """Every measured ``row_ring`` point with the installed model's prediction (``predict(point) -> (seconds,
    tile serial seconds)``): measured / predicted, and what a row takes its program measured
    (``s / (rows / programs)``) against the model's serial time for it."""
    rows = []
    for p in points:
        if "s" not in p:
            continue
        predicted, serial = predict(p)
        rows.append({**p, "predicted_s": predicted, "serial_s": serial, "ratio": p["s"] / predicted})
    return rows


def row_step_s(rows: list[dict], step_in_model: float) -> float:
    """The profile's ``row_loop_step_s`` from :func:`row_ring_rows`: the median over the
    :data:`ROW_STEP_POINTS` points of a row's measured time per program less the model's serial time for it
    without the step (its compute chain and its reductions' shuffle trees)."""
    picked = [r for r in rows if all(r[k] == v for k, v in ROW_STEP_POINTS.items())]
    if not picked:
        raise ValueError(f"no row_ring point matches {ROW_STEP_POINTS}")
    return statistics.median(r["s_per_row_per_program"] - (r["serial_s"] - step_in_model) for r in picked)


def _predict_row_ring_point(p: dict) -> tuple[float, float]:
    """The installed model's seconds and per-row serial seconds for one ``row_ring`` point (h200 profile)."""
    import tilesight
    from tilesight import TensorSpec

    rows, width = p["rows"], p["width"]
    x = TensorSpec((rows, width), "float16")
    report = tilesight.estimate(
        _probe_kernels().row_ring, (SM_COUNT * p["per_sm"],), x, x, rows, width, width, hw="h200",
        BLOCK=width, ROW_STAGES=p["stages"], BODY=p["body"], num_warps=p["warps"],
    )  # fmt: skip
    return report.latency_s, report.extras.get("tile_serial_s", 0.0)


def row_element_steps(rows: list[dict], step_in_model: float) -> list[tuple[dict, float]]:
    """Per softmax point of :func:`row_ring_rows` (both probes) at 5 row stages and one program an SM whose
    rows hold 16 or more elements a thread: a row's measured time per program less the model's serial time
    for it without the ``row_element_step_s`` term, per element a thread beyond
    ``evaluate.ROW_ELEMENTS_HIDDEN``."""
    from tilesight.model.evaluate import ROW_ELEMENTS_HIDDEN

    out = []
    for r in rows:
        elements = r["width"] / (32 * r["warps"])
        if r["body"] == 2 and r["stages"] == 5 and r["per_sm"] == 1 and elements >= 2 * ROW_ELEMENTS_HIDDEN:
            beyond = elements - ROW_ELEMENTS_HIDDEN
            rest = r["serial_s"] - step_in_model * beyond
            out.append((r, (r["s_per_row_per_program"] - rest) / beyond))
    return out


def row_element_step_s(steps: list[tuple[dict, float]]) -> float:
    """The profile's ``row_element_step_s``: the median of :func:`row_element_steps`' values."""
    if not steps:
        raise ValueError("no row_ring softmax point with 16 or more elements a thread")
    return statistics.median(value for _, value in steps)


def _row_ring(_: argparse.Namespace) -> None:
    from tilesight.hardware import load_profile

    points = []
    for name in ("row_ring", "row_ring_wide"):
        doc = json.loads((DATA / f"calibration_{name}.json").read_text())
        points += doc["measurements"][name]["points"]
    rows = row_ring_rows(points, _predict_row_ring_point)
    bodies = {0: "copy", 1: "max", 2: "softmax"}
    for r in rows:
        print(
            f"{bodies[r['body']]:7s} {r['width']:5d} cols w{r['warps']:<2d} stages {r['stages']} per_sm "
            f"{r['per_sm']}: measured {r['s'] * 1e6:7.1f} us "
            f"({r['s_per_row_per_program'] * 1e9:6.0f} ns a row a program), predicted "
            f"{r['predicted_s'] * 1e6:7.1f} us (serial {r['serial_s'] * 1e9:5.0f} ns), "
            f"measured / predicted {r['ratio']:.2f}"
        )
    by = collections.defaultdict(list)
    for r in rows:
        by[(bodies[r["body"]], "stages >= 3" if r["stages"] >= 3 else "stages 1-2")].append(r["ratio"])
    for (body, stages), ratios in sorted(by.items()):
        median = statistics.median(ratios)
        print(f"{body:7s} {stages}: median measured / predicted {median:.2f} over {len(ratios)}")
    hw = load_profile("h200")
    step, element = hw.row_loop_step_s, hw.row_element_step_s
    fitted = row_step_s(rows, step)
    print(f"row_loop_step_s: {fitted * 1e9:.1f} ns ({ROW_STEP_POINTS}; the profile has {step * 1e9:.1f})")
    steps = row_element_steps(rows, element)
    for r, value in steps:
        label = f"softmax {r['width']:5d} cols w{r['warps']:<2d}"
        print(f"  {label}: {value * 1e9:5.1f} ns an element beyond the hidden ones")
    fitted = row_element_step_s(steps)
    print(f"row_element_step_s: {fitted * 1e9:.1f} ns (the profile has {element * 1e9:.1f})")


def _overlap_model(_: argparse.Namespace) -> None:
    doc = json.loads((DATA / "calibration_alone.json").read_text())
    rows = overlap_model_rows(doc["measurements"]["overlap_alone"]["points"], _predict_overlap_point)
    for r in rows:
        print(
            f"per_sm {r['programs_per_sm']} w{r['warps']} s{r['stages']} BN{r['BN']:3d}: measured "
            f"{r['measured_s'] * 1e6:6.0f} us, predicted {r['predicted_s'] * 1e6:6.0f} us, "
            f"measured / predicted {r['ratio']:.2f} ({r['reason'][:60]})"
        )


def _narrow(_: argparse.Namespace) -> None:
    doc = json.loads((DATA / "calibration_alone.json").read_text())
    pts = doc["measurements"]["narrow_tiles"]["points"]
    for p in pts:
        stride = "odd    " if p["odd"] else "aligned"
        print(f"[{p['R']},{p['C']}] {p['programs_per_sm']}/SM w{p['warps']} {stride}: "
              f"{p['warp_instr_per_s_per_sm']:.3g} warp instr/s per SM")  # fmt: skip
    for per_sm in sorted({p["programs_per_sm"] for p in pts}):
        odd = [p["warp_instr_per_s_per_sm"] for p in pts if p["odd"] and p["programs_per_sm"] == per_sm]
        print(f"odd stride, {per_sm} program(s) per SM: {min(odd):.3g}-{max(odd):.3g}")


def _row_rates(_: argparse.Namespace) -> None:
    """The element-wide load rates of stop 49's narrow_width (shared lines, L1 and L2) and narrow_private
    (each program's own lines, through L1 and, with ``.cg`` loads, past it) probes by lane stride, what
    ``analysis.profile_fields`` reads from the first, and narrow_dram's DRAM reads, writes and copies."""
    from calibrate import analysis

    for name in ("narrow_width", "narrow_private"):
        doc = json.loads((DATA / f"calibration_{name}.json").read_text())["measurements"]
        for p in doc[name]["points"]:
            rate = p.get("warp_instr_per_s_per_sm")
            span = 32 * p["lane_stride_bytes"]
            label = f"{name} {p['dtype']} {p['tier']} {p['access']:10s} lanes {p['lane_stride_bytes']:2d} B"
            what = f"{rate / 1e6:5.0f} M warp instructions/s/SM" if rate else "(vector loads)"
            print(f"{label} (span {span:3d} B): {p['s'] * 1e6:7.1f} us {what}")
        if name == "narrow_width":
            for key, field in analysis.profile_fields(doc).items():
                print(f"  -> {key} = {field['value']:.4g}")
    dram = json.loads((DATA / "calibration_narrow_dram.json").read_text())["measurements"]["narrow_dram"]
    for p in dram["points"]:
        print(
            f"narrow_dram {p['what']:5s} {p['access']:7s} lanes {p['lane_stride_bytes']:2d} B: "
            f"{p['s'] * 1e6:6.1f} us {p['bytes_per_s'] / 1e12:5.2f} TB/s "
            f"{p['warp_instr_per_s_per_sm'] / 1e6:5.0f} M warp instructions/s/SM"
        )


def _tilelang(_: argparse.Namespace) -> None:
    doc = json.loads((DATA / "calibration_tilelang_wait.json").read_text())["measurements"]
    chain = {}
    for p in doc["tilelang_wait"]["points"]:
        key = (p["BM"], p["BN"], p["BK"], p["threads"], p["programs_per_sm"])
        chain[key] = p["tilelang_s_per_call"]
        print(f"T.gemm {key}: {p['tilelang_s_per_call'] * 1e9:6.1f} ns a call, Triton's chain "
              f"{p['triton_s_per_dot'] * 1e9:6.1f} ns: the wait exposes "
              f"{(p['tilelang_s_per_call'] - p['triton_s_per_dot']) * 1e9:6.1f} ns")  # fmt: skip
    for p in doc["tilelang_pipeline"]["points"]:
        key = (p["BM"], p["BN"], p["BK"], p["threads"], p["programs_per_sm"])
        step_bytes = (p["BM"] * p["BK"] + p["BK"] * p["BN"]) * 2
        rate = step_bytes / p["s_per_step"]
        print(f"pipeline {key} s{p['stages']}: {p['s_per_step'] * 1e9:6.1f} ns a step "
              f"(on-chip chain {chain[key] * 1e9:6.1f} ns), {rate / 1e9:5.1f} GB/s per SM")  # fmt: skip


def _merges(args: argparse.Namespace) -> None:
    from tilesight.hardware import load_profile

    hw = load_profile("h200")
    cases = json.loads((DATA / "ncu_l2_h200_run3.json").read_text())["cases"]
    for resident, share in merges_by_residency(
        cases, hw.sm_count, hw.regs_per_sm, hw.smem_per_sm_bytes
    ).items():
        print(f"{resident} block(s) per SM: median merged share of coalescable read sectors {share:.2f}")
    for c in cases:
        if args.case and args.case in c["case_id"]:
            merged = c["lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum"]
            print(f"{c['case_id']}: merged {merged / c['lrc__xbar2gpc_sectors_op_read.sum']:.3f} of the read "
                  f"sectors the SMs received")  # fmt: skip


def _residency(args: argparse.Namespace) -> None:
    import accuracy

    import tilesight

    groups = collections.defaultdict(list)
    for record, where in accuracy.load(Path(args.data), "gemm/"):
        if record["n_spills"] or "unaligned" in record["id"]:
            continue
        launch = accuracy.rebuild(record, where)
        report = tilesight.estimate(launch.fn, launch.grid, *launch.args, hw="h200", **launch.options)
        resident = report.to_dict()["occupancy"]["resident_blocks"]
        ratio = report.latency_s * 1e6 / record["measured_us"]["p50"]
        groups[(min(resident, 5), report.bottleneck)].append(ratio)
    for (resident, bottleneck), v in sorted(groups.items()):
        label = f"{resident}{'+' if resident == 5 else ''} block(s) per SM, {bottleneck}-bound"
        print(f"{label:>28}: {len(v):3d} launches, median predicted / measured {statistics.median(v):.3f}")


# Validation sets the pooled Triton figure leaves out (docs/accuracy-triton.md: the Liger-Kernel and
# survey-style sets 31-36)
POOL_EXCLUDED = frozenset(f"validation3{i}" for i in range(1, 7))


def _pooled_records(root: Path, prefix: str):
    """(record, where) of every measured launch whose id starts with ``prefix`` in the pooled Triton data:
    ``root`` and its validation sets, less :data:`POOL_EXCLUDED`."""
    import accuracy

    dirs = [root, *sorted(d for d in root.glob("validation*") if d.is_dir() and d.name not in POOL_EXCLUDED)]
    for data in dirs:
        try:
            records = accuracy.load(data, prefix)
        except accuracy.NotMeasured:  # predicted, waiting for the GPU
            continue
        yield from records


def _unaligned(args: argparse.Namespace) -> None:
    """The pooled GEMM launches whose N or K is no multiple of 16 (Triton loads that operand one element a
    lane, synchronously: odd K leaves A so, odd N B): how many and their MAPE, by which operands load so and
    by spilling or not, and, for those that do not spill, the median measured / predicted by tile rows and
    blocks resident an SM (the two sides of the sync-operand gap, docs/known-gaps.md); and the median measured
    / predicted of the spilling and the non-spilling ones."""
    import accuracy

    import tilesight

    errors = collections.defaultdict(list)
    ratios = collections.defaultdict(list)
    for record, where in _pooled_records(Path(args.data), "gemm/"):
        problem = record.get("problem", {})
        sync_a, sync_b = problem["K"] % 16 != 0, problem["N"] % 16 != 0
        if not (sync_a or sync_b):
            continue
        launch = accuracy.rebuild(record, where)
        report = tilesight.estimate(launch.fn, launch.grid, *launch.args, hw="h200", **launch.options)
        measured = record["measured_us"]["p50"]
        error = abs(report.latency_s * 1e6 - measured) / measured
        which = "A and B" if sync_a and sync_b else "A" if sync_a else "B"
        spills = "spilling" if record.get("n_spills") else "not spilling"
        for key in ("all", f"{which} synchronous", spills):
            errors[key].append(error)
        ratios[(spills, "")].append(measured / (report.latency_s * 1e6))
        if not record.get("n_spills"):
            rows = "16-32 rows" if record["constexprs"]["BLOCK_M"] <= 32 else "64-256 rows"
            resident = report.occupancy.resident_blocks
            blocks = "1-2 blocks an SM" if resident <= 2 else "3+ blocks an SM"
            ratios[(rows, blocks)].append(measured / (report.latency_s * 1e6))
    for key, v in errors.items():
        print(f"{key:>15}: {len(v):4d} launches, MAPE {100 * statistics.mean(v):.1f}%")
    for (rows, blocks), v in sorted(ratios.items()):
        where = f"{rows}, {blocks}" if blocks else rows
        if blocks:
            where = f"not spilling, {where}"
        print(f"{where}: {len(v):3d} launches, median measured / predicted {statistics.median(v):.2f}")


def _bottlenecks(args: argparse.Namespace) -> None:
    """Every non-spilling launch of ``--family`` in the pooled Triton data (benchmarks/data and its
    validation sets, less :data:`POOL_EXCLUDED`), grouped by the installed model's bottleneck: how many,
    the median predicted / measured and the MAPE of each group."""
    import accuracy

    import tilesight

    groups = collections.defaultdict(list)
    for record, where in _pooled_records(Path(args.data), f"{args.family}/"):
        if record.get("n_spills"):
            continue
        launch = accuracy.rebuild(record, where)
        report = tilesight.estimate(launch.fn, launch.grid, *launch.args, hw="h200", **launch.options)
        groups[report.bottleneck].append(report.latency_s * 1e6 / record["measured_us"]["p50"])
    for bottleneck, v in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        mape = 100 * statistics.mean(abs(r - 1) for r in v)
        print(f"{bottleneck}-bound: {len(v):4d} launches, median predicted / measured "
              f"{statistics.median(v):.3f}, MAPE {mape:.1f}%")  # fmt: skip


def _tile_loop(_: argparse.Namespace) -> None:
    """The ``tile_loop`` probe against the model's two terms: the tensor cores at the profile's float16
    warpgroup rate (``t``) and L2 at its read bandwidth with private lines (``u``). Per block_K, warps,
    programs an SM and dots a step: measured / max(t, u) with private lines, the shared-line times over the
    private one (2, 4, 8 SMs reading each line), and the dots alone over ``t``."""
    from tilesight.hardware import load_profile

    hw = load_profile("h200")
    rate = hw.tc_rate("float16", "wgmma") * SM_COUNT / hw.sm_count
    points = json.loads((DATA / "calibration_tile_loop.json").read_text())["measurements"]["tile_loop"][
        "points"
    ]
    groups = collections.defaultdict(dict)
    for p in points:
        key = (p["BK"], p["warps"], p["programs_per_sm"], p["dots"])
        groups[key][p["share"] if p["load"] else 0] = p
    for (bk, warps, per_sm, dots), by_share in sorted(groups.items()):
        private = by_share[1]
        t, u = private["flops"] / rate, private["bytes"] / hw.l2_bw_bytes_per_s
        shared = ", ".join(f"{s}: {by_share[s]['s'] / private['s']:.2f}" for s in sorted(by_share) if s > 1)
        print(f"block_K {bk:3d}, {warps} warps, {per_sm} program(s) an SM, {dots} dot(s) a step: t / u "
              f"{t / u:.2f}, private {private['s'] / max(t, u):.2f} x max(t, u), shared / private "
              f"({shared}), dots alone {by_share[0]['s'] / t:.2f} x t")  # fmt: skip


def _predict_tile_loop_point(p: dict):
    """The installed model's report of one ``tile_loop`` point (h200 profile): the probe's kernel,
    ``benchmarks/calibrate/kernels.py::tile_loop``, compiled on the CPU at the point's options."""
    import tilesight
    from tilesight import TensorSpec

    programs = SM_COUNT * p["programs_per_sm"]
    bm, bn, bk, k = p["BM"], p["BN"], p["BK"], p["K"]
    a = TensorSpec((programs * bm, k), "float16", (k, 1))
    b = TensorSpec((k, programs * bn), "float16", (programs * bn, 1))
    out = TensorSpec((programs * bm, bn), "float32", (bn, 1))
    return tilesight.estimate(
        _probe_kernels().tile_loop, (programs,), a, b, out, k, programs * bn, p["iters"], p["share"],
        hw="h200", BM=bm, BN=bn, BK=bk, DOTS=p["dots"], LOAD=p["load"], num_warps=p["warps"],
        num_stages=p["stages"],
    )  # fmt: skip


def _tile_loop_model(_: argparse.Namespace) -> None:
    """Every private-panel ``tile_loop`` point (and its dots alone) predicted as a user's kernel: measured and
    predicted microseconds, measured / predicted, what the measured time has beyond the prediction per loop
    iteration of a block, and the predicted bottleneck. Stop 84 read two faults off these (both named in
    docs/known-gaps.md): the L2 re-reads of the probe's small panels cost the model 1/128 of a tile, and its
    8-warp loops at one block an SM run 1.2-2x their prediction."""
    points = json.loads((DATA / "calibration_tile_loop.json").read_text())["measurements"]["tile_loop"][
        "points"
    ]
    print("block_K warps programs/SM dots loads  measured  predicted  meas/pred  excess ns/iteration  "
          "bottleneck")  # fmt: skip
    private = [p for p in points if p["share"] == 1]
    private.sort(key=lambda p: (p["programs_per_sm"], p["BK"], p["warps"], p["dots"], not p["load"]))
    for p in private:
        report = _predict_tile_loop_point(p)
        excess_ns = (p["s"] - report.latency_s) / p["iters"] * 1e9
        loads = "yes" if p["load"] else "no"
        print(f"{p['BK']:7d} {p['warps']:5d} {p['programs_per_sm']:12d} {p['dots']:4d} {loads:>5} "
              f"{p['s'] * 1e6:8.1f}us {report.latency_s * 1e6:8.1f}us {p['s'] / report.latency_s:10.2f} "
              f"{excess_ns:20.1f}  {report.bottleneck}")  # fmt: skip


def _ddr_flush(_: argparse.Namespace) -> None:
    """The ``ddr_flush`` probe: each stream timed after do_bench's flush (a 256 MB buffer zeroed, the L2 left
    full of dirty lines) and after a read of the buffer (clean lines), and the difference."""
    probe = json.loads((DATA / "calibration_ddr_flush.json").read_text())["measurements"]["ddr_flush"]
    for p in probe["points"]:
        mib = p["elements"] * 2 / 2**20
        dirty, clean = p["dirty_s"] * 1e6, p["clean_s"] * 1e6
        mix = f"{p['reads']}r{p['writes']}w {mib:5.0f} MiB a stream"
        after = f"after a dirty L2 {dirty:7.2f} us, after a clean one {clean:7.2f} us"
        print(f"{mix}: {after}, {dirty - clean:+5.2f} us")


def harmonic_mix_rate(reads: int, writes: int, hw) -> float:
    """Bytes a second of a stream of ``reads`` read and ``writes`` written bytes per element as the model
    prices it on ``hw``: a read byte at the read rate (:func:`tilesight.model.resources.ddr_read_bw`), a
    written one :func:`~tilesight.model.resources.ddr_write_slowdown` times longer."""
    from tilesight.model.resources import ddr_read_bw, ddr_write_slowdown

    return (reads + writes) * ddr_read_bw(hw) / (reads + writes * ddr_write_slowdown(hw))


def _ddr_mix(_: argparse.Namespace) -> None:
    """The ``ddr_mix`` probe: each (reads, writes) mix's rate per kernel form, and the harmonic mix of the
    profile's read rate ``R`` and copy rate ``C`` (a written byte at ``1 / W = 2 / C - 1 / R``) against each
    mix's best, with ``C`` the profile's (the ``ddr`` probe's grid-stride copy) and the probe's best copy."""
    from tilesight.hardware import load_profile

    hw = load_profile("h200")
    probe = json.loads((DATA / "calibration_ddr_mix.json").read_text())["measurements"]["ddr_mix"]
    for p in probe["points"]:
        form = p["kernel"] + (f" {p['programs_per_sm']}/SM" if "programs_per_sm" in p else "")
        form += f" BLOCK {p['block']} {p['warps']} warps" if p["kernel"] == "stream_mix" else ""
        print(f"{p['reads']}r{p['writes']}w {form:>34}: {p['bytes_per_s'] / 1e12:5.2f} TB/s")
    read = hw.ddr_read_bw_bytes_per_s
    best = probe["best_bytes_per_s"]
    for label, copy in (("profile", hw.ddr_bw_bytes_per_s), ("probe's best copy", best["1r1w"])):
        mixes = []
        for key, rate in best.items():
            model = harmonic_mix_rate(
                int(key[0]), int(key[2]), dataclasses.replace(hw, ddr_bw_bytes_per_s=copy)
            )
            mixes.append(f"{key} {model / 1e12:.2f} / {rate / 1e12:.2f}")
        print(f"R {read / 1e12:.2f}, C {copy / 1e12:.2f} TB/s ({label}): modelled / best " + ", ".join(mixes))
    for p, predicted in zip(probe["sizes"], ddr_mix_predictions(probe["sizes"]), strict=True):
        mib = p["elements"] * 2 / 2**20
        print(f"{p['reads']}r{p['writes']}w {mib:5.0f} MiB a stream: {p['s'] * 1e6:7.2f} us "
              f"({p['bytes_per_s'] / 1e12:4.2f} TB/s), predicted {predicted * 1e6:7.2f} us, "
              f"measured / predicted {p['s'] / predicted:.3f}")  # fmt: skip


def ddr_mix_predictions(points: list[dict], hw: str = "h200") -> list[float]:
    """The installed model's latency (seconds) of each ``ddr_mix`` stream-length point: the probe's own
    kernel (``benchmarks/calibrate/kernels.py::stream_mix``) compiled on the CPU at the point's launch."""
    sys.path.insert(0, str(HERE.parent))
    import tilesight
    from benchmarks.calibrate import kernels as K

    out = []
    for p in points:
        n, block = p["elements"], p["block"]
        grid = (-(-n // block),)
        stream = tilesight.TensorSpec((n,), "float16", (1,))
        sums = tilesight.TensorSpec((grid[0],), "float32", (1,))
        meta = dict(READS=p["reads"], WRITES=p["writes"], BLOCK=block, num_warps=p["warps"])
        report = tilesight.estimate(
            K.stream_mix, grid, stream, stream, stream, stream, sums, n, hw=hw, **meta
        )
        out.append(report.latency_s)
    return out


def split_mix_launch(p: dict):
    """(kernel, grid, args, meta) of one ``split_mix`` point: the probe's own kernels
    (``benchmarks/calibrate/kernels.py``) and the reference element-wise kernels (``kernels/triton``), as
    ``benchmarks/calibrate/measure.py::_split_mix_kernels`` launches them."""
    sys.path.insert(0, str(HERE.parent))
    import tilesight
    from benchmarks.calibrate import kernels as K
    from kernels.triton.dropout import seeded_dropout_kernel
    from kernels.triton.gelu import gelu_kernel
    from kernels.triton.vector_add import add_kernel

    n, block, kernel = p["elements"], p["block"], p["kernel"]
    grid = (-(-n // block),)
    meta = {"BLOCK": block, "num_warps": p["warps"]}
    flat = tilesight.TensorSpec((n,), p.get("dtype", "float16"), (1,))
    if kernel == "stream_mix":
        sums = tilesight.TensorSpec((grid[0],), "float32", (1,))
        return K.stream_mix, grid, (flat, flat, flat, flat, sums, n), {**meta, "READS": p["reads"],
                                                                        "WRITES": p["writes"]}  # fmt: skip
    if kernel == "flat_copy_paced":
        return K.flat_copy_paced, grid, (flat, flat, n), {**meta, "FMAS": p["fmas"]}
    if kernel == "add":
        return add_kernel, grid, (flat, flat, flat, n), meta
    if kernel in ("gelu", "gelu_tanh"):
        return gelu_kernel, grid, (flat, flat, n), {**meta, "APPROX": kernel == "gelu_tanh"}
    if kernel == "dropout":
        return seeded_dropout_kernel, grid, (flat, flat, n, 0.1, 1234), meta
    raise ValueError(f"split_mix: unknown kernel {kernel!r}")


def split_mix_rows(points: list[dict], hw) -> list[dict]:
    """Every split ``split_mix`` point with the model's pieces on ``hw``: ``schedule`` (seconds with no merge
    floor), ``merge`` (the L2's merges alone, :func:`tilesight.model.evaluate.split_store_floor_s` with no
    pacing, launch overhead excluded), ``compute`` (the busiest SM's CUDA-core and SFU issue) and
    ``predicted`` (the installed profile's latency)."""
    import tilesight
    from tilesight.plan import Pipeline

    no_merges = dataclasses.replace(hw, l2_partial_write_sectors_per_s=0.0)
    unpaced = dataclasses.replace(hw, split_store_pacing_relief=0.0)
    rows = []
    for p in points:
        if not p["split"]:
            continue
        kernel, grid, args, meta = split_mix_launch(p)
        bare = tilesight.estimate(kernel, grid, *args, hw=no_merges, **meta)
        report = tilesight.estimate(kernel, grid, *args, hw=unpaced, **meta)
        merges = sum(ph.time_s for ph in report.phases if ph.phase == "merges")
        if merges <= 0.0:
            continue  # the merges hide under the schedule: the point says nothing of their pacing
        installed = tilesight.estimate(kernel, grid, *args, hw=hw, **meta)
        rows.append({
            "point": p, "measured": p["s"], "schedule": bare.latency_s,
            "merge": report.latency_s - hw.launch_overhead_s,
            "compute": report.busy_s[Pipeline.CUDA] + report.busy_s[Pipeline.SFU],
            "predicted": installed.latency_s,
        })  # fmt: skip
    return rows


def split_pacing_predict(row: dict, free: float, relief: float, launch_s: float) -> float:
    """One :func:`split_mix_rows` row's latency with pacing constants ``free`` and ``relief``: the same rule
    as :func:`tilesight.model.evaluate.split_store_floor_s`, on the row's pieces."""
    merge = row["merge"]
    floor = max(merge - relief * max(row["compute"] - free * merge, 0.0), 0.0) + launch_s
    return max(row["schedule"], floor)


def split_pacing_fit(rows: list[dict], launch_s: float) -> tuple[float, float]:
    """The (``split_store_pacing_free``, ``split_store_pacing_relief``) that fit the ``flat_copy_paced`` rows
    whose threads store at most :data:`tilesight.model.evaluate.SPLIT_STORE_PACED_BURST` elements a tile (the
    rule's reach) best: least squares of log measured / predicted over a grid of steps of 0.01. The
    arithmetic in front of those stores is fused multiply-adds of known count, nothing else differs."""
    import numpy as np

    from tilesight.model.evaluate import SPLIT_STORE_PACED_BURST

    paced = [
        r for r in rows
        if r["point"]["kernel"] == "flat_copy_paced"
        and r["point"]["block"] <= SPLIT_STORE_PACED_BURST * 32 * r["point"]["warps"]
    ]  # fmt: skip
    best = (float("inf"), 0.0, 0.0)
    for free in np.arange(0.0, 0.61, 0.01):
        for relief in np.arange(0.0, 1.51, 0.01):
            err = sum(
                np.log(r["measured"] / split_pacing_predict(r, free, relief, launch_s)) ** 2 for r in paced
            )
            best = min(best, (float(err), round(float(free), 2), round(float(relief), 2)))
    return best[1], best[2]


def _split_mix(_: argparse.Namespace) -> None:
    """The ``split_mix`` probe: every kernel's split stores against its aligned twin, every split point
    predicted (schedule, merges, compute issue), and the pacing constants the flat_copy_paced points fit."""
    from tilesight.hardware import load_profile

    hw = load_profile("h200")
    probe = json.loads((DATA / "calibration_split_mix.json").read_text())["measurements"]["split_mix"]

    def key(p: dict) -> tuple:
        return (p["kernel"], p["reads"], p["writes"], p.get("fmas"), p["block"], p["warps"],
                p["elements"] // 16)  # fmt: skip

    aligned = {key(p): p["s"] for p in probe["points"] if not p["split"]}
    rows = split_mix_rows(probe["points"], hw)
    for r in rows:
        p = r["point"]
        form = f"{p['kernel']} {p['reads']}r{p['writes']}w" + (f" {p['fmas']} FMAs" if "fmas" in p else "")
        print(f"{form:>28} {p['elements'] / 1e6:6.1f}M BLOCK {p['block']:>4} {p['warps']} warps: "
              f"{r['measured'] * 1e6:6.1f} us (aligned {aligned[key(p)] * 1e6:6.1f}), "
              f"merges {r['merge'] * 1e6:6.1f}, compute {r['compute'] * 1e6:6.1f}, "
              f"predicted {r['predicted'] * 1e6:6.1f}: "
              f"measured / predicted {r['measured'] / r['predicted']:.3f}")  # fmt: skip
    free, relief = split_pacing_fit(rows, hw.launch_overhead_s)
    print(f"flat_copy_paced fit: split_store_pacing_free = {free:.2f}, "
          f"split_store_pacing_relief = {relief:.2f} "
          f"(profile: {hw.split_store_pacing_free:.2f}, {hw.split_store_pacing_relief:.2f})")  # fmt: skip


def reduce_mix_predictions(points: list[dict], hw: str = "h200") -> list[float]:
    """The installed model's latency (seconds) of each ``reduce_mix`` point: the probe's own kernel
    (``benchmarks/calibrate/kernels.py::row_reduce_mix``) compiled on the CPU at the point's launch."""
    sys.path.insert(0, str(HERE.parent))
    import tilesight
    from benchmarks.calibrate import kernels as K

    out = []
    for p in points:
        rows, width = p["rows"], p["width"]
        x = tilesight.TensorSpec((rows * width,), "float16", (1,))
        sums = tilesight.TensorSpec((rows,), "float32", (1,))
        meta = {"REDS": p["reds"], "BLOCK": p["block"], "num_warps": p["warps"]}
        report = tilesight.estimate(K.row_reduce_mix, (rows,), x, sums, width, width, hw=hw, **meta)
        out.append(report.latency_s)
    return out


def _reduce_mix(_: argparse.Namespace) -> None:
    """The ``reduce_mix`` probe: per BLOCK, warps and reductions a row, the odd width and its aligned twin
    measured and predicted, and what the odd width adds in each."""
    probe = json.loads((DATA / "calibration_reduce_mix.json").read_text())["measurements"]["reduce_mix"]
    points = probe["points"]
    predicted = reduce_mix_predictions(points)
    for i in range(0, len(points), 2):
        odd, twin = points[i], points[i + 1]
        m_odd, m_al = odd["s"] * 1e6, twin["s"] * 1e6
        p_odd, p_al = predicted[i] * 1e6, predicted[i + 1] * 1e6
        print(f"width {odd['width']:>4} / {twin['width']:>4}, BLOCK {odd['block']:>4}, "
              f"{odd['warps']:>2} warps, "
              f"{odd['reds'] + 1} reduction(s) a row: measured {m_odd:6.1f} / {m_al:6.1f} us (odd adds "
              f"{m_odd - m_al:+5.1f}), predicted {p_odd:6.1f} / {p_al:6.1f} (adds {p_odd - p_al:+5.1f}), "
              f"measured / predicted {m_odd / p_odd:.2f} / {m_al / p_al:.2f}")  # fmt: skip


BALANCED = 0.85  # 'balance': tensor-core and L2 busy times within 15% of each other


def _balance(args: argparse.Namespace) -> None:
    """Every non-spilling GEMM launch of the pooled Triton data (benchmarks/data and its validation sets,
    less :data:`POOL_EXCLUDED`), grouped by block_K (32 or less, 64 or more), blocks resident an SM (1, 2,
    3+) and whether the installed model's tensor-core and L2 busy times are within 15% of each other: how
    many and the median measured / predicted of each group (docs/known-gaps.md, stop 54)."""
    import accuracy

    import tilesight

    groups = collections.defaultdict(list)
    for record, where in _pooled_records(Path(args.data), "gemm/"):
        if record.get("n_spills"):
            continue
        launch = accuracy.rebuild(record, where)
        report = tilesight.estimate(launch.fn, launch.grid, *launch.args, hw="h200", **launch.options)
        busy = {str(k): v for k, v in report.busy_s.items()}
        tc, l2 = busy.get("tc", 0.0), busy.get("l2", 0.0)
        if tc <= 0.0 or l2 <= 0.0:
            continue
        wide = record["constexprs"]["BLOCK_K"] >= 64
        resident = min(report.occupancy.resident_blocks, 3)
        balanced = min(tc, l2) / max(tc, l2) > BALANCED
        groups[(wide, resident, balanced)].append(record["measured_us"]["p50"] / (report.latency_s * 1e6))
    for (wide, resident, balanced), v in sorted(groups.items()):
        blocks = f"{resident}{'+' if resident == 3 else ''} block(s) an SM"
        label = f"block_K {'>= 64' if wide else '<= 32'}, {blocks}, {'' if balanced else 'not '}balanced"
        print(f"{label:>48}: {len(v):4d} launches, median measured / predicted {statistics.median(v):.3f}")


SMEM_TRANSFORM_RUNS = ("calibration_smem_transform.json", "calibration_smem_transform_cast.json")


def smem_transform_points() -> list[dict]:
    """The smem_transform probe's points from both of its runs (all expressions, then the 8-bit casts)."""
    return [
        p
        for name in SMEM_TRANSFORM_RUNS
        for p in json.loads((DATA / name).read_text())["measurements"]["smem_transform"]["points"]
    ]


def _smem(_: argparse.Namespace) -> None:
    from calibrate import analysis, smem_transform

    from tilesight.hardware import load_profile

    hw = load_profile("h200")
    pts = smem_transform_points()
    for p in pts:
        alu, cvt, _, serial, _, _ = smem_transform.CHAINS[p["expr"]]
        print(f"{p['expr']:>9} {p['rows']}x{p['cols']} {p['threads']} threads x{p['programs_per_sm']}/SM: "
              f"{p['lanes']} lanes, {p['vec_iters']:2d} iterations, {p['s_per_vec_iter'] * 1e9:6.1f} ns each "
              f"({alu} ops, {cvt} conversions{', serial' if serial else ''})")  # fmt: skip
    fit = analysis.smem_chain_fields(pts, smem_transform.CHAINS, hw)
    for key in ("smem_chain_latency_s", "alu_latency_s", "cvt_latency_s"):
        print(f"{key} = {fit[key]['value']:.4e}  (profile: {getattr(hw, key):.4e})")
    for row in fit["_fit"]:
        print(f"  fit {row['expr']:>9} {row['lanes']} lanes: measured {row['measured_s'] * 1e9:5.1f} ns, "
              f"fitted {row['fitted_s'] * 1e9:5.1f} ns")  # fmt: skip


def _feed(_: argparse.Namespace) -> None:
    from calibrate import analysis

    pts = json.loads((DATA / "calibration_smem_feed.json").read_text())["measurements"]["smem_feed"]["points"]
    t = {(p["BM"], p["BN"], p["BK"], p["threads"], p["variant"]): p["s_per_step"] * 1e9 for p in pts}
    for tile in sorted({k[:4] for k in t}):
        g, u, both, pipe = (t[(*tile, v)] for v in ("gemm", "unpack", "unpack_gemm", "pipelined"))
        print(f"{tile[0]}x{tile[1]}x{tile[2]} {tile[3]} threads: T.gemm {g:5.0f} ns, unpack {u:5.0f} ns, "
              f"both {both:5.0f} ns (+{both - g - u:4.0f} over the two), pipelined {pipe:5.0f}")  # fmt: skip
    f = analysis.smem_feed_fields(pts)["smem_feed_step_s"]
    print(f"smem_feed_step_s = {f['value']:.4e} ({f['note']})")


def _tma(_: argparse.Namespace) -> None:
    from calibrate import analysis

    from tilesight.hardware import load_profile

    doc = json.loads((DATA / "calibration_tma_latency.json").read_text())["measurements"]["tma_latency"]
    port = load_profile("h200").l2_bw_per_sm_bytes_per_s
    for p in doc["points"]:
        if "error" in p:
            print(f"{p['BM']}x{p['BN']}x{p['BK']} s{p['stages']} {p['form']} {p['programs']}: {p['error']}")
            continue
        step, chain = p["s_per_step"] * 1e9, p["chain_s_per_step"] * 1e9
        span = p["stages"] * step - chain
        print(f"{p['BM']}x{p['BN']}x{p['BK']} s{p['stages']} t{p['threads']} {p['form']:4} {p['programs']:3} "
              f"programs: step {step:5.0f} ns, chain {chain:4.0f}, stages x step - chain {span:5.0f} ns, "
              f"{p['bytes_per_step'] / step:5.1f} GB/s per SM")  # fmt: skip
    for key, f in analysis.tma_latency_fields(doc["points"], port).items():
        if not key.startswith("_"):
            print(f"{key} = {f['value']:.4e} ({f['note']})")


def _steps(_: argparse.Namespace) -> None:
    from calibrate import analysis

    text = (DATA / "tilelang_fa_steps" / "tilelang_h200.jsonl").read_text()
    rows = [json.loads(x) for x in text.splitlines() if x]
    for r in rows:
        p = r["params"]
        if r.get("error") or r.get("ms") is None:
            print(f"{r['id']}: {r.get('error')}")
            continue
        step, waves = analysis.fa_step_s(r, SM_COUNT)
        print(f"d{p['dim']:<3} {p['block_M']:3}x{p['block_N']:<3} s{p['num_stages']} t{p['threads']}: "
              f"{r['ms'] * 1e3:6.1f} us, {waves} wave(s) at one block an SM, "
              f"{step * 1e9:5.0f} ns a step")  # fmt: skip
    f = analysis.waited_step_latency(rows, SM_COUNT)["waited_step_latency_s"]
    print(f"waited_step_latency_s = {f['value']:.4e} ({f['note']})")


def _attn_mix(_: argparse.Namespace) -> None:
    """Per tile and programs per SM: the loop's time per iteration with its two dots alone, what each piece of
    element-wise work adds to it (exp2, two and four masks, four and eight FMAs, each alone), and the model's
    prediction of the same launches (the installed package, predicted here: about a minute); then the
    profile's ``alu_op_cost`` these points give (:func:`calibrate.analysis.alu_op_cost_fields`)."""
    sys.path.insert(0, str(HERE.parent))
    from calibrate.attn_mix import ITERS, predict_us

    points = json.loads((DATA / "calibration_attn_mix.json").read_text())["points"]
    keys = ("block_m", "block_n", "warps", "exp", "masks", "fmas", "per_sm")
    ok = {tuple(p[k] for k in keys): p for p in points if "s" in p}
    tiles = sorted({k[:3] for k in ok}, reverse=True)
    parts = ((True, 0, 0), (False, 2, 0), (False, 4, 0), (False, 0, 4), (False, 0, 8))
    print("ns per iteration (measured / predicted): dots alone, then the increment of exp2, 2 and 4 masks,")
    print("4 and 8 FMAs, each added alone")
    for tile in tiles:
        for r in (1, 2):
            base = ok.get((*tile, False, 0, 0, r))
            if base is None:
                continue
            cells = []
            pred = {}
            for e, m, f in ((False, 0, 0), *parts):
                q = dict(zip(keys, (*tile, e, m, f, r), strict=True))
                pred[(e, m, f)] = predict_us(q) * 1e-6 / ITERS
            b_meas, b_pred = base["s_per_iter"], pred[(False, 0, 0)]
            cells.append(f"{b_meas * 1e9:5.0f}/{b_pred * 1e9:5.0f}")
            for e, m, f in parts:
                p = ok.get((*tile, e, m, f, r))
                if p is None:
                    cells.append("    -")
                    continue
                cells.append(
                    f"+{(p['s_per_iter'] - b_meas) * 1e9:4.0f}/{(pred[(e, m, f)] - b_pred) * 1e9:+5.0f}"
                )
            print(f"{tile[0]}x{tile[1]} w{tile[2]} r{r}: " + "  ".join(cells))
    from calibrate.analysis import alu_op_cost_fields

    field = alu_op_cost_fields(points)["alu_op_cost"]
    print(f"alu_op_cost (the profile's): {field['value']:.3f} ({field['note']})")


def _stage_latency(_: argparse.Namespace) -> None:
    """calibration_stage_latency.json (A re-read from L2) and calibration_stage_latency_dram.json (A
    streamed from DRAM): per tile and programs per SM, the loop's time per iteration per SM at 2 to 5
    stages, measured / predicted by the installed package (predicted here: about a minute each)."""
    sys.path.insert(0, str(HERE.parent))
    from calibrate.stage_latency import ITERS, predict_us

    for name in ("calibration_stage_latency.json", "calibration_stage_latency_dram.json"):
        path = DATA / name
        if not path.exists():
            continue
        points = [p for p in json.loads(path.read_text())["points"] if "s" in p]
        print(f"{name}: ns per iteration per SM (measured / predicted) at 2, 3, 4, 5 stages")
        keys = ("block_m", "block_k", "n", "warps", "stages", "per_sm")
        by = {tuple(p[k] for k in keys): p for p in points}
        for tile in sorted({k[:4] for k in by}, reverse=True):
            for r in sorted({k[5] for k in by}):
                cells = []
                for s in (2, 3, 4, 5):
                    p = by.get((*tile, s, r))
                    if p is None:
                        cells.append("       -   ")
                        continue
                    pred = predict_us(p) * 1e-6 / ITERS / r
                    cells.append(f"{p['s_per_iter'] / r * 1e9:5.0f}/{pred * 1e9:5.0f}")
                print(f"  {tile[0]}x{tile[1]} n{tile[2]} w{tile[3]} r{r}: " + "  ".join(cells))


def lone_step_fit(points: list[dict]) -> tuple[float, float] | None:
    """(latency s, rate B/s) of the least-squares line of a lone block's step (``s_per_iter``) against its A
    tile's bytes, over the points of 128-byte rows (``block_k`` 64, float16); the rate is 0 where the slope is
    not positive. None for fewer than two such points."""
    rows = [p for p in points if p["block_k"] == 64]
    if len(rows) < 2:
        return None
    b, a = slope([p["block_m"] * p["block_k"] * 2 for p in rows], [p["s_per_iter"] for p in rows])
    return a, (1.0 / b if b > 0 else 0.0)


def _lone_step(args: argparse.Namespace) -> None:
    """calibration_lone_step.json (``stage_latency.py --lone``): one program an SM streaming A from DRAM, per
    SM count and stages, each tile's ns a step (measured / predicted: the prediction the run recorded, else
    the installed model's, on CPU), and at each SM and stage count the least-squares line of the measured
    step against the tile's bytes: its intercept (a lone block's DRAM latency) and the rate its slope gives
    (the SM's copy rate), beside the profile's ``tma_ddr_latency_s`` and ``ddr_stream_per_sm_bytes_per_s``
    and the per-load rate :func:`calibrate.analysis.lone_step_fields` reads off the fewest SMs."""
    from calibrate import analysis

    from tilesight.hardware import load_profile

    path = Path(args.data) / "calibration_lone_step.json"
    if not path.exists():
        print(f"{path.name}: not measured yet (python3 benchmarks/calibrate/stage_latency.py --lone)")
        return
    hw = load_profile("h200")
    doc = json.loads(path.read_text())
    iters = doc["iters"]
    points = [p for p in doc["points"] if "s_per_iter" in p]
    print(f"{path.name}: ns a step, measured / predicted, by A tile (BLOCK_M x BLOCK_K, float16)")
    for sms, stages in sorted({(p["sms"], p["stages"]) for p in points}):
        group = sorted(
            (p for p in points if (p["sms"], p["stages"]) == (sms, stages)),
            key=lambda p: p["block_m"] * p["block_k"],
        )
        cells = []
        for p in group:
            us = _lone_predicted_us(p)
            cells.append(f"{p['block_m']}x{p['block_k']} {p['s_per_iter'] * 1e9:.0f}/{us * 1e3 / iters:.0f}")
        print(f"  {sms} SMs, {stages} stages: " + "  ".join(cells))
        fit = lone_step_fit(group)
        if fit is not None:
            latency, rate = fit
            at = f"{rate / 1e9:.0f} GB/s" if rate > 0 else "no positive slope"
            print(f"    128-byte rows: {latency * 1e9:.0f} ns + bytes at {at}")
    print(
        f"  profile: tma_ddr_latency_s {hw.tma_ddr_latency_s * 1e9:.0f} ns, "
        f"ddr_stream_per_sm_bytes_per_s {hw.ddr_stream_per_sm_bytes_per_s / 1e9:.1f} GB/s"
    )
    try:
        f = analysis.lone_step_fields(points)["ddr_stream_per_sm_bytes_per_s"]
    except ValueError as e:
        print(f"  per-load rate: {e}")
    else:
        print(f"  per-load rate {f['value'] / 1e9:.1f} GB/s ({f['note']})")
    _print_cost_fit(points)


def _lone_predicted_us(p: dict) -> float:
    """A lone-step probe point's prediction in us: the one its run recorded, else the installed model's."""
    from calibrate.stage_latency import predict_us

    if "predicted_us" in p:
        return p["predicted_us"]
    keys = ("block_m", "block_k", "n", "warps", "stages", "per_sm", "sms", "dram")
    return predict_us({k: p[k] for k in keys})


def _print_cost_fit(points: list[dict]) -> None:
    """The lone-step probes' three-term fit (:func:`calibrate.analysis.lone_step_cost_fit`), or why not."""
    from calibrate import analysis

    try:
        f = analysis.lone_step_cost_fit(points)
    except ValueError as e:
        print(f"  with an iteration's own cost: {e}")
        return
    print(
        f"  with an iteration's own cost ({f['points']} points at N 16 on 4 warps): "
        f"({f['latency_s'] * 1e9:.0f} ns + bytes at {f['bytes_per_s'] / 1e9:.1f} GB/s) / (stages - 1) "
        f"+ {f['cost_s'] * 1e9:.1f} ns, rms {f['rms_s'] * 1e9:.0f} ns"
    )


def _lone_deep(args: argparse.Namespace) -> None:
    """calibration_lone_deep.json (``stage_latency.py --deep``): one program an SM on 16 SMs streaming A from
    DRAM at 2-5 stages, per warps and N, each A tile's ns a step (measured / predicted, the installed model's
    on CPU where the run recorded none) and measured x (stages - 1): flat where the step keeps falling as
    1 / (stages - 1), growing where the bytes in flight stop paying."""
    path = Path(args.data) / "calibration_lone_deep.json"
    if not path.exists():
        print(f"{path.name}: not measured yet (python3 benchmarks/calibrate/stage_latency.py --deep)")
        return
    doc = json.loads(path.read_text())
    iters = doc["iters"]
    points = [p for p in doc["points"] if "s_per_iter" in p]
    print(f"{path.name}: ns a step, measured / predicted [measured x (stages - 1)], by stages")
    for (warps, n, bm, bk), group in itertools.groupby(
        sorted(points, key=lambda p: (p["warps"], p["n"], p["block_m"], p["block_k"], p["stages"])),
        key=lambda p: (p["warps"], p["n"], p["block_m"], p["block_k"]),
    ):
        cells = []
        for p in group:
            us = _lone_predicted_us(p)
            step = p["s_per_iter"] * 1e9
            cells.append(f"s{p['stages']} {step:.0f}/{us * 1e3 / iters:.0f} [{step * (p['stages'] - 1):.0f}]")
        print(f"  {warps} warps, N {n}, A {bm}x{bk} ({bm * bk * 2 // 1024} KB): " + "  ".join(cells))
    _print_cost_fit(points)


def slope(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Least-squares line through the points: (slope, intercept)."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)
    return b, my - b * mx


def per_tile_costs(rows: list[dict]) -> list[dict]:
    """Per kernel and tile config of the ``persistent_tiles`` probe: the time a tile adds at each K (the slope
    of p50 over tiles per program), and from the two K the time an iteration of the K loop adds and what a
    tile costs besides (the slope at the smaller K less its iterations at that rate)."""
    keys = ("kernel", "block_m", "block_n", "block_k", "num_warps", "num_stages")
    groups: dict[tuple, dict[int, list[tuple[int, float]]]] = collections.defaultdict(
        lambda: collections.defaultdict(list)
    )
    for r in rows:
        groups[tuple(r[k] for k in keys)][r["K"]].append((r["tiles_per_program"], r["p50_us"]))
    out = []
    for key, by_k in sorted(groups.items()):
        tile_us = {k: slope([t for t, _ in pts], [us for _, us in pts])[0] for k, pts in sorted(by_k.items())}
        ks = sorted(tile_us)
        row = dict(zip(keys, key, strict=True), tile_us=tile_us)
        if len(ks) >= 2:
            iters = [k / row["block_k"] for k in (ks[0], ks[-1])]
            per_iter = (tile_us[ks[-1]] - tile_us[ks[0]]) / (iters[1] - iters[0])
            row.update(iter_ns=per_iter * 1e3, rest_us=tile_us[ks[0]] - iters[0] * per_iter)
        out.append(row)
    return out


def _causal_twins(args: argparse.Namespace) -> None:
    """Every non-spilling attention launch of the pooled Triton data (benchmarks/data and its validation sets,
    less :data:`POOL_EXCLUDED`) with a 64-row tile on 4 warps at head dim 64 or a 128 x 128 tile on 8 warps at
    head dim 128, grouped by kernel (one loop, staged, descriptors; causal and not): how many and the median
    predicted / measured, causal beside its non-causal twin (docs/accuracy-triton.md and docs/known-gaps.md,
    stop 55)."""
    import accuracy

    import tilesight

    groups = collections.defaultdict(list)
    for record, where in _pooled_records(Path(args.data), "attention/"):
        if record.get("n_spills"):
            continue
        c, head = record["constexprs"], record["problem"]["head_dim"]
        tile = (c["BLOCK_M"], c["BLOCK_N"], record["num_warps"], head)
        if not (tile[0] == 64 and tile[2] == 4 and head == 64) and tile != (128, 128, 8, 128):
            continue
        launch = accuracy.rebuild(record, where)
        report = tilesight.estimate(launch.fn, launch.grid, *launch.args, hw="h200", **launch.options)
        groups[(tile, record["id"].split("/")[1])].append(
            report.latency_s * 1e6 / record["measured_us"]["p50"]
        )
    for ((bm, bn, warps, head), kind), v in sorted(groups.items()):
        print(f"{bm} x {bn} on {warps} warps, head dim {head}, {kind:>16}: {len(v):3d} launches, median "
              f"predicted / measured {statistics.median(v):.3f}")  # fmt: skip


def _persistent_tiles(_: argparse.Namespace) -> None:
    """persistent_tiles/persistent_tiles_h200.jsonl: per tile config, a tile's time at each K, an iteration's,
    and the rest of a tile."""
    rows = [json.loads(line) for line in (DATA / "persistent_tiles" / "persistent_tiles_h200.jsonl").open()]
    print("kernel            tile           us a tile at each K       ns an iteration  us a tile besides")
    for r in per_tile_costs(rows):
        tile = f"{r['block_m']}x{r['block_n']}x{r['block_k']} w{r['num_warps']} s{r['num_stages']}"
        at_k = "  ".join(f"K{k}: {us:6.2f}" for k, us in r["tile_us"].items())
        extra = f"{r['iter_ns']:8.0f}  {r['rest_us']:8.2f}" if "iter_ns" in r else ""
        print(f"{r['kernel']:<16}  {tile:<14} {at_k}  {extra}")


def local_rows(points: list[dict], sm_count: int = SM_COUNT) -> list[dict]:
    """The ``local_l2`` / ``local_runs`` probes' points as rows: each one's frames per SM and over the chip,
    where they live (``L2`` where blocks reserved shared memory, else ``L1``), the rate per SM and, for a
    dependent point, the time a step (one run of ``unroll`` reloads) takes."""
    rows = []
    for p in points:
        steps = p["iters"] * p["frame_bytes"] // (4 * p["unroll"])
        rows.append({
            "frame_bytes": p["frame_bytes"], "warps": p["warps"], "blocks_per_sm": p["blocks_per_sm"],
            "run": p["unroll"], "reserve": bool(p.get("shared_pad_bytes")),
            "dependent": bool(p.get("dependent")), "footprint_kb": p["footprint_per_sm_bytes"] / 1024,
            "chip_mb": p["footprint_bytes"] / 1e6, "gb_s_per_sm": p["bytes_per_s"] / sm_count / 1e9,
            "ns_per_step": p["s"] / steps * 1e9,
        })  # fmt: skip
    return rows


def _local(args: argparse.Namespace) -> None:
    """The ``local_l2`` and ``local_runs`` probes (stop 59; docs/known-gaps.md, what a spilled byte costs),
    from whichever ``calibration_local*.json`` of the data folder holds each (one run may hold both)."""
    found: dict[str, tuple[str, list[dict]]] = {}
    for path in sorted(Path(args.data).glob("calibration_local*.json")):
        measurements = json.loads(path.read_text()).get("measurements", {})
        for probe in ("local_l2", "local_runs"):
            if probe in measurements and "points" in measurements[probe]:
                found.setdefault(probe, (path.name, measurements[probe]["points"]))
    for probe in ("local_l2", "local_runs"):
        if probe not in found:
            run = f"python3 benchmarks/calibrate/run.py --out $OUT/calibration_{probe}.json --only {probe}"
            print(f"{probe}: not measured yet ({run})")
            continue
        name, points = found[probe]
        print(f"{probe} ({name}):")
        for r in local_rows(points):
            where = "reserve" if r["reserve"] else "no reserve"
            what = f"frame {r['frame_bytes']:5d} B, {r['warps']} warps x {r['blocks_per_sm']} blocks, {where}"
            size = f"{r['footprint_kb']:6.0f} KB an SM ({r['chip_mb']:5.1f} MB)"
            step = f", {r['ns_per_step']:7.1f} ns a run of {r['run']}" if r["dependent"] else ""
            print(f"  {what}: {size}, {r['gb_s_per_sm']:6.1f} GB/s an SM{step}")
    if "local_runs" in found:
        from calibrate import analysis

        from tilesight.hardware import load_profile

        try:
            fields = analysis.local_reload_latency(found["local_runs"][1])
        except ValueError as exc:
            print(f"local_l1_latency_s: not read ({exc})")
            return
        f = fields["local_l1_latency_s"]
        print(f"local_l1_latency_s = {f['value']:.4e} ({f['note']})")
        l2, ref = fields["_l2_step_s"]["value"], load_profile("h200").l2_latency_s
        print(
            f"a run of one reload from L2: {l2 * 1e9:.1f} ns "
            f"(the model charges l2_latency_s, {ref * 1e9:.1f} ns)"
        )


def sfu_mix_rows(points: list[dict], fma_per_s: float, sfu_per_s: float) -> list[dict]:
    """Per ``sfu_mix`` point (exp2 chains beside FMA chains, ``fmas_per_exp2`` FMAs an exp2): the
    measured time, the two pipelines' times at the given chip rates (``fma_per_s``: the profile's
    ``cuda_flops_per_s`` / 2, ``sfu_per_s``: its ``sfu_ops_per_s``), their max (what the model takes where
    the two overlap), and where the FMAs' time is the larger, the FMA issue slots one exp2 takes beside them,
    ``(measured x fma_per_s - fmas) / exp2`` (None where the exponentials' time is the larger: the FMAs then
    hide)."""
    rows = []
    for p in sorted(points, key=lambda q: q["fmas_per_exp2"]):
        fma_s, sfu_s = p["fma_ops"] / fma_per_s, p["exp2_ops"] / sfu_per_s
        slots = (p["s"] * fma_per_s - p["fma_ops"]) / p["exp2_ops"] if fma_s > sfu_s else None
        rows.append(
            {
                "fmas_per_exp2": p["fmas_per_exp2"],
                "s": p["s"],
                "fma_s": fma_s,
                "sfu_s": sfu_s,
                "over_max": p["s"] / max(fma_s, sfu_s),
                "issue_slots": slots,
            }
        )
    return rows


def _sfu_mix(args: argparse.Namespace) -> None:
    """calibration_sfu_mix*.json: exp2 beside FMAs, the time against the two pipelines' max."""
    from tilesight.hardware import load_profile

    hw = load_profile("h200")
    path = _probe_file(
        args,
        "calibration_sfu_mix_h100.json",
        "",
        "python3 benchmarks/calibrate/run.py --out OUT.json --only sfu_mix,sfu,cuda_core",
    )
    doc = json.loads(path.read_text())
    m = doc["measurements"]
    # the run's own rates where it measured them, else the profile's
    fma = m.get("cuda_core", {}).get("flops_per_s", hw.cuda_flops_per_s) / 2
    sfu = m.get("sfu", {}).get("exp2_ops_per_s", hw.sfu_ops_per_s)
    print(f"{path.name} ({doc['meta'].get('gpu')}): FMA {fma:.3e} /s, exp2 {sfu:.3e} /s")
    shapes: dict[tuple[int, int], list[dict]] = collections.defaultdict(list)
    for p in m["sfu_mix"]["points"]:
        shapes[p["warps"], p["programs_per_sm"]].append(p)
    for (warps, per_sm), points in shapes.items():
        print(f" {warps} warps x {per_sm} programs an SM ({warps * per_sm // 4} warps a scheduler):")
        _print_sfu_mix(sfu_mix_rows(points, fma, sfu))


def alu_form_rows(points: list[dict], sms: int, cuda_flops_per_s: float) -> list[dict]:
    """Per ``alu_forms`` point: the warp instructions an SM issued a nanosecond (``warp_instructions / s /
    sms``), that against the first form's (``fma_registers``, the profile's calibration form) and against the
    rate the profile prices a warp instruction at (``cuda_flops_per_s / 2`` lane operations a second over the
    SMs, 32 lanes a warp instruction)."""
    modelled = cuda_flops_per_s / 2 / sms / 32
    base = None
    rows = []
    for p in points:
        rate = p["warp_instructions"] / p["s"] / sms
        base = base or rate
        rows.append(
            {
                "form": p["form"],
                "loop_instructions": p["loop_instructions"],
                "per_ns": rate * 1e-9,
                "over_first": rate / base,
                "over_profile": rate / modelled,
            }
        )
    return rows


def _alu_forms(args: argparse.Namespace) -> None:
    """calibration_alu_forms*.json: the CUDA cores' issue rate by instruction form."""
    from tilesight.hardware import load_profile

    hw = load_profile("h200")
    path = _probe_file(args, "calibration_alu_forms.json", "alu")
    doc = json.loads(path.read_text())
    m = doc["measurements"]["alu_forms"]
    print(
        f"{path.name} ({doc['meta'].get('gpu')}): {m['programs_per_sm']} programs of {m['warps']} warps an "
        f"SM; the profile's CUDA rate {hw.cuda_flops_per_s:.3e} FLOP/s"
    )
    for r in alu_form_rows(m["points"], m["sms"], hw.cuda_flops_per_s):
        print(
            f"  {r['form']:18s} {r['loop_instructions']:5d} loop instructions: {r['per_ns']:6.2f} warp "
            f"instructions an SM a ns, {r['over_first']:.2f}x the FMA chain's, "
            f"{r['over_profile']:.2f}x the profile's"
        )


def stream_fma_fit(points: list[dict], sms: int, ddr_s: float) -> dict:
    """The ``stream_fma`` probe's points read as ``t = (t_cuda^p + t_ddr^p)^(1/p)``: ``t_ddr`` the stream's
    time with no steps (``ddr_s``), ``t_cuda`` its SASS instructions (every warp's, straight-line) over
    ``rate`` warp instructions an SM a second. ``rate`` and ``p`` by least squares on the relative error over
    every point with steps (``rate`` from 0.70 to 1.05 of the slope between the two points of most steps,
    ``p`` from 1 to 8); returns the rate, the slope's rate, p, and each point's measured and fitted
    seconds."""

    def instructions(q: dict) -> float:
        return sum(q["sass_ops"].values()) * (q["elements"] // q["block"]) * q["warps"] / sms

    steps = sorted((q for q in points if q["steps"]), key=lambda q: q["steps"])
    counted = [(instructions(q), q["s"]) for q in steps]  # (instructions an SM, measured seconds)
    slope = (counted[-1][0] - counted[-2][0]) / (counted[-1][1] - counted[-2][1])

    def fitted(n: float, rate: float, p: float) -> float:
        return ((n / rate) ** p + ddr_s**p) ** (1 / p)

    grid = [(slope * (0.70 + 0.005 * i), 1 + 0.05 * j) for i in range(71) for j in range(141)]
    rate, p = min(grid, key=lambda rp: sum((fitted(n, *rp) / s - 1) ** 2 for n, s in counted))
    rows = [
        {**q, "cuda_s": instructions(q) / rate, "fit_s": fitted(instructions(q), rate, p)} for q in points
    ]
    return {"rate": rate, "slope_rate": slope, "p": p, "rows": rows}


def _stream_fma(args: argparse.Namespace) -> None:
    """calibration_stream_fma*.json: how CUDA-core and DRAM time combine in a streaming element-wise
    kernel."""
    from tilesight.hardware import load_profile

    hw = load_profile("h200")
    path = _probe_file(args, "calibration_stream_fma.json", "streamfma")
    doc = json.loads(path.read_text())
    m = doc["measurements"]["stream_fma"]
    sms = m["sms"]
    print(f"{path.name} ({doc['meta'].get('gpu')}), {sms} SMs")
    peak = hw.schedulers_per_sm * hw.sm_clock_hz
    profile = hw.cuda_flops_per_s / 2 / hw.warp_size / hw.sm_count
    for block, warps in sorted({(q["block"], q["warps"]) for q in m["points"]}):
        for constants in (True, False):
            pts = [
                q
                for q in m["points"]
                if (q["block"], q["warps"], q["constants"]) == (block, warps, constants)
            ]
            ddr_s = next(q["s"] for q in pts if not q["steps"])
            fit = stream_fma_fit(pts, sms, ddr_s)
            print(
                f"  BLOCK {block}, {warps} warps, {'constants' if constants else 'a register'}: DRAM alone "
                f"{ddr_s * 1e6:.1f} us; fitted {fit['rate'] / 1e9:.2f} warp instructions an SM a ns "
                f"({fit['rate'] / peak:.2f} of the issue peak, {fit['rate'] / profile:.2f}x the profile's "
                f"FMA-chain rate; the slope over the most steps {fit['slope_rate'] / 1e9:.2f}), "
                f"p = {fit['p']:.2f}"
            )
            for r in fit["rows"]:
                if r["steps"]:
                    print(
                        f"    {r['steps']:4d} steps: measured {r['s'] * 1e6:7.1f} us, CUDA "
                        f"{r['cuda_s'] * 1e6:7.1f}, max {max(r['cuda_s'], ddr_s) * 1e6:7.1f}, fitted "
                        f"{r['fit_s'] * 1e6:7.1f}"
                    )


def barrier_meeting_costs(points: list[dict]) -> list[dict]:
    """Per (warps, blocks an SM, FMAs a step) of the ``barrier`` probe: the seconds one meeting adds to a
    step, (step with ``b`` barriers - step with none) / ``b``, for every ``b`` > 0 measured beside a
    zero-barrier point. A point that failed (an ``error`` key) is left out."""
    base = {
        (p["warps"], p["blocks_per_sm"], p["work"]): p["s_per_step"]
        for p in points
        if p.get("barriers") == 0 and "error" not in p
    }
    rows = []
    for p in points:
        key = (p["warps"], p["blocks_per_sm"], p["work"])
        if "error" in p or not p.get("barriers") or key not in base:
            continue
        extra = (p["s_per_step"] - base[key]) / p["barriers"]
        rows.append({"warps": key[0], "blocks_per_sm": key[1], "work": key[2], "barriers": p["barriers"],
                     "step_s": p["s_per_step"], "meeting_s": extra})  # fmt: skip
    return rows


def _barrier(args: argparse.Namespace) -> None:
    """calibration_barrier*.json: what one meeting of a block's warps at a CTA barrier adds to a step."""
    path = _probe_file(args, "calibration_barrier.json", "barrier")
    doc = json.loads(path.read_text())
    print(f"{path.name} ({doc['meta'].get('gpu')}): ns a meeting (step ns at that count)")
    for r in barrier_meeting_costs(doc["measurements"]["barrier"]["points"]):
        ns, step = r["meeting_s"] * 1e9, r["step_s"] * 1e9
        print(f" {r['warps']:2d} warps x {r['blocks_per_sm']} blocks an SM, {r['work']:2d} FMAs a step, "
              f"{r['barriers']} barriers: {ns:6.1f} ns ({step:6.1f})")  # fmt: skip


def _predict_hot_point(p: dict, hw: str = "h200") -> float:
    """The installed model's seconds for one ``atomics_hot`` point: the probe's ``atomic_scatter`` bincount
    (16M random bins' adds, 1,024 a program on 4 warps) at its bin count and dtype."""
    import numpy as np

    import tilesight

    kern = _probe_kernels()
    n, bins = int(p["elements"]), int(p["bins"])
    idx = tilesight.TensorSpec((n,), "int32", values=np.random.default_rng(79).integers(0, bins, n, np.int32))
    out = tilesight.TensorSpec((bins,), p["dtype"])
    relaxed = p.get("sem") == "relaxed"
    report = tilesight.estimate(
        kern.atomic_scatter, (-(-n // 1024),), idx, out, n, hw=hw, BLOCK=1024, RELAXED=relaxed, num_warps=4
    )
    return report.latency_s


def _atomics_hot(args: argparse.Namespace) -> None:
    """calibration_atomics_hot*.json: tl.atomic_add of ones at random bins, the element rate by bin count,
    beside the installed model's prediction."""
    path = _probe_file(args, "calibration_atomics_hot.json", "hot")
    doc = json.loads(path.read_text())
    gpu = doc["meta"].get("gpu", "")
    hw = "h100" if "H100" in gpu else "h200"
    print(f"{path.name} ({gpu}): adds / s by bins (measured us, predicted us for the {hw} profile)")
    for p in doc["measurements"]["atomics_hot"]["points"]:
        pred = _predict_hot_point(p, hw)
        flag = "" if p.get("sum_ok") else "  (sum wrong)"
        print(
            f"  {p['dtype']:8s} {p.get('sem', 'acq_rel'):7s} {p['bins']:9d} bins: "
            f"{p['elements_per_s'] / 1e9:8.2f} G/s  "
            f"{p['s'] * 1e6:9.1f} us, predicted {pred * 1e6:9.1f} us ({p['s'] / pred:5.2f}x){flag}"
        )


def _print_sfu_mix(rows: list[dict]) -> None:
    for r in rows:
        slots = "" if r["issue_slots"] is None else f", an exp2 takes {r['issue_slots']:.2f} FMA issue slots"
        print(
            f"  {r['fmas_per_exp2']:4.1f} FMAs an exp2: {r['s'] * 1e3:7.3f} ms "
            f"(FMAs {r['fma_s'] * 1e3:6.3f}, exp2 {r['sfu_s'] * 1e3:6.3f}), "
            f"{r['over_max']:.2f}x their max{slots}"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "what",
        choices=(
            "overlap",
            "overlap_model",
            "narrow",
            "tilelang",
            "merges",
            "residency",
            "smem",
            "feed",
            "tma",
            "steps",
            "attn_mix",
            "stage_latency",
            "lone_step",
            "lone_deep",
            "persistent_tiles",
            "chains_model",
            "mask_model",
            "wrapped",
            "regs_a",
            "probes_model",
            "bottlenecks",
            "row_rates",
            "row_ring",
            "unaligned",
            "tile_loop",
            "tile_loop_model",
            "balance",
            "causal_twins",
            "ddr_mix",
            "ddr_flush",
            "split_mix",
            "reduce_mix",
            "local",
            "sfu_mix",
            "barrier",
            "atomics_hot",
            "alu_forms",
            "stream_fma",
        ),
    )
    ap.add_argument(
        "--data",
        default=str(DATA),
        help="sweep data for 'residency'; the probes' folder for 'local', 'lone_step' and 'lone_deep'; "
        "the folder or file for 'wrapped', 'regs_a' and 'mask_model'",
    )
    ap.add_argument("--case", default="", help="'merges': also each NCU case whose id contains this")
    ap.add_argument("--family", default="memory", help="'bottlenecks': the family (memory, gemm, attention)")
    ap.add_argument(
        "--sass", action="store_true", help="'mask_model': also each build's K/V iteration split at its waits"
    )
    args = ap.parse_args(argv)
    {
        "overlap": _overlap,
        "overlap_model": _overlap_model,
        "narrow": _narrow,
        "tilelang": _tilelang,
        "merges": _merges,
        "residency": _residency,
        "smem": _smem,
        "feed": _feed,
        "tma": _tma,
        "steps": _steps,
        "attn_mix": _attn_mix,
        "stage_latency": _stage_latency,
        "lone_step": _lone_step,
        "lone_deep": _lone_deep,
        "persistent_tiles": _persistent_tiles,
        "chains_model": _chains_model,
        "mask_model": _mask_model,
        "wrapped": _wrapped_model,
        "regs_a": _regs_a_model,
        "probes_model": _probes_model,
        "bottlenecks": _bottlenecks,
        "row_rates": _row_rates,
        "row_ring": _row_ring,
        "unaligned": _unaligned,
        "tile_loop": _tile_loop,
        "tile_loop_model": _tile_loop_model,
        "balance": _balance,
        "causal_twins": _causal_twins,
        "ddr_mix": _ddr_mix,
        "ddr_flush": _ddr_flush,
        "split_mix": _split_mix,
        "reduce_mix": _reduce_mix,
        "local": _local,
        "sfu_mix": _sfu_mix,
        "barrier": _barrier,
        "atomics_hot": _atomics_hot,
        "alu_forms": _alu_forms,
        "stream_fma": _stream_fma,
    }[args.what](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())

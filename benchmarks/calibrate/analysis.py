"""Pure post-processing of calibration measurements (no torch, no GPU): the L2-cliff estimate and the mapping
from measurements to profile fields. Tested on CPU with synthetic data (tests/benchmarks/calibrate/)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

# The effective L2 capacity is where the read-bandwidth sweep has fallen this fraction of the way from the L2
# plateau to the DRAM plateau (the task's definition: "halfway").
CLIFF_FRACTION = 0.5
# Bytes the read-bandwidth sweep keeps in flight per SM: 4 programs per SM (STREAM_PROGRAMS_PER_SM) x one
# 1024-element fp32 block each (SWEEP_BLOCK); the sweep's re-read loop is not software-pipelined, so one load
# batch per program is outstanding. Its plateaus are latency-bound, so Little's law turns them into the
# memory latency *under load* that the engine's pipelines see (the pointer chase gives the idle latency).
SWEEP_INFLIGHT_BYTES_PER_SM = 4 * 1024 * 4
# The narrow_strided probe's layout: 1024-element blocks on 4 warps hold 16 bytes a thread, so the mask of an
# odd length splits each thread's access into element-wide ones 16 bytes apart (measure.STRIDED_BLOCK and
# STRIDED_WARPS; the Triton frontend reads the same from the TTGIR); L2 sectors are 32 bytes.
STRIDED_LANE_BYTES = 16
SECTOR_BYTES = 32
# The DRAM plateau is the median bandwidth of the sweep's largest working sets: this many of them.
DRAM_PLATEAU_POINTS = 2

# tensor-core dtypes measured (profile key -> how the run names it) and the profile keys filled from another's
# measurement, with the reason written into the source.
TC_DERIVED = {
    "float32": ("tfloat32", "fp32 dots run as tf32 (Triton's default input_precision): the tfloat32 rate"),
    "float8_e5m2": ("float8_e4m3fn", "same rate as the float8_e4m3fn measurement (one fp8 datapath)"),
}


def l2_cliff(sizes_bytes: Sequence[float], bw_bytes_per_s: Sequence[float]) -> dict[str, float]:
    """Locate the L2 cliff in a read-bandwidth sweep (sizes ascending).

    L2 plateau = the highest bandwidth seen; DRAM plateau = median of the last DRAM_PLATEAU_POINTS points.
    The effective capacity is the first size after the peak where bandwidth drops below
    ``dram + CLIFF_FRACTION * (l2 - dram)``, interpolated linearly in log(size) between the two neighbouring
    sweep points. Raises ValueError when the sweep shows no cliff (too few points, unsorted, or never drops).
    """
    if len(sizes_bytes) != len(bw_bytes_per_s) or len(sizes_bytes) < DRAM_PLATEAU_POINTS + 2:
        need = DRAM_PLATEAU_POINTS + 2
        raise ValueError(f"l2_cliff: need matching sizes and bandwidths, at least {need} points")
    if any(b <= a for a, b in zip(sizes_bytes, sizes_bytes[1:], strict=False)):
        raise ValueError("l2_cliff: sizes must be strictly ascending")
    peak_i = max(range(len(bw_bytes_per_s)), key=lambda i: bw_bytes_per_s[i])
    l2 = bw_bytes_per_s[peak_i]
    tail = sorted(bw_bytes_per_s[-DRAM_PLATEAU_POINTS:])
    dram = (tail[(len(tail) - 1) // 2] + tail[len(tail) // 2]) / 2
    if not dram < l2:
        raise ValueError(f"l2_cliff: no cliff (L2 plateau {l2:.3g} <= DRAM plateau {dram:.3g})")
    threshold = dram + CLIFF_FRACTION * (l2 - dram)
    for i in range(peak_i + 1, len(sizes_bytes)):
        if bw_bytes_per_s[i] < threshold:
            s0, s1 = math.log(sizes_bytes[i - 1]), math.log(sizes_bytes[i])
            b0, b1 = bw_bytes_per_s[i - 1], bw_bytes_per_s[i]
            frac = (b0 - threshold) / (b0 - b1)
            return {
                "l2_plateau_bytes_per_s": l2,
                "dram_plateau_bytes_per_s": dram,
                "threshold_bytes_per_s": threshold,
                "effective_bytes": math.exp(s0 + frac * (s1 - s0)),
            }
    raise ValueError("l2_cliff: bandwidth never falls below the halfway threshold")


def _ok(m: Any) -> bool:
    return isinstance(m, Mapping) and "error" not in m


# Widest warp-instruction span of the narrow_width probe's full-rate element-wide loads (the model's
# resources.LSU_FULL_RATE_SPAN_BYTES).
FULL_SPAN_BYTES = 256


def profile_fields(
    measurements: Mapping[str, Any], sm_count: int | None = None, launch_overhead_s: float | None = None
) -> dict[str, dict[str, Any]]:
    """Profile field -> {"value", "note"} for every measurement that succeeded; failed ones are left out.

    With ``sm_count``, the memory latencies are the loaded ones derived from the sweep (Little's law); the
    pointer chase's idle latencies are used only without it. Rates read from one kernel's whole time (the
    narrow_strided probe's) take the launch overhead out of it: the ``launch`` probe's where the run has one,
    else ``launch_overhead_s`` (the profile's), else none."""
    out: dict[str, dict[str, Any]] = {}

    def put(key: str, value: Any, note: str) -> None:
        if isinstance(value, int | float) and math.isfinite(value) and value > 0:
            out[key] = {"value": value, "note": note}

    ddr = measurements.get("ddr")
    if _ok(ddr):
        put(
            "ddr_bw_bytes_per_s", ddr.get("copy_bytes_per_s"), "streaming copy 2 GiB -> 2 GiB, reads + writes"
        )
        put("ddr_read_bw_bytes_per_s", ddr.get("read_bytes_per_s"), "streaming read-reduce over 4 GiB")
    sweep = measurements.get("l2_sweep")
    if _ok(sweep) and _ok(sweep.get("cliff")):
        cliff = sweep["cliff"]
        put("l2_bw_bytes_per_s", cliff.get("l2_plateau_bytes_per_s"), "peak of the read-bandwidth sweep")
        l2_bytes = sweep.get("l2_cache_size_bytes")
        eff = cliff.get("effective_bytes")
        if isinstance(eff, int | float):
            eff = int(min(eff, l2_bytes)) if isinstance(l2_bytes, int) and l2_bytes > 0 else int(eff)
        put("l2_effective_bytes", eff, f"sweep falls {CLIFF_FRACTION:.0%} of the way from L2 to DRAM plateau")
        sms = sm_count
        if isinstance(sms, int) and sms > 0:
            for key, plateau in (
                ("l2_latency_s", cliff.get("l2_plateau_bytes_per_s")),
                ("ddr_latency_s", cliff.get("dram_plateau_bytes_per_s")),
            ):
                if isinstance(plateau, int | float) and plateau > 0 and key not in out:
                    put(
                        key,
                        SWEEP_INFLIGHT_BYTES_PER_SM / (plateau / sms),
                        f"loaded latency by Little's law: {SWEEP_INFLIGHT_BYTES_PER_SM} B in flight per SM "
                        f"over the sweep's plateau of {plateau / 1e12:.2f} TB/s on {sms} SMs",
                    )
    peak = measurements.get("l2_peak")
    if _ok(peak) and peak.get("bytes_per_s", 0) > out.get("l2_bw_bytes_per_s", {}).get("value", 0):
        best = peak.get("best", {})
        put(
            "l2_bw_bytes_per_s",
            peak["bytes_per_s"],
            f"L2 peak probe: {best.get('bytes', 0) >> 20} MiB re-read, BLOCK={best.get('block')}, "
            f"{best.get('warps')} warps, {best.get('programs_per_sm')} programs per SM",
        )
    stream = measurements.get("l2_async")
    if _ok(stream) and stream.get("bytes_per_s", 0) > out.get("l2_bw_bytes_per_s", {}).get("value", 0):
        put(
            "l2_bw_bytes_per_s",
            stream["bytes_per_s"],
            f"L2 async-copy probe: {stream.get('working_set_bytes', 0) / 1e6:.0f} MB L2-resident A streamed "
            "through a pipelined tl.dot loop (the GEMM load path)",
        )
    blk = measurements.get("blocks")
    if _ok(blk):
        slopes = sorted(v["s_per_block_per_sm"] for v in blk.get("series", {}).values())
        if slopes:
            put(
                "block_dispatch_s",
                slopes[len(slopes) // 2],
                "median over warps per block of the time one more trivially short block costs an SM "
                "(slope over 1-512 blocks per SM)",
            )
    nar = measurements.get("narrow")
    if _ok(nar):
        put(
            "lsu_warp_instr_per_s_per_sm",
            nar.get("warp_instr_per_s_per_sm"),
            "fp16 row copy with an odd row stride (element-wide accesses): warp memory instructions per "
            "second per SM",
        )
    tiles = measurements.get("narrow_tiles")
    if _ok(tiles):
        odd = [p["warp_instr_per_s_per_sm"] for p in tiles.get("points", []) if p.get("odd")]
        if odd:
            put(
                "lsu_l2_warp_instr_per_s_per_sm",
                max(odd),
                "element-wide (odd-stride) fp16 tile loops over an L2-resident matrix: the highest warp "
                "memory instruction rate per SM (fewer warps per SM are latency-bound)",
            )
    width = measurements.get("narrow_width")
    if _ok(width):
        # float16 only: float32's element-wide re-reads move twice the bytes an instruction and meet the L2's
        # bandwidth first (their aligned twins take as long)
        l2 = [p for p in width.get("points", []) if p.get("tier") == "l2" and p.get("dtype") == "float16"]
        l2 = [p for p in l2 if p.get("access") != "aligned" and p.get("warp_instr_per_s_per_sm")]
        spans = [(32 * p["lane_stride_bytes"], p["warp_instr_per_s_per_sm"]) for p in l2]
        full = sorted(rate for span, rate in spans if span <= FULL_SPAN_BYTES)
        wide = sorted(rate for span, rate in spans if span > FULL_SPAN_BYTES)
        if full:
            rate = full[len(full) // 2]
            put(
                "lsu_l2_row_warp_instr_per_s_per_sm",
                rate,
                "element-wide float16 row re-reads (8 programs per SM, 4 warps, 8 rows an iteration) from an "
                f"8 MiB L2-resident buffer whose warp instructions span at most {FULL_SPAN_BYTES} bytes "
                "(lanes 2-8 bytes apart, mask-split and odd-stride): the median warp load instruction rate "
                "per SM",
            )
            if wide:
                put(
                    "lsu_wide_span_share",
                    min(1.0, wide[len(wide) // 2] / rate),
                    f"the same re-reads with lanes 16 bytes apart (a mask-split 16-byte vector, 512-byte "
                    f"spans): {wide[len(wide) // 2] / 1e6:.0f} M against {rate / 1e6:.0f} M",
                )
    atom = measurements.get("atomics")
    if _ok(atom):
        rates = [p["atomic_elements_per_s"] for p in atom.get("points", []) if p.get("sum_ok")]
        if rates:
            put(
                "l2_atomic_elements_per_s",
                max(rates),
                "fp32 tl.atomic_add of 128x128 tiles by 1-4 programs per SM, 1-16 programs per tile: the "
                "highest element rate (more programs per SM keep more in flight; sharing a tile is free)",
            )
        alone = [
            p["atomic_elements_per_s"] / sm_count
            for p in (atom.get("points", []) if sm_count else [])
            if p.get("sum_ok") and p["programs_per_sm"] == 1
        ]
        if alone:
            put(
                "atomic_elements_per_s_per_block",
                sorted(alone)[len(alone) // 2],
                "fp32 tl.atomic_add of 128x128 tiles at one program per SM: median element rate per program",
            )
    strided = measurements.get("narrow_strided")
    launch = measurements.get("launch")
    if _ok(launch) and launch.get("empty_kernel_s"):
        launch_overhead_s = launch["empty_kernel_s"]
    if _ok(strided):
        less = launch_overhead_s or 0.0
        rates = []
        for key, row in strided.items():
            dtype, _, n = key.partition("/")
            if dtype == "float16" and n.isdigit() and int(n) % 16 and _ok(row.get("write")):
                # one 2-byte store a lane per instruction, lanes STRIDED_LANE_BYTES apart: each instruction
                # spans 32 lanes x 16 bytes = 16 sectors
                sectors = int(n) / 32 * (32 * STRIDED_LANE_BYTES / SECTOR_BYTES)
                rates.append(sectors / (row["write"]["s"] - less))
        if rates:
            put(
                "l2_partial_write_sectors_per_s",
                min(rates),
                "float16 flat write of a length no multiple of 16 (2-byte stores, lanes "
                f"{STRIDED_LANE_BYTES} bytes apart): 32-byte sectors each instruction spans, over the chip, "
                "per second of the "
                f"kernel's time less {less * 1e6:.3g} us of launch overhead",
            )
    sms_probe = measurements.get("sm_stream")
    if _ok(sms_probe) and sms_probe.get("bytes_per_s_per_sm", 0) > 0:
        inflight = (sms_probe["stages"] - 1) * sms_probe["BM"] * sms_probe["BK"] * 2
        put(
            "ddr_latency_s",
            inflight / sms_probe["bytes_per_s_per_sm"],
            f"loaded latency of the pipelined load path by Little's law: {inflight} B in flight per block "
            f"({sms_probe['stages'] - 1} async-copy stages) over the "
            f"{sms_probe['bytes_per_s_per_sm'] / 1e9:.1f} GB/s one block streams from DRAM",
        )
        put(
            "ddr_stream_per_sm_bytes_per_s",
            sms_probe["bytes_per_s_per_sm"],
            f"sm_stream: programs one an SM each streaming its own {sms_probe['BM']} x {sms_probe['BK']} "
            f"float16 panel from DRAM through a {sms_probe['stages']}-stage pipelined tl.load loop: the "
            "highest per-SM rate",
        )
    tc = measurements.get("tensor_core")
    if _ok(tc):
        for family, table in (("wgmma", "tensor_core"), ("legacy", "tensor_core_legacy")):
            rates = tc.get(family, {})
            for dtype, entry in rates.items():
                if _ok(entry):
                    put(f"{table}.{dtype}", entry.get("flops_per_s"), entry.get("note", ""))
        for dtype, entry in tc.get("torch", {}).items():
            key = f"tensor_core.{dtype}"
            if _ok(entry) and entry.get("flops_per_s", 0) > out.get(key, {}).get("value", 0):
                note = f"torch cross-check beat the Triton GEMM: {entry.get('note', '')}"
                put(key, entry["flops_per_s"], note)
        for table in ("tensor_core", "tensor_core_legacy"):
            for dst, (src, why) in TC_DERIVED.items():
                if f"{table}.{src}" in out:
                    put(f"{table}.{dst}", out[f"{table}.{src}"]["value"], why)
    simple = (
        ("cuda_core", "cuda_flops_per_s", "flops_per_s", "register-resident FP32 FMA chains"),
        ("sfu", "sfu_ops_per_s", "exp2_ops_per_s", "ex2.approx chains"),
        ("smem", "smem_bw_per_sm_bytes_per_s", "bytes_per_s_per_sm", "transposes through shared memory"),
        ("launch", "launch_overhead_s", "empty_kernel_s", "empty Triton kernel under do_bench"),
    )
    for name, key, field, note in simple:
        m = measurements.get(name)
        if _ok(m):
            put(key, m.get(field), note)
    lat = measurements.get("latency")
    if _ok(lat):
        put(
            "ddr_idle_latency_s",
            lat.get("ddr_s"),
            f"pointer chase over {lat.get('ddr_buffer_bytes', '?')} B (one warp's dependent loads on an idle "
            "GPU: the round trip a lone program's unpipelined row load waits)",
        )
        if "ddr_latency_s" not in out:
            put("ddr_latency_s", lat.get("ddr_s"), f"pointer chase over {lat.get('ddr_buffer_bytes', '?')} B")
        if "l2_latency_s" not in out:
            put("l2_latency_s", lat.get("l2_s"), f"pointer chase over {lat.get('l2_buffer_bytes', '?')} B")
    return out


# The wave the scheduler's SM order is read from: this many programs of the one-block-per-SM GEMM (a full wave
# on the 132-SM H200; the probe runs PLACEMENT_TILES = ..., 132, ...).
DISPATCH_CONFIG = (128, 256, 64, 8, 3)


def sm_placement(measurements: Mapping[str, Any], sm_count: int) -> dict[str, list[int]]:
    """The profile's ``[sm_placement]`` from the ``sm_dispatch`` and ``l2_partition`` probes.

    ``dispatch_order``: the SMs of programs 0 .. sm_count-1 of the first full wave of the one-block-per-SM
    GEMM (its last repetition); ``dispatch_order_sparse``: those of its half-wave grid (sm_count // 2
    programs). ``l2_partition``: per SM, 0 when its median L2 latency to the lines warmed from
    another SM is in the warming SM's cluster (every line near: that SM's partition holds them all), 1 when it
    is in the slow cluster (the lines homed in the other partition cross the fabric). The two clusters are
    split at the midpoint of the per-SM medians; both repetitions must agree.
    """
    runs = [
        r for r in measurements["sm_dispatch"]["runs"]
        if tuple(r["config"]) == DISPATCH_CONFIG and r["tiles"] == sm_count
    ]  # fmt: skip
    if not runs:
        raise ValueError(f"sm_placement: no sm_dispatch run of config {DISPATCH_CONFIG} at {sm_count} tiles")
    order = [int(s) for s in max(runs, key=lambda r: r["rep"])["sm"]]
    if sorted(order) != list(range(sm_count)):
        raise ValueError("sm_placement: the wave did not put one program on every SM")
    half = [
        r for r in measurements["sm_dispatch"]["runs"]
        if tuple(r["config"]) == DISPATCH_CONFIG and r["tiles"] == sm_count // 2
    ]  # fmt: skip
    sparse = [int(s) for s in max(half, key=lambda r: r["rep"])["sm"]] if half else []
    labels = []
    for rep in sorted({r["rep"] for r in measurements["l2_partition"]["rows"]}):
        rows = [r for r in measurements["l2_partition"]["rows"] if r["rep"] == rep]
        rows.sort(key=lambda r: r["sm"])
        med = [sorted(r["cycles"])[len(r["cycles"]) // 2] for r in rows]
        cut = (min(med) + max(med)) / 2
        warm = rows[0]["warm_sm"]
        near = med[warm] <= cut
        labels.append([0 if (m <= cut) == near else 1 for m in med])
    if any(lab != labels[0] for lab in labels):
        raise ValueError("sm_placement: the l2_partition repetitions disagree on the SM partitions")
    return {"dispatch_order": order, "dispatch_order_sparse": sparse, "l2_partition": labels[0]}


# local_memory probe: frames "well inside L1" take at most this much of the SM's L1 / shared array per SM
# (half of it: the rest of the L1's lines stay free for the probe's stores), and frames "in DRAM" are at least
# this many times the effective L2 capacity over the chip. A point is latency-bound when it moves less than
# LATENCY_BOUND_FRACTION of its level's peak rate.
LOCAL_L1_RESIDENT_FRACTION = 0.5
LOCAL_DRAM_FOOTPRINT_FACTOR = 4.0
LATENCY_BOUND_FRACTION = 0.8


def local_memory(
    measurements: Mapping[str, Any],
    sm_count: int,
    l1_smem_per_sm_bytes: int,
    l2_effective_bytes: float,
    ddr_latency_s: float,
) -> dict[str, dict[str, Any]]:
    """Profile fields for register spills from the ``local_memory`` probe: ``{field: {"value", "note"}}``.

    ``local_bw_per_sm_bytes_per_s``: the median rate per SM of the points whose resident frames are well
    inside L1 (at most ``LOCAL_L1_RESIDENT_FRACTION`` of it). ``local_ddr_bw_bytes_per_s``: the highest chip
    rate of the points whose frames are at least ``LOCAL_DRAM_FOOTPRINT_FACTOR`` x the effective L2.
    ``local_inflight_bytes_per_warp``: Little's law on the latency-bound DRAM points of the most unrolled
    frames (spill code issues its reloads in long runs): rate per SM x ``ddr_latency_s`` / warps per SM,
    median. Raises ValueError when a class of points is missing.
    """
    pts = measurements["local_memory"]["points"]
    l1 = [
        p["bytes_per_s"] / sm_count
        for p in pts
        if p["footprint_per_sm_bytes"] <= LOCAL_L1_RESIDENT_FRACTION * l1_smem_per_sm_bytes
    ]
    dram = [p for p in pts if p["footprint_bytes"] >= LOCAL_DRAM_FOOTPRINT_FACTOR * l2_effective_bytes]
    if not l1 or not dram:
        raise ValueError("local_memory: need points with frames inside L1 and points with frames in DRAM")
    cap = sorted(l1)[len(l1) // 2]
    ddr = max(p["bytes_per_s"] for p in dram)
    unroll = max(p["unroll"] for p in pts)
    bound = [
        p for p in pts
        if p["unroll"] == unroll
        and p["footprint_bytes"] >= 2 * l2_effective_bytes
        and p["bytes_per_s"] < LATENCY_BOUND_FRACTION * ddr
    ]  # fmt: skip
    if not bound:
        raise ValueError("local_memory: no latency-bound DRAM point to read the in-flight bytes from")
    inflight = sorted(
        p["bytes_per_s"] / sm_count * ddr_latency_s / (p["warps"] * p["blocks_per_sm"]) for p in bound
    )
    f = (inflight[(len(inflight) - 1) // 2] + inflight[len(inflight) // 2]) / 2
    return {
        "local_bw_per_sm_bytes_per_s": {
            "value": cap,
            "note": f"median over {len(l1)} points with the resident frames in at most "
            f"{LOCAL_L1_RESIDENT_FRACTION:.0%} of L1 (scalar ld/st.local passes)",
        },
        "local_ddr_bw_bytes_per_s": {
            "value": ddr,
            "note": f"best of {len(dram)} points with frames >= {LOCAL_DRAM_FOOTPRINT_FACTOR:g} x the "
            "effective L2 (loads and write-backs)",
        },
        "local_inflight_bytes_per_warp": {
            "value": f,
            "note": f"Little's law on {len(bound)} latency-bound DRAM points ({unroll} loads per step): rate "
            f"per SM x ddr_latency_s {ddr_latency_s:.3g} s / warps per SM, median",
        },
    }


def local_reload_latency(points: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """``local_l1_latency_s`` from the ``local_runs`` probe: what a warp waits for one spill reload whose
    frame L1 holds (``Loop.reload_waits``), and, as a check beside it, the same wait with the frames in L2.

    A run of one dependent ``ld.local`` a step, frames in L1 (one block an SM, no shared memory reserved):
    the median step over the warp counts is the field. The L2 points (blocks that reserve shared memory, so
    the frames leave L1) give ``_l2_step_s``, which the model does not read (it charges ``l2_latency_s`` for
    those waits) but which should sit near it. Raises ValueError when a class of points is missing."""
    ones = [p for p in points if "error" not in p and p.get("unroll") == 1 and p.get("s_per_step")]
    l1 = sorted(p["s_per_step"] for p in ones if not p.get("shared_pad_bytes") and p["blocks_per_sm"] == 1)
    l2 = sorted(p["s_per_step"] for p in ones if p.get("shared_pad_bytes"))
    if not l1 or not l2:
        raise ValueError("local_reload_latency: need runs of one reload with the frames in L1 and in L2")
    return {
        "local_l1_latency_s": {
            "value": statistics.median(l1),
            "note": "runs of one dependent ld.local a step over L1-resident 512 B frames, median over "
            f"{len(l1)} warp counts ({min(l1) * 1e9:.1f}-{max(l1) * 1e9:.1f} ns a step)",
        },
        "_l2_step_s": {
            "value": statistics.median(l2),
            "note": "the same runs with the frames in L2 (not a field)",
        },
    }


def l2_exposed_under_tc(measurements: Mapping[str, Any]) -> dict[str, Any]:
    """``l2_exposed_under_tc`` from the ``overlap`` probe: the share of a loop's L2 time that still shows
    when its tensor cores are the busier pipeline. Private lines (``share`` 1): the loads alone take the time
    of the narrowest dot's run with loads (its dots hide under them); at the narrowest dot whose chain alone
    takes longer than that, the loads add ``(both - dots alone) / loads alone``. Raises ValueError without
    such a point."""
    pts = [p for p in measurements["overlap"]["points"] if p["share"] == 1]
    by_bn: dict[int, dict[bool, float]] = {}
    for p in pts:
        by_bn.setdefault(int(p["BN"]), {})[bool(p["load"])] = float(p["s"])
    bns = sorted(bn for bn, v in by_bn.items() if True in v and False in v)
    if not bns:
        raise ValueError("overlap: no BN measured both with and without loads")
    loads = by_bn[bns[0]][True]
    for bn in bns:
        both, dots = by_bn[bn][True], by_bn[bn][False]
        if dots > loads:
            return {
                "value": max(0.0, (both - dots) / loads),
                "note": f"overlap probe, private lines: loads alone {loads * 1e6:.0f} us (BN {bns[0]}), "
                f"BN {bn} dots alone {dots * 1e6:.0f} us, both {both * 1e6:.0f} us",
            }
    raise ValueError("overlap: no BN whose dots alone outlast the loads")


# smem_transform points the chain latencies are fitted on: one warp per scheduler (one program of 128
# threads per SM), where nothing but the thread's own chain sets the pace.
SMEM_CHAIN_WARPS_PER_SCHEDULER = 1


def smem_chain_fields(points: Sequence[Mapping[str, Any]], chains: Mapping[str, tuple], hw: Any) -> dict:
    """The profile's ``smem_chain_latency_s``, ``alu_latency_s`` and ``cvt_latency_s`` from the
    ``smem_transform`` probe: least squares of ``t - issue = L_smem + alu L_alu + cvt L_cvt`` over its
    serialised expressions at :data:`SMEM_CHAIN_WARPS_PER_SCHEDULER` warp per scheduler, where ``t`` is the
    measured time per vector iteration and ``issue`` the extra lanes' issue time the engine adds
    (``tilesight.model.resources.chain_issue_s`` with ``hw``'s rates). ``chains``: expression name ->
    (alu, cvt, packed, serial, packed_cvt, narrow_cvt), ``benchmarks/calibrate/smem_transform.py::CHAINS``.

    Returns ``{field: {"value", "note"}}`` plus ``"_fit"``: per point used, measured and fitted seconds.
    Raises ValueError when fewer than three distinct chains were measured or a fitted latency is negative.
    """
    import numpy as np

    from tilesight.model.resources import chain_issue_s
    from tilesight.plan import SerialChain

    schedulers = max(getattr(hw, "schedulers_per_sm", 0), 1)
    rows, ys, used = [], [], []
    for p in points:
        if "error" in p or p.get("expr") not in chains:
            continue
        alu, cvt, packed, serial, packed_cvt, narrow_cvt = chains[p["expr"]]
        warps = p["threads"] // hw.warp_size * p["programs_per_sm"]
        if not serial or warps != SMEM_CHAIN_WARPS_PER_SCHEDULER * schedulers:
            continue
        chain = SerialChain(
            iterations=1,
            lanes=p["lanes"],
            alu=alu,
            cvt=cvt,
            packed_alu=packed,
            packed_cvt=packed_cvt,
            narrow_cvt=narrow_cvt,
        )
        issue = chain_issue_s(chain, hw)
        rows.append([1.0, alu, cvt])
        ys.append(p["s_per_vec_iter"] - issue)
        used.append((p, issue))
    if len({tuple(r) for r in rows}) < 3:
        raise ValueError(
            "smem_chain_fields: need at least three distinct serialised chains at one warp per scheduler"
        )
    coef = np.linalg.lstsq(np.array(rows), np.array(ys), rcond=None)[0]
    if np.any(coef < 0):
        raise ValueError(f"smem_chain_fields: a fitted latency is negative ({coef})")
    l_smem, l_alu, l_cvt = (float(c) for c in coef)
    n = len(used)
    exprs = ", ".join(sorted({p["expr"] for p, _ in used}))
    common = f"least squares over {n} smem_transform points ({exprs}) at one warp per scheduler"
    fit = [
        {
            "expr": p["expr"],
            "lanes": p["lanes"],
            "vec_iters": p["vec_iters"],
            "measured_s": p["s_per_vec_iter"],
            "fitted_s": float(np.dot(row, coef)) + issue,
        }
        for (p, issue), row in zip(used, rows, strict=True)
    ]
    return {
        "smem_chain_latency_s": {"value": l_smem, "note": f"{common}: the chain's constant term"},
        "alu_latency_s": {"value": l_alu, "note": f"{common}: per dependent arithmetic op"},
        "cvt_latency_s": {"value": l_cvt, "note": f"{common}: per dependent conversion"},
        "_fit": fit,
    }


def smem_feed_fields(points: Sequence[Mapping[str, Any]]) -> dict:
    """The profile's ``smem_feed_step_s`` from the ``smem_feed`` probe: per tile, the serial loop that unpacks
    into shared memory and then runs ``T.gemm`` on it (``unpack_gemm``) against the two alone (``unpack``,
    ``gemm``); the median over tiles of ``unpack_gemm - unpack - gemm`` per step. Raises ValueError when no
    tile has all three."""
    import statistics

    per_tile: dict[tuple, dict[str, float]] = {}
    for p in points:
        if "error" in p:
            continue
        per_tile.setdefault((p["BM"], p["BN"], p["BK"], p["threads"]), {})[p["variant"]] = p["s_per_step"]
    extra = {
        tile: v["unpack_gemm"] - v["unpack"] - v["gemm"]
        for tile, v in sorted(per_tile.items())
        if {"unpack_gemm", "unpack", "gemm"} <= set(v)
    }
    if not extra:
        raise ValueError("smem_feed_fields: no tile measured with unpack, gemm and both")
    lo, hi = min(extra.values()), max(extra.values())
    note = (
        f"median over {len(extra)} tiles of a serial step that unpacks into shared memory and runs T.gemm on "
        f"it, less the two alone ({lo * 1e9:.0f}-{hi * 1e9:.0f} ns)"
    )
    return {"smem_feed_step_s": {"value": statistics.median(extra.values()), "note": note}, "_extra": extra}


def tma_latency_fields(points: Sequence[Mapping[str, Any]], l2_bw_per_sm: float) -> dict:
    """The profile's ``tma_ddr_latency_s`` and ``tma_l2_latency_s`` from the ``tma_latency`` probe.

    With two stages a step's next load is issued only after the step before it has been consumed, so the
    pipeline is a ring: a step lasts ``(latency + bytes / rate + mma) / 2``. From each two-stage point at
    the fewest programs (DRAM far from its bandwidth), ``2 x step - chain`` is the load's span; less the
    transfer at ``l2_bw_per_sm`` (an SM's L2 port) it is the latency. Median over the tile shapes, per form
    (``dram``: fresh tiles every step; ``l2``: a re-read panel). Raises ValueError when a form has no such
    point."""
    import statistics

    ok = [p for p in points if "error" not in p and p.get("chain_s_per_step") and p["stages"] == 2]
    out: dict[str, Any] = {"_points": {}}
    for form, key in (("dram", "tma_ddr_latency_s"), ("l2", "tma_l2_latency_s")):
        mine = [p for p in ok if p["form"] == form]
        if not mine:
            raise ValueError(f"tma_latency_fields: no two-stage {form} point")
        fewest = min(p["programs"] for p in mine)
        lats = []
        for p in (p for p in mine if p["programs"] == fewest):
            span = 2 * p["s_per_step"] - p["chain_s_per_step"]
            lat = span - p["bytes_per_step"] / l2_bw_per_sm
            lats.append(lat)
            out["_points"][f"{form} {p['BM']}x{p['BN']}x{p['BK']} t{p['threads']}"] = lat
        value = statistics.median(lats)
        out[key] = {
            "value": value,
            "note": (
                f"two-stage warp-specialised TMA pipelines (TileLang GEMM loop) at {fewest} programs, one "
                f"per SM, tiles from {'DRAM (read once)' if form == 'dram' else 'L2 (a re-read panel)'}: "
                f"2 x step - on-chip chain - bytes / L2 port rate, median over {len(lats)} tiles "
                f"({min(lats) * 1e9:.0f}-{max(lats) * 1e9:.0f} ns)"
            ),
        }
    return out


def fa_step_s(row: Mapping[str, Any], sm_count: int) -> tuple[float, int]:
    """(seconds a K/V step, waves) of one FlashAttention record of the ``fa_steps`` set: its time over its
    waves at one block per SM and its ``seq_len / block_N`` steps."""
    p = row["params"]
    blocks = p["batch"] * p["heads"] * (p["seq_len"] // p["block_M"])
    waves = -(-blocks // sm_count)
    return row["ms"] * 1e-3 / waves / (p["seq_len"] // p["block_N"]), waves


def waited_step_latency(rows: Sequence[Mapping[str, Any]], sm_count: int) -> dict:
    """The profile's ``waited_step_latency_s`` from the FlashAttention step set (``sweep.py --set
    fa_steps``, ``benchmarks/data/tilelang_fa_steps/``): TileLang's forward loop with two consumer warpgroups
    (128-row blocks on 256 threads, two stages, non-causal, one head), one block per SM and K / V
    L2-resident. The time of one K/V step is the launch's time over its waves and ``seq_len / block_N``
    steps; per head dim, a least-squares line of the step time against ``block_N`` (32, 64, 128): its slope
    is the work per key, its intercept the time a step takes whatever its width, which no pipeline's work
    accounts for (each warpgroup waits for its own warpgroup MMAs and exchanges row statistics by shuffles).
    The value is the mean intercept over the head dims. Raises ValueError with fewer than two widths at
    any head dim."""
    by_dim: dict[int, list[tuple[float, float]]] = {}
    for r in rows:
        p = r["params"]
        if r.get("error") or r.get("ms") is None or p.get("causal") or p["threads"] != 256:
            continue
        if p["block_M"] != 128 or p["num_stages"] != 2:
            continue
        by_dim.setdefault(p["dim"], []).append((float(p["block_N"]), fa_step_s(r, sm_count)[0]))
    if not by_dim or any(len({n for n, _ in pts}) < 2 for pts in by_dim.values()):
        raise ValueError("waited_step_latency: every head dim needs two or more block_N widths")
    import statistics

    fits = {}
    for dim, pts in sorted(by_dim.items()):
        slope, intercept = statistics.linear_regression(*zip(*pts, strict=True))
        fits[dim] = (intercept, slope)
    value = sum(a for a, _ in fits.values()) / len(fits)
    detail = ", ".join(f"d{d}: {a * 1e9:.0f} ns + {b * 1e9:.2f} ns/key" for d, (a, b) in fits.items())
    note = (
        "TileLang FlashAttention steps with two consumer warpgroups (128-row blocks, 256 threads, two "
        f"stages, one block per SM, K/V in L2): intercept of the step time in block_N, mean over head dims "
        f"({detail})"
    )
    return {"waited_step_latency_s": {"value": value, "note": note}, "_fits": fits}


# Element operations the Triton walker counts for one of the attn_mix probe's masks
# (``S = where(rows + i >= keys, S, -1e6)``): the compare and the select, each an ALU op (TileAction.alu_ops).
ATTN_MIX_MASK_ALU_OPS = 2


def alu_op_cost_fields(points: Sequence[Mapping[str, Any]]) -> dict:
    """The profile's ``alu_op_cost`` from the attn_mix probe (``benchmarks/calibrate/attn_mix.py``): per tile
    and programs per SM, without ``exp2`` (whose special-function work the element-wise ops hide under), what
    one mask adds to an iteration (four masks against none, over four) against what one fused multiply-add
    adds (eight against none, over eight), over the ALU ops the walker counts per mask
    (:data:`ATTN_MIX_MASK_ALU_OPS`); the median over the points. Raises ValueError without a complete
    point."""
    keys = ("block_m", "block_n", "warps", "exp", "masks", "fmas", "per_sm")
    t = {tuple(p[k] for k in keys): p["s_per_iter"] for p in points if "s_per_iter" in p}
    ratios = []
    for (bm, bn, w, exp, masks, fmas, r), base in t.items():
        if exp or masks or fmas:
            continue
        m4, f8 = t.get((bm, bn, w, False, 4, 0, r)), t.get((bm, bn, w, False, 0, 8, r))
        if m4 is None or f8 is None or f8 <= base:
            continue
        ratios.append((m4 - base) / 4 / ((f8 - base) / 8) / ATTN_MIX_MASK_ALU_OPS)
    if not ratios:
        raise ValueError("alu_op_cost: no tile has the dots alone, four masks and eight FMAs without exp2")
    import statistics

    value = statistics.median(ratios)
    note = (
        f"attn_mix probe, no exp2: (4 masks - none) / 4 over (8 FMAs - none) / 8, per mask "
        f"{ATTN_MIX_MASK_ALU_OPS} ALU ops (compare, select), median over {len(ratios)} tile x residency "
        f"points ({min(ratios):.2f}-{max(ratios):.2f})"
    )
    return {"alu_op_cost": {"value": value, "note": note}, "_ratios": ratios}


def async_element_copy_fields(
    rows: Sequence[Mapping[str, Any]], size: int, sm_count: int, smem_bw_per_sm: float
) -> dict:
    """The profile's ``lsu_async_elem_warp_instr_per_s_per_sm`` from ``benchmarks/ncu_diag/tf32.py``: fp32
    GEMMs (``size``^3) whose row-major B tile Triton copies into a transposed shared layout one 4-byte element
    per ``cp.async`` (``LDGSTS.E`` in the SASS; ncu shows the L1 86-90% busy, L2 25-37%, so the L1 / shared
    data path bounds them). Per config, the SM's time per block step (measured time over tiles x ``size /
    block_k`` / ``sm_count`` block steps) less what the engine charges the same path for that step's other
    traffic at ``smem_bw_per_sm`` (the A tile's vector copy and the dot's operand reads: ``(2 block_m +
    block_n) x block_k x 4`` bytes), and the B tile's warp instructions in it (``block_k x block_n / 32``, one
    element a thread); the median over configs. Raises ValueError without a row-major case."""
    import statistics

    rates = {}
    for r in rows:
        if r.get("b_layout") != "row_major" or not r.get("p50_us"):
            continue
        bm, bn, bk = r["config"][:3]
        block_steps = (size // bm) * (size // bn) * (size // bk) / sm_count
        step_s = r["p50_us"] * 1e-6 / block_steps
        other_s = (2 * bm + bn) * bk * 4 / smem_bw_per_sm
        rates[r["case"]] = bk * bn / 32 / (step_s - other_s)
    if not rates:
        raise ValueError("async_element_copy_fields: no row-major (transposed B) case")
    lo, hi = min(rates.values()), max(rates.values())
    note = (
        f"median over {len(rates)} fp32 GEMM configs at {size}^3 of element-wide (4-byte) cp.async warp "
        f"instructions per second per SM into a transposed shared tile, after the step's other shared-memory "
        f"traffic ({lo:.3g}-{hi:.3g})"
    )
    value = statistics.median(rates.values())
    return {"lsu_async_elem_warp_instr_per_s_per_sm": {"value": value, "note": note}}


def l2_chunk_merge_fields(points: Sequence[Mapping[str, Any]], line_bytes: int = 128) -> dict:
    """The profile's ``[l2_chunk_merge]`` table from the ``l2_chunks`` probe (an L2-resident A tile copied
    asynchronously, its rows contiguous runs of ``chunk_bytes``, each line read by one SM or by four at once):
    what a run shorter than an L2 line keeps of the request coalescer's merges. Sharing a line among four
    SMs takes a copy from ``private`` to ``shared`` seconds; the L2 work it saved, ``1 - shared / private``,
    over what whole-line runs save the same way, is the share of merges runs of that width achieve (the
    engine charges whole-line runs the merges the cache model gives them). One point per run width below
    ``line_bytes`` that the probe measured both ways, and ``line_bytes`` itself at 1. Raises ValueError
    without both points at ``line_bytes``."""
    seconds = {(int(p["chunk_bytes"]), int(p["share"])): float(p["s"]) for p in points}
    shares = sorted({s for _, s in seconds})
    if len(shares) < 2 or (line_bytes, shares[0]) not in seconds or (line_bytes, shares[-1]) not in seconds:
        raise ValueError(f"l2_chunk_merge_fields: no private and shared point at {line_bytes}-byte runs")
    private, shared = shares[0], shares[-1]

    def saved(width: int) -> float:
        return 1.0 - seconds[(width, shared)] / seconds[(width, private)]

    whole = saved(line_bytes)
    if whole <= 0:
        raise ValueError(f"l2_chunk_merge_fields: sharing saves nothing at {line_bytes}-byte runs")
    out = {}
    for width in sorted({w for w, _ in seconds if w < line_bytes}):
        if (width, private) in seconds and (width, shared) in seconds:
            value = min(max(saved(width) / whole, 0.0), 1.0)
            shared_us, private_us = seconds[(width, shared)] * 1e6, seconds[(width, private)] * 1e6
            note = (
                f"{width}-byte runs read by {shared} SMs at once take {shared_us:.1f} us against "
                f"{private_us:.1f} us read by {private}, a saving of {saved(width):.3f} against {whole:.3f} "
                f"for {line_bytes}-byte runs"
            )
            out[width] = {"value": value, "note": note}
    out[line_bytes] = {"value": 1.0, "note": f"{line_bytes}-byte runs: the merges the cache model gives"}
    return out


def reduction_sm_fields(points: Sequence[Mapping[str, Any]]) -> dict:
    """The profile's ``[cross_warp_reduction_sm]`` table from the ``reduce_throughput`` probe (dependent
    ``tl.max`` row reductions of one block, at 1-32 blocks an SM): per warps >= 2, the least SM time a
    reduction took at any blocks an SM (``s_per_reduction_per_sm``: the launch's time over the reductions an
    SM ran), read at the fewest elements a thread the probe measured (the rest of a wider row is CUDA-core
    work the engine counts apart). At one block an SM that time is the reduction's latency; as blocks are
    added it falls to the SM's rate of the warps' shuffles, shared-memory exchanges and barriers, where it
    stays. Raises ValueError without a point at two warps or more."""
    cross = [p for p in points if int(p["warps"]) >= 2]
    if not cross:
        raise ValueError("reduction_sm_fields: no reduce_throughput point at two warps or more")
    fewest = min(int(p["elems_per_thread"]) for p in cross)
    out = {}
    for warps in sorted({int(p["warps"]) for p in cross}):
        pts = [p for p in cross if int(p["warps"]) == warps and int(p["elems_per_thread"]) == fewest]
        if not pts:
            continue
        best = min(pts, key=lambda p: float(p["s_per_reduction_per_sm"]))
        one = [p for p in pts if int(p["blocks_per_sm"]) == 1]
        latency = f", {float(one[0]['s_per_reduction_per_sm']) * 1e9:.1f} ns at one block" if one else ""
        rate_ns = float(best["s_per_reduction_per_sm"]) * 1e9
        note = (
            f"{warps} warps, {fewest} elements a thread: {rate_ns:.1f} ns of the SM a reduction at "
            f"{int(best['blocks_per_sm'])} blocks an SM{latency}"
        )
        out[warps] = {"value": float(best["s_per_reduction_per_sm"]), "note": note}
    return out


def _lone_points(
    points: Sequence[Mapping[str, Any]], who: str, sms: int | None = None, loads_alone: bool = False
) -> tuple[int, list[Mapping[str, Any]]]:
    """(SM count, points) the lone-step fits read: measured points of two stages or more without spills at
    ``sms`` SMs (default: the fewest measured); with ``loads_alone`` only those at N 16 on 4 warps (the
    loads almost alone). Raises ValueError, naming ``who``, where no point qualifies."""
    ok = [p for p in points if p.get("s_per_iter") and int(p.get("stages", 0)) >= 2 and not p.get("n_spills")]
    if loads_alone:
        ok = [p for p in ok if int(p.get("n", 16)) == 16 and int(p.get("warps", 4)) == 4]
    if not ok:
        raise ValueError(f"{who}: no measured point" + (" at N 16 on 4 warps" if loads_alone else ""))
    at = min(int(p["sms"]) for p in ok) if sms is None else sms
    return at, [p for p in ok if int(p["sms"]) == at]


def lone_step_fields(points: Sequence[Mapping[str, Any]]) -> dict:
    """``ddr_stream_per_sm_bytes_per_s`` from the lone-step probe (``stage_latency.py --lone``): one program
    an SM streaming its own rows of A from DRAM through a pipelined ``tl.load`` loop (cp.async), at several
    A tiles, stage counts and SM counts, each point's ``s_per_iter``.

    A step's copy is issued ``stages - 1`` steps before it is consumed and each copy runs on its own, so a
    step lasts ``(latency + bytes / rate) / (stages - 1)``: over the points at the fewest SMs (DRAM far from
    its bandwidth), the least-squares line of ``s_per_iter x (stages - 1)`` against the A tile's bytes has
    the latency as its intercept and ``1 / rate`` as its slope. The rate is what one load moves at after its
    latency, which is what the model charges a lone block's DRAM-served copies on top of that latency; the
    ``sm_stream`` probe's per-SM figure is a throughput with the latency inside it (its copies in flight over
    their round trip), half of this at its four stages. The intercept is reported beside, for comparison with
    ``tma_ddr_latency_s``. Raises ValueError for fewer than two tile sizes at the fewest SMs or a slope that
    is not positive."""
    fewest, mine = _lone_points(points, "lone_step_fields")
    xs = [float(p["block_m"] * p["block_k"] * 2) for p in mine]
    ys = [float(p["s_per_iter"]) * (int(p["stages"]) - 1) for p in mine]
    if len(set(xs)) < 2:
        raise ValueError(f"lone_step_fields: fewer than two tile sizes at {fewest} SMs")
    n = len(xs)
    slope, latency = statistics.linear_regression(xs, ys)
    if slope <= 0:
        raise ValueError("lone_step_fields: the step does not grow with the tile's bytes")
    rms = math.sqrt(sum((latency + slope * x - y) ** 2 for x, y in zip(xs, ys, strict=True)) / n)
    note = (
        f"lone blocks at {fewest} SMs, one an SM, each streaming its own rows of A from DRAM ({n} points: "
        f"{len(set(xs))} tile sizes of {min(xs) / 1024:.0f}-{max(xs) / 1024:.0f} KB, "
        f"{min(int(p['stages']) for p in mine)}-{max(int(p['stages']) for p in mine)} stages): least squares "
        f"of the step x (stages - 1) against the tile's bytes, {latency * 1e9:.0f} ns + bytes at "
        f"{1 / slope / 1e9:.1f} GB/s, rms {rms * 1e9:.0f} ns"
    )
    return {
        "ddr_stream_per_sm_bytes_per_s": {
            "value": 1.0 / slope,
            "note": note,
            "latency_s": latency,
            "rms_s": rms,
        }
    }


def lone_step_cost_fit(points: Sequence[Mapping[str, Any]], sms: int | None = None) -> dict:
    """The lone-step and deep probes' steps as ``(latency + bytes / rate) / (stages - 1) + cost``: a load's
    latency and rate shared by the ``stages - 1`` iterations in flight, and a cost every iteration pays on
    its own (the wait for the oldest copy group, the barrier, the next copies' issue), by least squares over
    the points at ``sms`` SMs (default: the fewest) with N 16 on 4 warps (the loads almost alone) and two
    stage counts or more. Returns ``latency_s``, ``bytes_per_s``, ``cost_s``, ``rms_s`` and ``points``.
    Raises ValueError where the points do not determine the three (fewer than two stage counts or tile
    sizes) or the rate comes out not positive."""
    import numpy as np

    at, mine = _lone_points(points, "lone_step_cost_fit", sms, loads_alone=True)
    if len({int(p["stages"]) for p in mine}) < 2 or len({p["block_m"] * p["block_k"] for p in mine}) < 2:
        raise ValueError(f"lone_step_cost_fit: fewer than two stage counts or tile sizes at {at} SMs")
    a = np.array([[1.0, p["block_m"] * p["block_k"] * 2.0, int(p["stages"]) - 1.0] for p in mine])
    a[:, :2] /= a[:, 2:3]
    a[:, 2] = 1.0
    y = np.array([float(p["s_per_iter"]) for p in mine])
    (latency, inv_rate, cost), *_ = np.linalg.lstsq(a, y, rcond=None)
    if inv_rate <= 0:
        raise ValueError("lone_step_cost_fit: the step does not grow with the tile's bytes")
    rms = float(np.sqrt(np.mean((a @ np.array([latency, inv_rate, cost]) - y) ** 2)))
    return {
        "latency_s": float(latency),
        "bytes_per_s": float(1.0 / inv_rate),
        "cost_s": float(cost),
        "rms_s": rms,
        "points": len(mine),
    }


# The DRAM bandwidths (bytes/s) the loaded-latency fit tries as the queue's saturation point, above every
# probe point: 3.0 to 6.0 TB/s in 50 GB/s steps.
DDR_QUEUE_BW_GRID = tuple(3.0e12 + 5.0e10 * i for i in range(61))


def ddr_queue_fields(points: Sequence[Mapping[str, Any]]) -> dict:
    """``ddr_queue_latency_s`` and ``ddr_queue_bw_bytes_per_s`` from the ``loaded_latency`` probe's points
    (``total_bytes_per_s``, ``latency_s``: tile streams from DRAM at several block and stage counts, the
    latency by Little's law): the fit ``latency = L0 + c x U / (1 - U)``, ``U = bandwidth / B``, with ``L0``
    and ``c`` by least squares at each ``B`` of :data:`DDR_QUEUE_BW_GRID` above every point, the ``B`` of
    the smallest squared error kept (``L0`` and the rms residual reported beside). Raises ValueError for
    fewer than three points or a fit whose ``c`` is not positive."""
    pts = [(float(p["total_bytes_per_s"]), float(p["latency_s"])) for p in points]
    if len(pts) < 3:
        raise ValueError("ddr_queue_fields: need at least three (bandwidth, latency) points")
    top = max(b for b, _ in pts)
    best = None
    for bw in DDR_QUEUE_BW_GRID:
        if bw <= top:
            continue
        xs = [(b / bw) / (1.0 - b / bw) for b, _ in pts]
        ys = [lat for _, lat in pts]
        n = len(xs)
        mx, my = sum(xs) / n, sum(ys) / n
        sxx = sum((x - mx) ** 2 for x in xs)
        if sxx <= 0:
            continue
        c = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
        l0 = my - c * mx
        sse = sum((l0 + c * x - y) ** 2 for x, y in zip(xs, ys, strict=True))
        if best is None or sse < best[0]:
            best = (sse, bw, c, l0)
    if best is None or best[2] <= 0:
        raise ValueError("ddr_queue_fields: no positive queueing term fits the points")
    sse, bw, c, l0 = best
    rms = math.sqrt(sse / len(pts))
    how = (
        f"least squares over {len(pts)} points at {min(b for b, _ in pts) / 1e12:.2f}-{top / 1e12:.2f} TB/s: "
        f"{l0 * 1e9:.0f} ns + {c * 1e9:.0f} ns x U / (1 - U) at U of {bw / 1e12:.2f} TB/s, "
        f"rms {rms * 1e9:.0f} ns"
    )
    return {
        "ddr_queue_latency_s": {"value": c, "how": how, "idle_latency_s": l0, "rms_s": rms},
        "ddr_queue_bw_bytes_per_s": {"value": bw, "how": how},
    }


def atomics_hot_fields(
    points: Sequence[Mapping[str, Any]], l2_atomic_elements_per_s: float, warp: int = 32
) -> dict:
    """``l2_atomic_slices``, ``atomic_same_address_s`` and ``atomic_same_address_int_s`` from the
    ``atomics_hot`` probe (``elements`` adds of 1 at uniformly random bins among ``bins`` 4-byte words, one
    an element, 32 lanes an instruction), given the chip's contiguous atomic rate ``l2_atomic_elements_per_s``
    (eight 4-byte adds a 32-byte sector: its sector rate ``R``). On a target within one 128-byte line, every
    transaction goes to one L2 slice and each word takes its adds in turn, so a point takes
    ``tx / R x slices + (elements / bins) x same``, ``tx`` the distinct sectors of its instructions
    (:func:`tilesight.model.resources.scatter_transactions_per_element`). Least squares over those points,
    per dtype (float32, int32) for ``same``; ``slices`` the mean of the dtypes'. Points whose sums came out
    wrong are left out, and the ``relaxed`` ones (Triton's default ``acq_rel`` is what kernels mostly issue).
    Raises ValueError without two one-line points of a dtype."""
    import numpy as np

    from tilesight.model.resources import scatter_transactions_per_element

    rate = l2_atomic_elements_per_s * 4 / 32
    fits: dict[str, tuple[float, float]] = {}
    for dtype in ("float32", "int32"):
        rows = [
            p
            for p in points
            if p.get("dtype") == dtype
            and p.get("sem", "acq_rel") == "acq_rel"
            and p.get("sum_ok", True)
            and int(p["bins"]) * 4 <= 128
            and p["s"] > 0
        ]
        if len(rows) < 2:
            raise ValueError(f"atomics_hot_fields: needs two {dtype} points within one line, got {len(rows)}")
        a = np.array(
            [
                [float(p["elements"]) * scatter_transactions_per_element(float(p["bins"]), 4, warp) / rate,
                 float(p["elements"]) / float(p["bins"])]
                for p in rows
            ]
        )  # fmt: skip
        if np.linalg.matrix_rank(a) < 2:
            raise ValueError(f"atomics_hot_fields: the {dtype} one-line points do not separate the two terms")
        (slices, same), *_ = np.linalg.lstsq(a, np.array([float(p["s"]) for p in rows]), rcond=None)
        fits[dtype] = (float(slices), float(same))
    return {
        "l2_atomic_slices": statistics.mean(f[0] for f in fits.values()),
        "atomic_same_address_s": fits["float32"][1],
        "atomic_same_address_int_s": fits["int32"][1],
        "slices_by_dtype": {d: f[0] for d, f in fits.items()},
    }


def scan_carry_fields(points: Sequence[Mapping[str, Any]], schedulers: int = 4) -> dict:
    """``scan_carry_latency_s`` and ``scan_carry_issue_s`` from the ``scan_chain`` probe (dependent scans of
    an on-chip ``[L, D]`` tile along L over 4-8 warps, one and two blocks an SM), each point with the
    ``carry_steps`` and ``carry_lines`` of the layout Triton gave it (:class:`tilesight.plan.ScanCarry`): a
    scan loads and combines ``steps x lines x operands`` chunk totals a thread. Spilling points and scans
    without carry steps are left out. The latency is the median, over the points with at most one warp a
    scheduler, of a scan's time over its loads; the issue time the median, over the points with two warps a
    scheduler or more, of that over the warps a scheduler holds (the warps issue theirs in turn). Raises
    ValueError where either set is empty."""
    lone, shared = [], []
    for p in points:
        steps, lines = int(p.get("carry_steps", 0)), int(p.get("carry_lines", 0))
        if "s_per_scan" not in p or int(p.get("n_spills", 0)) or steps <= 0 or lines <= 0:
            continue
        per_load = float(p["s_per_scan"]) / (steps * lines * int(p["operands"]))
        per_scheduler = int(p["warps"]) * int(p["per_sm"]) / schedulers
        if per_scheduler <= 1:
            lone.append(per_load)
        else:
            shared.append(per_load / per_scheduler)
    if not lone or not shared:
        raise ValueError(
            "scan_carry_fields: needs scan_chain points at one and at two or more warps a scheduler"
        )
    return {
        "scan_carry_latency_s": statistics.median(lone),
        "scan_carry_issue_s": statistics.median(shared),
        "points": (len(lone), len(shared)),
    }

"""benchmarks/calibrate/analysis.py: L2-cliff estimate and measurement -> profile fields (pure, CPU)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from _scripts import load_script
from hypothesis import given, settings
from hypothesis import strategies as st

analysis = load_script("benchmarks/calibrate/analysis.py", on_path=False)

MiB = 1 << 20


def test_cliff_interpolates_halfway_in_log_size():
    # L2 plateau 9e12 up to 32 MiB, 8e12 at 48 MiB, 5e12 at 64 MiB, DRAM plateau 4e12 from 128 MiB.
    # threshold = 4e12 + 0.5 * (9e12 - 4e12) = 6.5e12, crossed between 48 and 64 MiB at
    # frac = (8 - 6.5) / (8 - 5) = 0.5 of the log distance: sqrt(48 * 64) MiB = 55.43 MiB.
    sizes = [8 * MiB, 16 * MiB, 32 * MiB, 48 * MiB, 64 * MiB, 128 * MiB, 256 * MiB]
    bws = [9e12, 9e12, 9e12, 8e12, 5e12, 4e12, 4e12]
    c = analysis.l2_cliff(sizes, bws)
    assert c["l2_plateau_bytes_per_s"] == 9e12
    assert c["dram_plateau_bytes_per_s"] == 4e12
    assert c["threshold_bytes_per_s"] == 6.5e12
    assert c["effective_bytes"] == pytest.approx(math.sqrt(48 * 64) * MiB)


def test_cliff_refuses_a_flat_sweep():
    with pytest.raises(ValueError, match="no cliff"):
        analysis.l2_cliff([1, 2, 3, 4], [5.0, 5.0, 5.0, 5.0])


def test_cliff_refuses_unsorted_sizes():
    with pytest.raises(ValueError, match="ascending"):
        analysis.l2_cliff([1, 3, 2, 4], [9.0, 9.0, 4.0, 4.0])


@settings(max_examples=50, deadline=None)
@given(
    st.floats(min_value=2e12, max_value=3e13),
    st.floats(min_value=0.05, max_value=0.9),
    st.integers(min_value=3, max_value=9),
)
def test_cliff_lies_between_the_neighbouring_sizes(l2, dram_frac, drop_at):
    # invariant: a step from the L2 to the DRAM plateau at sweep point `drop_at` puts the effective capacity
    # between the last L2-speed size and the first DRAM-speed size
    sizes = [2**i * MiB for i in range(12)]
    bws = [l2 if i < drop_at else l2 * dram_frac for i in range(12)]
    c = analysis.l2_cliff(sizes, bws)
    assert sizes[drop_at - 1] <= c["effective_bytes"] <= sizes[drop_at]


def test_profile_fields_maps_successes_and_skips_errors():
    m = {
        "ddr": {"copy_bytes_per_s": 4.1e12, "read_bytes_per_s": 4.4e12},
        "l2_sweep": {
            "l2_cache_size_bytes": 60 * MiB,
            "cliff": {"l2_plateau_bytes_per_s": 9e12, "effective_bytes": 70 * MiB},
        },
        "tensor_core": {
            "wgmma": {
                "float16": {"flops_per_s": 7e14, "note": "triton"},
                "float8_e4m3fn": {"error": "boom"},
                "tfloat32": {"flops_per_s": 3e14},
            },
            "legacy": {"float16": {"flops_per_s": 5e14}},
            "torch": {"float16": {"flops_per_s": 7.5e14}, "float8_e4m3fn": {"flops_per_s": 1.3e15}},
        },
        "cuda_core": {"flops_per_s": 5e13},
        "sfu": {"error": "RuntimeError: x"},
        "launch": {"empty_kernel_s": 4e-6},
        "latency": {"ddr_s": 7e-7, "l2_s": 3e-7},
    }
    f = analysis.profile_fields(m)
    assert f["ddr_bw_bytes_per_s"]["value"] == 4.1e12  # the copy figure, as paper Table 3
    assert f["ddr_read_bw_bytes_per_s"]["value"] == 4.4e12
    assert f["l2_effective_bytes"]["value"] == 60 * MiB  # clamped to the reported L2 size
    assert f["tensor_core.float16"]["value"] == 7.5e14  # torch beat Triton
    assert f["tensor_core.float8_e4m3fn"]["value"] == 1.3e15  # Triton failed, torch did not
    assert f["tensor_core.float8_e5m2"]["value"] == 1.3e15  # derived from e4m3
    assert f["tensor_core.float32"]["value"] == 3e14  # derived from tf32
    assert f["tensor_core_legacy.float16"]["value"] == 5e14
    assert "sfu_ops_per_s" not in f
    assert f["launch_overhead_s"]["value"] == 4e-6
    assert f["l2_latency_s"]["value"] == 3e-7
    # the pointer chase over DRAM is the idle round trip whatever gives the loaded figure
    assert f["ddr_idle_latency_s"]["value"] == 7e-7


def _placement_measurements(sms: int = 8) -> dict:
    # dispatch: a full wave of the one-block-per-SM config (rep 2 is read) and a half wave. Partitions: lines
    # warmed from SM 1; SMs 0, 1, 4, 5 see all 9 lines near (290 cycles), the others 5 of 9 across the fabric
    order = [3, 2, 1, 0, 7, 6, 5, 4]
    cfg = list(analysis.DISPATCH_CONFIG)
    runs = [
        {"config": cfg, "tiles": sms, "rep": 1, "sm": list(range(sms))},
        {"config": cfg, "tiles": sms, "rep": 2, "sm": order},
        {"config": cfg, "tiles": sms // 2, "rep": 2, "sm": [6, 4, 2, 0]},
        {"config": [64, 64, 32, 4, 4], "tiles": sms, "rep": 2, "sm": list(range(sms))},
    ]
    near = {0, 1, 4, 5}
    far = [290] * 4 + [430] * 5
    rows = [
        {"rep": rep, "sm": s, "target": s, "warm_sm": 1, "cycles": [290] * 9 if s in near else far}
        for rep in (0, 1)
        for s in range(sms)
    ]
    return {"sm_dispatch": {"runs": runs}, "l2_partition": {"rows": rows}}


def test_sm_placement_reads_the_probes():
    p = analysis.sm_placement(_placement_measurements(), 8)
    assert p["dispatch_order"] == [3, 2, 1, 0, 7, 6, 5, 4]
    assert p["dispatch_order_sparse"] == [6, 4, 2, 0]
    assert p["l2_partition"] == [0, 0, 1, 1, 0, 0, 1, 1]


def test_sm_placement_refuses_disagreeing_repetitions():
    m = _placement_measurements()
    m["l2_partition"]["rows"][0]["cycles"] = [430] * 9  # SM 0 slow in rep 0 only
    with pytest.raises(ValueError, match="disagree"):
        analysis.sm_placement(m, 8)
    with pytest.raises(ValueError, match="no sm_dispatch run"):
        analysis.sm_placement(_placement_measurements(), 16)


def _local_point(frame, unroll, warps, per_sm, tb_per_s, sms=4):
    threads = 32 * warps
    return {
        "frame_bytes": frame, "unroll": unroll, "warps": warps, "blocks_per_sm": per_sm,
        "bytes_per_s": tb_per_s * 1e12, "footprint_per_sm_bytes": frame * threads * per_sm,
        "footprint_bytes": frame * threads * per_sm * sms,
    }  # fmt: skip


def test_local_memory_reads_peak_dram_rate_and_inflight_bytes():
    # 4 SMs, 64 KiB of L1 (frames up to 32 KiB per SM count as L1-resident), effective L2 1 MB
    pts = [
        _local_point(64, 8, 4, 1, 0.4),  # 8 KiB per SM: L1
        _local_point(128, 8, 4, 1, 0.5),  # 16 KiB per SM: L1
        _local_point(256, 8, 4, 1, 0.6),  # 32 KiB per SM: L1 -> median 0.5e12 / 4 SMs = 1.25e11 per SM
        _local_point(8192, 8, 2, 1, 0.04),  # 2 MiB over the chip (>= 2 x L2): latency-bound at 2 warps
        _local_point(8192, 8, 4, 1, 0.08),  # 4 MiB (>= 4 x L2): DRAM, latency-bound at 4 warps
        _local_point(8192, 8, 8, 1, 0.2),  # 8 MiB: the DRAM rate (not latency-bound: 0.2 = best)
        _local_point(8192, 2, 2, 1, 0.01),  # fewer loads per step: not used for the in-flight bytes
    ]
    f = analysis.local_memory({"local_memory": {"points": pts}}, 4, 65536, 1e6, 1e-6)
    assert f["local_bw_per_sm_bytes_per_s"]["value"] == pytest.approx(0.5e12 / 4)
    assert f["local_ddr_bw_bytes_per_s"]["value"] == pytest.approx(0.2e12)
    # Little's law: 0.04e12 / 4 SMs x 1 us / 2 warps = 5000 B; 0.08e12 / 4 x 1 us / 4 = 5000 B
    assert f["local_inflight_bytes_per_warp"]["value"] == pytest.approx(5000.0)


def test_local_memory_needs_every_class_of_point():
    pts = [_local_point(64, 8, 4, 1, 0.4)]
    with pytest.raises(ValueError, match="frames in DRAM"):
        analysis.local_memory({"local_memory": {"points": pts}}, 4, 65536, 1e6, 1e-6)
    pts.append(_local_point(8192, 8, 8, 1, 0.2))
    with pytest.raises(ValueError, match="latency-bound"):
        analysis.local_memory({"local_memory": {"points": pts}}, 4, 65536, 1e6, 1e-6)


def test_l2_exposed_under_tc_reads_the_first_tensor_core_bound_point():
    def pt(bn, load, us, share=1):
        return {"BN": bn, "load": load, "s": us * 1e-6, "share": share}

    pts = [
        pt(16, True, 262.6), pt(16, False, 98.5), pt(64, True, 266.8), pt(64, False, 168.8),
        pt(128, True, 433.3), pt(128, False, 338.1), pt(256, True, 3089.3), pt(256, False, 2788.3),
        pt(128, True, 412.8, share=4),  # shared lines: not used
    ]  # fmt: skip
    # loads alone = BN 16 with loads (its dots hide): 262.6; BN 64's dots (168.8) do not outlast them, BN
    # 128's (338.1) do: (433.3 - 338.1) / 262.6 = 0.3625 (BN 256, which spills, is never reached)
    f = analysis.l2_exposed_under_tc({"overlap": {"points": pts}})
    assert f["value"] == pytest.approx((433.3 - 338.1) / 262.6)
    with pytest.raises(ValueError, match="outlast"):
        analysis.l2_exposed_under_tc({"overlap": {"points": pts[:4]}})


def test_l2_narrow_rate_is_the_best_odd_stride_tile_loop():
    # the aligned points (vectorised, counted as if element-wide) and the latency-bound one-program points are
    # not the rate: the highest odd-stride point is
    pts = [
        {"odd": True, "programs_per_sm": 1, "warp_instr_per_s_per_sm": 1e8},
        {"odd": True, "programs_per_sm": 8, "warp_instr_per_s_per_sm": 4.5e8},
        {"odd": False, "programs_per_sm": 8, "warp_instr_per_s_per_sm": 9e8},
        {"odd": True, "programs_per_sm": 4, "warp_instr_per_s_per_sm": 3.5e8},
    ]
    f = analysis.profile_fields({"narrow_tiles": {"points": pts}})
    assert f["lsu_l2_warp_instr_per_s_per_sm"]["value"] == 4.5e8


def _smem_points(l_smem, l_alu, l_cvt, hw, chains, per_sm=1, threads=128):
    from tilesight.model.resources import chain_issue_s
    from tilesight.plan import SerialChain

    pts = []
    for name, (alu, cvt, packed, serial) in chains.items():  # no fp8 pairs, no narrow integers
        lanes = 8 if name.endswith("8") else 2
        ch = SerialChain(iterations=1, lanes=lanes, alu=alu, cvt=cvt, packed_alu=packed)
        t = l_smem + alu * l_alu + cvt * l_cvt + chain_issue_s(ch, hw)
        pts.append(
            {
                "expr": name,
                "lanes": lanes,
                "vec_iters": 32,
                "threads": threads,
                "programs_per_sm": per_sm,
                "s_per_vec_iter": t if serial else t / 3,
            }
        )
    return pts


def test_smem_chain_fit_recovers_the_latencies():
    from tilesight.hardware import load_profile

    hw = load_profile("h200")
    chains = {"a": (1, 1, False, True), "b": (3, 1, False, True), "c8": (3, 1, False, True)}
    chains["d"] = (1, 0, True, True)
    chains["fast"] = (1, 0, True, False)  # not serial: left out of the fit (a third of the rule's time)
    pts = _smem_points(16e-9, 2e-9, 7e-9, hw, chains)
    # two warps per scheduler: left out too (their time here is nonsense on purpose)
    pts += [dict(p, programs_per_sm=2, s_per_vec_iter=1.0) for p in pts]
    f = analysis.smem_chain_fields(pts, {k: (*v, False, False) for k, v in chains.items()}, hw)
    assert f["smem_chain_latency_s"]["value"] == pytest.approx(16e-9)
    assert f["alu_latency_s"]["value"] == pytest.approx(2e-9)
    assert f["cvt_latency_s"]["value"] == pytest.approx(7e-9)
    assert len(f["_fit"]) == 4


def test_smem_chain_fit_needs_three_distinct_chains():
    from tilesight.hardware import load_profile

    hw = load_profile("h200")
    chains = {"a": (1, 1, False, True), "b": (3, 1, False, True)}
    with pytest.raises(ValueError, match="three distinct"):
        six = {k: (*v, False, False) for k, v in chains.items()}
        analysis.smem_chain_fields(_smem_points(16e-9, 2e-9, 7e-9, hw, chains), six, hw)


def test_smem_feed_is_the_median_extra_of_the_combined_step():
    def tile(bm, unpack, gemm, both):
        return [
            {"variant": v, "BM": bm, "BN": 128, "BK": 64, "threads": 128, "s_per_step": s}
            for v, s in (("unpack", unpack), ("gemm", gemm), ("unpack_gemm", both), ("pipelined", 9.0))
        ]

    # extras 0.1, 0.3, 0.2 -> median 0.2; a tile missing a variant and an errored point are left out
    pts = tile(64, 1.0, 0.5, 1.6) + tile(128, 1.0, 0.5, 1.8) + tile(256, 2.0, 1.0, 3.2)
    pts += [{"variant": "gemm", "BM": 32, "BN": 128, "BK": 64, "threads": 128, "s_per_step": 1.0}]
    pts += [{"variant": "unpack", "BM": 32, "BN": 128, "BK": 64, "threads": 128, "error": "x"}]
    f = analysis.smem_feed_fields(pts)
    assert f["smem_feed_step_s"]["value"] == pytest.approx(0.2)
    assert len(f["_extra"]) == 3
    with pytest.raises(ValueError, match="no tile"):
        analysis.smem_feed_fields(pts[-2:])


def test_atomics_fields_peak_and_one_block():
    def pt(per_sm, sharing, rate, ok=True):
        return {"programs_per_sm": per_sm, "sharing": sharing, "atomic_elements_per_s": rate, "sum_ok": ok}

    # peak over the checked points (the unchecked 9e11 is left out); one program per SM on 100 SMs: 2e11 and
    # 3e11 and 2.5e11 -> per program 2e9, 3e9, 2.5e9 -> median 2.5e9
    pts = [pt(1, 1, 2e11), pt(1, 4, 3e11), pt(1, 16, 2.5e11), pt(4, 1, 4.5e11), pt(4, 2, 9e11, ok=False)]
    f = analysis.profile_fields({"atomics": {"points": pts}}, 100)
    assert f["l2_atomic_elements_per_s"]["value"] == 4.5e11
    assert f["atomic_elements_per_s_per_block"]["value"] == pytest.approx(2.5e9)
    assert "atomic_elements_per_s_per_block" not in analysis.profile_fields({"atomics": {"points": pts}})


def test_async_element_copy_rate_by_hand():
    # 1024^3, 128 x 128 x 32 tiles on 8 SMs: 64 tiles x 32 steps / 8 = 256 block steps per SM; 512 us measured
    # -> 2 us a step; the step's other shared traffic (2 x 128 + 128) x 32 x 4 B = 49,152 B at 4.9152e10 B/s
    # = 1 us; the B tile's 32 x 128 / 32 = 128 warp instructions in the remaining 1 us: 1.28e8 a second. The
    # K-major control is not a row-major case; without a row-major case it is an error.
    rows = [
        {"case": "r", "b_layout": "row_major", "config": [128, 128, 32, 4, 3, 8], "p50_us": 512.0},
        {"case": "k", "b_layout": "k_major", "config": [128, 128, 32, 4, 3, 8], "p50_us": 100.0},
    ]
    f = analysis.async_element_copy_fields(rows, 1024, 8, 4.9152e10)
    assert f["lsu_async_elem_warp_instr_per_s_per_sm"]["value"] == pytest.approx(1.28e8)
    with pytest.raises(ValueError, match="no row-major"):
        analysis.async_element_copy_fields(rows[1:], 1024, 8, 4.9152e10)


def _step_row(dim, block_n, step_s, *, threads=256, block_m=128, stages=2, causal=False, seq=16896):
    """One fa_steps record whose launch takes ``step_s`` a step: one wave of 132 blocks of ``block_m`` rows
    (at 128 rows; two waves at 64), ``seq / block_n`` steps."""
    blocks = seq // block_m
    waves = -(-blocks // 132)
    params = dict(batch=1, heads=1, seq_len=seq, dim=dim, causal=causal, block_M=block_m, block_N=block_n)
    params.update(num_stages=stages, threads=threads)
    return {"id": f"d{dim}n{block_n}", "params": params, "ms": step_s * waves * (seq // block_n) * 1e3}


def test_alu_op_cost_is_the_median_mask_over_fma_ratio_per_alu_op():
    def pt(bm, masks, fmas, s, exp=False):
        return dict(block_m=bm, block_n=64, warps=4, exp=exp, masks=masks, fmas=fmas, per_sm=1, s_per_iter=s)

    # tile 128: a mask adds (1400 - 1000) / 4 = 100 ns, an FMA (1200 - 1000) / 8 = 25 ns: 4 FMAs, 2 an ALU op;
    # tile 64: 60 against 20: 3, 1.5 an ALU op; exp2 points are left out; the median of (2, 1.5) is 1.75
    points = [
        pt(128, 0, 0, 1000e-9), pt(128, 4, 0, 1400e-9), pt(128, 0, 8, 1200e-9),
        pt(64, 0, 0, 500e-9), pt(64, 4, 0, 740e-9), pt(64, 0, 8, 660e-9),
        pt(64, 0, 0, 900e-9, exp=True), pt(64, 4, 0, 905e-9, exp=True), pt(64, 0, 8, 1000e-9, exp=True),
    ]  # fmt: skip
    out = analysis.alu_op_cost_fields(points)
    assert out["alu_op_cost"]["value"] == pytest.approx(1.75)
    assert sorted(out["_ratios"]) == pytest.approx([1.5, 2.0])
    with pytest.raises(ValueError, match="alu_op_cost"):
        analysis.alu_op_cost_fields(points[6:])


def test_waited_step_latency_is_the_mean_intercept_in_block_n():
    # d64: 300 ns + 10 ns a key, d128: 200 ns + 20 ns a key (exact lines): intercepts 300 and 200 -> 250 ns.
    # The rows a one-warpgroup, three-stage or causal launch gives are left out, whatever their time.
    rows = [_step_row(64, n, 300e-9 + n * 10e-9) for n in (32, 64, 128)]
    rows += [_step_row(128, n, 200e-9 + n * 20e-9) for n in (32, 64, 128)]
    rows += [
        _step_row(64, 32, 5e-6, threads=128, block_m=64),
        _step_row(64, 32, 5e-6, stages=3),
        _step_row(64, 64, 5e-6, causal=True),
        {"id": "failed", "params": _step_row(64, 32, 1e-6)["params"], "ms": None, "error": "compile"},
    ]
    out = analysis.waited_step_latency(rows, 132)
    assert out["waited_step_latency_s"]["value"] == pytest.approx(250e-9)
    assert out["_fits"][64] == pytest.approx((300e-9, 10e-9))
    assert out["_fits"][128] == pytest.approx((200e-9, 20e-9))


def test_waited_step_latency_needs_two_widths_per_dim():
    with pytest.raises(ValueError, match="two or more block_N"):
        analysis.waited_step_latency([_step_row(64, 32, 1e-6), _step_row(64, 32, 1.1e-6)], 132)
    with pytest.raises(ValueError, match="two or more block_N"):
        analysis.waited_step_latency([], 132)


def test_l2_chunk_merge_by_hand():
    # 128-byte runs: 100 us private, 60 us with four readers a line (saves 0.4); 64-byte runs 100 -> 90 (0.1):
    # a quarter of the saving, 0.25; 32-byte runs 200 -> 240 (slower shared): clipped to 0; 256-byte runs
    # are above the line and not listed; 128 itself is 1. Without both 128-byte points it is an error.
    pts = [
        {"chunk_bytes": w, "share": s, "s": t * 1e-6}
        for w, s, t in ((128, 1, 100), (128, 4, 60), (64, 1, 100), (64, 4, 90), (32, 1, 200), (32, 4, 240))
    ] + [{"chunk_bytes": 256, "share": 1, "s": 1e-4}, {"chunk_bytes": 256, "share": 4, "s": 5e-5}]
    f = analysis.l2_chunk_merge_fields(pts)
    assert {k: round(v["value"], 6) for k, v in f.items()} == {32: 0.0, 64: 0.25, 128: 1.0}
    with pytest.raises(ValueError, match="128-byte"):
        analysis.l2_chunk_merge_fields([p for p in pts if p["chunk_bytes"] != 128])


def test_reduction_sm_by_hand():
    # 4 warps, 2 elements a thread: 160 ns at one block, 80 at two (2 x 80 = 160: still latency), 30 at eight
    # (the SM's rate), 32 at sixteen: 30 ns; the 8-element points (25 ns) are not read; one warp is left
    # out (no cross-warp exchange); 8 warps: 60. Without a point at two warps or more it is an error.
    def pt(w, e, b, ns):
        return {"warps": w, "elems_per_thread": e, "blocks_per_sm": b, "s_per_reduction_per_sm": ns * 1e-9}

    pts = [pt(4, 2, 1, 160), pt(4, 2, 2, 80), pt(4, 2, 8, 30), pt(4, 2, 16, 32), pt(4, 8, 8, 25)]
    pts += [pt(1, 2, 32, 3), pt(8, 2, 1, 200), pt(8, 2, 8, 60)]
    f = analysis.reduction_sm_fields(pts)
    assert {k: round(v["value"] * 1e9, 6) for k, v in f.items()} == {4: 30.0, 8: 60.0}
    assert "160.0 ns at one block" in f[4]["note"]
    with pytest.raises(ValueError, match="two warps"):
        analysis.reduction_sm_fields([pt(1, 2, 32, 3)])


def test_ddr_queue_fields_recover_the_queue_they_were_made_from():
    # exact points of 800 ns + 100 ns x U / (1 - U) at U of 4.5 TB/s (a grid bandwidth), 0.5-3.9 TB/s
    bw = 4.5e12
    points = [
        {"total_bytes_per_s": b, "latency_s": 800e-9 + 100e-9 * (b / bw) / (1 - b / bw)}
        for b in (0.5e12, 1.0e12, 2.0e12, 3.0e12, 3.5e12, 3.9e12)
    ]
    out = analysis.ddr_queue_fields(points)
    assert out["ddr_queue_bw_bytes_per_s"]["value"] == pytest.approx(bw)
    assert out["ddr_queue_latency_s"]["value"] == pytest.approx(100e-9)
    assert out["ddr_queue_latency_s"]["idle_latency_s"] == pytest.approx(800e-9)
    assert out["ddr_queue_latency_s"]["rms_s"] == pytest.approx(0.0, abs=1e-15)


def test_ddr_queue_fields_need_three_points_and_a_growing_latency():
    with pytest.raises(ValueError, match="at least three"):
        analysis.ddr_queue_fields([{"total_bytes_per_s": 1e12, "latency_s": 1e-6}] * 2)
    flat = [{"total_bytes_per_s": b, "latency_s": 1e-6 - b * 1e-20} for b in (1e12, 2e12, 3e12)]
    with pytest.raises(ValueError, match="no positive queueing term"):
        analysis.ddr_queue_fields(flat)


def test_lone_step_fields_read_the_latency_and_one_loads_rate_at_the_fewest_sms():
    # 700 ns + bytes at 1e11 B/s a load, over stages - 1 loads in flight: 8,192 B at two stages 781.92 ns,
    # 16,384 B at two 863.84 ns and at three 431.92 ns; the 132-SM point (DRAM loaded) is left out
    def point(bm, stages, sms, s):
        return {"block_m": bm, "block_k": 64, "stages": stages, "sms": sms, "s_per_iter": s}

    points = [
        point(64, 2, 16, 781.92e-9),
        point(128, 2, 16, 863.84e-9),
        point(128, 3, 16, 431.92e-9),
        point(128, 2, 132, 2000e-9),
        {"block_m": 64, "block_k": 64, "stages": 2, "sms": 16, "error": "OutOfResources"},
    ]
    f = analysis.lone_step_fields(points)["ddr_stream_per_sm_bytes_per_s"]
    assert f["value"] == pytest.approx(1e11)
    assert f["latency_s"] == pytest.approx(700e-9)
    assert f["rms_s"] == pytest.approx(0.0, abs=1e-15)
    assert "16 SMs" in f["note"] and "3 points" in f["note"]


def test_lone_step_fields_need_two_tile_sizes_and_a_growing_step():
    one = [
        {"block_m": 64, "block_k": 64, "stages": s, "sms": 16, "s_per_iter": 7e-7 / (s - 1)} for s in (2, 3)
    ]
    with pytest.raises(ValueError, match="fewer than two tile sizes"):
        analysis.lone_step_fields(one)
    shrinking = [
        {"block_m": m, "block_k": 64, "stages": 2, "sms": 16, "s_per_iter": 1e-6 / m} for m in (32, 64)
    ]
    with pytest.raises(ValueError, match="does not grow"):
        analysis.lone_step_fields(shrinking)
    with pytest.raises(ValueError, match="no measured point"):
        analysis.lone_step_fields([{"error": "x"}])


def test_lone_step_cost_fit_separates_the_span_from_an_iterations_own_cost():
    # (600 ns + bytes at 1e11 B/s) / (stages - 1) + 40 ns: 8,192 B at 2 / 3 / 4 stages 721.92 / 380.96 /
    # 267.31 ns, 16,384 B at 2 / 5 stages 803.84 / 230.96 ns; N 128, 8 warps and 132 SMs are left out
    def point(bm, stages, s, **kw):
        return {
            "block_m": bm,
            "block_k": 64,
            "stages": stages,
            "sms": 16,
            "n": 16,
            "warps": 4,
            "s_per_iter": s,
            **kw,
        }

    def step(nbytes, stages):
        return (600e-9 + nbytes / 1e11) / (stages - 1) + 40e-9

    points = [point(64, s, step(8192, s)) for s in (2, 3, 4)] + [
        point(128, s, step(16384, s)) for s in (2, 5)
    ]
    points += [point(64, 2, 5e-6, n=128), point(64, 2, 5e-6, warps=8), point(64, 2, 5e-6, sms=132)]
    f = analysis.lone_step_cost_fit(points)
    assert f["latency_s"] == pytest.approx(600e-9)
    assert f["bytes_per_s"] == pytest.approx(1e11)
    assert f["cost_s"] == pytest.approx(40e-9)
    assert f["rms_s"] == pytest.approx(0.0, abs=1e-15) and f["points"] == 5
    with pytest.raises(ValueError, match="fewer than two stage counts"):
        analysis.lone_step_cost_fit([point(64, 2, 7e-7), point(128, 2, 8e-7)])
    with pytest.raises(ValueError, match="no measured point"):
        analysis.lone_step_cost_fit([point(64, 2, 7e-7, n=128)])


def test_sm_stream_gives_the_one_block_dram_rate_and_its_littles_law_latency():
    # 4 stages of a 128 x 64 float16 panel: 3 x 16,384 B in flight; at 5e10 B/s a SM that is 983 ns
    probe = {"points": [], "bytes_per_s_per_sm": 5e10, "BM": 128, "BK": 64, "BN": 16, "stages": 4}
    f = analysis.profile_fields({"sm_stream": probe})
    assert f["ddr_stream_per_sm_bytes_per_s"]["value"] == 5e10
    assert "4-stage" in f["ddr_stream_per_sm_bytes_per_s"]["note"]
    assert f["ddr_latency_s"]["value"] == pytest.approx(3 * 16_384 / 5e10)
    assert "ddr_stream_per_sm_bytes_per_s" not in analysis.profile_fields({"sm_stream": {"error": "x"}})


def test_partial_write_rate_from_the_narrow_strided_probe():
    # 2^24 - 1 float16 elements written 2 bytes a lane, lanes 16 bytes apart: (2^24 - 1) / 32 warp stores of
    # 16 sectors, (2^24 - 1) / 2 sectors; the aligned length and float32 do not count
    n = (1 << 24) - 1
    m = {
        "narrow_strided": {
            f"float16/{n}": {"write": {"s": 70e-6}},
            f"float16/{1 << 24}": {"write": {"s": 14e-6}},
            f"float32/{n}": {"write": {"s": 22e-6}},
        }
    }
    f = analysis.profile_fields(m)
    assert f["l2_partial_write_sectors_per_s"]["value"] == pytest.approx(n / 2 / 70e-6)
    # the launch overhead comes out of the kernel's time: the run's launch probe's, else the one given
    f = analysis.profile_fields(m, launch_overhead_s=4e-6)
    assert f["l2_partial_write_sectors_per_s"]["value"] == pytest.approx(n / 2 / 66e-6)
    f = analysis.profile_fields({**m, "launch": {"empty_kernel_s": 5e-6}}, launch_overhead_s=4e-6)
    assert f["l2_partial_write_sectors_per_s"]["value"] == pytest.approx(n / 2 / 65e-6)


def test_row_load_rate_and_wide_span_share_from_the_narrow_width_probe():
    # float16 L2 re-reads: element-wide points spanning at most 256 bytes (lanes 2, 4, 8 bytes apart) give the
    # median rate, 8e8 of (7e8, 8e8, 9e8); lanes 16 bytes apart (512 bytes) give 4e8, a share of 0.5. L1
    # points, aligned points and float32 do not count.
    def point(lanes, rate, *, access="split", tier="l2", dtype="float16"):
        return {"dtype": dtype, "tier": tier, "access": access, "lane_stride_bytes": lanes,
                "warp_instr_per_s_per_sm": rate}  # fmt: skip

    points = [
        point(2, 7e8, access="odd_stride"), point(4, 8e8), point(8, 9e8), point(16, 4e8),
        point(2, 5e9, tier="l1"), point(16, 1e9, access="aligned"), point(4, 1e7, dtype="float32"),
    ]  # fmt: skip
    f = analysis.profile_fields({"narrow_width": {"points": points}})
    assert f["lsu_l2_row_warp_instr_per_s_per_sm"]["value"] == pytest.approx(8e8)
    assert f["lsu_wide_span_share"]["value"] == pytest.approx(0.5)


def test_the_full_rate_span_is_the_models():
    # analysis.py runs on the GPU machine without the package's dependencies, so it keeps its own copy of the
    # span below which element-wide loads issue at the full row rate: it must be the model's
    from tilesight.model.resources import LSU_FULL_RATE_SPAN_BYTES

    assert analysis.FULL_SPAN_BYTES == LSU_FULL_RATE_SPAN_BYTES


def test_scan_carry_fields_by_hand():
    # one warp a scheduler (4 warps, one block): 64 steps x 4 lines x 1 operand (256 loads) in 1.6 us -> 6.25
    # ns a load; 64 x 4 x 2 (512) in 2.56 us -> 5 ns; 128 x 8 x 1 (1024) in 7.68 us -> 7.5 ns: median 6.25
    # ns. Two warps a scheduler (8 warps one block, or 4 warps two blocks): 128 x 4 x 1 (512) in 3.2 us ->
    # 6.25 ns a load, 3.125 over the two warps; four (8 warps two blocks): 512 in 6.4 us -> 3.125; 64 x 4 x 2
    # (512) in 3.6 us at two -> 3.515625. A spilling point and one without carry steps are left out
    def pt(steps, lines, ops, warps, per_sm, us, spills=0):
        return {
            "carry_steps": steps, "carry_lines": lines, "operands": ops, "warps": warps, "per_sm": per_sm,
            "s_per_scan": us * 1e-6, "n_spills": spills, "length": 4 * steps, "dim": 32,
        }  # fmt: skip

    pts = [pt(64, 4, 1, 4, 1, 1.6), pt(64, 4, 2, 4, 1, 2.56), pt(128, 8, 1, 4, 1, 7.68)]
    pts += [pt(128, 4, 1, 8, 1, 3.2), pt(128, 4, 1, 8, 2, 6.4), pt(64, 4, 2, 4, 2, 3.6)]
    pts += [pt(128, 4, 2, 4, 1, 99.0, spills=200), pt(0, 0, 1, 4, 1, 1.0)]
    f = analysis.scan_carry_fields(pts)
    assert f["scan_carry_latency_s"] == pytest.approx(6.25e-9)
    assert f["scan_carry_issue_s"] == pytest.approx(3.125e-9)
    assert f["points"] == (3, 3)
    with pytest.raises(ValueError, match="two or more warps"):
        analysis.scan_carry_fields(pts[:3])


def test_scan_carry_fields_from_the_committed_probe():
    import json

    data = json.loads(
        (Path(__file__).resolve().parents[3] / "benchmarks/data/calibration_scan_chain.json").read_text()
    )
    f = analysis.scan_carry_fields(data["measurements"]["scan_chain"]["points"])
    from tilesight.hardware import load_profile

    h200 = load_profile("h200")
    assert h200.scan_carry_latency_s == pytest.approx(f["scan_carry_latency_s"], rel=1e-4)
    assert h200.scan_carry_issue_s == pytest.approx(f["scan_carry_issue_s"], rel=1e-4)


def test_local_reload_latency_is_the_median_l1_run_of_one():
    def pt(run, warps, blocks, pad, ns):
        return {"unroll": run, "warps": warps, "blocks_per_sm": blocks, "shared_pad_bytes": pad,
                "s_per_step": ns * 1e-9}  # fmt: skip

    pts = [
        pt(1, 1, 1, 0, 40.0), pt(1, 4, 1, 0, 42.0),  # L1, runs of one: median (40 + 42) / 2 = 41 ns
        pt(1, 1, 4, 49152, 270.0), pt(1, 4, 4, 49152, 280.0),  # L2: 275 ns, the check beside it
        pt(2, 1, 1, 0, 44.0), pt(1, 1, 4, 0, 90.0),  # a run of two; four blocks without a reserve: neither
        {"unroll": 1, "error": "boom"},
    ]  # fmt: skip
    f = analysis.local_reload_latency(pts)
    assert f["local_l1_latency_s"]["value"] == pytest.approx(41e-9)
    assert f["_l2_step_s"]["value"] == pytest.approx(275e-9)
    with pytest.raises(ValueError, match="in L1 and in L2"):
        analysis.local_reload_latency(pts[:2])


def test_atomics_hot_fields_recover_the_slices_and_the_word_times():
    # points made by the model's own one-line law: tx / R x slices + (adds / bins) x same, R = 4e11 x 4 / 32
    # = 5e10 sectors/s; 80 slices, 1.5 ns a float add on one word, 0.5 ns an int add; the 1,024-bin point
    # spans 32 lines and is left out
    from tilesight.model.resources import scatter_transactions_per_element as per

    e, rate = 1 << 24, 5e10

    def pt(dtype, bins, same):
        s = e * per(bins, 4, 32) / rate * 80 + e / bins * same
        return {"dtype": dtype, "bins": bins, "elements": e, "s": s, "sum_ok": True}

    pts = [pt(d, b, t) for d, t in (("float32", 1.5e-9), ("int32", 5e-10)) for b in (1, 8, 32)]
    pts.append({"dtype": "int32", "bins": 1024, "elements": e, "s": 1.0, "sum_ok": True})
    f = analysis.atomics_hot_fields(pts, 4e11)
    assert f["l2_atomic_slices"] == pytest.approx(80)
    assert f["atomic_same_address_s"] == pytest.approx(1.5e-9)
    assert f["atomic_same_address_int_s"] == pytest.approx(5e-10)
    with pytest.raises(ValueError, match="two float32 points"):
        analysis.atomics_hot_fields([p for p in pts if p["dtype"] == "int32"], 4e11)


@pytest.mark.parametrize(
    ("profile", "data"),
    [("h100", "calibration_atomics_hot_h100.json"), ("h200", "calibration_atomics_hot.json")],
)
def test_atomics_hot_fields_from_the_committed_probe(profile, data):
    # each profile carries the fit of its own GPU's run of the probe (the H200's, stop 82, within 0.1% of the
    # H100's, which it carried before: the same GH100 L2)
    import json

    doc = json.loads((Path(__file__).resolve().parents[3] / "benchmarks/data" / data).read_text())
    from tilesight.hardware import load_profile

    hw = load_profile(profile)
    f = analysis.atomics_hot_fields(doc["measurements"]["atomics_hot"]["points"], hw.l2_atomic_elements_per_s)
    assert hw.l2_atomic_slices == pytest.approx(f["l2_atomic_slices"], rel=1e-3)
    assert hw.atomic_same_address_s == pytest.approx(f["atomic_same_address_s"], rel=1e-3)
    assert hw.atomic_same_address_int_s == pytest.approx(f["atomic_same_address_int_s"], rel=1e-3)

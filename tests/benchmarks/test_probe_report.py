"""benchmarks/probe_report.py: the exposed share and the merges by residency, on hand-made points."""

from __future__ import annotations

import json

import pytest


@pytest.fixture(scope="module")
def report(load_script):
    return load_script("benchmarks/probe_report.py")


def _point(bn: int, load: bool, s: float) -> dict:
    return {"programs_per_sm": 1, "warps": 4, "stages": 3, "BN": bn, "load": load, "s": s}


def test_exposed_share_is_of_the_smaller_side(report):
    # loads alone 100 (BN 16 with loads); BN 64: dots 60, both 121 -> (121 - 100) / 60 = 0.35 (loads larger);
    # BN 128: dots 150, both 170 -> (170 - 150) / 100 = 0.2 (dots larger); the BN-16 loop itself is no row
    pts = [_point(16, True, 100.0), _point(16, False, 30.0), _point(64, True, 121.0), _point(64, False, 60.0)]
    pts += [_point(128, True, 170.0), _point(128, False, 150.0)]
    rows = report.overlap_exposure(pts)
    assert [(r["BN"], r["dots_larger"]) for r in rows] == [(64, False), (128, True)]
    assert [r["exposed"] for r in rows] == pytest.approx([0.35, 0.2])


def test_merges_grouped_by_the_occupancy_rule(report):
    # 128 threads at 128 registers: 4 warps x 4096 = 16384 registers a block, 4 blocks in 65536; with 40 KiB
    # of shared memory (+1 KiB reserved) 5 fit in 228 KiB, so 4 resident. At 200 registers: 6400 a warp (25
    # allocation units of 256), 25600 a block, 2 resident. Medians: (0.1 + 0.3) / 2 and 0.5; a case without
    # the LRC counters is skipped
    def case(regs, smem, coalescable, achieved):
        return {"threads": 128, "n_regs": regs, "shared_bytes": smem,
                "lrc__request_sectors_op_read_coalescable.sum": coalescable,
                "lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum": achieved}  # fmt: skip

    cases = [case(128, 40960, 100, 10), case(128, 40960, 100, 30), case(200, 0, 10, 5), case(128, 0, 0, None)]
    assert report.merges_by_residency(cases, 132, 65536, 233472) == pytest.approx({2: 0.5, 4: 0.2})


def test_smem_and_feed_print_the_profile_fits(report, capsys):
    # both read the committed probe data and print the fitted constants next to the profile's
    from tilesight.hardware import load_profile

    hw = load_profile("h200")
    report.main(["smem"])
    out = capsys.readouterr().out
    assert f"smem_chain_latency_s = {hw.smem_chain_latency_s:.4e}" in out
    assert "fit   packed3 2 lanes" in out
    report.main(["feed"])
    out = capsys.readouterr().out
    assert f"smem_feed_step_s = {hw.smem_feed_step_s:.4e}" in out
    assert "128x128x64 128 threads" in out


def test_steps_prints_the_profile_step_latency(report, capsys):
    # the committed fa_steps data refits the profile's waited_step_latency_s to the printed digits
    from tilesight.hardware import load_profile

    report.main(["steps"])
    out = capsys.readouterr().out
    assert f"waited_step_latency_s = {load_profile('h200').waited_step_latency_s:.4e}" in out
    assert "d64  128x32  s2 t256" in out


def test_a_persistent_tile_splits_into_its_iterations_and_the_rest(report):
    # a tile config at K = 1024 and 4096, BLOCK_K 64 (16 and 64 iterations): a tile adds 10 us at K 1024 and
    # 34 us at 4096, so an iteration adds (34 - 10) / 48 = 0.5 us and a tile 10 - 16 x 0.5 = 2 us besides
    rows = [
        {"kernel": "k", "block_m": 128, "block_n": 128, "block_k": 64, "num_warps": 4, "num_stages": 3,
         "K": k, "tiles_per_program": t, "p50_us": base + per * t}
        for k, base, per in ((1024, 5.0, 10.0), (4096, 7.0, 34.0))
        for t in (1, 2, 4, 8)
    ]  # fmt: skip
    (row,) = report.per_tile_costs(rows)
    assert row["tile_us"] == pytest.approx({1024: 10.0, 4096: 34.0})
    assert row["iter_ns"] == pytest.approx(500.0) and row["rest_us"] == pytest.approx(2.0)


def test_overlap_model_rows_are_measured_over_predicted(report):
    # two points with loads and one without: only the loaded ones, each measured / predicted
    points = [
        {"programs_per_sm": 1, "warps": 4, "stages": 3, "BN": 64, "load": True, "s": 3e-4},
        {"programs_per_sm": 1, "warps": 4, "stages": 3, "BN": 64, "load": False, "s": 1e-4},
        {"programs_per_sm": 2, "warps": 8, "stages": 4, "BN": 128, "load": True, "s": 5e-4},
    ]
    rows = report.overlap_model_rows(points, lambda p: (2e-4 * p["programs_per_sm"], "TC-bound"))
    assert [(r["BN"], r["ratio"]) for r in rows] == [(64, pytest.approx(1.5)), (128, pytest.approx(1.25))]
    assert rows[1]["reason"] == "TC-bound"


def test_tile_loop_against_the_models_two_terms(report, capsys):
    # one dot a step of a 128 x 128 x 64 tile: t = 2 x 128 x 128 x 64 FLOP at 656.28 TFLOP/s, u = (128 + 128)
    # x 64 x 2 bytes at 8.3355 TB/s, the same for every program and step: t / u = 3.1955 / 3.9312 = 0.81.
    # The committed one-program-an-SM, 4-warp point takes 266.2 us against u = 132 x 512 x 32768 B / 8.3355
    # TB/s = 265.7 us: 1.00 x max(t, u)
    report.main(["tile_loop"])
    lines = capsys.readouterr().out.splitlines()
    line = next(x for x in lines if x.startswith("block_K  64, 4 warps, 1 program(s) an SM, 1 dot(s)"))
    assert "t / u 0.81, private 1.00 x max(t, u)" in line


def test_tile_loop_model_rows_are_measured_over_predicted(report, capsys, monkeypatch):
    # the model patched to 200 us for every point: the committed one-program, 4-warp, block_K 64, one-dot
    # point took 266.2 us: 266.2 / 200 = 1.33, and (266.2 - 200) us over its 512 iterations = 129.3 ns each
    class Fake:
        latency_s = 200e-6
        bottleneck = "tc"

    monkeypatch.setattr(report, "_predict_tile_loop_point", lambda p: Fake)
    report.main(["tile_loop_model"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("block_K warps programs/SM dots loads  measured  predicted  meas/pred")
    rows = [x.split() for x in lines[1:]]
    assert len(rows) == 32  # 2 block_K x 2 warps x 2 residencies x 2 dots, with and without loads
    row = next(r for r in rows if r[:5] == ["64", "4", "1", "1", "yes"])
    assert row[5:] == ["266.2us", "200.0us", "1.33", "129.3", "tc"]


def test_tile_loop_point_builds_the_probe_kernel(report):
    # the probe's own kernel compiled on the CPU: 132 programs of a 128 x 128 x 64 tile, two dots a step on
    # tiles loaded once (no loads in the loop): 2 x 128^3 x 64 x 2 x 512 FLOP a program = 1.07 GFLOP each
    point = {"BM": 128, "BN": 128, "BK": 64, "K": 128, "iters": 512, "share": 1, "dots": 2, "load": False,
             "warps": 4, "stages": 3, "programs_per_sm": 1}  # fmt: skip
    r = report._predict_tile_loop_point(point)
    assert r.flops == pytest.approx(132 * 2 * 128 * 128 * 64 * 2 * 512, rel=0.01)
    assert r.latency_s > 0


def test_harmonic_mix_rate_by_hand(report):
    # read 4, copy 3.2: 1 / W = 2 / 3.2 - 1 / 4 = 0.375; two reads and a write: 3 / (2 / 4 + 0.375) = 3.4286
    import dataclasses

    from tilesight.hardware import load_profile

    # the rates in TB/s: read 4, copy 3.2
    hw = dataclasses.replace(load_profile("h200"), ddr_read_bw_bytes_per_s=4e12, ddr_bw_bytes_per_s=3.2e12)
    assert report.harmonic_mix_rate(2, 1, hw) == pytest.approx(3 / 0.875 * 1e12)
    assert report.harmonic_mix_rate(1, 1, hw) == pytest.approx(3.2e12)  # the copy itself
    assert report.harmonic_mix_rate(0, 1, hw) == pytest.approx(1 / 0.375 * 1e12)
    assert report.harmonic_mix_rate(1, 0, hw) == pytest.approx(4.0e12)


def test_ddr_mix_prints_each_mix_against_the_profile(report, capsys):
    report.main(["ddr_mix"])
    out = capsys.readouterr().out
    assert "1r1w                         torch_copy:  4.24 TB/s" in out
    assert "R 4.59, C 3.81 TB/s (profile): modelled / best 1r0w 4.59 / 4.53" in out
    assert out.count("MiB a stream") == 27  # three mixes at nine lengths, each beside its prediction


def test_ddr_flush_prints_both_flushes_and_the_difference(report, capsys):
    report.main(["ddr_flush"])
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 24  # six streams at four lengths
    # the 128 MiB read stream: 41.23 us after do_bench's dirty flush, 33.94 after a clean one
    assert (
        "1r0w   128 MiB a stream: after a dirty L2   41.23 us, after a clean one   33.94 us, +7.30 us" in out
    )


def _paced_row(block: int, merge: float, compute: float, measured: float, schedule: float = 1e-6) -> dict:
    point = {"kernel": "flat_copy_paced", "block": block, "warps": 4}
    return {"point": point, "merge": merge, "compute": compute, "measured": measured, "schedule": schedule}


def test_split_pacing_predict_by_hand(report):
    # merges 100 us, arithmetic 60 us, 0.2 of the merges free: 40 us paced, half of it off: 80 + 2 us launch
    row = _paced_row(1024, 100e-6, 60e-6, 0.0)
    assert report.split_pacing_predict(row, 0.2, 0.5, 2e-6) == pytest.approx(82e-6)
    # within the free share: the bare merges; a schedule above the floor wins
    assert report.split_pacing_predict(_paced_row(1024, 100e-6, 10e-6, 0.0), 0.2, 0.5, 2e-6) == pytest.approx(
        102e-6
    )
    assert (
        report.split_pacing_predict(row, 0.2, 0.5, 2e-6)
        < report.split_pacing_predict({**row, "schedule": 90e-6}, 0.2, 0.5, 2e-6)
        == pytest.approx(90e-6)
    )


def test_split_pacing_fit_recovers_the_constants_and_skips_long_bursts(report):
    # rows made with free 0.25 and relief 0.6 at 8 elements a thread (BLOCK 1024 on 4 warps) come back; a
    # 64-a-thread row (BLOCK 8192) far off the rule changes nothing: the fit leaves it out
    made = [_paced_row(1024, 100e-6, c * 1e-6, 0.0) for c in (0, 10, 40, 60, 80, 95)]
    for r in made:
        r["measured"] = report.split_pacing_predict(r, 0.25, 0.6, 2e-6)
    outlier = _paced_row(8192, 100e-6, 80e-6, 300e-6)
    assert report.split_pacing_fit([*made, outlier], 2e-6) == (0.25, 0.6)


def test_split_mix_prints_every_split_point_and_the_fit(report, capsys):
    report.main(["split_mix"])
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith(
        "flat_copy_paced fit: split_store_pacing_free = 0.09, split_store_pacing_relief = 0.49"
    )
    # the bare split write of 2^24 - 1 elements: 66.0 us of merges, 70.2 predicted with the launch
    line = next(x for x in out if x.lstrip().startswith("stream_mix 0r1w   16.8M BLOCK 1024 4 warps"))
    assert "merges   66.0, compute    0.0, predicted   70.2" in line


def test_reduce_mix_prints_each_odd_width_beside_its_twin(report, capsys):
    report.main(["reduce_mix"])
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 36  # three widths x three warp counts x four reduction counts
    # the 700-wide rows on 4 warps reduced once: 34.9 us against the 704-wide twin's 33.6
    assert out[0].startswith("width  700 /  704, BLOCK 1024,  4 warps, 1 reduction(s) a row: ")
    assert "measured   34.9 /   33.6 us (odd adds  +1.3)" in out[0]


def test_local_rows_by_hand(report, tmp_path, capsys):
    # a dependent point: 512 B frames, runs of 8 (16 steps a pass), 100 passes in 80 us: 1,600 steps, 50 ns a
    # step; 4 warps x 4 blocks reserving shared memory: 512 x 128 x 4 = 256 KB an SM, 34.6 MB over 132 SMs;
    # 2 x 512 x 128 x 528 blocks x 100 passes = 6.92 GB in 80 us over 132 SMs = 655 GB/s an SM
    frame, threads, blocks = 512, 128, 4 * 132
    moved = 2 * frame * threads * blocks * 100
    point = {
        "frame_bytes": frame, "unroll": 8, "warps": 4, "blocks_per_sm": 4, "shared_pad_bytes": 49152,
        "dependent": True, "iters": 100, "s": 80e-6, "bytes": moved, "bytes_per_s": moved / 80e-6,
        "footprint_per_sm_bytes": frame * threads * 4, "footprint_bytes": frame * threads * blocks,
    }  # fmt: skip
    (row,) = report.local_rows([point])
    assert row["ns_per_step"] == pytest.approx(50.0)
    assert row["footprint_kb"] == pytest.approx(256.0) and row["chip_mb"] == pytest.approx(34.603008)
    assert row["gb_s_per_sm"] == pytest.approx(moved / 80e-6 / 132 / 1e9) and row["reserve"]
    # the report names a probe not measured yet with its command, and prints a measured one's rows
    report.main(["local", "--data", str(tmp_path)])
    assert "local_runs: not measured yet" in capsys.readouterr().out
    doc = {"measurements": {"local_l2": {"error": "x"}, "local_runs": {"points": [point]}}}
    (tmp_path / "calibration_local_l2.json").write_text(json.dumps(doc))  # one run holding both
    report.main(["local", "--data", str(tmp_path)])
    assert "50.0 ns a run of 8" in capsys.readouterr().out


def test_lone_step_fit_reads_a_latency_and_a_rate_off_the_128_byte_rows(report):
    # 4 / 8 / 16 KB tiles (BLOCK_M 32 / 64 / 128 at BLOCK_K 64) taking 700 ns + bytes at 100 GB/s: 740.96 /
    # 781.92 / 863.84 ns; a 64 x 128 point (256-byte rows) off the line is left out of the fit
    def point(bm, bk, ns):
        return {"block_m": bm, "block_k": bk, "s_per_iter": ns * 1e-9}

    pts = [point(bm, 64, 700 + bm * 128 / 100) for bm in (32, 64, 128)] + [point(64, 128, 5000)]
    latency, rate = report.lone_step_fit(pts)
    assert latency == pytest.approx(700e-9)
    assert rate == pytest.approx(100e9)
    assert report.lone_step_fit(pts[:1] + pts[3:]) is None
    flat = [point(32, 64, 800), point(64, 64, 790)]
    assert report.lone_step_fit(flat)[1] == 0.0


def test_regs_a_puts_each_register_chain_beside_its_shared_memory_twin(report, tmp_path, capsys, monkeypatch):
    import argparse
    import json

    # 64 x 32 at K 64, one block an SM: A from shared memory 200 us, from registers 150 us (measured rate
    # ratio 200 / 150 = 1.33); the model (patched) 190 and 140 us: 190 / 140 = 1.36
    point = {"BM": 64, "BN": 32, "BK": 64, "warps": 4, "blocks_per_sm": 1}
    points = [
        {**point, "a_regs": regs, "s": s, "flops_per_s": f}
        for regs, s, f in ((False, 200e-6, 6.0e14), (True, 150e-6, 8.054e14))
    ]
    path = tmp_path / "calibration_regs_a.json"
    path.write_text(json.dumps({"measurements": {"regs_a": {"points": points}}}))
    monkeypatch.setattr(report, "_predict_dot_chain_point", lambda p: 140e-6 if p["a_regs"] else 190e-6)
    report._regs_a_model(argparse.Namespace(data=str(tmp_path)))
    out = capsys.readouterr().out
    assert "64 x 32  K 64  per_sm 1 A in registers: measured   150.0 us, predicted   140.0 us" in out
    assert "64 x 32 K 64 per_sm 1: registers' rate over shared memory's, measured 1.33, predicted 1.36" in out
    # 805.4 TFLOP/s is the h200 profile's chain rate: 1.00 of it, the profile's 1.00 at N = 32
    assert "register A, N = 32: mean 805 TFLOP/s = 1.00 of the chain rate (profile [wgmma_n_efficiency" in out
    with pytest.raises(SystemExit, match="no file .*none .*queued.sh regsa"):
        report._regs_a_model(argparse.Namespace(data=str(tmp_path / "none")))


def test_mask_model_puts_the_masks_cost_measured_beside_predicted(report, tmp_path, capsys, monkeypatch):
    import argparse
    import json

    # 64 x 64 d128 on 4 warps, two blocks an SM: 976.4 us unmasked, 1012.4 masked: the mask 36.0 us, over
    # 1024 iterations and 2 x 64 x 64 scores an SM: 36e-6 / 1024 / 8192 = 4.29 ps a score; the model (patched)
    # 1100 and 1300 us: 200.0 us, 23.8 ps
    point = {"BM": 64, "BN": 64, "D": 128, "warps": 4, "blocks_per_sm": 2}
    points = [{**point, "mask": m, "s": s} for m, s in ((False, 976.4e-6), (True, 1012.4e-6))]
    (tmp_path / "calibration_mask.json").write_text(
        json.dumps({"measurements": {"masked_softmax": {"points": points}}})
    )
    monkeypatch.setattr(report, "_predict_chain_point", lambda p: 1300e-6 if p["mask"] else 1100e-6)
    report._mask_model(argparse.Namespace(data=str(tmp_path)))
    out = capsys.readouterr().out
    assert "64 x 64   d128  w4 per_sm 2: mask measured    36.0 us (  4.3 ps a score)" in out
    assert "predicted   200.0 us" in out
    assert "( 23.8 ps)" in out
    assert report.mask_ps_per_element(36e-6, point) == pytest.approx(36e-6 / 1024 / 8192 * 1e12)
    with pytest.raises(SystemExit, match="no file .*none.*only masked_softmax"):
        report._mask_model(argparse.Namespace(data=str(tmp_path / "none")))


def test_sfu_mix_rows_by_hand(report):
    # rates 10 FMA/s and 2 exp2/s: 4 exp2 + 8 FMAs in 2.0 s -> FMAs 0.8 s, exp2 2.0 s, 1.0x their max, the
    # exponentials the larger (no slots); 4 exp2 + 40 FMAs in 5.0 s -> FMAs 4.0 s, 1.25x, and the slots an
    # exp2 takes beside them (5.0 x 10 - 40) / 4 = 2.5; rows come back sorted by FMAs an exp2
    pts = [
        {"fmas_per_exp2": 10.0, "s": 5.0, "exp2_ops": 4.0, "fma_ops": 40.0},
        {"fmas_per_exp2": 2.0, "s": 2.0, "exp2_ops": 4.0, "fma_ops": 8.0},
    ]
    rows = report.sfu_mix_rows(pts, 10.0, 2.0)
    assert [r["fmas_per_exp2"] for r in rows] == [2.0, 10.0]
    assert [r["over_max"] for r in rows] == pytest.approx([1.0, 1.25])
    assert rows[0]["issue_slots"] is None
    assert rows[1]["issue_slots"] == pytest.approx(2.5)


def test_alu_form_rows_by_hand(report):
    # 2 SMs; the profile at 2 * 2 * 32 * 1e9 FLOP/s prices 1e9 warp instructions an SM a second. The FMA chain
    # issued 4e9 warp instructions in 2 s (1e9 an SM a second: 1.0x the profile's), the polynomial 6e9 in
    # 2 s (1.5x the chain's and the profile's)
    pts = [
        {"form": "fma_registers", "s": 2.0, "loop_instructions": 131, "warp_instructions": 4e9},
        {"form": "fma_constants", "s": 2.0, "loop_instructions": 132, "warp_instructions": 6e9},
    ]
    rows = report.alu_form_rows(pts, 2, 2 * 2 * 32 * 1e9)
    assert [r["over_first"] for r in rows] == pytest.approx([1.0, 1.5])
    assert [r["over_profile"] for r in rows] == pytest.approx([1.0, 1.5])
    assert rows[1]["per_ns"] == pytest.approx(1.5)


def test_sfu_mix_prints_the_committed_run(report, capsys):
    report.main(["sfu_mix"])
    out = capsys.readouterr().out
    assert "H100" in out and "12.0 FMAs an exp2" in out and "FMA issue slots" in out


def test_a_barrier_meeting_is_the_step_over_the_loop_without_one(report):
    # 8 warps, 2 blocks an SM, 8 FMAs a step: 100 ns a step without barriers, 130 with one, 190 with four:
    # one meeting 30 ns, then (190 - 100) / 4 = 22.5 ns; a failed point and one with no zero-barrier twin
    # (16 warps) are left out
    def p(warps, barriers, ns, **extra):
        return {"warps": warps, "blocks_per_sm": 2, "work": 8, "barriers": barriers, "s_per_step": ns * 1e-9,
                **extra}  # fmt: skip

    points = [p(8, 0, 100), p(8, 1, 130), p(8, 4, 190), p(8, 2, 0, error="boom"), p(16, 1, 150)]
    rows = report.barrier_meeting_costs(points)
    assert [(r["warps"], r["barriers"]) for r in rows] == [(8, 1), (8, 4)]
    assert [r["meeting_s"] * 1e9 for r in rows] == pytest.approx([30.0, 22.5])


def test_stream_fma_fit_recovers_the_rate_and_the_combination(report):
    # Hand-made points on one SM: 250 blocks of 4 warps (1,000 warps), 100 instructions a warp at 0 steps and
    # 20 more each step; at 1e9 warp instructions a second the CUDA time is (100 + 20 s) us, DRAM 200 us, the
    # two combined as a 4-norm. At s = 5 they are equal: 2^(1/4) x 200 = 237.8 us.
    def point(steps):
        cuda = (100 + 20 * steps) * 1e-6
        s = (cuda**4 + 200e-6**4) ** 0.25 if steps else 200e-6
        return {
            "block": 1024, "warps": 4, "elements": 250 * 1024, "steps": steps, "constants": True,
            "sass_ops": {"FFMA": 20 * steps, "LDG": 100}, "s": s,
        }  # fmt: skip

    points = [point(s) for s in (0, 2, 4, 5, 6, 8, 12, 20, 40, 60)]
    assert points[3]["s"] == pytest.approx(237.84e-6, rel=1e-4)
    fit = report.stream_fma_fit(points, sms=1, ddr_s=200e-6)
    assert fit["p"] == pytest.approx(4.0, abs=0.05)
    assert fit["rate"] == pytest.approx(1e9, rel=0.01)
    assert max(abs(r["fit_s"] / r["s"] - 1) for r in fit["rows"] if r["steps"]) < 0.001

"""Hardware profiles: every shipped profile loads, its numbers are plausible, and bad files fail loudly.

The ratio tests exist to catch copy-paste errors between profiles (PyTorch inductor once shipped one GPU's
bandwidth under another's name); the bands are wide on purpose and documented where they are chosen.
"""

from __future__ import annotations

import dataclasses
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tilesight as ts
from tilesight.hardware import MEASURED_OVER_SPEC_TOLERANCE, _profile_dir, parse_profile

EXPECTED = ("a100", "b200", "h100", "h200", "mi210", "rtx_pro_6000")
ALL = [ts.load_profile(n) for n in EXPECTED]
H200_TEXT = (_profile_dir() / "h200.toml").read_text()


def test_profiles_lists_every_shipped_gpu():
    assert set(EXPECTED) <= set(ts.profiles())


def test_h200_loads():
    p = ts.load_profile("h200")
    assert p.sm_count == 132
    assert p.display_name == "NVIDIA H200 SXM 141GB"


def test_unknown_profile_lists_known():
    with pytest.raises(ts.UnknownProfileError, match="known profiles: .*a100.*h200.*mi210"):
        ts.load_profile("h999")


def test_lookup_is_case_and_dash_insensitive():
    assert ts.load_profile("RTX-PRO-6000").name == "rtx_pro_6000"


@pytest.mark.parametrize("p", ALL, ids=lambda p: p.name)
def test_every_field_has_a_source(p):
    numeric = [f.name for f in dataclasses.fields(p) if isinstance(getattr(p, f.name), int | float)]
    given_fields = [k for k in p.sources if "." not in k]
    assert given_fields, p.name
    for key in given_fields:
        assert p.source(key).strip(), f"{p.name}.{key} has no source"
    for table in ("tensor_core", "tensor_core_legacy", "tensor_core_spec"):
        for dt in p.sources:
            if dt.startswith(table + "."):
                assert p.source(dt).strip()
    # every required numeric field was given in the file (hence has a source)
    from tilesight.hardware import _REQUIRED

    assert set(_REQUIRED) <= set(given_fields) <= set(numeric)


@pytest.mark.parametrize("p", ALL, ids=lambda p: p.name)
def test_measured_rates_within_spec(p):
    tol = MEASURED_OVER_SPEC_TOLERANCE
    assert p.ddr_bw_bytes_per_s <= p.ddr_bw_spec_bytes_per_s * tol
    assert p.cuda_flops_per_s <= p.cuda_flops_spec_per_s * tol
    assert p.sfu_ops_per_s <= p.sfu_ops_spec_per_s * tol
    assert p.tc_spec_flops_per_s, f"{p.name} gives no [tensor_core_spec]"
    for dt, rate in p.tc_flops_per_s.items():
        assert rate <= p.tc_spec_flops_per_s[dt] * tol, dt
    for dt, rate in p.tc_legacy_flops_per_s.items():
        # the legacy warp-level family never beats the main one on the same GPU
        assert rate <= p.tc_flops_per_s[dt] * tol, dt


@pytest.mark.parametrize("p", ALL, ids=lambda p: p.name)
def test_ddr_bandwidth_per_sm_plausible(p):
    # Per-SM share of DRAM bandwidth: RTX PRO 6000 1.4e12/188 = 7.4 GB/s is the lowest shipped, B200
    # 7.0e12/148 = 47 GB/s the highest. A profile carrying another GPU's bandwidth or SM count, or a bandwidth
    # in GB/s instead of B/s, falls outside [4, 80] GB/s per SM.
    per_sm = p.ddr_bw_bytes_per_s / p.sm_count
    assert 4e9 <= per_sm <= 80e9, per_sm


# Dense fp16 tensor-core FLOP/s over FP32 vector FLOP/s, from the datasheets: A100 312/19.5 = 16;
# Hopper 989/66.9 = 14.8; B200 2382/74.5 = 32; RTX PRO 6000 468/117 = 4; MI210 181/45.3 = 4.
TC_OVER_CUDA_SPEC = {
    "a100": 16.0,
    "h100": 14.8,
    "h200": 14.8,
    "b200": 32.0,
    "rtx_pro_6000": 4.0,
    "mi210": 4.0,
}


@pytest.mark.parametrize("p", ALL, ids=lambda p: p.name)
def test_tensor_core_over_cuda_core_ratio_per_generation(p):
    spec_ratio = p.tc_spec_flops_per_s["float16"] / p.cuda_flops_spec_per_s
    assert spec_ratio == pytest.approx(TC_OVER_CUDA_SPEC[p.name], rel=0.05)
    # measured rates fall short of spec by different amounts on each pipe (H200: 928/49.5 = 18.7), but never
    # by enough to move the ratio to another generation's (a factor of 2 or more)
    measured_ratio = p.tc_rate("float16") / p.cuda_flops_per_s
    assert 0.6 * spec_ratio <= measured_ratio <= 1.5 * spec_ratio


@pytest.mark.parametrize("p", ALL, ids=lambda p: p.name)
def test_capacities_consistent(p):
    assert p.smem_per_block_max_bytes <= p.smem_per_sm_bytes
    assert p.l2_effective_bytes <= p.l2_bytes
    assert p.l2_line_bytes % p.l2_sector_bytes == 0
    assert p.max_warps_per_sm * p.warp_size == p.max_threads_per_sm
    assert p.max_threads_per_block <= p.max_threads_per_sm
    # per-SM L2 port times SM count must be able to reach the measured L2 bandwidth (otherwise one of the two
    # is off by a unit): H200 126.7e9 x 132 = 16.7e12 >= 9.2e12
    assert p.l2_bw_per_sm_bytes_per_s * p.sm_count >= p.l2_bw_bytes_per_s
    # L2 is faster than DRAM and slower than the sum of shared memories
    assert p.ddr_bw_bytes_per_s < p.l2_bw_bytes_per_s < p.smem_bw_per_sm_bytes_per_s * p.sm_count
    assert p.l2_latency_s < p.ddr_latency_s


# Measured low-precision rates: datasheets give exactly 2x (fp8; int8 on NVIDIA) and 0.5x (tf32) fp16,
# but calibrated values are measured per dtype and land within these bands; a value copied from the fp16 line
# (ratio 1) or a tf32 rate taken for fp8 (ratio 0.5) falls outside.
MEASURED_FP8_OVER_FP16 = (1.3, 2.3)
MEASURED_TF32_OVER_FP16 = (0.3, 0.7)


@pytest.mark.parametrize("p", ALL, ids=lambda p: p.name)
def test_low_precision_doubles_fp16_where_supported(p):
    spec16 = p.tc_spec_flops_per_s["float16"]
    fp16 = p.tc_rate("float16")
    for dt in ("float8_e4m3fn", "float8_e5m2"):
        if dt in p.tc_flops_per_s:
            assert p.tc_spec_flops_per_s[dt] == pytest.approx(2 * spec16, rel=0.01)
            lo, hi = MEASURED_FP8_OVER_FP16
            assert lo <= p.tc_flops_per_s[dt] / fp16 <= hi, dt
    if "tfloat32" in p.tc_flops_per_s:
        assert p.tc_spec_flops_per_s["tfloat32"] == pytest.approx(spec16 / 2, rel=0.01)
        lo, hi = MEASURED_TF32_OVER_FP16
        assert lo <= p.tc_flops_per_s["tfloat32"] / fp16 <= hi
    assert p.tc_spec_flops_per_s["bfloat16"] == spec16
    assert p.tc_rate("bfloat16") == pytest.approx(fp16, rel=0.15)


def test_fp8_only_where_the_hardware_has_it():
    for name in ("a100", "mi210"):
        assert "float8_e4m3fn" not in ts.load_profile(name).tc_flops_per_s
    for name in ("h100", "h200", "b200", "rtx_pro_6000"):
        assert "float8_e4m3fn" in ts.load_profile(name).tc_flops_per_s


def test_h200_has_more_ddr_than_h100_with_the_same_sm_array():
    """Pins the classic copy-paste error: the H200 carrying the H100's bandwidth (or the reverse)."""
    h100, h200 = ts.load_profile("h100"), ts.load_profile("h200")
    assert h100.sm_count == h200.sm_count
    assert h200.ddr_bw_spec_bytes_per_s > h100.ddr_bw_spec_bytes_per_s
    assert h200.ddr_bw_bytes_per_s > h100.ddr_bw_bytes_per_s
    assert h200.ddr_bytes > h100.ddr_bytes
    assert h200.l2_bytes > h100.l2_bytes


def test_tiers_only_where_they_exist():
    # B200: two dies -> L1.5 between SM and the whole-chip L2; TMEM 128 lanes x 512 cols x 4 B = 256 KiB
    b200 = ts.load_profile("b200")
    assert b200.has_l15 and b200.has_tmem
    assert b200.tmem_per_sm_bytes == 256 * 1024
    assert b200.l15_sms_per_group * 2 == b200.sm_count
    assert b200.l15_bw_bytes_per_s > b200.l2_bw_bytes_per_s
    for name in ("a100", "h100", "h200", "rtx_pro_6000", "mi210"):
        p = ts.load_profile(name)
        assert not p.has_tmem, name
    # legacy tensor-core tables only where a newer MMA family exists (wgmma on Hopper, tcgen05 on B200)
    legacy = {n for n in EXPECTED if ts.load_profile(n).tc_legacy_flops_per_s}
    assert legacy == {"h100", "h200", "b200"}


def test_paper_figure2_cliffs():
    # Figure 2: B200 smeared cliff at 83.12 MB, RTX PRO 6000 sharp cliff at 130.62 MB (1 MB = 1e6 B)
    assert ts.load_profile("b200").l2_effective_bytes == 83_120_000
    assert ts.load_profile("rtx_pro_6000").l2_effective_bytes == 130_620_000


def test_mi210_is_a_wave64_hip_target():
    p = ts.load_profile("mi210")
    assert (p.vendor, p.arch, p.triton_backend, p.warp_size) == ("amd", "gfx90a", "hip", 64)
    assert (p.sm_count, p.smem_per_sm_bytes, p.l2_bytes) == (104, 64 * 1024, 8 * 2**20)
    assert p.sm_clock_hz == 1.7e9


# -- malformed input -----------------------------------------------------------------------------------


def _replace_value(text: str, field: str, new: str) -> str:
    out, n = re.subn(rf"^{field} = \{{ value = [^,]+,", f"{field} = {{ value = {new},", text, flags=re.M)
    assert n == 1, field
    return out


def test_malformed_toml_names_the_file():
    with pytest.raises(ts.ProfileError, match=r"bad\.toml: not valid TOML"):
        parse_profile(H200_TEXT + "\nsm_count = = 3\n", origin="bad.toml")


def test_missing_field_is_named():
    text = re.sub(r"^l2_bytes = .*\n", "", H200_TEXT, flags=re.M)
    with pytest.raises(ts.ProfileError, match=r"missing fields \['l2_bytes'\]"):
        parse_profile(text, origin="x.toml")


def test_missing_top_level_key_is_named():
    with pytest.raises(ts.ProfileError, match="'vendor'"):
        parse_profile(re.sub(r"^vendor = .*\n", "", H200_TEXT, flags=re.M))


@pytest.mark.parametrize("field", ["sm_count", "ddr_latency_s", "l2_bytes", "tma_supported"])
def test_negative_value_is_named(field):
    with pytest.raises(ts.ProfileError, match=rf"field {field}=-1"):
        parse_profile(_replace_value(H200_TEXT, field, "-1"))


def test_zero_required_value_is_named():
    with pytest.raises(ts.ProfileError, match="field sm_count=0 must be > 0"):
        parse_profile(_replace_value(H200_TEXT, "sm_count", "0"))


def test_a_share_over_one_is_named():
    with pytest.raises(ts.ProfileError, match="lsu_wide_span_share=1.5 is a share of a rate: at most 1"):
        parse_profile(_replace_value(H200_TEXT, "lsu_wide_span_share", "1.5"))


def test_a_norm_order_under_one_is_named():
    # the CUDA-DRAM norm's order: 0 (not given) or at least 1 (1 adds the two times; under 1 would exceed it)
    with pytest.raises(ts.ProfileError, match="cuda_ddr_norm_p=0.5 is a norm's order"):
        parse_profile(_replace_value(H200_TEXT, "cuda_ddr_norm_p", "0.5"))
    assert parse_profile(_replace_value(H200_TEXT, "cuda_ddr_norm_p", "0")).cuda_ddr_norm_p == 0.0


def test_non_integer_count_is_named():
    with pytest.raises(ts.ProfileError, match="sm_count=132.5 must be an integer"):
        parse_profile(_replace_value(H200_TEXT, "sm_count", "132.5"))


def test_string_value_is_named():
    with pytest.raises(ts.ProfileError, match="sm_count='many' must be a number"):
        parse_profile(_replace_value(H200_TEXT, "sm_count", '"many"'))


def test_empty_source_is_named():
    text = re.sub(r'^(l2_bytes = \{ value = \d+, source = )"[^"]*"', r'\1" "', H200_TEXT, flags=re.M)
    with pytest.raises(ts.ProfileError, match="l2_bytes has an empty source"):
        parse_profile(text)


def test_unknown_field_is_named():
    with pytest.raises(ts.ProfileError, match="unknown field 'l3_bytes'"):
        parse_profile(H200_TEXT.replace("[fields]\n", '[fields]\nl3_bytes = { value = 1, source = "x" }\n'))


def test_measured_above_spec_is_refused():
    with pytest.raises(ts.ProfileError, match="ddr_bw_bytes_per_s=.* exceeds ddr_bw_spec_bytes_per_s"):
        parse_profile(_replace_value(H200_TEXT, "ddr_bw_bytes_per_s", "5.2e12"))
    text = re.sub(r"^(\[tensor_core\]\nfloat16 = \{ value = )[^,]+", r"\g<1>1.1e15", H200_TEXT, flags=re.M)
    with pytest.raises(ts.ProfileError, match="tensor_core.float16=.* exceeds tensor_core_spec.float16"):
        parse_profile(text)


def test_effective_l2_above_l2_is_refused():
    with pytest.raises(ts.ProfileError, match="l2_effective_bytes=.* exceeds l2_bytes"):
        parse_profile(_replace_value(H200_TEXT, "l2_effective_bytes", "70000000"))


def test_unknown_backend_is_refused():
    with pytest.raises(ts.ProfileError, match="triton_backend='metal'"):
        parse_profile(H200_TEXT.replace('triton_backend = "cuda"', 'triton_backend = "metal"'))


@settings(max_examples=25, deadline=None)
@given(st.floats(min_value=0.01, max_value=1.0))
def test_any_measured_fraction_of_spec_loads(frac):
    # invariant: a measured DDR rate at or below the datasheet always loads and keeps its value
    spec = 4.8e12
    p = parse_profile(_replace_value(H200_TEXT, "ddr_bw_bytes_per_s", repr(spec * frac)))
    assert p.ddr_bw_bytes_per_s == pytest.approx(spec * frac)


def test_ddr_chunk_efficiency_interpolates_in_log2():
    # H200 points: 64 B -> 0.68, 128 B -> 0.945; 96 B sits at log2 fraction log2(1.5) = 0.585 between them:
    # 0.68 + 0.585 x 0.265 = 0.835. At or above the largest point (512 B) the efficiency is 1.
    p = ts.load_profile("h200")
    assert p.ddr_efficiency(64) == pytest.approx(0.68)
    assert p.ddr_efficiency(96) == pytest.approx(0.68 + 0.5849625 * 0.265, rel=1e-6)
    assert p.ddr_efficiency(4096) == 1.0
    assert p.ddr_efficiency(8) == pytest.approx(0.378)  # below the smallest point: its value


def test_l2_chunk_efficiency_table():
    # H200: 32-byte runs move at 0.561 of the rate (l2_chunks probe), 64 bytes and up at full rate; 48 B sits
    # log2(1.5) = 0.585 of the way: 0.561 + 0.585 x 0.439 = 0.818. Profiles without the table: 1.
    p = ts.load_profile("h200")
    assert p.l2_efficiency(32) == pytest.approx(0.561)
    assert p.l2_efficiency(48) == pytest.approx(0.561 + 0.5849625 * 0.439, rel=1e-6)
    assert p.l2_efficiency(64) == p.l2_efficiency(4096) == 1.0
    assert ts.load_profile("a100").l2_efficiency(32) == 1.0
    bad = H200_TEXT.replace(
        "[l2_chunk_efficiency]\n", '[l2_chunk_efficiency]\n16 = { value = 1.5, source = "x" }\n', 1
    )
    with pytest.raises(ts.ProfileError, match="l2_chunk_efficiency.16"):
        parse_profile(bad)


def test_l2_merge_share_table():
    # H200 (l2_chunks probe): four SMs reading each line at once save 0.093 of a private copy's time at
    # 64-byte runs (237.0 / 261.3 us) and 0.392 at 128-byte runs (158.8 / 261.3): 64-byte rows keep 0.2378 of
    # the merges, 32-byte rows 0.293 / 0.392 = 0.7468; a line or more keeps all of them, whatever the table.
    # A profile without the table keeps none below a line (a100). Values must be fractions.
    p = ts.load_profile("h200")
    assert p.l2_merge_share(64) == pytest.approx(0.2378)
    assert p.l2_merge_share(32) == pytest.approx(0.7468)
    assert p.l2_merge_share(128) == p.l2_merge_share(1000) == 1.0
    a100 = ts.load_profile("a100")
    assert a100.l2_merge_share(64) == 0.0 and a100.l2_merge_share(128) == 1.0
    bad = H200_TEXT.replace("[l2_chunk_merge]\n", '[l2_chunk_merge]\n16 = { value = 0, source = "x" }\n', 1)
    with pytest.raises(ts.ProfileError, match="l2_chunk_merge.16"):
        parse_profile(bad)


def test_cross_warp_reduction_latency():
    # H200 (reductions probe): 2 warps +54.1 ns, 4 +74.8, 8 +102.9, 16 +148.9 over one warp; 3 warps sits
    # log2(3) - 1 = 0.585 of the way from 2 to 4: 54.1 + 0.585 x 20.7 = 66.2 ns; above 16 the 16-warp value
    p = ts.load_profile("h200")
    assert p.reduction_latency(1) == 0.0
    assert p.reduction_latency(2) == pytest.approx(54.1e-9)
    assert p.reduction_latency(3) == pytest.approx(54.1e-9 + 0.5849625 * 20.7e-9, rel=1e-6)
    assert p.reduction_latency(16) == p.reduction_latency(32) == pytest.approx(148.9e-9)
    assert ts.load_profile("a100").reduction_latency(8) == 0.0
    bad = H200_TEXT.replace(
        "[cross_warp_reduction]\n", '[cross_warp_reduction]\n1 = { value = 1e-9, source = "x" }\n', 1
    )
    with pytest.raises(ts.ProfileError, match="cross_warp_reduction.1"):
        parse_profile(bad)


def test_cross_warp_reduction_sm_time():
    # H200 (reduce_throughput probe, many blocks an SM): 2 warps 16.08 ns of the SM a value, 4 29.78, 8 58.30,
    # 16 120.39; 3 warps sits log2(3) - 1 = 0.585 of the way from 2 to 4: 16.08 + 0.585 x 13.70 = 24.09 ns;
    # above 16 in proportion to the warps (32: 240.8 ns); one warp and a profile without the table: 0
    p = ts.load_profile("h200")
    assert p.reduction_sm_s(1) == 0.0
    assert p.reduction_sm_s(2) == pytest.approx(16.079e-9)
    assert p.reduction_sm_s(3) == pytest.approx(16.079e-9 + 0.5849625 * (29.775e-9 - 16.079e-9), rel=1e-6)
    assert p.reduction_sm_s(32) == pytest.approx(2 * 120.39e-9)
    assert ts.load_profile("a100").reduction_sm_s(8) == 0.0
    bad = H200_TEXT.replace(
        "[cross_warp_reduction_sm]\n", '[cross_warp_reduction_sm]\n1 = { value = 1e-9, source = "x" }\n', 1
    )
    with pytest.raises(ts.ProfileError, match="cross_warp_reduction_sm.1"):
        parse_profile(bad)


def test_h200_placement_is_measured():
    h = ts.load_profile("h200")
    assert sorted(h.sm_dispatch_order) == list(range(h.sm_count))
    assert len(h.sm_l2_partition) == h.sm_count and sorted(set(h.sm_l2_partition)) == [0, 1]
    assert sum(h.sm_l2_partition) == h.sm_count // 2  # two partitions of 66 SMs
    assert len(set(h.sm_dispatch_order_sparse)) == len(h.sm_dispatch_order_sparse) == h.sm_count // 2
    assert "sm_placement.l2_partition" in h.sources


def _with_placement(key: str, value: str) -> str:
    return re.sub(rf"^{key} = \{{ value = \[[^\]]*\]", f"{key} = {{ value = {value}", H200_TEXT, flags=re.M)


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("dispatch_order", "[0, 1, 2]", "dispatch_order must list each of the 132 SMs once"),
        ("dispatch_order", "[" + ", ".join(["0"] * 132) + "]", "dispatch_order must list each"),
        ("l2_partition", "[" + ", ".join(["2"] * 132) + "]", r"l2_partition must give each .* 0\.\.1"),
        ("dispatch_order_sparse", "[0, 0]", "dispatch_order_sparse must list distinct SMs"),
        ("l2_partition", '["a"]', "sm_placement.l2_partition must be a list of integers"),
    ],
)
def test_bad_placement_is_named(key, value, message):
    with pytest.raises(ts.ProfileError, match=message):
        parse_profile(_with_placement(key, value))


def test_unknown_placement_field_is_named():
    extra = '[sm_placement]\nsm_groups = { value = [1], source = "x" }\n'
    text = H200_TEXT.replace("[sm_placement]\n", extra)
    with pytest.raises(ts.ProfileError, match="unknown field sm_placement.sm_groups"):
        parse_profile(text)


def test_h200_narrow_wgmma_efficiency_from_the_dot_narrow_probe():
    # 384 / 805 TFLOP/s at N = 16, 613 / 805 at N = 32 (benchmarks/data/calibration_dot_narrow.json); 1 from
    # N = 64 up; log2-linear between (N = 24: halfway, (0.477 + 0.761) / 2 at log2 24 = 4.585 is 58.5% of the
    # way from 16 to 32)
    from tilesight.hardware import load_profile

    hw = load_profile("h200")
    assert hw.mma_n_efficiency(16) == pytest.approx(0.477)
    assert hw.mma_n_efficiency(32) == pytest.approx(0.761)
    assert hw.mma_n_efficiency(64) == hw.mma_n_efficiency(256) == 1.0
    assert hw.mma_n_efficiency(24) == pytest.approx(0.477 + 0.585 * (0.761 - 0.477), abs=1e-3)


def test_ddr_queue_fields_go_together():
    # a DRAM queue needs both its latency unit and the bandwidth it saturates at
    text = _replace_value(H200_TEXT, "ddr_queue_bw_bytes_per_s", "0")
    expected = r"ddr_queue_latency_s=1.1159e-07 and ddr_queue_bw_bytes_per_s=0.0 go together"
    with pytest.raises(ts.ProfileError, match=expected):
        parse_profile(text)


def test_eight_column_wgmma_efficiency_is_the_replicated_probes_measurement():
    # the replicated probe's 64 x 16 x 64 dot chains on 8 warps issue m64n8k16 instructions (each warpgroup
    # half the columns): their mean rate over 1-4 blocks per SM, over the 64-column chain rate, is the
    # profile's 8-column efficiency (0.267 = 215 / 805 TFLOP/s)
    import json
    from pathlib import Path

    data = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "calibration_replicated.json"
    points = json.loads(data.read_text())["measurements"]["replicated"]["dot"]
    rates = [p["flops_per_s"] for p in points if (p["BN"], p["warps"]) == (16, 8)]
    hw = ts.load_profile("h200")
    assert len(rates) == 3
    assert hw.mma_n_efficiency(8) == pytest.approx(sum(rates) / 3 / hw.wgmma_chain_flops_per_s, abs=0.001)


def test_the_ptxas_release_a_profile_s_gpu_builds_with():
    bare = re.sub(r"(?m)^ptxas_release = .*\n", "", H200_TEXT)  # whether or not the shipped profile names one
    named = bare.replace("triton_arch = 90\n", 'triton_arch = 90\nptxas_release = "12.8"\n', 1)
    assert parse_profile(named).ptxas_release == "12.8"
    assert parse_profile(bare).ptxas_release == ""
    for bad in ("12.8", '"12"', '"twelve"'):
        with pytest.raises(ts.ProfileError, match="ptxas_release=.* must be a release such as"):
            parse_profile(named.replace('ptxas_release = "12.8"', f"ptxas_release = {bad}"))


def test_register_a_wgmma_efficiency_is_the_regs_a_probes_measurement():
    # the regs_a probe's chains with A computed in registers, run on the H200 (benchmarks/data/
    # calibration_regs_a.json): their mean rate over K 64 / 256 and 1-4 blocks per SM, over the chain rate, is
    # the register-A table's value at N = 16 (0.63); at N = 32 the mean is 0.98 of the chain rate and at 64
    # 1.04, so 32 is the wide rate (1.0); a shared-memory A keeps the dot_narrow table (0.477 at 16)
    import json
    from pathlib import Path

    data = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "calibration_regs_a.json"
    points = json.loads(data.read_text())["measurements"]["regs_a"]["points"]
    hw = ts.load_profile("h200")
    for n, mean, value in ((16, 0.63, 0.63), (32, 0.98, 1.0)):
        rates = [p["flops_per_s"] for p in points if p["a_regs"] and p["BN"] == n]
        assert len(rates) == 6
        assert sum(rates) / 6 / hw.wgmma_chain_flops_per_s == pytest.approx(mean, abs=0.005)
        assert hw.mma_n_efficiency(n, a_registers=True) == pytest.approx(value)
    assert hw.mma_n_efficiency(16) == pytest.approx(0.477)
    assert hw.mma_n_efficiency(64, a_registers=True) == 1.0

"""benchmarks/triton_sweep: the case list, the JSONL schema, kernel signatures, and the launch path on CPU."""

from __future__ import annotations

import importlib
import inspect
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from _scripts import load_script
from hypothesis import given, settings
from hypothesis import strategies as st


def _load(name: str):
    return load_script(f"benchmarks/triton_sweep/{name}.py", on_path=False, name=f"triton_sweep_{name}")


sc = _load("sweep_cases")
schema = _load("sweep_schema")
CASES = sc.all_cases()


def skipped_record(case) -> dict:
    return dict(case.to_json(), status="skipped", reason="not measured", measured_us=None)


def test_staged_causal_configs_that_break_the_kernels_precondition_are_named():
    # the staged kernel's causal loops need BLOCK_M % BLOCK_N == 0; full attention and the one-loop kernel
    # do not
    cfg_bad, cfg_ok = (64, 128, 4, 2), (128, 64, 4, 2)
    bad = sc.attention_case(1, 2, 1024, 64, True, cfg_bad, staged=True).to_json()
    assert "BLOCK_M=64, BLOCK_N=128" in sc.kernel_precondition(bad)
    assert (
        sc.kernel_precondition(sc.attention_case(1, 2, 1024, 64, True, cfg_ok, staged=True).to_json()) is None
    )
    assert (
        sc.kernel_precondition(sc.attention_case(1, 2, 1024, 64, False, cfg_bad, staged=True).to_json())
        is None
    )
    assert sc.kernel_precondition(sc.attention_case(1, 2, 1024, 64, True, cfg_bad).to_json()) is None


def test_counts_meet_the_issue():
    fam = Counter(c.family for c in CASES)
    assert fam["gemm"] >= 400 and fam["memory"] >= 80 and fam["attention"] >= 40
    ids = [c.id for c in CASES]
    assert len(set(ids)) == len(ids)


def test_gemm_sweep_serves_the_autotuning_issue():
    """>= 6 shapes (square, LLM projections, decode, unaligned) with >= 80 configs that fit, fp16 grouped."""
    per_shape: dict[tuple, list] = {}
    for c in CASES:
        p = c.problem
        if c.family == "gemm" and p["variant"] == "grouped" and p["dtype"] == "float16":
            per_shape.setdefault((p["M"], p["N"], p["K"]), []).append(c)
    assert len(per_shape) >= 7
    assert (4096, 4096, 4096) in per_shape and (4097, 3001, 2999) in per_shape
    assert any(m == 16 for m, _, _ in per_shape)  # decode
    for shape, cases in per_shape.items():
        fitting = [c for c in cases if _smem(c) <= sc.H200_SMEM_PER_BLOCK_BYTES]
        assert len(fitting) >= 80, shape
        assert len(cases) > len(fitting), "some oversized configs are recorded as skipped"


def _smem(case) -> int:
    k = case.constexprs
    blocks = (k["BLOCK_M"], k["BLOCK_N"], k["BLOCK_K"])
    cfg = sc.GemmConfig(*blocks, case.num_warps, case.num_stages, k["GROUP_M"])
    return sc.gemm_smem_bytes(cfg, 2)


def test_gemm_covers_dtypes_kernels_and_spilling_configs():
    gemm = [c for c in CASES if c.family == "gemm"]
    assert {c.problem["dtype"] for c in gemm} == {"float16", "bfloat16", "float8_e4m3fn"}
    assert {c.problem["variant"] for c in gemm} == {"grouped", "persistent", "tma"}
    # 256x256 fp32 accumulator over 128 threads: 512 registers per thread, far past the 255 limit
    assert any(c.constexprs["BLOCK_M"] * c.constexprs["BLOCK_N"] / (32 * c.num_warps) >= 512 for c in gemm)
    # fp8 B is K-major: strides (1, K)
    fp8 = next(c for c in gemm if c.problem["dtype"] == "float8_e4m3fn")
    assert fp8.args[1].strides == (1, fp8.problem["K"])
    assert fp8.args[2].dtype == "float16"


def test_grids_match_the_kernels_launch_rules():
    for c in CASES:
        k, p = c.constexprs, c.problem
        if c.family == "gemm":
            tiles = sc.cdiv(p["M"], k["BLOCK_M"]) * sc.cdiv(p["N"], k["BLOCK_N"])
            assert c.grid == ((min(tiles, sc.H200_SM_COUNT),) if p["variant"] == "persistent" else (tiles,))
        elif c.family == "attention":
            assert c.grid == (sc.cdiv(p["n_ctx"], k["BLOCK_M"]), p["batch"] * p["heads"])


def test_holdout_is_every_third_case_of_each_family_by_id_hash():
    # the staged-attention cases were added later and draw their splits among themselves (sweep_cases)
    staged = [c for c in CASES if c.id.startswith("attention/staged-")]
    assert len(staged) == 32
    for group in ([c for c in CASES if c not in staged], staged):
        for family in sc.FAMILIES:
            members = sorted((c for c in group if c.family == family), key=lambda c: sc.id_hash(c.id))
            if not members:
                continue
            assert [c.split for c in members[:6]] == ["holdout", "main", "main"] * 2
            n_hold = sum(c.split == "holdout" for c in members)
            assert n_hold == -(-len(members) // 3)  # ceil: ranks 0, 3, 6, ...
    assert [c.split for c in sc.all_cases()] == [c.split for c in CASES]  # deterministic


def test_every_case_serialises_to_a_valid_record():
    for i, c in enumerate(CASES):
        schema.validate_record(skipped_record(c), f"case {i}")


def test_measured_record_validates_and_bad_records_name_the_field(tmp_path):
    rec = dict(
        CASES[0].to_json(),
        status="ok",
        reason="",
        measured_us={"p50": 10.0, "p20": 9.5, "p80": 10.5},
        n_regs=40,
        n_spills=0,
        shared_bytes=0,
    )
    schema.validate_record(rec, "x")
    for field, bad, needle in (
        ("family", "conv", "family"),
        ("grid", [0], "grid"),
        ("status", "done", "status"),
        ("measured_us", {"p50": -1.0, "p20": 1.0, "p80": 1.0}, "measured_us.p50"),
        ("args", [{"tensor": {"shape": [2], "dtype": "float16", "strides": [1, 1]}}], "shape/strides"),
    ):
        with pytest.raises(schema.SchemaError, match=needle):
            schema.validate_record(dict(rec, **{field: bad}), "f.jsonl:3")
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": 1}\n')
    with pytest.raises(schema.SchemaError, match=r"bad.jsonl:1: field 'id'"):
        list(schema.read_records(path))
    with pytest.raises(schema.SchemaError, match="reason"):
        schema.validate_record(skipped_record(CASES[0]) | {"reason": ""}, "x")


@given(st.sampled_from([64, 128, 256, 512]), st.sampled_from([1, 2]))
@settings(max_examples=8, deadline=None)
def test_config_lists_respect_their_guards(max_acc, elem_bytes):
    cfgs = sc.gemm_configs(max_acc_regs=max_acc, elem_bytes=elem_bytes)
    assert len(set(cfgs)) == len(cfgs)
    assert all(c.acc_regs_per_thread() <= max_acc for c in cfgs)
    fitting = [c for c in cfgs if sc.gemm_smem_bytes(c, elem_bytes) <= sc.H200_SMEM_PER_BLOCK_BYTES]
    assert fitting == list(cfgs[: len(fitting)])  # fitting ones first, then at most CONFIGS_OVERSIZED others
    assert len(cfgs) - len(fitting) <= sc.CONFIGS_OVERSIZED


def test_case_arguments_match_kernel_signatures():
    pytest.importorskip("triton")
    seen = {}
    for c in CASES:
        seen.setdefault(c.kernel, c)
    for spec, c in seen.items():
        module, name = spec.split(":")
        fn = getattr(importlib.import_module("tilesight." + module), name)
        params = inspect.signature(fn.fn).parameters
        constexprs = [p for i, p in enumerate(params) if i in fn.constexprs]
        required = [p for p in constexprs if params[p].default is inspect.Parameter.empty]
        # every constexpr a case names is the kernel's, and every one without a default is named
        assert set(required) <= set(c.constexprs) <= set(constexprs), spec
        assert len(c.args) == len(params) - len(constexprs), spec


@pytest.mark.triton
def test_launch_path_runs_interpreted_on_cpu(check_interpreted):
    pytest.importorskip("triton")
    pytest.importorskip("torch")
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).parent / "sweep_smoke.py")],
        env={**os.environ, "TRITON_INTERPRET": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    check_interpreted(proc, "sweep_smoke.py")


def test_same_spec_arguments_get_distinct_buffers():
    """Regression: the tensor pool keyed tensors by spec alone, so x and y of an add (A and B of a square
    GEMM, q/k/v of attention) were one buffer on the GPU, halving the bytes read and inflating L2 reuse."""
    pytest.importorskip("torch")
    gpu = _load("sweep_gpu")
    gpu.DEVICE = "cpu"
    spec = {"shape": [8], "dtype": "float32", "strides": [1], "init": "randn"}
    rec = {"args": [{"tensor": spec}, {"tensor": spec}, {"scalar": 8}]}
    pool = gpu.TensorPool()
    x, y, n = gpu._launch_args(rec, pool.get)
    assert x.data_ptr() != y.data_ptr() and n == 8
    again = gpu._launch_args(rec, pool.get)
    assert again[0] is x and again[1] is y  # reuse across cases stays per position


def test_validation_cases_are_new_held_out_and_valid():
    val = sc.validation_cases()
    assert len(val) == 68 and {c.family for c in val} == set(sc.FAMILIES)
    assert all(c.split == "holdout" for c in val)
    assert not {c.id for c in val} & {c.id for c in CASES}  # no launch of the main sweeps again
    for i, c in enumerate(val):
        schema.validate_record(skipped_record(c), f"validation case {i}")


def test_second_validation_set_is_new_held_out_and_valid():
    val2 = sc.validation2_cases()
    families = Counter(c.family for c in val2)
    # 6 shapes x (8 fp16 + 2 bf16) grouped GEMMs + 4 persistent; 6 row / vector kernels; 3 x 2 attention
    assert families == {"gemm": 64, "memory": 6, "attention": 6}
    assert all(c.split == "holdout" for c in val2)
    earlier = {c.id for c in CASES} | {c.id for c in sc.validation_cases()}
    assert not {c.id for c in val2} & earlier
    assert any("unaligned" in c.id for c in val2) and any(c.id.startswith("gemm/persistent") for c in val2)
    for i, c in enumerate(val2):
        schema.validate_record(skipped_record(c), f"validation2 case {i}")


def test_eighth_and_ninth_validation_sets_are_new_held_out_and_valid():
    val8, val9 = sc.validation8_cases(), sc.validation9_cases()
    assert Counter(c.family for c in val8) == {"attention": 20}
    # 2 shapes x 6 narrow-tile GEMM configs, 10 attention launches
    assert Counter(c.family for c in val9) == {"gemm": 12, "attention": 10}
    earlier = (
        {c.id for c in CASES} | {c.id for c in sc.validation_cases()} | {c.id for c in sc.validation2_cases()}
    )
    for name, cases in (("validation8", val8), ("validation9", val9)):
        assert all(c.split == "holdout" for c in cases)
        assert not {c.id for c in cases} & earlier
        for i, c in enumerate(cases):
            schema.validate_record(skipped_record(c), f"{name} case {i}")
    assert not {c.id for c in val8} & {c.id for c in val9}


def test_causal_mask_ablation_set():
    """Validation 84 times the one-loop kernel's causal launches with and without the per-element mask beside
    the non-causal ones: three launches per tile and shape, the ablation unchecked (its output is not causal
    attention) and named apart."""
    val = sc.validation84_cases()
    assert Counter(c.id.split("/")[1] for c in val) == {"causal": 44, "causal-unmasked": 44, "full": 44}
    assert all(c.split == "holdout" for c in val)
    for i, c in enumerate(val):
        schema.validate_record(skipped_record(c), f"validation84 case {i}")
        unmasked = c.id.startswith("attention/causal-unmasked/")
        assert (c.constexprs.get("CAUSAL_MASK", True) is False) == unmasked
        assert c.to_json()["problem"].get("check", True) is not unmasked
    with pytest.raises(ValueError, match="one-loop"):
        sc.attention_case(1, 2, 256, 64, False, (64, 64, 4, 3), causal_mask=False)


def test_fold_scale_set_pairs_every_launch_with_its_folded_twin():
    """Validation 87 times each one-loop launch beside the same launch with the scale folded into the
    exponent (``FOLD_SCALE``): 11 tiles x (two shapes not causal + one causal), every one held out and valid,
    the folded twin the same problem (checked against torch, its output unchanged); folding is the one-loop
    kernel's and needs its mask."""
    val = sc.validation87_cases()
    assert Counter(c.id.split("/")[1] for c in val) == {
        "full": 22, "folded-full": 22, "causal": 11, "folded-causal": 11,
    }  # fmt: skip
    assert all(c.split == "holdout" for c in val)
    for i, c in enumerate(val):
        schema.validate_record(skipped_record(c), f"validation87 case {i}")
        folded = c.id.split("/")[1].startswith("folded-")
        assert c.constexprs.get("FOLD_SCALE", False) is folded
        assert c.to_json()["problem"].get("check", True) is True
    twins = {c.id.replace("/folded-", "/") for c in val if "/folded-" in c.id}
    assert twins == {c.id for c in val if "/folded-" not in c.id}
    with pytest.raises(ValueError, match="FOLD_SCALE"):
        sc.attention_case(1, 2, 256, 64, False, (64, 64, 4, 3), staged=True, fold_scale=True)


def test_gemm_twin_set_pairs_one_tile_row_with_two():
    """Validation 91 times twelve distinct (N, K, config) draws of the tutorial GEMM at M = BLOCK_M (one tile
    row), BLOCK_M + 1 and 2 x BLOCK_M (two rows): 36 launches, all held out and valid, each draw's three
    launches one config and one N and K, and the grid's tile rows 1, 2 and 2."""
    val = sc.validation91_cases()
    assert len(val) == 36 and len({c.id for c in val}) == 36
    assert all(c.split == "holdout" and c.family == "gemm" for c in val)
    by_draw: dict[str, list] = {}
    for i, c in enumerate(val):
        schema.validate_record(skipped_record(c), f"validation91 case {i}")
        by_draw.setdefault(c.id.split("/")[3].rsplit("_m", 1)[0], []).append(c)
    assert len(by_draw) == 12
    draws = set()
    for twins in by_draw.values():
        problems = [c.to_json()["problem"] for c in twins]
        block_m = twins[0].constexprs["BLOCK_M"]
        assert [p["M"] for p in problems] == [block_m, block_m + 1, 2 * block_m]
        assert len({(p["N"], p["K"]) for p in problems}) == 1
        assert len({c.id.split("/")[4] for c in twins}) == 1
        assert [-(-p["M"] // block_m) for p in problems] == [1, 2, 2]
        draws.add((problems[0]["N"], problems[0]["K"], twins[0].id.split("/")[4]))
    assert len(draws) == 12


def test_nineteenth_random_sample_is_new_held_out_and_valid():
    """Validation 85 draws the random sample's 60 launches (24 GEMM, 14 attention, 22 row and element-wise
    kernels), all held out, its GEMMs and attention at sizes the eighteenth sample did not draw (the gather,
    RoPE and transpose kinds draw from fixed shapes that samples share)."""
    val = sc.validation85_cases()
    assert Counter(c.family for c in val) == {"gemm": 24, "attention": 14, "memory": 22}
    assert all(c.split == "holdout" for c in val) and len({c.id for c in val}) == 60
    drawn = {c.id for c in sc.validation83_cases() if c.family != "memory"}
    assert not {c.id for c in val if c.family != "memory"} & drawn
    for i, c in enumerate(val):
        schema.validate_record(skipped_record(c), f"validation85 case {i}")

"""The TileLang sweep's case list, its torch references, and the CPU scoring path (no GPU)."""

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("tilelang")

SWEEP = Path(__file__).resolve().parents[3] / "benchmarks" / "tilelang_sweep"
sys.path.insert(0, str(SWEEP))

import cases  # noqa: E402

pytestmark = pytest.mark.tilelang


def test_case_counts_meet_the_issue():
    all_cases = cases.all_cases()
    fams = [c["family"] for c in all_cases]
    assert fams.count("gemm") >= 70 and fams.count("flash_attention") >= 24
    assert {"mla_decode", "dequant_gemm"} <= set(fams)
    assert len({c["id"] for c in all_cases}) == len(all_cases)
    gemm_dtypes = {c["params"]["dtype"] for c in all_cases if c["family"] == "gemm"}
    assert gemm_dtypes == {"float16", "bfloat16"}


def test_useful_flops_by_hand():
    # GEMM 2048^3: 2 * 2048^3; causal attention counts half of 4 * b * h * s^2 * d
    gemm = {"family": "gemm", "kernel": "gemm", "params": {"M": 2048, "N": 2048, "K": 2048}}
    assert cases.flops(gemm) == 2 * 2048**3
    p = {"batch": 1, "heads": 2, "seq_len": 128, "dim": 64, "causal": True}
    fa = {"family": "flash_attention", "kernel": "flash_attention_fwd", "params": p}
    assert cases.flops(fa) == 4 * 2 * 128**2 * 64 / 2
    # varlen: sequences of 100 and 28 (no mask): 4 * h * d * (100^2 + 28^2)
    p = {"batch": 2, "heads": 2, "dim": 64, "causal": False}
    vl = {"family": "flash_attention", "kernel": "flash_attention_varlen_fwd", "params": p, "lens": [100, 28]}
    assert cases.flops(vl) == 4 * 2 * 64 * (100**2 + 28**2)
    # MLA: per head and key, 2 * (512 + 64) for the scores and 2 * 512 for P @ V = 2 * (2 * 512 + 64)
    p = {"batch": 1, "heads": 1, "seqlen_kv": 1, "dim": 512, "pe_dim": 64}
    assert cases.flops({"family": "mla_decode", "kernel": "mla_decode", "params": p}) == 2 * (2 * 512 + 64)


def test_every_family_builds_a_plan():
    from tilesight.frontends.tilelang import plan_prim_func

    from tilesight.hardware import load_profile

    hw = load_profile("h200")
    seen = set()
    for c in cases.all_cases():
        if c["family"] in seen:
            continue
        seen.add(c["family"])
        plan = plan_prim_func(cases.build(c), hw)
        assert plan.resources.smem_bytes <= hw.smem_per_block_max_bytes, c["id"]
    assert len(seen) == 4


def test_dequant_reference_unpacks_low_nibble_first():
    torch = pytest.importorskip("torch")
    import sweep

    # one byte 0x2F = nibbles (low 0xF, high 0x2): int4 weights 15 - 8 = 7 and 2 - 8 = -6
    case = {
        "family": "dequant_gemm",
        "kernel": "dequant_gemm",
        "params": {"M": 1, "N": 1, "K": 2, "weight": "int4"},
    }
    a = torch.tensor([[1.0, 10.0]])
    b = torch.tensor([[0x2F]], dtype=torch.int8)
    assert sweep._reference(case, [a, b], torch).tolist() == [[7.0 * 1 + (-6.0) * 10]]


def test_fp8_gemm_reference_is_a_times_b_transposed():
    torch = pytest.importorskip("torch")
    import sweep

    case = {"family": "gemm", "kernel": "gemm_fp8", "params": {"M": 1, "N": 2, "K": 2}}
    a = torch.tensor([[1.0, 2.0]])
    b = torch.tensor([[3.0, 4.0], [5.0, 6.0]])  # B is N x K
    assert sweep._reference(case, [a, b], torch).tolist() == [[11.0, 17.0]]


def test_score_a_measured_record(tmp_path):
    import score

    case = cases.all_cases()[0]
    record = dict(case, ms=0.05, ms_p20=0.05, ms_p80=0.05, error=None)
    failed = dict(cases.all_cases()[1], error="CompileError: x")
    (tmp_path / score.DATA_FILE).write_text(json.dumps(record) + "\n" + json.dumps(failed) + "\n")
    out = tmp_path / "rows.json"
    assert score.main(["--data", str(tmp_path), "--json", str(out)]) == 0
    rows = json.loads(out.read_text())
    (scored,) = rows["cases"]
    assert scored["id"] == case["id"] and scored["measured_us"] == pytest.approx(50.0)
    assert scored["predicted_us"] > 0 and scored["roofline_us"] > 0
    # one GEMM case is below the issue's 60-case minimum: no pass/fail verdict yet
    assert rows["rows"][0]["passed"] is None


def test_missing_data_names_the_command(tmp_path):
    import score

    with pytest.raises(score.accuracy.DataError, match="tilelang_sweep/run.sh"):
        score.main(["--data", str(tmp_path)])


def test_varlen_reference_attends_within_each_sequence():
    torch = pytest.importorskip("torch")
    import sweep

    lens = [3, 5]
    case = {
        "family": "flash_attention",
        "kernel": "flash_attention_varlen_fwd",
        "lens": lens,
        "params": dict(batch=2, total_q=8, total_kv=8, heads=2, dim=4, causal=True),
    }
    q, k, v = (torch.randn(8, 2, 4) for _ in range(3))
    cu = torch.tensor(cases.cu_seqlens(case), dtype=torch.int32)
    assert cases.cu_seqlens(case) == [0, 3, 8]
    out = sweep._reference(case, [q, k, v, cu, cu, 5, None], torch)
    # causal: each sequence's first token sees only itself, never the other sequence's tokens
    assert torch.allclose(out[0], v[0]) and torch.allclose(out[3], v[3])


def test_blocksparse_reference_attends_to_the_kept_blocks_only():
    torch = pytest.importorskip("torch")
    import math

    import sweep

    case = {
        "family": "flash_attention",
        "kernel": "flash_attention_blocksparse_fwd",
        "density": 0.5,
        "seed": 0,
        "params": dict(batch=1, heads=1, seq_len=4, dim=2, block_M=2, block_N=2),
    }
    q, k, v = (torch.randn(1, 1, 4, 2) for _ in range(3))
    mask = torch.tensor([[[[1, 0], [0, 1]]]], dtype=torch.int32)  # each query block sees its own keys
    out = sweep._reference(case, [q, k, v, mask, None], torch)
    for lo in (0, 2):
        s = q[0, 0, lo : lo + 2] @ k[0, 0, lo : lo + 2].T / math.sqrt(2)
        assert torch.allclose(
            out[0, 0, lo : lo + 2], torch.softmax(s, dim=-1) @ v[0, 0, lo : lo + 2], atol=1e-5
        )


def test_blocksparse_masks_keep_the_diagonal_and_about_their_density():
    for case in cases.blocksparse_cases():
        mask = cases.block_mask(case)
        nq = mask.shape[2]
        assert mask[..., range(nq), range(nq)].all()
        assert abs(mask.mean() - case["density"]) < 0.05 + 1 / nq


def test_a_hung_case_is_recorded_and_ends_the_process_with_status_3(tmp_path):
    # the watchdog of a case whose kernel never finishes: the case's line names the limit, exit status 3
    import subprocess

    out = tmp_path / "out.jsonl"
    out.write_text(json.dumps({"id": "earlier", "ms": 0.5}) + "\n")
    code = (
        f"import sys; sys.path.insert(0, {str(SWEEP)!r}); import sweep\n"
        f"fh = open({str(out)!r}, 'a')\n"
        "sweep._hung(fh, {'id': 'bs-x', 'error': None, 'ms': 1.0}, 90)\n"
        "print('not reached')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 3 and "not reached" not in done.stdout
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["id"] for x in lines] == ["earlier", "bs-x"]
    assert lines[1]["error"].startswith("still running after 90 s") and "ms" not in lines[1]

"""benchmarks/autotune/causal_mask.py: the mask's cost from hand-made sweep rows, and the greedy schedule."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def mask(load_script):
    return load_script("benchmarks/autotune/causal_mask.py", on_path=False)


def _row(problem, config, measured, predicted):
    return {"problem": problem, "config": config, "measured_us": measured, "predicted_us": predicted}


def test_mask_cost_is_causal_minus_staged_causal(mask):
    causal, staged = "attention/causal/float16/b1h8n1024d128", "attention/staged-causal/float16/b1h8n1024d128"
    rows = {
        (causal, "m64n64w4s3"): _row(causal, "m64n64w4s3", 100.0, 120.0),
        (staged, "m64n64w4s3"): _row(staged, "m64n64w4s3", 90.0, 100.0),
        (causal, "m128n128w8s3"): _row(causal, "m128n128w8s3", 100.0, 100.0),  # no staged twin: left out
    }
    # measured 10 of 100 (0.1), predicted 20 of 120 (1/6), measured / predicted cost 0.5
    ((key, costs),) = mask.mask_costs(rows).items()
    assert key == ("m64n64w4s3", 128)
    assert costs == [pytest.approx((0.1, 1 / 6, 0.5))]


def test_greedy_makespan_by_hand(mask):
    # two programs of three query blocks (1, 2, 3 steps of 1 us) on two slots: blocks go 1, 2 | 3 on the
    # first free slot: slot A 0-1, slot B 0-2, A 1-4 (3 steps), B 2-3 (1), B 3-5 (2), A 4-7 (3): ends at 7
    assert mask.makespan(3, 2, 1.0, 0.0, 2) == pytest.approx(7.0)
    # a fixed 0.5 us a block adds to each: A 0-1.5, B 0-2.5, A 1.5-5, B 2.5-4, B 4-6.5, A 5-8.5
    assert mask.makespan(3, 2, 1.0, 0.5, 2) == pytest.approx(8.5)


def test_ablation_separates_the_mask_from_the_schedule(mask, tmp_path, capsys):
    """Validation 84's triples: measured over predicted per kind, and the mask's cost (causal minus unmasked)
    measured and predicted; a triple with a launch missing or not ok is left out."""
    import json

    def rec(kind, shape, us, status="ok"):
        ident = f"attention/{kind}/bfloat16/{shape}/m128n128w8s3"
        # validation 23's compile of this tile: one block an SM by its shared memory
        row = {"id": ident, "status": status, "num_warps": 8, "n_regs": 239, "shared_bytes": 229376}
        return ident, {**row, "measured_us": {"p50": us} if us else None}

    rows, predicted = [], {}
    for kind, us, pred in (
        ("causal", 540.0, 500.0),
        ("causal-unmasked", 450.0, 440.0),
        ("full", 770.0, 770.0),
    ):
        ident, row = rec(kind, "b2h24n3584d128", us)
        rows.append(row)
        predicted[ident] = pred
    ident, row = rec("causal", "b1h16n8192d128", 900.0)  # its unmasked twin failed: no triple
    rows.append(row)
    predicted[ident] = 850.0
    ident, row = rec("causal-unmasked", "b1h16n8192d128", None, status="skipped")
    rows.append(row)
    (tmp_path / "triton_attention.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "predicted_before_measuring.json").write_text(json.dumps({"predicted_us": predicted}))
    mask.ablation(tmp_path, "predicted_before_measuring.json")
    out = capsys.readouterr().out.splitlines()
    (line,) = [x for x in out if x.startswith("bfloat16/")]
    # 540 / 500, 450 / 440, 770 / 770; mask 540 - 450 measured, 500 - 440 predicted; the unmasked 450 beside
    # the greedy schedule of 48 programs x 28 query blocks on 132 slots at the full launch's pace: 770 us over
    # 48 x 28 / 132 blocks a slot and 28 key steps a block (query block q runs q + 1 steps of 128 / 128 keys)
    pace = 770.0 / (48 * 28 / 132) / 28
    greedy = mask.makespan(28, 48, pace, 0.0, 132)
    assert line.split()[1:] == ["1.08", "1.02", "1.00", "90.0", "60.0", "450.0", f"{greedy:.1f}"]
    assert mask.resident_blocks(rows[0]) == 1
    # 64 x 64 on 4 warps: 168 registers (3 blocks by registers), 112 KB + 1 KB (2 by shared memory)
    assert mask.resident_blocks({"num_warps": 4, "n_regs": 168, "shared_bytes": 114688}) == 2
    assert "causal: median measured / predicted 1.080 (1)" in out
    assert not any("8192" in x for x in out)
    # the per-slot table: one shape of the tile at d128, 90 us measured and 60 predicted over its score slots
    score = mask.score_slots(3584, 48, 128, 128, 8)
    (row,) = [x for x in out if x.startswith("m128n128w8s3")]
    expected = ["128", "1", f"{mask.mask_slot_ns(90.0, score):.2f}", f"{mask.mask_slot_ns(60.0, score):.2f}"]
    assert row.split()[1:] == expected
    with pytest.raises(SystemExit, match="not measured yet"):
        mask.ablation(tmp_path / "none", "predicted_before_measuring.json")


def test_score_slots_and_the_mask_per_slot_by_hand(mask):
    # n_ctx 256, 128 x 64 tiles on 4 warps, 2 programs: query block 0 runs 2 key blocks, block 1 runs 4, of
    # 128 x 64 scores each: 6 x 8192 = 49152 a program, 98304 in all, over 32 lanes
    assert mask.score_slots(256, 2, 128, 64, 4) == 3072
    # 64 x 64 tiles on 8 warps: two warpgroups of 32 rows each hold the whole score tile (twice the scores);
    # n_ctx 128, one program: 1 + 2 key blocks of 4096 scores, 12288 x 2 / 32
    assert mask.score_slots(128, 1, 64, 64, 8) == 768
    # 128-row tiles on 8 warps give each warpgroup 64 rows: held once
    assert mask.score_slots(256, 2, 128, 64, 8) == 3072
    # 1 us of mask over 3072 slots on 132 SMs of 4 schedulers: 1000 x 528 / 3072 ns
    assert mask.mask_slot_ns(1.0, 3072) == pytest.approx(171.875)


def test_segments_split_an_iteration_at_its_waits(mask):
    ops = ["LDGSTS", "DEPBAR", "BAR", "HGMMA", "HGMMA", "WARPGROUP", "ISETP", "FSEL", "BAR", "FMUL"]
    assert mask.segments(ops) == [
        (["LDGSTS"], "DEPBAR"),
        ([], "BAR"),
        (["HGMMA", "HGMMA"], "WARPGROUP"),
        (["ISETP", "FSEL"], "BAR"),
        (["FMUL"], "end"),
    ]
    assert mask.segments([]) == [([], "end")]


def test_fold_pairs_by_hand(mask):
    # full 200 us measured / 180 predicted, its folded twin 170 / 171: m/p 200 / 180, folding saves 15%
    # measured and 5% predicted; a causal launch without its folded twin is left out
    full, folded = (
        "attention/full/float16/b1h8n1024d64/m128n128w8s3",
        "attention/folded-full/float16/b1h8n1024d64/m128n128w8s3",
    )
    lone = "attention/causal/float16/b1h8n1024d64/m128n128w8s3"
    measured = {full: 200.0, folded: 170.0, lone: 100.0}
    predicted = {full: 180.0, folded: 171.0, lone: 90.0}
    (row,) = mask.fold_pairs(measured, predicted)
    assert row["id"] == full
    assert row["measured"] == pytest.approx(200 / 180)
    assert row["saved_measured"] == pytest.approx(0.15)
    assert row["saved_predicted"] == pytest.approx(0.05)

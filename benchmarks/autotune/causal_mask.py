"""What the one-loop causal attention kernel's mask costs, measured against predicted (CPU only; stop 68).

    python benchmarks/autotune/causal_mask.py [--configs benchmarks/data/autotune_configs_h200.jsonl]
    python benchmarks/autotune/causal_mask.py \
        --schedule attention/causal/bfloat16/b2h24n3584d128 m128n128w8s3 1
    python benchmarks/autotune/causal_mask.py --ablation [benchmarks/data/validation84]
    python benchmarks/autotune/causal_mask.py --fold [benchmarks/data/validation87]

The attention sweeps time every config of the tutorial's space on the one-loop kernel (which masks every key
block of a causal program) and on the staged one (which masks only the diagonal's), causal and not, at the
same shapes. Per config and head dim, the default table gives the median over the shapes of the mask's cost,
causal minus staged causal, as a share of the causal time, measured and predicted, and the median of
measured over predicted cost (from ``score_autotune.py``'s ``--configs-jsonl`` rows: every config's
prediction and p50 timing).

``--schedule PROBLEM CONFIG RESIDENT`` lays the causal problem's blocks (launch order: query block fastest,
one to ``n_ctx / BLOCK_M`` key blocks each) on 132 SMs of ``RESIDENT`` slots greedily, each block taking the
full (non-causal) launch's measured time per key block (0-4 us fixed a block), and prints the makespan beside
the measured causal time: the causal launch at the full kernel's pace, its mask free.

``--ablation [FOLDER]`` reads validation 84 (stop 69; ``sweep_cases.validation84_cases``): the one-loop kernel
timed causal, causal with its per-element mask skipped (``CAUSAL_MASK=False``, the same loop bounds) and not
causal, at each tile and shape. Per launch triple it prints measured over predicted for each and the mask's
cost (causal minus unmasked) measured and predicted, from the folder's ``triton_attention.jsonl`` and the
predictions recorded before it ran (``predicted_before_measuring.json``; an H100's folder holds
``predicted_h100.json``, which ``--recorded-file`` names). Where the unmasked launch matches its prediction
and the masked one does not, the mask is what the model misprices; where the unmasked one misses too, the
triangular schedule is. A second table puts the mask's cost per score element, per tile and head dim
(:func:`mask_slot_ns`): measured and predicted, the median over the shapes.

``--fold [FOLDER]`` reads validation 87 (stop 74; ``sweep_cases.validation87_cases``): each one-loop launch
beside its twin with the score scale folded into the exponent (``FOLD_SCALE``), measured over predicted for
the unfolded one and what folding saves, measured and predicted (:func:`fold_pairs`).

``--sass FILE ID [ID ...]`` compiles the named launches of a sweep file on this CPU (the frontend's own
compile, the profile's ptxas: ``spill_frames._cubin_sass``) and counts the instructions of one iteration
of each loop holding matrix instructions, by opcode: what the causal mask adds to a warp's iteration; then
the same iteration split at its waits and barriers (:func:`segments`): where the mask's compares fall.
"""

from __future__ import annotations

import argparse
import heapq
import json
import re
import statistics
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "benchmarks" / "data" / "autotune_configs_h200.jsonl"
SM_COUNT = 132
SHAPE = re.compile(r"b(\d+)h(\d+)n(\d+)d(\d+)$")
TILE = re.compile(r"m(\d+)n(\d+)")


def load(path: Path) -> dict[tuple[str, str], dict]:
    """Rows by (problem, config)."""
    return {(r["problem"], r["config"]): r for r in map(json.loads, path.open()) if r.get("problem")}


def mask_costs(rows: dict[tuple[str, str], dict]) -> dict[tuple[str, int], list[tuple[float, float, float]]]:
    """Per (config, head dim): (measured share, predicted share, measured / predicted) of the mask's cost,
    causal minus staged causal, one per shape timed and predicted on both kernels."""
    out: dict[tuple[str, int], list[tuple[float, float, float]]] = defaultdict(list)
    for (problem, config), causal in rows.items():
        if not problem.startswith("attention/causal/"):
            continue
        staged = rows.get((problem.replace("/causal/", "/staged-causal/"), config))
        pair = (causal, staged)
        if staged is None or not all(r["measured_us"] and r["predicted_us"] for r in pair):
            continue
        measured = causal["measured_us"] - staged["measured_us"]
        predicted = causal["predicted_us"] - staged["predicted_us"]
        head_dim = int(SHAPE.search(problem).group(4))
        ratio = measured / predicted if predicted else float("nan")
        out[config, head_dim].append(
            (measured / causal["measured_us"], predicted / causal["predicted_us"], ratio)
        )
    return out


def makespan(q_blocks: int, programs: int, per_step_s: float, fixed_s: float, slots: int) -> float:
    """Greedy list schedule of ``programs`` x ``q_blocks`` causal blocks in launch order (query block
    fastest; block ``q`` runs ``q + 1`` key steps of ``per_step_s`` plus ``fixed_s``) on ``slots`` slots."""
    free = [0.0] * slots
    for _ in range(programs):
        for q in range(q_blocks):
            start = heapq.heappop(free)
            heapq.heappush(free, start + fixed_s + (q + 1) * per_step_s)
    return max(free)


def full_pace_makespan(
    problem: str, config: str, full_us: float, slots: int, fixed_s: float = 0.0
) -> tuple[float, float]:
    """(the full launch's time a key step, :func:`makespan`) of the causal launch of ``problem`` at tile
    ``config`` on ``slots`` slots, its blocks run at the non-causal launch's measured pace (``full_us``, one
    block a slot at a time) with ``fixed_s`` of each block's time not in its key steps."""
    b, h, n_ctx, _ = (int(v) for v in SHAPE.search(problem).groups())
    block_m, block_n = (int(v) for v in TILE.match(config).groups())
    # the grid's query blocks and the loop's key steps
    q_blocks, steps = -(-n_ctx // block_m), -(-n_ctx // block_n)
    per_step = (full_us / (q_blocks * b * h / slots) - fixed_s) / steps
    # the causal kernel's key steps a block are BLOCK_M / BLOCK_N a query block
    return per_step, makespan(q_blocks, b * h, per_step * block_m / block_n, fixed_s, slots)


def schedule(rows: dict[tuple[str, str], dict], problem: str, config: str, resident: int) -> None:
    full = rows[problem.replace("/causal/", "/full/"), config]["measured_us"]
    causal = rows[problem, config]["measured_us"]
    print(f"{problem} {config}: measured full {full:.1f} us, causal {causal:.1f} us")
    for fixed in (0.0, 2.0, 4.0):
        per_step, span = full_pace_makespan(problem, config, full, SM_COUNT * resident, fixed)
        print(f"  fixed {fixed:.0f} us a block: {per_step:.3f} us a key step, greedy makespan {span:.1f} us")


def sass_counts(path: Path, ids: list[str]) -> None:
    """Print, per launch id of the sweep file ``path``, its matrix-instruction loops' opcode counts."""
    import sys
    from collections import Counter

    sys.path.insert(0, str(ROOT / "benchmarks"))
    import accuracy
    from spill_frames import _cubin_sass
    from tilesight.frontends.triton.sass import instruction_opcode, mma_loop_bodies

    from tilesight.hardware import load_profile

    records = {}
    for line_no, line in enumerate(path.open(), 1):
        rec = json.loads(line)
        if rec["id"] in ids:
            records[rec["id"]] = (rec, f"{path}:{line_no}")
    missing = [i for i in ids if i not in records]
    if missing:
        raise SystemExit(f"causal_mask.py: no launch {', '.join(missing)} in {path}")
    hw = load_profile("h200")
    for ident in ids:
        text, _ = _cubin_sass(accuracy.rebuild(*records[ident]), hw)
        for body in mma_loop_bodies(text):
            ops = [op for op in map(instruction_opcode, body) if op]
            counts = Counter(ops)
            top = " ".join(f"{op} {n}" for op, n in counts.most_common(10))
            print(f"{ident}: {sum(counts.values())} instructions a warp an iteration ({top})")
            for ops_before, wait in segments(ops):
                seg = " ".join(f"{op} {n}" for op, n in Counter(ops_before).most_common(6))
                print(f"    {seg or '-'} | {wait}")


SYNC_OPCODES = ("WARPGROUP", "BAR", "DEPBAR")  # warpgroup-MMA arrive / wait, block barrier, copy-group wait


def segments(ops: list[str]) -> list[tuple[list[str], str]]:
    """An iteration's opcodes split at its waits and barriers (:data:`SYNC_OPCODES`): (the opcodes before
    each, that wait's opcode), the last segment ending at ``end``. Where the compares of a mask fall against
    the wait for the score dot (``WARPGROUP`` after the HGMMAs) shows whether they can run under it."""
    out, current = [], []
    for op in ops:
        if op in SYNC_OPCODES:
            out.append((current, op))
            current = []
        else:
            current.append(op)
    out.append((current, "end"))
    return out


def resident_blocks(rec: dict) -> int:
    """Blocks of a measured launch an H200 SM holds (:func:`tilesight.model.occupancy.residency`), from the
    registers and shared memory the GPU's compile gave it (``n_regs``, ``shared_bytes``) and its threads."""
    from tilesight.hardware import load_profile
    from tilesight.model.occupancy import residency
    from tilesight.plan import BlockResources

    hw = load_profile("h200")
    res = BlockResources(
        threads=hw.warp_size * rec["num_warps"],
        smem_bytes=rec.get("shared_bytes", 0),
        regs_per_thread=rec.get("n_regs") or None,
    )
    return residency(res, hw, hw.sm_count * hw.max_blocks_per_sm).resident_blocks


def score_slots(n_ctx: int, programs: int, block_m: int, block_n: int, num_warps: int) -> int:
    """Warp-wide slots of score elements a causal launch's warps hold over its loop: every query block ``q``
    runs ``ceil(min((q + 1) BLOCK_M, n_ctx) / BLOCK_N)`` key blocks of ``BLOCK_M x BLOCK_N`` scores, held
    once, or once a warpgroup where its warpgroups get fewer than 64 rows each (a warpgroup MMA's height: the
    64-row tiles on 8 warps compute and hold the whole score tile on both), over 32 lanes."""
    groups = max(num_warps // 4, 1)
    copies = max(1, 64 * groups // block_m)
    elements = sum(
        -(-min((q + 1) * block_m, n_ctx) // block_n) * block_m * block_n for q in range(-(-n_ctx // block_m))
    )
    return programs * elements * copies // 32


def mask_slot_ns(mask_us: float, slots: int) -> float:
    """A mask's cost (``mask_us``, the launch's causal minus unmasked time) per warp-wide slot of score
    elements, in ns of one of an SM's four schedulers: ``mask_us x SMs x 4 / slots``. The model's ALU
    charge makes it about the same for every tile; the GPU's differs by tile."""
    return mask_us * 1e3 * SM_COUNT * 4 / slots


def measured_set(folder: Path, recorded: str, name: str) -> tuple[dict[str, dict], dict]:
    """A measured validation set's folder: its timed attention records by id (status ok) and the predictions
    recorded before it ran (``recorded``, a file of the folder); exits naming a missing file."""
    sweep, pred_path = folder / "triton_attention.jsonl", folder / recorded
    for path in (sweep, pred_path):
        if not path.is_file():
            raise SystemExit(f"causal_mask.py: no file {path} ({name} not measured yet?)")
    measured = {
        rec["id"]: rec
        for rec in map(json.loads, sweep.open())
        if rec.get("status") == "ok" and rec.get("measured_us")
    }
    return measured, json.loads(pred_path.read_text())["predicted_us"]


def ablation(folder: Path, recorded: str) -> None:
    """Print validation 84's launch triples (see the module docstring) from ``folder``, with the greedy
    schedule of the causal blocks at the non-causal launch's measured pace (:func:`makespan`, nothing fixed a
    block, :func:`resident_blocks` slots an SM: :func:`full_pace_makespan`): what the unmasked launch takes
    if its schedule is all that differs."""
    measured, predicted = measured_set(folder, recorded, "validation 84")
    kinds = ("causal", "causal-unmasked", "full")
    print(f"{'launch':34s} {'causal m/p':>10s} {'unmasked m/p':>12s} {'full m/p':>9s} {'mask meas us':>12s} "
          f"{'mask pred us':>12s} {'unmasked us':>11s} {'greedy us':>9s}")  # fmt: skip
    ratios: dict[str, list[float]] = defaultdict(list)
    per_slot: dict[tuple[str, int], list[tuple[float, float]]] = defaultdict(list)
    for ident in sorted(i for i in measured if i.startswith("attention/causal/")):
        ids = [ident.replace("/causal/", f"/{k}/") for k in kinds]
        if not all(i in measured and isinstance(predicted.get(i), (int, float)) for i in ids):
            continue
        m = [measured[i]["measured_us"]["p50"] for i in ids]
        p = [predicted[i] for i in ids]
        for k, mi, pi in zip(kinds, m, p, strict=True):
            ratios[k].append(mi / pi)
        problem, tile = ident.rsplit("/", 1)
        b, h, n_ctx, head_dim = (int(v) for v in SHAPE.search(problem).groups())
        block_m, block_n = (int(v) for v in TILE.match(tile).groups())
        _, greedy = full_pace_makespan(problem, tile, m[2], SM_COUNT * resident_blocks(measured[ids[2]]))
        name = ident.removeprefix("attention/causal/")
        print(f"{name:34s} {m[0] / p[0]:10.2f} {m[1] / p[1]:12.2f} {m[2] / p[2]:9.2f} {m[0] - m[1]:12.1f} "
              f"{p[0] - p[1]:12.1f} {m[1]:11.1f} {greedy:9.1f}")  # fmt: skip
        score = score_slots(n_ctx, b * h, block_m, block_n, measured[ids[0]]["num_warps"])
        per_slot[tile, head_dim].append((mask_slot_ns(m[0] - m[1], score), mask_slot_ns(p[0] - p[1], score)))
    for k in kinds:
        if ratios[k]:
            print(f"{k}: median measured / predicted {statistics.median(ratios[k]):.3f} ({len(ratios[k])})")
    print(f"{'tile':14s} {'d':>4s} {'n':>3s} {'mask ns a slot, measured':>25s} {'predicted':>10s}")
    for (tile, head_dim), v in sorted(per_slot.items()):
        meas, pred = statistics.median(x[0] for x in v), statistics.median(x[1] for x in v)
        print(f"{tile:14s} {head_dim:4d} {len(v):3d} {meas:25.2f} {pred:10.2f}")


def fold_pairs(measured: dict[str, float], predicted: dict[str, float]) -> list[dict]:
    """Validation 87's pairs: per one-loop launch measured and predicted (us by case id) with its
    ``folded-`` twin (the scale folded into the exponent, ``FOLD_SCALE``), what folding saves, measured and
    predicted: ``{"id", "measured", "predicted", "saved_measured", "saved_predicted"}`` (the saving as a
    share of the unfolded launch's time), sorted by id; launches without both times on both sides are left
    out."""
    rows = []
    for ident in sorted(measured):
        kind = ident.split("/")[1]
        if kind.startswith("folded-"):
            continue
        twin = ident.replace(f"/{kind}/", f"/folded-{kind}/", 1)
        pair = (ident, twin)
        if not all(i in measured and isinstance(predicted.get(i), (int, float)) for i in pair):
            continue
        m, p = [measured[i] for i in pair], [predicted[i] for i in pair]
        rows.append(
            {
                "id": ident,
                "measured": m[0] / p[0],
                "predicted": p[0],
                "saved_measured": 1.0 - m[1] / m[0],
                "saved_predicted": 1.0 - p[1] / p[0],
            }
        )
    return rows


def fold(folder: Path, recorded: str) -> None:
    """Print validation 87's launch pairs from ``folder`` (:func:`fold_pairs`)."""
    records, predicted = measured_set(folder, recorded, "validation 87")
    measured = {ident: rec["measured_us"]["p50"] for ident, rec in records.items()}
    print(f"{'launch':52s} {'m/p':>6s} {'folding saves: measured':>24s} {'predicted':>10s}")
    for r in fold_pairs(measured, predicted):
        name = r["id"].removeprefix("attention/")
        print(f"{name:52s} {r['measured']:6.3f} {r['saved_measured']:24.1%} {r['saved_predicted']:10.1%}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configs", type=Path, default=DEFAULT)
    ap.add_argument("--schedule", nargs=3, metavar=("PROBLEM", "CONFIG", "RESIDENT"))
    ap.add_argument("--sass", nargs="+", metavar=("FILE", "ID"))
    ap.add_argument("--ablation", nargs="?", type=Path, const=ROOT / "benchmarks" / "data" / "validation84")
    ap.add_argument("--fold", nargs="?", type=Path, const=ROOT / "benchmarks" / "data" / "validation87")
    ap.add_argument("--recorded-file", default="predicted_before_measuring.json")
    args = ap.parse_args()
    if args.ablation:
        ablation(args.ablation, args.recorded_file)
        return 0
    if args.fold:
        fold(args.fold, args.recorded_file)
        return 0
    for path in [args.configs] + ([Path(args.sass[0])] if args.sass else []):
        if not path.is_file():
            raise SystemExit(f"causal_mask.py: no file {path}")
    if args.sass:
        if len(args.sass) < 2:
            raise SystemExit("causal_mask.py: --sass takes a sweep file and at least one launch id")
        sass_counts(Path(args.sass[0]), args.sass[1:])
        return 0
    rows = load(args.configs)
    if args.schedule:
        problem, config, resident = args.schedule
        if (problem, config) not in rows:
            raise SystemExit(f"causal_mask.py: no row for {problem} {config} in {args.configs}")
        schedule(rows, problem, config, int(resident))
        return 0
    head = f"{'config':14s} {'d':>4s} {'n':>3s} {'share meas':>10s} {'share pred':>10s}"
    print(head + f" {'cost meas/pred':>14s}")
    for (config, head_dim), costs in sorted(mask_costs(rows).items()):
        med = [statistics.median(c[i] for c in costs) for i in range(3)]
        print(f"{config:14s} {head_dim:4d} {len(costs):3d} {med[0]:10.3f} {med[1]:10.3f} {med[2]:14.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

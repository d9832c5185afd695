"""The descriptor (TMA) attention beside its pointer twin, launch by launch (CPU only; stop 78).

    python benchmarks/autotune/tma_twins.py                 # measured twin ratios, by stage count
    python benchmarks/autotune/tma_twins.py --predict       # and the model's, per launch (about a minute)
    python benchmarks/autotune/tma_twins.py --causal --predict

Validation 25 timed the Triton tutorial's Hopper attention, which loads K and V through tensor descriptors
(``attention/tma-full`` and ``tma-causal``), and validation 29 its pointer twin, the staged kernel, at the
same launches (``staged-full`` / ``staged-causal``): same tile, warps, stages and shape. Each pair's ratio,
the descriptor launch's p50 over the pointer one's, says what the descriptor loads cost; the difference spread
over the launch's block-steps (blocks x key blocks a block, over the SMs) is that cost per step an SM, and
times the blocks an SM holds (the model's resident blocks, ``--predict``) per step of a block: the figure the
descriptor rule (``evaluate``'s ``meeting_s``: one cross-warp meeting a step) is set against in
docs/known-gaps.md. Pairs where either launch failed or spilled are left out.

A causal block ``i`` of a query tile of ``BLOCK_M`` rows steps over the key blocks up to its diagonal,
``(i + 1) BLOCK_M / BLOCK_N`` of them, so the mean over a head's blocks is ``(n / BLOCK_M + 1) BLOCK_M /
(2 BLOCK_N)``.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DESCRIPTOR = ROOT / "benchmarks" / "data" / "validation25" / "triton_attention.jsonl"
POINTER = ROOT / "benchmarks" / "data" / "validation29" / "triton_attention.jsonl"
SM_COUNT = 132  # the H200 both sets were timed on
_CONFIG = re.compile(r"m(\d+)n(\d+)w(\d+)s(\d+)$")


@dataclass(frozen=True)
class Twin:
    """One descriptor launch and its pointer twin."""

    ident: str  # the descriptor launch's id
    shape: str  # e.g. b2h24n3072d64
    block_m: int
    block_n: int
    warps: int
    stages: int
    causal: bool
    blocks: int  # programs in the launch
    seq_len: int
    measured_s: float  # descriptor launch, p50
    twin_measured_s: float  # pointer launch, p50
    where: str  # file:line of the descriptor launch
    twin_where: str

    @property
    def ratio(self) -> float:
        return self.measured_s / self.twin_measured_s

    @property
    def steps_per_block(self) -> float:
        """Key blocks one program steps over (the mean over a head's programs when causal)."""
        if not self.causal:
            return self.seq_len / self.block_n
        return (self.seq_len / self.block_m + 1) * self.block_m / (2 * self.block_n)

    def gap_per_sm_step_s(self, sm_count: int = SM_COUNT) -> float:
        """The pair's difference over the block-steps each SM runs."""
        return (self.measured_s - self.twin_measured_s) / (self.blocks * self.steps_per_block / sm_count)


def _records(path: Path) -> dict[str, tuple[dict, str]]:
    out = {}
    with path.open() as fh:
        for line_no, line in enumerate(fh, 1):
            if line.strip():
                rec = json.loads(line)
                out[rec["id"]] = (rec, f"{path.relative_to(ROOT)}:{line_no}")
    return out


def _usable(rec: dict) -> bool:
    return rec.get("status") == "ok" and not rec.get("n_spills") and bool(rec.get("measured_us"))


def pair(
    descriptor: dict[str, tuple[dict, str]], pointer: dict[str, tuple[dict, str]], causal: bool
) -> list[Twin]:
    """The descriptor launches of ``descriptor`` (full or causal) with their pointer twins in ``pointer``,
    both timed and neither spilling, in id order."""
    mine, twin = ("tma-causal", "staged-causal") if causal else ("tma-full", "staged-full")
    out = []
    for ident in sorted(descriptor):
        rec, where = descriptor[ident]
        if f"/{mine}/" not in ident:
            continue
        other = pointer.get(ident.replace(f"/{mine}/", f"/{twin}/"))
        if other is None or not (_usable(rec) and _usable(other[0])):
            continue
        config = _CONFIG.search(ident)
        if config is None:
            raise ValueError(f"{where}: id {ident!r} names no m<M>n<N>w<warps>s<stages> config")
        block_m, block_n, warps, stages = map(int, config.groups())
        shape = rec["args"][0]["tensor"]["shape"]  # (batch, heads, n_ctx, head_dim)
        out.append(
            Twin(
                ident=ident,
                shape=ident.split("/")[3],
                block_m=block_m,
                block_n=block_n,
                warps=warps,
                stages=stages,
                causal=causal,
                blocks=int(math.prod(rec["grid"])),
                seq_len=int(shape[2]),
                measured_s=rec["measured_us"]["p50"] * 1e-6,
                twin_measured_s=other[0]["measured_us"]["p50"] * 1e-6,
                where=where,
                twin_where=other[1],
            )
        )
    return out


def by_stages(twins: list[Twin], predicted: dict[str, float] | None = None) -> dict[int, dict[str, float]]:
    """Per stage count: pairs, the median measured twin ratio and, given ``predicted`` (id -> the model's
    descriptor over pointer ratio), the median predicted one."""
    out: dict[int, dict[str, float]] = {}
    for stages in sorted({t.stages for t in twins}):
        group = [t for t in twins if t.stages == stages]
        row = {"pairs": len(group), "measured": statistics.median(t.ratio for t in group)}
        if predicted is not None:
            row["predicted"] = statistics.median(predicted[t.ident] for t in group)
        out[stages] = row
    return out


def _predict(twins: list[Twin], records: dict[str, dict], hw: str) -> dict[str, dict]:
    """Per descriptor id: the model's ratio and the descriptor launch's resident blocks an SM; ``records``:
    the sweep records by their ``file:line``."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    sys.path.insert(0, str(ROOT))
    import accuracy  # noqa: PLC0415 (benchmarks/accuracy.py: rebuilds a sweep record's launch)

    import tilesight  # noqa: PLC0415

    def estimate(where: str):
        launch = accuracy.rebuild(records[where], where)
        return tilesight.estimate(launch.fn, launch.grid, *launch.args, hw=hw, **launch.options)

    out = {}
    for t in twins:
        mine, other = estimate(t.where), estimate(t.twin_where)
        out[t.ident] = {
            "ratio": mine.latency_s / other.latency_s,
            "resident": mine.occupancy.resident_blocks,
            "gap_s": mine.latency_s - other.latency_s,
        }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--causal", action="store_true", help="the causal pairs (default: the full ones)")
    ap.add_argument("--predict", action="store_true", help="also the model's ratio and per-block figures")
    ap.add_argument("--hw", default="h200")
    ap.add_argument("--descriptor", type=Path, default=DESCRIPTOR)
    ap.add_argument("--pointer", type=Path, default=POINTER)
    args = ap.parse_args(argv)
    for path in (args.descriptor, args.pointer):
        if not path.is_file():
            ap.error(f"{path}: no such sweep file")
    descriptor, pointer = _records(args.descriptor.resolve()), _records(args.pointer.resolve())
    twins = pair(descriptor, pointer, args.causal)
    if not twins:
        ap.error("no timed, non-spilling pairs in those files")
    by_where = {where: rec for loaded in (descriptor, pointer) for rec, where in loaded.values()}
    model = _predict(twins, by_where, args.hw) if args.predict else None
    head = f"{'shape':16s} {'config':14s} {'meas':>6s}"
    if model:
        head += f" {'pred':>6s} {'res':>3s} {'ns/blk-step meas':>16s} {'pred':>6s}"
    print(head + f" {'ns/SM-step':>10s}")
    for t in twins:
        cfg = f"m{t.block_m}n{t.block_n}w{t.warps}s{t.stages}"
        gap = t.gap_per_sm_step_s()
        line = f"{t.shape:16s} {cfg:14s} {t.ratio:6.3f}"
        if model:
            m = model[t.ident]
            pred_gap = m["gap_s"] / (t.blocks * t.steps_per_block / SM_COUNT)
            per_block = m["resident"] * 1e9
            line += (
                f" {m['ratio']:6.3f} {m['resident']:3d} {gap * per_block:16.1f} {pred_gap * per_block:6.1f}"
            )
        print(line + f" {gap * 1e9:10.1f}")
    summary = by_stages(twins, {k: v["ratio"] for k, v in model.items()} if model else None)
    print()
    for stages, row in summary.items():
        text = f"{stages} stages: {row['pairs']} pairs, descriptor / pointer median {row['measured']:.3f}"
        text += " measured"
        if "predicted" in row:
            text += f", {row['predicted']:.3f} predicted"
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

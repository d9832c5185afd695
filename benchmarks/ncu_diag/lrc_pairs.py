#!/usr/bin/env python3
"""Probe: which SMs' requests the L2 request coalescer merges with each other (stop 69, for #3).

The cache model merges a same-wave re-read of a block with the first request for it from the same L2 partition
(``tilesight.cache.model._merge_window``). Stop 69 found the single-wave NCU launches merging more than that
(0.45 of their reads against 0.32 modelled) and following a per-GPC grouping of the readers better than the
per-partition one (``docs/tried/stop69_merge_window_variants.py``), but could not place every SM in a GPC
from the dispatch order alone. This probe measures it: two SMs, chosen by ``%smid``, read the same cold 4 MiB
buffer at the same time (each claims its SM's slot, both wait at a gate, then stream every line through L2
with ``ld.global.cg``), and ncu reads the coalescer's counters for the launch. A pair whose requests meet in
one coalescer merges about half its sectors; a pair that never meets merges none. One reader alone is the
baseline (a line is read once an SM, so nothing of its own merges).

    python3 benchmarks/ncu_diag/lrc_pairs.py                 # the ncu pass: a marker and two launches a pair
    python3 benchmarks/ncu_diag/lrc_pairs.py --report DIR    # CPU: the run in DIR (lrc_pairs_ncu.csv)

(``run_lrc_pairs.sh`` runs the first under ncu and writes ``$OUT``.) The pairs (:data:`PAIRS`) are SMs of one
TPC, of one 16-SM block of the dispatch order (a GPC there) in one partition and across the partitions, of
different blocks in one partition and across them, and each SM of the first 8-SM group and of SMs 120-123
(which the placement probe could not give a GPC) beside one SM of each 14-SM block. ``--report`` prints each
pair's merged share with the profile's partitions and the SM blocks, and the median per kind of pair.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import os
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

BUFFER_BYTES = 4 << 20  # each reader streams all of it once
BLOCK = 8192  # int32 a step: 32 KB, 64 values (sixteen 16-byte loads) a thread of 4 warps
GRID_PER_SM = 8  # programs launched an SM; the first on each chosen SM claims it, the rest exit
COALESCABLE = "lrc__request_sectors_op_read_coalescable.sum"
COALESCED = "lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum"
METRICS = (
    COALESCABLE,
    COALESCED,
    "lts__t_sectors_srcunit_tex_op_read.sum",
    "lts__t_sector_hit_rate.pct",
    "dram__bytes_read.sum",
    "gpu__time_duration.sum",
)

SAME_TPC = ((0, 1), (16, 17), (64, 65), (124, 125), (120, 121))
SAME_BLOCK = ((0, 8), (16, 24), (0, 2), (16, 18), (32, 38), (48, 56))  # one 16-SM block of the dispatch order
OTHER_BLOCK = ((0, 16), (8, 24), (0, 40), (0, 18), (2, 16), (32, 50), (64, 78), (92, 106))
# SMs the dispatch order leaves without a GPC, beside one SM of each 14-SM block (64-119)
UNPLACED = tuple((sm, other) for sm in (120, 122, 124, 126, 128, 130) for other in (66, 80, 94, 108))
PAIRS = SAME_TPC + SAME_BLOCK + OTHER_BLOCK + UNPLACED
SOLO = (0, 64, 124)  # one reader: the baseline


def _calibrate_kernels():
    """``benchmarks/calibrate/kernels.py`` (``smid``), loaded by path: its module name clashes with the
    repository's ``kernels`` package."""
    spec = importlib.util.spec_from_file_location(
        "calibrate_kernels", HERE.parent / "calibrate" / "kernels.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def _kernel():
    import triton
    import triton.language as tl

    smid = _calibrate_kernels().smid

    @triton.jit
    def pair_read(buf_ptr, out_ptr, claim_ptr, gate_ptr, n_elems, sm_a, sm_b, readers, BLOCK: tl.constexpr):
        """The first program on SM ``sm_a`` (slot 0) and on ``sm_b`` (slot 1) each claim their slot, wait
        until ``readers`` have claimed, then sum ``buf_ptr[:n_elems]`` through L2 into ``out_ptr[slot]``;
        every other program exits."""
        pid = tl.program_id(0)
        sm = smid(pid)
        slot = tl.where(sm == sm_a, 0, tl.where(sm == sm_b, 1, -1))
        if slot >= 0:
            if tl.atomic_cas(claim_ptr + slot, 0, 1) == 0:
                tl.atomic_add(gate_ptr, 1)
                arrived = tl.load(gate_ptr, volatile=True)
                while arrived < readers:
                    arrived = tl.load(gate_ptr, volatile=True)
                acc = tl.zeros((BLOCK,), dtype=tl.int32)
                for start in range(0, n_elems, BLOCK):
                    acc += tl.load(buf_ptr + start + tl.arange(0, BLOCK), cache_modifier=".cg")
                tl.store(out_ptr + slot * BLOCK + tl.arange(0, BLOCK), acc)

    return pair_read


def cases(spec: str | None = None) -> list[tuple[str, int, int]]:
    """(case name, sm_a, sm_b) in launch order; sm_b -1 for one reader. ``spec`` (``$LRC_PAIRS`` when the
    probe runs: ``"0-32,0-48"``) names other pairs than :data:`PAIRS`, after the same one-reader cases."""
    pairs = PAIRS
    if spec:
        try:
            pairs = tuple(tuple(int(v) for v in p.split("-")) for p in spec.split(","))
        except ValueError:
            raise SystemExit(f"lrc_pairs: LRC_PAIRS {spec!r}: want pairs of SM ids as 'a-b,a-b'") from None
        if any(len(p) != 2 or p[0] == p[1] or min(p) < 0 for p in pairs):
            raise SystemExit(f"lrc_pairs: LRC_PAIRS {spec!r}: each pair names two different SMs, 'a-b'")
    return [(f"solo_{a}", a, -1) for a in SOLO] + [(f"pair_{a}_{b}", a, b) for a, b in pairs]


def _cases_of(names: list[str]) -> list[tuple[str, int, int]]:
    """The cases a run measured, from its ncu markers' names (``solo_A``, ``pair_A_B``)."""
    out = []
    for name in names:
        kind, *sms = name.split("_")
        if kind in ("solo", "pair") and all(v.isdigit() for v in sms):
            out.append((name, int(sms[0]), int(sms[1]) if len(sms) == 2 else -1))
    return out


def run() -> int:
    import torch
    from kmajor import time_or_mark

    sms = torch.cuda.get_device_properties(0).multi_processor_count
    buf = torch.randint(0, 1 << 20, (BUFFER_BYTES // 4,), device="cuda", dtype=torch.int32)
    out = torch.zeros(2 * BLOCK, device="cuda", dtype=torch.int32)
    claim = torch.zeros(2, device="cuda", dtype=torch.int32)
    gate = torch.zeros(1, device="cuda", dtype=torch.int32)
    kernel = _kernel()
    want = int(buf.view(-1, BLOCK).sum(dim=0, dtype=torch.int64).remainder(1 << 32).to(torch.int32)[0].item())

    def launch(a: int, b: int) -> None:
        claim.zero_()
        gate.zero_()
        kernel[(GRID_PER_SM * sms,)](buf, out, claim, gate, buf.numel(), a, b, 1 if b < 0 else 2, BLOCK=BLOCK)

    for name, a, b in cases(os.environ.get("LRC_PAIRS")):
        if max(a, b) >= sms:
            print(f"lrc_pairs: {name} skipped: this GPU has {sms} SMs", file=sys.stderr)
            continue
        time_or_mark(name, functools.partial(launch, a, b), False)
        got = [int(v) for v in out.view(2, BLOCK)[:, 0].tolist()]
        readers = [0] if b < 0 else [0, 1]
        if any(got[s] != want for s in readers):  # both readers ran and read it all
            raise SystemExit(f"lrc_pairs: {name}: sums {got} against {want}: a reader did not run")
    return 0


def _block(sm: int) -> str:
    """The SM's block of the dispatch order: 16 SMs from 0 to 63, 14 from 64 to 119, else unplaced."""
    if sm < 64:
        return f"b{sm // 16}"
    if sm < 120:
        return f"b{4 + (sm - 64) // 14}"
    return "unplaced"


def _kind(a: int, b: int, part: list[int]) -> str:
    if b < 0:
        return "one reader"
    if a // 2 == b // 2:
        return "one TPC"
    where = "one partition" if part[a] == part[b] else "two partitions"
    if "unplaced" in (_block(a), _block(b)):
        return f"unplaced SM, {where}"
    return ("one block, " if _block(a) == _block(b) else "two blocks, ") + where


def report(folder: Path) -> int:
    """Print the run in ``folder`` (``lrc_pairs_ncu.csv``): each pair's merged share, then the median of each
    kind of pair."""
    from kmajor import ncu_launches

    from tilesight.hardware import load_profile

    csv = folder / "lrc_pairs_ncu.csv"
    if not csv.is_file():
        run = "benchmarks/ncu_diag/run_lrc_pairs.sh"
        raise SystemExit(f"lrc_pairs.py: no file {csv} (run {run} on the H200)")
    part = list(load_profile("h200").sm_l2_partition)
    ncu = ncu_launches(csv.read_text())
    by_kind: dict[str, list[float]] = {}
    print(f"{'case':14s} {'blocks':>16s} {'partitions':>10s} {'merged':>7s} {'hit %':>6s} {'kind'}")
    for name, a, b in _cases_of(list(ncu)):
        m = ncu[name]
        share = m.get(COALESCED, math.nan) / m[COALESCABLE] if m.get(COALESCABLE) else math.nan
        kind = _kind(a, b, part)
        by_kind.setdefault(kind, []).append(share)
        blocks = _block(a) + ("" if b < 0 else f" / {_block(b)}")
        parts = str(part[a]) + ("" if b < 0 else f" / {part[b]}")
        hit = m.get("lts__t_sector_hit_rate.pct", math.nan)
        print(f"{name:14s} {blocks:>16s} {parts:>10s} {share:7.3f} {hit:6.1f} {kind}")
    print()
    for kind, shares in by_kind.items():
        print(f"{kind:34s} median merged share {statistics.median(shares):.3f} ({len(shares)})")
    return 0


def main() -> int:
    if "--report" in sys.argv:
        return report(Path(sys.argv[sys.argv.index("--report") + 1]))
    return run()


if __name__ == "__main__":
    sys.exit(main())

"""How long a spin lock takes to pass from one program to the next on the GPU (torch + triton only).

    python3 benchmarks/calibrate/lock_handoff.py --out $OUT/calibration_lock_handoff.json
    python3 benchmarks/calibrate/lock_handoff.py --fit benchmarks/data/calibration_lock_handoff.json  (CPU)

``handoff``: every program takes lock ``pid % LOCKS`` (``while atomic_cas(lock, 0, 1) == 1``), reads and
rewrites one counter word under it (one dependent L2 read), and releases it (``atomic_xchg(lock, 0)``), so a
lock's programs run their tiny sections one after another. Per point: programs, locks, warps, the kernel's
seconds (``do_bench`` p50) and seconds per hold (kernel time over programs per lock). The programs resident
at once (warps per SM allow 64 / warps blocks) spin on their lock meanwhile: points vary how many spin per
lock. The counters are checked (each slot counts its programs once per run).

``--fit``: the profile's ``lock_handoff_s`` and ``lock_handoff_per_resident_s`` from the data: the median hold
per warp count against the programs resident at once on the GPU (``sms x min(32, 64 / warps)`` blocks: the
block and warp limits of a Hopper SM; these programs use few registers and no shared memory), a least-squares
line, minus the section's one dependent L2 read (``--l2-latency``, the profile's ``l2_latency_s``), which the
model prices as part of the section.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

try:
    import torch
    import triton
    import triton.language as tl
except ImportError:  # --fit runs anywhere
    torch = triton = tl = None


def _jit(fn):
    return triton.jit(fn) if triton is not None else fn


@_jit
def handoff(lock_ptr, count_ptr, LOCKS: tl.constexpr):
    slot = tl.program_id(0) % LOCKS
    while tl.atomic_cas(lock_ptr + slot, 0, 1) == 1:
        pass
    c = tl.load(count_ptr + slot, volatile=True)
    tl.store(count_ptr + slot, c + 1)
    tl.debug_barrier()
    tl.atomic_xchg(lock_ptr + slot, 0)


POINTS = [
    (programs, locks, warps)
    for warps in (1, 4, 8)
    for locks in (1, 16, 64, 256)
    for programs in (4096, 16384)
]


def fit(data: dict, l2_latency_s: float) -> tuple[float, float]:
    """(lock_handoff_s, lock_handoff_per_resident_s) from the probe's points (see the module docstring)."""
    xs, ys = [], []
    for warps in sorted({p["warps"] for p in data["points"]}):
        pts = [p for p in data["points"] if p["warps"] == warps]
        xs.append(pts[0]["sms"] * min(32, 64 // warps))
        ys.append(statistics.median(p["s_per_hold"] for p in pts))
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)
    return my - slope * mx - l2_latency_s, slope


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--fit", type=Path, help="fit the profile fields from a measured file (CPU)")
    ap.add_argument("--l2-latency", type=float, default=2.6630e-07, help="the profile's l2_latency_s")
    args = ap.parse_args(argv)
    if args.fit:
        base, per = fit(json.loads(args.fit.read_text()), args.l2_latency)
        print(f"lock_handoff_s = {base:.4e}\nlock_handoff_per_resident_s = {per:.4e}")
        return 0
    if args.out is None:
        ap.error("--out is required to measure")
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    points = []
    for programs, locks, warps in POINTS:
        lock = torch.zeros(locks, dtype=torch.int32, device="cuda")
        count = torch.zeros(locks, dtype=torch.int32, device="cuda")
        handoff[(programs,)](lock, count, LOCKS=locks, num_warps=warps)
        torch.cuda.synchronize()
        ok = bool((count == programs // locks).all().item()) and bool((lock == 0).all().item())

        def launch(programs=programs, lock=lock, count=count, locks=locks, warps=warps):
            handoff[(programs,)](lock, count, LOCKS=locks, num_warps=warps)

        s = triton.testing.do_bench(launch, warmup=10, rep=50, quantiles=[0.5])
        s = (s[0] if isinstance(s, list | tuple) else s) * 1e-3
        point = dict(programs=programs, locks=locks, warps=warps, s=s, s_per_hold=s / (programs / locks),
                     counted=ok, sms=sms)  # fmt: skip
        points.append(point)
        print(json.dumps(point), flush=True)
    meta = dict(
        command=" ".join(["python3", *sys.argv]),
        gpu=torch.cuda.get_device_name(0),
        triton=triton.__version__,
        torch=torch.__version__,
        date=time.strftime("%Y-%m-%d"),
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"meta": meta, "points": points}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

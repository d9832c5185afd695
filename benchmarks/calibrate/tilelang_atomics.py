#!/usr/bin/env python3
"""Probe (GPU): the rate of TileLang's atomic adds of an fp32 tile (a split-K epilogue), against the
``atomics`` probe's Triton ``tl.atomic_add``.

    PYTHONPATH=/tmp/tilelang_site python3 benchmarks/calibrate/tilelang_atomics.py \\
        --out $OUT/calibration_tilelang_atomics.json

Triton lowers ``tl.atomic_add`` of an fp32 tile to one ``atom.global.gpu.acq_rel.add.f32`` per element (an
atomic that returns its old value, with acquire-release ordering); TileLang 0.1.15 lowers ``T.atomic_add``
to ``AtomicAddx2`` / ``AtomicAddx4``, relaxed vector reductions of two or four elements (as the fragment's
layout allows). Each program holds a
``BM x BN`` fp32 fragment of ones and adds it ``REPS`` times into tile ``program % tiles`` of C, in three
forms:

* ``elementwise``: ``T.atomic_add(C[.., ..], acc[i, j])`` in a ``T.Parallel`` nest (TileLang's split-K
  example, ``kernels/tilelang/gemm.py::gemm_splitk``);
* ``tile``: ``T.atomic_add`` of the whole fragment;
* ``store``: ``T.copy`` of the fragment (plain stores of the same bytes).

with the fragment in a ``T.gemm`` accumulator's layout and in a ``T.Parallel`` one, by programs per SM (1, 2)
and programs sharing a tile (1, 4). The first launch of each atomic form is checked
(every element of tile 0 equals the number of programs adding to it); each point records the instruction
the lowered CUDA uses. Read by no profile field: the model takes Triton's per-block atomic rate as a rate of
instructions (``tilesight/model/resources.py``), which these points check. Needs TileLang (the carried wheels:
``benchmarks/device/install_wheels.sh``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))

import tilelang_probe  # noqa: E402

TARGET = {"kind": "cuda", "arch": "sm_90a"}
BM, BN, THREADS = 128, 128, 128
REPS = 8
PER_SM = (1, 2)
SHARING = (1, 4)
FORMS = ("elementwise", "tile", "store")
LAYOUTS = ("gemm", "parallel")


def kernel(form: str, programs: int, tiles: int, reps: int, layout: str = "gemm"):
    """The probe's ``T.prim_func`` for one form (see the module docstring). ``layout``: the fragment is a
    ``T.gemm`` accumulator (``"gemm"``, as in a split-K epilogue; TileLang adds it with ``AtomicAddx2``) or
    written by a ``T.Parallel`` nest (``"parallel"``: ``AtomicAddx4``)."""
    import tilelang.language as T

    @T.prim_func
    def main(C: T.Tensor((tiles * BM, BN), "float32")):
        with T.Kernel(programs, threads=THREADS) as bx:
            acc = T.alloc_fragment((BM, BN), "float32")
            if layout == "gemm":  # acc = ones(BM, 16) @ ones(16, BN) / 16: the accumulator's layout
                a = T.alloc_shared((BM, 16), "float16")
                b = T.alloc_shared((16, BN), "float16")
                T.fill(a, 1.0)
                T.fill(b, 1.0 / 16)
                T.gemm(a, b, acc, clear_accum=True)
            else:
                for i, j in T.Parallel(BM, BN):
                    acc[i, j] = 1.0
            for _ in T.serial(reps):
                if form == "elementwise":
                    for i, j in T.Parallel(BM, BN):
                        T.atomic_add(C[(bx % tiles) * BM + i, j], acc[i, j])
                elif form == "tile":
                    T.atomic_add(C[(bx % tiles) * BM, 0], acc)
                else:
                    T.copy(acc, C[(bx % tiles) * BM, 0])

    return main


def measure(sm_count: int) -> dict:
    import tilelang
    import torch
    from triton.testing import do_bench

    points = []
    for per_sm in PER_SM:
        programs = sm_count * per_sm
        for sharing in SHARING:
            tiles = max(1, programs // sharing)
            c = torch.zeros(tiles * BM, BN, device="cuda", dtype=torch.float32)
            for layout in LAYOUTS:
                point = {"programs_per_sm": per_sm, "sharing": sharing, "tiles": tiles, "reps": REPS}
                point["layout"] = layout
                for form in FORMS:
                    if form != "store":  # one pass: tile 0 gets one add from every program p, p % tiles == 0
                        once = tilelang.compile(kernel(form, programs, tiles, 1, layout), target=TARGET)
                        c.zero_()
                        once(c)
                        torch.cuda.synchronize()
                        want = -(-programs // tiles)
                        point[f"{form}_sum_ok"] = bool(torch.allclose(c[:BM], torch.full_like(c[:BM], want)))
                    run = tilelang.compile(kernel(form, programs, tiles, REPS, layout), target=TARGET)
                    src = run.get_kernel_source()
                    point[f"{form}_instr"] = next(
                        (w for w in ("AtomicAddx4", "AtomicAddx2", "AtomicAdd(") if w in src), ""
                    )
                    ms = do_bench(lambda r=run, out=c: r(out), warmup=25, rep=100, quantiles=[0.5])
                    seconds = float(ms[0] if isinstance(ms, list | tuple) else ms) * 1e-3
                    point[f"{form}_s"] = seconds
                    point[f"{form}_elements_per_s"] = programs * REPS * BM * BN / seconds
                points.append(point)
                print(point, flush=True)
    return {"tile": [BM, BN], "threads": THREADS, "points": points}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    if not tilelang_probe.gpu_ready():
        return 2
    import torch

    sm_count = torch.cuda.get_device_properties(0).multi_processor_count
    tilelang_probe.write(args.out, {"tilelang_atomics": measure(sm_count)})
    return 0


if __name__ == "__main__":
    sys.exit(main())

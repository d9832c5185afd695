"""Measure every case of :mod:`sweep_cases` on the local GPU; write one JSONL per family and a meta JSON.

Run through ``run.sh`` (it sets the paths). Phases:
1. compile every case into Triton's cache in a spawn-context process pool (``--workers``), with a deadline;
2. launch each compiled case once (Triton refuses configs beyond shared memory: recorded as skipped),
   spot-check the first launch of each problem against torch, then time it with ``triton.testing.do_bench``
   (warmup 25 ms, rep 100 ms, quantiles p50/p20/p80; do_bench clears L2 between runs, so times are cold-L2).
Every case gets a record, written as soon as it is known; cases left when the time budget runs out are
recorded as skipped with that reason, so a partial run is still usable.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import datetime
import json
import multiprocessing
import platform
import subprocess
import sys
import time
from pathlib import Path

import sweep_cases
import sweep_gpu
import sweep_schema
import torch
import triton
import triton.runtime.errors

FILE_PREFIX = "triton_"


def _nvidia_smi(query: str) -> str:
    try:
        out = subprocess.run(
            ["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"unavailable: {type(e).__name__}"
    return out.stdout.strip() or f"unavailable: {out.stderr.strip()[:200]}"


def compile_all(records: list[dict], workers: int, deadline: float) -> dict[str, tuple[str, str]]:
    """(status, reason) per id after compiling in a pool; cases not compiled by the deadline are skipped."""
    result: dict[str, tuple[str, str]] = {}
    ctx = multiprocessing.get_context("spawn")
    pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx)
    futures = {pool.submit(sweep_gpu.compile_case, rec): rec["id"] for rec in records}
    try:
        for fut in cf.as_completed(futures, timeout=max(1.0, deadline - time.time())):
            try:
                case_id, status, reason, _ = fut.result()
            except cf.process.BrokenProcessPool as e:  # a worker crashed: its cases cannot be trusted
                case_id, status, reason = futures[fut], "skipped", f"compile worker died: {e}"
            result[case_id] = (status, reason)
    except cf.TimeoutError:
        pass  # the cases still missing are recorded below with the deadline as their reason
    for case_id in futures.values():
        result.setdefault(case_id, ("skipped", "compile not finished before the compile deadline"))
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in list((getattr(pool, "_processes", None) or {}).values()):  # workers stuck in a long ptxas run
        proc.terminate()
    return result


# Validation sets a flag measures instead of the main sweep, latest first: of several flags, the latest wins.
VALIDATION_SETS = {
    "validation91": "the ninety-first validation set (GEMM twins of one tile row and two, stop 88)",
    "validation90": "the ninetieth validation set (the CUDA-DRAM norm blind, stop 83)",
    "validation89": "the eighty-ninth validation set (a twentieth random sample, stop 83)",
    "validation87": "the eighty-seventh validation set (the one-loop softmax's scale folded or not, stop 74)",
    "validation88": "the eighty-eighth validation set (unpipelined row programs blind, stop 76)",
    "validation86": "the eighty-sixth validation set (lone one-warpgroup attention blocks blind, stop 73)",
    "validation85": "the eighty-fifth validation set (a nineteenth random sample, stop 71)",
    "validation84": "the eighty-fourth validation set (the causal mask timed apart, stop 69)",
    "validation83": "the eighty-third validation set (an eighteenth random sample, stop 68)",
    "validation82": "the eighty-second validation set (spills at random, the K loop frame bytes, stop 68)",
    "validation81": "the eighty-first validation set (a seventeenth random sample, stop 67)",
    "validation80": "the eightieth validation set (a sixteenth random sample, stop 67)",
    "validation79": "the seventy-ninth validation set (masked rows: row widths under their block, stop 67)",
    "validation78": "the seventy-eighth validation set (spills at random, for the choice of ptxas, stop 67)",
    "validation77": "the seventy-seventh validation set (a fifteenth random sample, stop 66)",
    "validation76": "the seventy-sixth validation set (a fourteenth random sample, stop 65)",
    "validation75": "the seventy-fifth validation set (lone K loops against their dots, stop 63)",
    "validation74": "the seventy-fourth validation set (the crowded62 NCU set's launches timed, stop 62)",
    "validation73": "the seventy-third validation set (a thirteenth random sample, stop 62)",
    "validation72": "the seventy-second validation set (a twelfth random sample, stop 61)",
    "validation71": "the seventy-first validation set (register spills at random, stop 60)",
    "validation70": "the seventieth validation set (an eleventh random sample, stop 59)",
    "validation69": "the sixty-ninth validation set (a tenth random sample, stop 58)",
    "validation68": "the sixty-eighth validation set (a ninth random sample, stop 56)",
    "validation67": "the sixty-seventh validation set (causal attention: the schedule's turn blind)",
    "validation66": "the sixty-sixth validation set (prefix scans, stop 53)",
    "validation65": "the sixty-fifth validation set (kernels over block pointers, stop 52)",
    "validation64": "the sixty-fourth validation set (wide rows on few warps, stop 51)",
    "validation63": "the sixty-third validation set (the row-striding softmax at random, stop 51)",
    "validation62": "the sixty-second validation set (a seventh random sample, stop 51)",
    "validation61": "the sixty-first validation set (a sixth random sample, stop 50)",
    "validation60": "the sixtieth validation set (a fifth random sample, stop 49)",
    "validation59": "the fifty-ninth validation set (row kernels at odd widths: the row-load rates blind)",
    "validation58": "the fifty-eighth validation set (eight-column warpgroup MMAs)",
    "validation57": "the fifty-seventh validation set (a fourth random sample, stop 48)",
    "validation56": "the fifty-sixth validation set (split sub-word stores: the merge rule blind)",
    "validation55": "the fifty-fifth validation set (element-wise kernels at lengths no multiple of 16)",
    "validation54": "the fifty-fourth validation set (GELU, exact and tanh: the math-routine rule blind)",
    "validation53": "the fifty-third validation set (a third random sample, stop 47)",
    "validation52": "the fifty-second validation set (a second random sample, odd sizes, stop 46)",
    "validation51": "the fifty-first validation set (GEMMs with an operand left synchronous: the rule blind)",
    "validation50": "the fiftieth validation set (a random sample over the reference kernels, stop 46)",
    "validation49": "the forty-ninth validation set (a fourth cross-family blind sample, stop 45)",
    "validation48": "the forty-eighth validation set (causal attention: the shared-SM schedule blind)",
    "validation47": "the forty-seventh validation set (a third cross-family blind sample, stop 44)",
    "validation46": "the forty-sixth validation set (dropout, libdevice GELU, int8 row quantisation: blind)",
    "validation45": "the forty-fifth validation set (decode-shaped GEMMs: the loaded-DRAM rule blind)",
    "validation44": "the forty-fourth validation set (a second cross-family blind sample, stop 43)",
    "validation43": "the forty-third validation set (row reductions across warps: the exchange rule blind)",
    "validation42": "the forty-second validation set (64-byte GEMM rows: the short-row merge share blind)",
    "validation41": "the forty-first validation set (a cross-family blind sample at new shapes, stop 41)",
    "validation40": "the fortieth validation set (16-bit GEMMs with a K-major B beside row-major twins)",
    "validation39": "the thirty-ninth validation set (uneven GEMM tails: the tail bandwidth rule blind)",
    "validation38": "the thirty-eighth validation set (a fresh blind sample of the main kinds, stop 37)",
    "validation37": "the thirty-seventh validation set (one-wave GEMMs: the start-together rule blind)",
    "validation36": "the thirty-sixth validation set (row kernels at one block an SM: the load rule blind)",
    "validation35": "the thirty-fifth validation set (Liger kernels the survey flagged)",
    "validation34": "the thirty-fourth validation set (Liger's looped kernels at three stages)",
    "validation33": "the thirty-third validation set (Liger and row kernels: the store rule, any residency)",
    "validation32": "the thirty-second validation set (Liger-Kernel's kernels: validation 31's rules blind)",
    "validation31": "the thirty-first validation set (Liger-Kernel's own kernels; needs external/liger)",
    "validation30": "the thirtieth validation set (row kernels across warps: the reduction rounds blind)",
    "validation29": "the twenty-ninth validation set (validation 25's attention through pointers)",
    "validation28": "the twenty-eighth validation set (row-striding softmax: the rows-in-flight rule blind)",
    "validation27": "the twenty-seventh validation set (the fused-softmax tutorial's row-striding programs)",
    "validation26": "the twenty-sixth validation set (persistent GEMMs: the overlap rule blind)",
    "validation25": "the twenty-fifth validation set (descriptor attention and persistent GEMMs)",
    "validation24": "the twenty-fourth validation set (attention at a new shape: stop 32's attention rules)",
    "validation23": "the twenty-third validation set (bf16 attention and GEMM configs, rows: stop 31 blind)",
    "validation22": "the twenty-second validation set (attention at a new shape: the compute-group rule)",
    "validation21": "the twenty-first validation set (attention and GEMM config lists: the register rules)",
    "validation20": "the twentieth validation set (attention at a new shape: a wrapped tile's softmax)",
    "validation19": "the nineteenth validation set (attention, rows and GEMMs: the tile stream's queueing)",
    "validation18": "the eighteenth validation set (row kernels: barriers, unrolled passes, per-pass hits)",
    "validation17": "the seventeenth validation set (attention at a new shape, row kernels: ALU ops)",
    "validation16": "the sixteenth validation set (attention and GEMMs at 2, 3 and 4 stages)",
    "validation15": "the fifteenth validation set (an attention autotune space: 36 configs x 8 problems)",
    "validation14": "the fourteenth validation set (bf16 / fp8 / persistent / TMA GEMMs, big 8-warp tiles)",
    "validation13": "the thirteenth validation set (tutorial GEMM configs, big 8-warp tiles; attention)",
    "validation12": "the twelfth validation set (GEMMs and attention after the pipelined-load rule)",
    "validation11": "the eleventh validation set (norms whose weights every program reads)",
    "validation10": "the tenth validation set (register-bound GEMM configs, wide rows)",
    "validation9": "the ninth validation set (narrow-tile GEMMs, attention)",
    "validation8": "the eighth validation set (attention, new lengths and tile configs)",
    "validation7": "the seventh validation set (TF32 GEMMs, bf16 / d256 attention)",
    "validation6": "the sixth validation set (RoPE, add + RMSNorm)",
    "validation5": "the fifth validation set (narrow tiles, GROUP_M 1/8)",
    "validation4": "the fourth validation set (split-K GEMMs)",
    "validation3": "the third validation set (gated activations)",
    "validation2": "the second validation set",
    "validation": "the later validation set",
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True, help="folder for triton_*.jsonl and triton_meta.json")
    ap.add_argument("--workers", type=int, default=14)
    ap.add_argument("--budget-s", type=float, default=450.0, help="wall-clock budget for both phases")
    ap.add_argument("--compile-share", type=float, default=0.45, help="fraction of the budget for compiling")
    ap.add_argument("--only", default="", help="substring filter on case ids (for a quick trial)")
    for name, what in VALIDATION_SETS.items():
        ap.add_argument(f"--{name}", action="store_true", help=f"measure {what} (sweep_cases.{name}_cases)")
    args = ap.parse_args()
    start = time.time()
    args.out.mkdir(parents=True, exist_ok=True)

    chosen = next((name for name in VALIDATION_SETS if getattr(args, name)), None)  # the latest set named
    cases = getattr(sweep_cases, f"{chosen}_cases")() if chosen else sweep_cases.all_cases()
    records = [c.to_json() for c in cases if args.only in c.id]
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    if sms != sweep_cases.H200_SM_COUNT:
        note = f"warning: GPU has {sms} SMs; persistent cases use NUM_SMS={sweep_cases.H200_SM_COUNT}"
        print(note, file=sys.stderr)
    from kernels.triton.tma_gemm import install_allocator

    install_allocator()

    compiled = compile_all(records, args.workers, start + args.budget_s * args.compile_share)
    t_compiled = time.time()
    n_ok = sum(s == "ok" for s, _ in compiled.values())
    print(f"compiled {n_ok}/{len(records)} in {t_compiled - start:.0f} s", flush=True)

    files = {fam: open(args.out / f"{FILE_PREFIX}{fam}.jsonl", "w") for fam in sweep_schema.FAMILIES}
    pool = sweep_gpu.TensorPool()
    checked: set[str] = set()
    problem_key = None
    counts: dict[str, int] = {}
    for i, rec in enumerate(records):
        key = json.dumps(rec["problem"], sort_keys=True)
        if key != problem_key:
            pool.clear()
            problem_key = key
        status, reason = compiled[rec["id"]]
        row = dict(rec, status=status, reason=reason, measured_us=None)
        broken = sweep_cases.kernel_precondition(rec)
        if status == "ok" and broken:
            row.update(status="skipped", reason=f"not launched: {broken}")
        elif status == "ok" and time.time() - start > args.budget_s:
            row.update(status="skipped", reason="time budget exhausted before timing")
        elif status == "ok":
            try:
                row.update(sweep_gpu.measure(rec, pool, check=key not in checked))
                checked.add(key)
            except triton.runtime.errors.OutOfResources as e:
                row.update(status="skipped", reason=f"cannot launch: {e}")
            except Exception as e:  # recorded with the case; a CUDA fault shows up in every later row too
                row.update(status="skipped", reason=f"launch failed: {type(e).__name__}: {str(e)[:300]}")
        sweep_schema.validate_record(row, f"case {i} ({rec['id']})")
        files[rec["family"]].write(json.dumps(row) + "\n")
        files[rec["family"]].flush()
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    for f in files.values():
        f.close()

    meta = {
        "command": " ".join(sys.argv),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "gpu": torch.cuda.get_device_name(0),
        "sm_count": sms,
        "sm_clock_mhz": _nvidia_smi("clocks.sm,clocks.max.sm"),
        "driver": _nvidia_smi("driver_version"),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "triton": triton.__version__,
        "cases": len(records),
        "status_counts": counts,
        "compile_s": round(t_compiled - start, 1),
        "total_s": round(time.time() - start, 1),
        "timing": "triton.testing.do_bench(warmup=25, rep=100, quantiles=[0.5, 0.2, 0.8]); cold L2; us",
    }
    (args.out / f"{FILE_PREFIX}meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    print(json.dumps(meta, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

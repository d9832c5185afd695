"""Measure the TileLang reference kernels on the GPU: compile in parallel, check, time, write JSONL.

    python3 benchmarks/tilelang_sweep/sweep.py --out $OUT/tilelang_h200.jsonl [--workers 14] [--budget-s 380]
    python3 benchmarks/tilelang_sweep/sweep.py --out /tmp/x.jsonl --limit 1 --compile-only   # CPU dry run

Kernels are compiled for ``--arch`` (default sm_90a, the H200's arch as TileLang targets it), so the compile
step also runs on a machine without a GPU that has nvcc.

1. compiles every case of ``cases.all_cases()`` with ``tilelang.compile`` in a spawn process pool (this fills
   TileLang's on-disk kernel cache, so step 2 loads instead of compiling);
2. in this process, for each case in order: loads the kernel, makes random inputs, checks the first case of
   each family against a torch reference, and times it with ``triton.testing.do_bench(warmup=25, rep=100,
   quantiles=[0.5, 0.2, 0.8])`` (cold L2: do_bench clears L2 between repetitions);
3. writes one JSON line per case (its ``params`` rebuild the prim_func on CPU) and a ``*_meta.json`` with the
   command, GPU, versions and date. A case that fails records its error; nothing is skipped silently.

A case still running on the GPU after ``--case-timeout-s`` (a kernel that never finishes) is recorded with
that error and the process exits with status 3 at once (a hung kernel cannot be stopped from its own process);
``--resume`` then appends to the output, skipping the cases it already holds (``run.sh`` does both).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import threading
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cases as case_list  # noqa: E402

# Tolerances of the correctness check: max |out - ref| / max |ref| (fp16/bf16 outputs, fp32 accumulation).
REL_TOL = {"gemm": 2e-2, "flash_attention": 2e-2, "mla_decode": 2e-2, "dequant_gemm": 2e-2}


HUNG_EXIT = 3  # the exit status after a case overran --case-timeout-s (run.sh resumes past it)

# The case sets ``--set`` picks from (cases.py).
SETS = {
    "main": case_list.all_cases,
    "validation": case_list.validation_cases,
    "validation2": case_list.validation2_cases,
    "validation3": case_list.validation3_cases,
    "validation4": case_list.validation4_cases,
    "validation5": case_list.validation5_cases,
    "validation6": case_list.validation6_cases,
    "validation7": case_list.validation7_cases,
    "validation8": case_list.validation8_cases,
    "validation9": case_list.validation9_cases,
    "validation10": case_list.validation10_cases,
    "validation11": case_list.validation11_cases,
    "validation12": case_list.validation12_cases,
    "validation13": case_list.validation13_cases,
    "validation14": case_list.validation14_cases,
    "validation15": case_list.validation15_cases,
    "validation16": case_list.validation16_cases,
    "variants": case_list.variant_cases,
    "stages": case_list.stages_cases,
    "persistent": case_list.persistent_cases,
    "split": case_list.split_cases,
    "splitk2": case_list.splitk2_cases,
    "fp8": case_list.fp8_cases,
    "varlen": case_list.varlen_cases,
    "blocksparse": case_list.blocksparse_cases,
    "fa_steps": case_list.fa_steps_cases,
    "gemm_steps": case_list.gemm_steps_cases,
    "gemm_tiles": case_list.gemm_tiles_cases,
}


def _target(arch: str) -> dict[str, str]:
    return {"kind": "cuda", "arch": arch}


def _compile(case: dict[str, Any], arch: str) -> tuple[str, float, str | None]:
    start = time.time()
    try:
        import tilelang

        tilelang.compile(case_list.build(case), target=_target(arch))
        return case["id"], time.time() - start, None
    except Exception as exc:  # recorded per case in the output, never swallowed
        return case["id"], time.time() - start, f"{type(exc).__name__}: {exc}"[:2000]


def _inputs(case: dict[str, Any], torch: Any) -> list[Any]:
    p = case["params"]
    dev = "cuda"
    fam = case["family"]
    if case["kernel"] == "gemm_fp8":  # K-major e4m3 operands, fp16 C
        f8 = torch.float8_e4m3fn
        a = torch.randn(p["M"], p["K"], device=dev).to(f8)
        b = torch.randn(p["N"], p["K"], device=dev).to(f8)
        return [a, b, torch.empty(p["M"], p["N"], device=dev, dtype=torch.float16)]
    if fam == "gemm":
        dt = getattr(torch, p["dtype"])
        a = torch.randn(p["M"], p["K"], device=dev, dtype=dt)
        b = torch.randn(p["K"], p["N"], device=dev, dtype=dt)
        if case["kernel"] == "gemm_splitk":  # the blocks add into C: zeroed for the check's first call
            return [a, b, torch.zeros(p["M"], p["N"], device=dev, dtype=torch.float32)]
        return [a, b, torch.empty(p["M"], p["N"], device=dev, dtype=dt)]
    if case["kernel"] == "flash_attention_varlen_fwd":  # packed [tokens, heads, dim], int32 offsets
        shape = (p["total_q"], p["heads"], p["dim"])
        q, k, v = (torch.randn(shape, device=dev, dtype=torch.float16) for _ in range(3))
        cu = torch.tensor(case_list.cu_seqlens(case), device=dev, dtype=torch.int32)
        out = torch.empty(shape, device=dev, dtype=torch.float16)
        return [q, k, v, cu, cu.clone(), max(case["lens"]), out]
    if case["kernel"] == "flash_attention_blocksparse_fwd":  # [batch, heads, seq, dim], int32 block mask
        shape = (p["batch"], p["heads"], p["seq_len"], p["dim"])
        q, k, v = (torch.randn(shape, device=dev, dtype=torch.float16) for _ in range(3))
        mask = torch.from_numpy(case_list.block_mask(case)).to(dev)
        return [q, k, v, mask, torch.empty(shape, device=dev, dtype=torch.float16)]
    if fam == "flash_attention":
        shape = (p["batch"], p["seq_len"], p["heads"], p["dim"])
        q, k, v = (torch.randn(shape, device=dev, dtype=torch.float16) for _ in range(3))
        return [q, k, v, torch.empty(shape, device=dev, dtype=torch.float16)]
    if fam == "mla_decode":
        b, h, s, d, pe = p["batch"], p["heads"], p["seqlen_kv"], p["dim"], p["pe_dim"]
        f16 = torch.float16
        return [
            torch.randn(b, h, d, device=dev, dtype=f16),
            torch.randn(b, h, pe, device=dev, dtype=f16),
            torch.randn(b, s, d, device=dev, dtype=f16),
            torch.randn(b, s, pe, device=dev, dtype=f16),
            torch.empty(b, h, d, device=dev, dtype=f16),
        ]
    if fam == "dequant_gemm":
        a = torch.randn(p["M"], p["K"], device=dev, dtype=torch.float16) / math.sqrt(p["K"])
        if p["weight"] == "float8_e4m3":
            b = torch.randn(p["N"], p["K"], device=dev).to(torch.float8_e4m3fn)
            return [a, b, torch.empty(p["M"], p["N"], device=dev, dtype=torch.float16)]
        k = p["K"] if p["weight"] == "int8" else p["K"] // 2
        b = torch.randint(-128, 128, (p["N"], k), device=dev, dtype=torch.int8)
        return [a, b, torch.empty(p["M"], p["N"], device=dev, dtype=torch.float16)]
    raise KeyError(fam)


def _reference(case: dict[str, Any], args: list[Any], torch: Any) -> Any:
    p = case["params"]
    fam = case["family"]
    if case["kernel"] == "gemm_fp8":
        return args[0].float() @ args[1].float().t()
    if fam == "gemm":
        return args[0].float() @ args[1].float()
    if case["kernel"] == "flash_attention_varlen_fwd":  # each sequence on its own (equal q and k lengths)
        cu = case_list.cu_seqlens(case)
        outs = []
        for b in range(len(case["lens"])):
            q, k, v = (t[cu[b] : cu[b + 1]].transpose(0, 1).float() for t in args[:3])
            out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=p["causal"])
            outs.append(out.transpose(0, 1))
        return torch.cat(outs)
    if case["kernel"] == "flash_attention_blocksparse_fwd":  # the block mask expanded to elements
        keep = args[3].bool().repeat_interleave(p["block_M"], dim=2).repeat_interleave(p["block_N"], dim=3)
        q, k, v = (t.float() for t in args[:3])
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    if fam == "flash_attention":
        q, k, v = (t.transpose(1, 2).float() for t in args[:3])
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=p["causal"])
        return out.transpose(1, 2)
    if fam == "mla_decode":
        q, qpe, kv, kpe = (t.float() for t in args[:4])
        scores = (q @ kv.transpose(1, 2) + qpe @ kpe.transpose(1, 2)) / math.sqrt(p["dim"] + p["pe_dim"])
        return torch.softmax(scores, dim=-1) @ kv
    if fam == "dequant_gemm" and p["weight"] in ("int8", "float8_e4m3"):
        return args[0].float() @ args[1].float().t()
    if fam == "dequant_gemm":
        packed = args[1].to(torch.int16)
        low, high = packed & 0xF, (packed >> 4) & 0xF
        w = torch.stack([low, high], dim=-1).reshape(p["N"], p["K"]).float()
        if p["weight"] == "int4":
            w = w - 8
        return args[0].float() @ w.t()
    raise KeyError(fam)


def _hung(fh: Any, rec: dict[str, Any], limit_s: float) -> None:
    """The watchdog of one case: record it as hung and end the process (its kernel keeps the GPU busy)."""
    rec = {k: v for k, v in rec.items() if k not in ("ms", "ms_p20", "ms_p80", "tflops")}
    rec["error"] = f"still running after {limit_s:.0f} s (the kernel never finished on the GPU)"
    fh.write(json.dumps(rec) + "\n")
    fh.flush()
    print(f"[sweep] {rec['id']}: {rec['error']}; exiting {HUNG_EXIT} for run.sh to resume", flush=True)
    os._exit(HUNG_EXIT)


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for mod in ("torch", "triton", "tilelang"):
        try:
            out[mod] = __import__(mod).__version__
        except Exception as exc:  # a missing library is recorded, not fatal
            out[mod] = f"unavailable: {exc}"
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="JSONL file to write")
    ap.add_argument("--workers", type=int, default=14)
    ap.add_argument(
        "--budget-s", type=float, default=380.0, help="stop timing new cases after this many seconds"
    )
    ap.add_argument("--compile-budget-s", type=float, default=240.0, help="stop compiling after this long")
    ap.add_argument("--families", default="", help="comma-separated subset of families")
    ap.add_argument("--limit", type=int, default=0, help="at most this many cases per family (0: all)")
    ap.add_argument(
        "--where", default="", help="keep the cases whose params match, e.g. 'block_M=128,num_stages=2'"
    )
    ap.add_argument("--arch", default="sm_90a", help="CUDA arch TileLang compiles for (H200: sm_90a)")
    ap.add_argument("--compile-only", action="store_true", help="compile and stop (a CPU dry run with nvcc)")
    ap.add_argument(
        "--set",
        default="main",
        choices=tuple(SETS),
        help="which case set to run",
    )
    ap.add_argument(
        "--case-timeout-s", type=float, default=90.0, help="record a case as hung after this long and exit 3"
    )
    ap.add_argument("--resume", action="store_true", help="append to --out, skipping the cases it holds")
    args = ap.parse_args()
    t0 = time.time()
    cases = SETS[args.set]()
    done: set[str] = set()
    if args.resume and Path(args.out).exists():
        done = {json.loads(line)["id"] for line in Path(args.out).read_text().splitlines() if line.strip()}
        cases = [c for c in cases if c["id"] not in done]
    if args.families:
        keep = set(args.families.split(","))
        cases = [c for c in cases if c["family"] in keep]
    if args.where:
        want = dict(kv.split("=", 1) for kv in args.where.split(","))
        cases = [c for c in cases if all(str(c["params"].get(k)) == v for k, v in want.items())]
    if args.limit:
        per_family: dict[str, int] = {}
        kept = []
        for c in cases:
            per_family[c["family"]] = per_family.get(c["family"], 0) + 1
            if per_family[c["family"]] <= args.limit:
                kept.append(c)
        cases = kept
    print(f"[sweep] {len(cases)} cases; compiling with {args.workers} workers", flush=True)

    compile_info: dict[str, tuple[float, str | None]] = {}
    pool = ProcessPoolExecutor(max_workers=args.workers, mp_context=get_context("spawn"))
    futures = [pool.submit(_compile, c, args.arch) for c in cases]
    try:
        for fut in as_completed(futures, timeout=args.compile_budget_s):
            cid, secs, err = fut.result()
            compile_info[cid] = (secs, err)
            if err:
                print(f"[sweep] compile {cid} failed: {err[:300]}", flush=True)
        pool.shutdown()
    except TimeoutError:
        # leave time to measure what compiled: drop the rest (recorded per case below) and stop our workers
        print(f"[sweep] compile budget of {args.compile_budget_s:.0f} s spent; dropping the rest", flush=True)
        for c in cases:
            compile_info.setdefault(c["id"], (None, f"not compiled within {args.compile_budget_s:.0f} s"))
        workers = list(pool._processes.values())  # the pool's own worker processes, started above
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in workers:
            proc.terminate()
    n_failed = sum(err is not None for _, err in compile_info.values())
    print(f"[sweep] compiled in {time.time() - t0:.1f} s, {n_failed} failed", flush=True)
    if args.compile_only:
        return 1 if n_failed else 0

    import tilelang
    import torch
    from triton.testing import do_bench

    torch.manual_seed(0)
    out_path = Path(args.out)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    checked: set[tuple[str, str, bool]] = set()  # (family, kernel, split program) checked against torch
    n_ok = 0
    with out_path.open("a" if done else "w") as fh:
        for case in cases:
            keys = ("id", "family", "kernel", "params", "lens", "density", "seed")
            rec: dict[str, Any] = {k: case[k] for k in keys if k in case}
            rec["compile_s"], rec["error"] = compile_info.get(case["id"], (None, "not compiled"))
            rec["flops"] = case_list.flops(case)
            if rec["error"] is None and time.time() - t0 > args.budget_s:
                rec["error"] = f"time budget of {args.budget_s:.0f} s spent before timing"
            if rec["error"] is None:
                watchdog = threading.Timer(args.case_timeout_s, _hung, (fh, rec, args.case_timeout_s))
                watchdog.daemon = True
                watchdog.start()
                try:
                    kernel = tilelang.compile(case_list.build(case), target=_target(args.arch))
                    inputs = _inputs(case, torch)
                    kernel(*inputs)
                    torch.cuda.synchronize()
                    # one check per kernel and program shape (a split-KV program is two kernels)
                    shape_key = (case["family"], case["kernel"], case["params"].get("num_split", 1) > 1)
                    if shape_key not in checked:
                        ref = _reference(case, inputs, torch)
                        out = inputs[case_list.out_index(case)].float()
                        err = float((out - ref).abs().max() / ref.abs().max().clamp_min(1e-6))
                        rec["rel_err"] = err
                        rec["correct"] = bool(err <= REL_TOL[case["family"]])
                        checked.add(shape_key)
                        print(
                            f"[sweep] check {case['id']}: rel err {err:.2e} ok={rec['correct']}", flush=True
                        )
                    ms = do_bench(
                        lambda k=kernel, a=inputs: k(*a), warmup=25, rep=100, quantiles=[0.5, 0.2, 0.8]
                    )
                    rec["ms"], rec["ms_p20"], rec["ms_p80"] = (float(x) for x in ms)
                    rec["tflops"] = rec["flops"] / (rec["ms"] * 1e-3) / 1e12
                    n_ok += 1
                    del inputs, kernel
                except Exception as exc:  # recorded in the case's line
                    rec["error"] = f"{type(exc).__name__}: {exc}"[:2000]
                    traceback.print_exc()
                finally:
                    watchdog.cancel()
            fh.write(json.dumps(rec) + "\n")
            fh.flush()
            print(
                f"[sweep] {case['id']}: {rec.get('ms', float('nan')):.4f} ms {rec['error'] or ''}", flush=True
            )

    meta = {
        "command": " ".join([sys.executable, *sys.argv]),
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "gpu": torch.cuda.get_device_name(0),
        "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES", ""),
        "versions": _versions(),
        "timing": "triton.testing.do_bench(warmup=25, rep=100, quantiles=[0.5, 0.2, 0.8]); cold L2",
        "cases": len(cases) + len(done),
        "timed": n_ok + sum("ms" in json.loads(x) for x in out_path.read_text().splitlines()[: len(done)]),
        "wall_s": time.time() - t0,
    }
    out_path.with_name(out_path.stem + "_meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    print(f"[sweep] timed {n_ok}/{len(cases)} in {time.time() - t0:.1f} s -> {out_path}", flush=True)
    return 0 if n_ok else 1


if __name__ == "__main__":
    sys.exit(main())

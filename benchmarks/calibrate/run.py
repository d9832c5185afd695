#!/usr/bin/env python3
"""One-command GPU calibration suite: measures the calibrated fields of a hardware profile.

    python3 benchmarks/calibrate/run.py --out $OUT/calibration_h200.json

Needs only torch and triton (>= 3.6) on a CUDA GPU; runs unattended in about 2-3 minutes. Every measurement
is fail-soft: an exception is written into the JSON under that measurement's name and the rest still runs; the
JSON is rewritten after every measurement, so a run killed half-way still leaves data. ``profile_fields`` is
what ``benchmarks/apply_calibration.py`` writes into ``hw_profiles/<gpu>.toml``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import shlex
import subprocess
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # repo root: `benchmarks.calibrate` imports

TIME_BUDGET_S = 210  # measurements not started by then are skipped (recorded as such): the run stays < 4 min
GEMM_TOLERANCE = {"float8_e4m3fn": 5e-2, "int8": 1e-6}  # max |err| / max |ref| on a 64x64 corner
GEMM_TOLERANCE_DEFAULT = 2e-2


def _nvidia_smi() -> dict:
    query = "name,clocks.sm,clocks.max.sm,clocks.mem,driver_version,power.limit,temperature.gpu"
    try:
        proc = subprocess.run(
            ["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    first = proc.stdout.strip().splitlines()[0]
    return dict(zip(query.split(","), (v.strip() for v in first.split(",")), strict=False))


def _error(exc: BaseException) -> dict:
    return {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc(limit=6)}


class Suite:
    def __init__(self, out: Path, deadline: float) -> None:
        self.out = out
        self.deadline = deadline
        self.doc: dict = {"schema": 1, "meta": {}, "measurements": {}, "profile_fields": {}}

    def save(self) -> None:
        from benchmarks.calibrate import analysis

        self.doc["profile_fields"] = analysis.profile_fields(
            self.doc["measurements"], self.doc.get("meta", {}).get("sm_count")
        )
        self.out.parent.mkdir(parents=True, exist_ok=True)
        self.out.write_text(json.dumps(self.doc, indent=2, sort_keys=False) + "\n")

    def guarded(self, fn, *args):
        """Run one probe; return its dict, or an error dict if it raised or the time budget is spent."""
        import torch

        if time.monotonic() > self.deadline:
            return {"error": "skipped: time budget spent"}
        t0 = time.monotonic()
        try:
            result = fn(*args)
        except Exception as exc:  # fail-soft by design: the error goes into the JSON, the suite goes on
            result = _error(exc)
        finally:
            try:
                torch.cuda.synchronize()
                torch.cuda.empty_cache()
            except Exception as exc:  # a sticky CUDA error: record it; later probes will record theirs
                print(f"  (cleanup failed: {exc})", flush=True)
        result["elapsed_s"] = round(time.monotonic() - t0, 3)
        return result

    def measure(self, name: str, fn, *args) -> None:
        print(f"[calibrate] {name} ...", flush=True)
        self.doc["measurements"][name] = res = self.guarded(fn, *args)
        print(f"[calibrate] {name}: {_summary(res)}", flush=True)
        self.save()


def _summary(res: dict) -> str:
    if "error" in res:
        return "ERROR " + res["error"].splitlines()[0]
    return ", ".join(f"{k}={v:.4g}" for k, v in res.items() if isinstance(v, float))[:300]


def tensor_core(suite: Suite) -> dict:
    from benchmarks.calibrate import kernels as K
    from benchmarks.calibrate import measure as M

    def checked(dtype: str, cfg: tuple, family: str) -> dict:
        res = suite.guarded(M.triton_gemm, dtype, cfg)
        if "error" in res:
            return res
        tol = GEMM_TOLERANCE.get(dtype, GEMM_TOLERANCE_DEFAULT)
        if res["family"] != family:
            return {"error": f"compiled to {res['family']}, expected {family}", "rejected": res}
        if not res["max_rel_err_64x64"] <= tol:
            return {"error": f"wrong result: rel err {res['max_rel_err_64x64']:.3g} > {tol}", "rejected": res}
        return res

    out: dict = {"wgmma": {}, "legacy": {}, "torch": {}}
    for dtype in M.WGMMA_DTYPES:
        out["wgmma"][dtype] = r = checked(dtype, K.GEMM_WGMMA, "wgmma")
        print(f"  wgmma {dtype}: {_summary(r)}", flush=True)
        out["torch"][dtype] = r = suite.guarded(M.torch_gemm, dtype)
        print(f"  torch {dtype}: {_summary(r)}", flush=True)
    for dtype in M.LEGACY_DTYPES:
        cands = [checked(dtype, cfg, "mma.sync") for cfg in K.GEMM_LEGACY]
        good = [c for c in cands if "error" not in c]
        best = max(good, key=lambda c: c["flops_per_s"]) if good else {"error": "no legacy config succeeded"}
        out["legacy"][dtype] = {**best, "candidates": cands}
        print(f"  mma.sync {dtype}: {_summary(best)}", flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path, help="JSON file to write")
    ap.add_argument("--only", default="", help="comma-separated probe names to run (default: all)")
    args = ap.parse_args(argv)
    only = {p for p in args.only.split(",") if p}
    suite = Suite(args.out, time.monotonic() + TIME_BUDGET_S)

    import torch
    import triton

    from benchmarks.calibrate import measure as M

    if not torch.cuda.is_available():
        print("no CUDA device", file=sys.stderr)
        return 2
    props = torch.cuda.get_device_properties(0)
    suite.doc["meta"] = {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"),
        "datetime_utc": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "command": shlex.join(["python3", *sys.argv]) if argv is None else shlex.join(argv),
        "gpu": torch.cuda.get_device_name(0),
        "capability": list(torch.cuda.get_device_capability(0)),
        "sm_count": props.multi_processor_count,
        "l2_cache_size_bytes": getattr(props, "L2_cache_size", None),
        "total_memory_bytes": props.total_memory,
        "torch": torch.__version__,
        "triton": triton.__version__,
        "cuda": torch.version.cuda,
        "python": platform.python_version(),
        "host": platform.node(),
        "nvidia_smi_start": _nvidia_smi(),
    }
    suite.save()
    probes = [
        ("launch", M.launch, ()),
        ("ddr", M.ddr, ()),
        ("ddr_mix", M.ddr_mix, ()),
        ("ddr_flush", M.ddr_flush, ()),
        ("l2_sweep", M.l2_sweep, ()),
        ("l2_peak", M.l2_peak, ()),
        ("l2_async", M.l2_async, ()),
        ("l2_shared", M.l2_shared, ()),
        ("l2_chunks", M.l2_chunks, ()),
        ("tma_chunks", M.tma_chunks, ()),
        ("l2_lag", M.l2_lag, ()),
        ("overlap", M.overlap, ()),
        ("overlap_alone", M.overlap_alone, ()),
        ("tile_loop", M.tile_loop, ()),
        ("narrow_tiles", M.narrow_tiles, ()),
        ("blocks", M.blocks, ()),
        ("narrow", M.narrow, ()),
        ("narrow_split", M.narrow_split, ()),
        ("narrow_strided", M.narrow_strided, ()),
        ("strided_paced", M.strided_paced, ()),
        ("split_mix", M.split_mix, ()),
        ("narrow_ept", M.narrow_ept, ()),
        ("narrow_l1", M.narrow_l1, ()),
        ("narrow_width", M.narrow_width, ()),
        ("narrow_private", M.narrow_private, ()),
        ("narrow_dram", M.narrow_dram, ()),
        ("atomics", M.atomics, ()),
        ("atomics_hot", M.atomics_hot, ()),
        ("sm_stream", M.sm_stream, ()),
        ("loaded_latency", M.loaded_latency, ()),
        ("dot_chain", M.dot_chain, ()),
        ("dot_shapes", M.dot_shapes, ()),
        ("dot_narrow", M.dot_narrow, ()),
        ("softmax_dot", M.softmax_dot, ()),
        ("replicated", M.replicated, ()),
        ("wrapped", M.wrapped, ()),
        ("regs_a", M.regs_a, ()),
        ("masked_softmax", M.masked_softmax, ()),
        ("issue", M.issue, ()),
        ("reductions", M.reductions, ()),
        ("barrier", M.barrier, ()),
        ("reduce_throughput", M.reduce_throughput, ()),
        ("reduce_mix", M.reduce_mix, ()),
        ("scan_chain", M.scan_chain, ()),
        ("scan_rounds", M.scan_rounds, ()),
        ("scan_code", M.scan_code, ()),
        ("code_size", M.code_size, ()),
        ("row_ring", M.row_ring, ()),
        ("row_ring_wide", M.row_ring_wide, ()),
        ("chunks", M.chunks, ()),
        ("cuda_core", M.cuda_core, ()),
        ("alu_forms", M.alu_forms, ()),
        ("stream_fma", M.stream_fma, ()),
        ("sfu", M.sfu, ()),
        ("sfu_mix", M.sfu_mix, ()),
        ("smem", M.smem, ()),
        ("latency", M.latency, ()),
        ("sm_dispatch", M.sm_dispatch, ()),
        ("l2_partition", M.l2_partition, ()),
        ("local_memory", M.local_memory, ()),
        ("local_l2", M.local_l2, ()),
        ("local_runs", M.local_runs, ()),
        ("tensor_core", tensor_core, (suite,)),
    ]
    unknown = only - {name for name, _, _ in probes}
    if unknown:
        print(f"unknown probes {sorted(unknown)}", file=sys.stderr)
        return 2
    for name, fn, extra in probes:
        if not only or name in only:
            suite.measure(name, fn, *extra)
    suite.doc["meta"]["nvidia_smi_end"] = _nvidia_smi()
    suite.save()
    failed = [k for k, v in suite.doc["measurements"].items() if "error" in v]
    print(f"[calibrate] wrote {args.out}; fields: {sorted(suite.doc['profile_fields'])}; failed: {failed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Time the TileLang survey kernels on the GPU: compile in parallel, then launch and time each.

    PYTHONPATH=/tmp/tilelang_site python3 benchmarks/survey_tilelang/run_gpu.py \
        --out $OUT/survey_tilelang_h200.jsonl

The cases are fixed-shape ``T.prim_func`` kernels written for this project by a survey of the constructs
TileLang programs use (``kernels_gemm``, ``kernels_elem``, ``kernels_attn``); cases that need launch
arguments (dynamic shapes, builders) are skipped. Every parameter buffer gets a tensor of its shape and dtype:
floating point ``randn`` (fp8 from it), 8-bit integers random bytes, other integers zeros. Each kernel runs
once, then ``triton.testing.do_bench(warmup=25, rep=100, quantiles=[0.5, 0.2, 0.8])`` times it (cold L2).
Nothing is checked against a reference. A case still running after ``--case-timeout-s`` is recorded as hung
and the process exits with status 3; ``--resume`` appends past the cases already written.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

TARGET = {"kind": "cuda", "arch": "sm_90a"}


def _registry() -> dict:
    import common
    import kernels_attn  # noqa: F401  (registers its cases)
    import kernels_banks  # noqa: F401
    import kernels_conv  # noqa: F401
    import kernels_conv2  # noqa: F401
    import kernels_elem  # noqa: F401
    import kernels_gemm  # noqa: F401
    import kernels_guards  # noqa: F401
    import kernels_recheck  # noqa: F401
    import kernels_reducers  # noqa: F401
    import kernels_regs  # noqa: F401
    import kernels_scan  # noqa: F401
    import kernels_serial  # noqa: F401
    import kernels_ws  # noqa: F401

    return common.REGISTRY


# The sets beside the survey, by the suffix of their cases' names: "recheck" (kernels_recheck: new shapes of
# the kernels stop 20's fixes came from), "banks" (kernels_banks: transposes through shared memory, for the
# bank-conflict count of stop 24), "regs" (kernels_regs: row kernels whose registers set their residency),
# "guards" (kernels_guards: guarded operand copies and backward second passes), "serial" (kernels_serial:
# serial loops of plain loads that nvcc unrolls, stop 25), "scan" (kernels_scan: T.cumsum / T.cummax,
# stop 38), "reducers" (kernels_reducers: T.alloc_reducer / T.finalize_reducer and warp shuffles, stop 39),
# "conv" (kernels_conv: T.im2col convolutions, stop 39), "ws" (kernels_ws: hand-written warp specialisation,
# stop 39), "conv2" (kernels_conv2: T.im2col convolutions measured after stop 40's tap re-reads).
SETS = {
    "survey": "",
    "recheck": "_r",
    "banks": "_b",
    "regs": "_g",
    "guards": "_u",
    "serial": "_n",
    "scan": "_c",
    "reducers": "_x",
    "conv": "_v",
    "ws": "_w",
    "conv2": "_k",
}


def set_of(name: str) -> str:
    """The set a case belongs to, from its name's suffix."""
    return next((s for s, suffix in SETS.items() if suffix and name.endswith(suffix)), "survey")


def measured_file(which: str) -> str:
    """The file of a set's H200 timings in benchmarks/data/survey_tilelang/."""
    return "survey_tilelang_h200.jsonl" if which == "survey" else f"{which}_h200.jsonl"


def predicted_file(which: str) -> str:
    """The file of a set's predictions recorded before it was measured."""
    prefix = "" if which == "survey" else f"{which}_"
    return f"{prefix}predicted_before_measuring.json"


def runnable(which: str = "survey") -> list[str]:
    """Cases of ``which`` set (a key of :data:`SETS`) whose kernel is a fixed-shape prim_func with no launch
    arguments."""
    import tilelang  # noqa: F401  (it brings its own tvm)
    import tvm

    out = []
    for name, (_, build) in _registry().items():
        if set_of(name) != which:
            continue
        c = build()
        if isinstance(c.func, tvm.tirx.PrimFunc) and not c.args and not c.kwargs:
            out.append(name)
    return out


def _compile(name: str) -> tuple[str, float, str | None]:
    t = time.time()
    try:
        import tilelang

        tilelang.compile(_registry()[name][1]().func, target=TARGET)
        return name, time.time() - t, None
    except Exception as exc:  # recorded per case
        return name, time.time() - t, f"{type(exc).__name__}: {exc}"[:1500]


def _tensors(func, torch) -> list:
    dtypes = {
        "float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32, "int8": torch.int8,
        "uint8": torch.uint8, "int32": torch.int32, "int64": torch.int64, "bool": torch.bool,
        "float8_e4m3": torch.float8_e4m3fn, "float8_e4m3fn": torch.float8_e4m3fn,
        "float8_e5m2": torch.float8_e5m2,
    }  # fmt: skip
    out = []
    for param in func.params:
        buf = func.buffer_map[param]
        shape = tuple(int(s) for s in buf.shape)
        dt = dtypes[str(buf.dtype)]
        if dt.is_floating_point:
            out.append(torch.randn(shape, device="cuda").to(dt))
        elif dt in (torch.int8, torch.uint8):
            lo, hi = (-128, 128) if dt == torch.int8 else (0, 256)
            out.append(torch.randint(lo, hi, shape, device="cuda").to(dt))
        else:
            out.append(torch.zeros(shape, device="cuda", dtype=dt))
    return out


def _hung(fh, rec: dict, limit: float) -> None:
    rec["error"] = f"still running after {limit:.0f} s (the kernel never finished on the GPU)"
    fh.write(json.dumps(rec) + "\n")
    fh.flush()
    print(f"[survey] {rec['name']}: {rec['error']}", flush=True)
    os._exit(3)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--workers", type=int, default=14)
    ap.add_argument("--case-timeout-s", type=float, default=60.0)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--set", choices=tuple(SETS), default="survey")
    args = ap.parse_args()
    names = runnable(args.set)
    done = set()
    if args.resume and args.out.exists():
        done = {json.loads(x)["name"] for x in args.out.read_text().splitlines() if x.strip()}
    names = [n for n in names if n not in done]
    t0 = time.time()
    errors: dict[str, str | None] = {}
    with ProcessPoolExecutor(args.workers, mp_context=get_context("spawn")) as pool:
        for fut in as_completed([pool.submit(_compile, n) for n in names]):
            name, secs, err = fut.result()
            errors[name] = err
    print(f"[survey] compiled {len(names)} in {time.time() - t0:.0f} s", flush=True)
    import tilelang
    import torch
    from triton.testing import do_bench

    with args.out.open("a" if done else "w") as fh:
        for name in names:
            rec: dict = {"name": name, "error": errors.get(name)}
            if rec["error"] is None:
                dog = threading.Timer(args.case_timeout_s, _hung, (fh, rec, args.case_timeout_s))
                dog.daemon = True
                dog.start()
                try:
                    func = _registry()[name][1]().func
                    kernel = tilelang.compile(func, target=TARGET)
                    tensors = _tensors(func, torch)
                    kernel(*tensors)
                    torch.cuda.synchronize()
                    ms = do_bench(
                        lambda k=kernel, t=tensors: k(*t), warmup=25, rep=100, quantiles=[0.5, 0.2, 0.8]
                    )
                    rec.update(p50_us=ms[0] * 1e3, p20_us=ms[1] * 1e3, p80_us=ms[2] * 1e3)
                    del tensors, kernel
                except Exception as exc:  # recorded per case
                    rec["error"] = f"{type(exc).__name__}: {exc}"[:1500]
                    traceback.print_exc()
                finally:
                    dog.cancel()
            fh.write(json.dumps(rec) + "\n")
            fh.flush()
            print(
                f"[survey] {name}: {rec.get('p50_us', float('nan')):.2f} us {(rec['error'] or '')[:100]}",
                flush=True,
            )
    meta = {
        "command": " ".join([sys.executable, *sys.argv]),
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "gpu": torch.cuda.get_device_name(0),
        "tilelang": tilelang.__version__,
        "torch": torch.__version__,
        "timing": "triton.testing.do_bench(warmup=25, rep=100, quantiles=[0.5, 0.2, 0.8]); cold L2",
    }
    args.out.with_name(args.out.stem + "_meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Time the Triton survey kernels on the GPU (torch + triton only): one JSON line per case.

    python3 benchmarks/survey_triton/run_gpu.py --out $OUT/survey_triton_h200.jsonl [--only name1,name2]

Tensors are made from each case's specs: given contents (``values``: page tables, token ids, offsets) as
given; floating-point inputs ``randn`` (fp8 scaled by 0.5); 8-bit integers uniform random bytes; other
integer tensors without contents zeros (recorded per case). Each case is launched once (a compile or launch
error is recorded, not fatal), then timed with ``triton.testing.do_bench(warmup=25, rep=100,
quantiles=[0.5, 0.2, 0.8])`` (cold L2). Nothing is checked against a reference: the timings are of the
kernels as written. ``--ir-tar FILE.tar.gz`` also keeps each case's TTGIR as the GPU machine's Triton
compiled it (its version may differ from the CPU machine's).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import harness  # noqa: E402

sys.path.insert(0, str(HERE.parents[1]))
import numpy as np  # noqa: E402
import torch  # noqa: E402
import triton  # noqa: E402

from kernels.triton.tma_gemm import install_allocator  # noqa: E402  (device-side tensor descriptors)

TORCH_DTYPES = {
    "float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32, "int32": torch.int32,
    "int64": torch.int64, "int8": torch.int8, "uint8": torch.uint8, "int16": torch.int16,
    "float8_e4m3fn": torch.float8_e4m3fn, "float8_e5m2": torch.float8_e5m2,
}  # fmt: skip


def _tensor(spec, zeros: list[str], position: int) -> torch.Tensor:
    shape = tuple(int(s) for s in spec.shape)
    dtype = TORCH_DTYPES[spec.dtype]
    strides = tuple(spec.strides) if spec.strides is not None else None
    out = (
        torch.empty_strided(shape, strides, dtype=dtype, device="cuda")
        if strides
        else torch.empty(shape, dtype=dtype, device="cuda")
    )
    values = getattr(spec, "values", None)
    if values is not None:
        out.copy_(torch.as_tensor(np.asarray(values).reshape(shape)).to(dtype))
    elif dtype.is_floating_point:
        scale = 0.5 if spec.dtype.startswith("float8") else 1.0
        out.copy_((torch.randn(shape, device="cuda") * scale).to(dtype))
    elif spec.dtype in ("int8", "uint8"):
        lo, hi = (-128, 128) if spec.dtype == "int8" else (0, 256)
        out.copy_(torch.randint(lo, hi, shape, device="cuda").to(dtype))
    else:
        out.zero_()
        zeros.append(str(position))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--only", default="", help="comma-separated case names (default: every case)")
    ap.add_argument(
        "--set", choices=tuple(harness.SETS), default="survey", help="which case set (harness.SETS)"
    )
    ap.add_argument(
        "--ir-tar",
        type=Path,
        default=None,
        help="also write each case's TTGIR, as this machine's Triton compiled it, into this .tar.gz",
    )
    args = ap.parse_args()
    wanted = set(filter(None, args.only.split(",")))
    irs: dict[str, str] = {}
    install_allocator()
    every = harness.cases_of(args.set)
    cases = [c for c in every if not wanted or c.name in wanted]
    t0 = time.time()
    with args.out.open("w") as fh:
        for c in cases:
            grid = c.grid if callable(c.grid) else tuple(c.grid)  # a callable of the meta dict (autotune)
            shown = "callable" if callable(grid) else list(grid)
            rec = {"name": c.name, "constructs": c.constructs, "grid": shown}
            try:
                zeros: list[str] = []
                launch_args = [
                    _tensor(a, zeros, i) if isinstance(a, harness.T) else a for i, a in enumerate(c.args)
                ]
                rec["zero_int_args"] = zeros
                kernel = c.fn[grid]
                compiled = kernel(*launch_args, **c.kw)
                torch.cuda.synchronize()
                if compiled is not None and hasattr(compiled, "n_regs"):
                    rec["n_regs"], rec["n_spills"] = int(compiled.n_regs), int(compiled.n_spills)
                asm = getattr(compiled, "asm", None) or {}
                if args.ir_tar is not None and "ttgir" in asm:
                    irs[c.name] = asm["ttgir"]
                ms = triton.testing.do_bench(
                    lambda k=kernel, a=launch_args, kw=c.kw: k(*a, **kw),
                    warmup=25,
                    rep=100,
                    quantiles=[0.5, 0.2, 0.8],
                )
                rec.update(status="ok", p50_us=ms[0] * 1e3, p20_us=ms[1] * 1e3, p80_us=ms[2] * 1e3)
                del launch_args
            except Exception as exc:  # recorded per case
                rec.update(status="error", error=f"{type(exc).__name__}: {exc}"[:1500])
                traceback.print_exc()
            fh.write(json.dumps(rec) + "\n")
            fh.flush()
            print(f"[survey] {c.name}: {rec.get('p50_us', float('nan')):.2f} us {rec.get('error', '')[:120]}")
    if args.ir_tar is not None:
        import io
        import tarfile

        with tarfile.open(args.ir_tar, "w:gz") as tar:
            for name, text in irs.items():
                data = text.encode()
                info = tarfile.TarInfo(f"{name}.ttgir")
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    meta = {
        "command": " ".join([sys.executable, *sys.argv]),
        "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "gpu": torch.cuda.get_device_name(0),
        "torch": torch.__version__,
        "triton": triton.__version__,
        "timing": "triton.testing.do_bench(warmup=25, rep=100, quantiles=[0.5, 0.2, 0.8]); cold L2",
        "wall_s": time.time() - t0,
    }
    args.out.with_name(args.out.stem + "_meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

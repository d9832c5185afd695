#!/usr/bin/env python3
r"""Time the serving sweep's launches on a GPU: each case of ``cases.py`` with real tensors, as predicted.

The sweep (``run.py``) predicts every case on the CPU; this script runs the same launches on the GPU so the
predictions recorded before (``benchmarks/data/robustness/serving_results.json``, its ``latency_us``) can be
scored blind (``score.py``). A case's tensors are built from its ``TensorSpec``s: shape, dtype and strides as
given, the contents given where the case gives them (block tables, sequence lengths, MoE routing, LoRA token
orders), otherwise small normal draws for floating-point tensors and zeros for integer ones; a host-side TMA
descriptor is rebuilt over its real tensor. Timing is ``triton.testing.do_bench`` (warm-up 25 ms, 100 ms of
repeats, its L2 flush between them), as the other sweeps here. Each case runs in a process of its own, so a
kernel that faults costs its own row only (an illegal address leaves a process's CUDA context unusable); a
uint64 table of addresses (``Launch.pointees``: vLLM's multi-slice LoRA weights) is filled with the
addresses of real tensors of its pointee spec.

The kernel modules are the ones ``extract.py`` writes (vLLM's and SGLang's kernels, copied out of their
archives: never committed); carry that folder to the GPU machine::

    python benchmarks/robustness/serving/extract.py --src /tmp/robustness_src/serving --out .serving_kernels
    python benchmarks/robustness/serving/measure.py --kernels .serving_kernels --out OUT.jsonl  # on the GPU
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
import traceback
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]

# one float draw's scale: small enough that no kernel's exponentials overflow
DRAW_SCALE = 0.1


@dataclass(frozen=True)
class _Descriptor:
    """What ``tilesight.tensor_descriptor`` stands for where TileSight does not import (below)."""

    spec: Any
    block_shape: list[int]
    padding: str = "zero"


def _import_path(kernels: Path) -> None:
    """Make ``cases`` and the extracted modules importable, and ``tilesight`` from this checkout: the whole
    package where it imports (its ``frontends`` folder mapped to ``tilesight.frontends``, which a checkout
    that was never installed does not do), else (the GPU machine has only torch and triton) a stand-in
    holding ``TensorSpec`` (``tilesight/tensorspec.py`` itself) and ``tensor_descriptor``."""
    for p in (ROOT, HERE.parent, HERE, kernels.resolve()):
        sys.path.insert(0, str(p))
    try:
        import tilesight
    except ImportError:
        for name in [m for m in sys.modules if m == "tilesight" or m.startswith("tilesight.")]:
            del sys.modules[name]
        stand_in = types.ModuleType("tilesight")
        stand_in.__path__ = [str(ROOT / "tilesight")]  # its submodules import; its __init__ does not run
        sys.modules["tilesight"] = stand_in
        from tilesight.tensorspec import TensorSpec

        stand_in.TensorSpec = TensorSpec  # type: ignore[attr-defined]
        stand_in.tensor_descriptor = _Descriptor  # type: ignore[attr-defined]
        return
    try:
        import tilesight.frontends  # noqa: F401
    except ImportError:
        spec = importlib.util.spec_from_file_location(
            "tilesight.frontends",
            ROOT / "frontends" / "__init__.py",
            submodule_search_locations=[str(ROOT / "frontends")],
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["tilesight.frontends"] = module
        spec.loader.exec_module(module)
        tilesight.frontends = module  # type: ignore[attr-defined]


def _tensor(spec: Any, gen: Any) -> Any:
    """A CUDA tensor for a ``TensorSpec``: its strides, its given contents or draws."""
    import numpy as np
    import torch

    dtype = getattr(torch, spec.dtype)
    strides = spec.strides if spec.strides is not None else spec.stride()
    span = 1 + sum((n - 1) * s for n, s in zip(spec.shape, strides, strict=True)) if spec.shape else 1
    if spec.values is not None:
        flat = torch.as_tensor(np.asarray(spec.values).reshape(-1))
        out = torch.empty_strided(spec.shape, strides, dtype=dtype, device="cuda")
        out.copy_(flat.reshape(spec.shape).to(dtype))
        return out
    storage = torch.empty(span, dtype=dtype, device="cuda")
    if dtype.is_floating_point:
        if dtype.itemsize == 1:  # fp8: draw in fp16, then cast
            storage.copy_((torch.randn(span, device="cuda", generator=gen) * DRAW_SCALE).to(dtype))
        else:
            storage.normal_(0.0, DRAW_SCALE, generator=gen)
    else:
        storage.zero_()
    return torch.as_strided(storage, spec.shape, strides)


def _materialise(value: Any, gen: Any) -> Any:
    from triton.tools.tensor_descriptor import TensorDescriptor

    from tilesight.tensorspec import TensorSpec

    if isinstance(value, TensorSpec):
        return _tensor(value, gen)
    if isinstance(value, _Descriptor):
        base = _tensor(value.spec, gen)
        return TensorDescriptor(base, list(base.shape), list(base.stride()), list(value.block_shape),
                                value.padding)  # fmt: skip
    if isinstance(value, TensorDescriptor):
        base = _tensor(value.base.spec, gen)
        return TensorDescriptor(base, list(value.shape), list(value.strides), list(value.block_shape),
                                value.padding)  # fmt: skip
    return value


def measure(name: str, cases: Any, gen: Any) -> dict[str, Any]:
    import torch
    import triton

    launch = cases.CASES[name].launch()
    args = [_materialise(a, gen) for a in launch.args]
    kwargs = {k: _materialise(v, gen) for k, v in launch.kwargs.items()}
    # a uint64 table of addresses gets tensors of its pointee spec to point at, kept alive with the launch
    pointees = []
    for index, spec in launch.pointees.items():
        table = args[index]
        pointees.append([_tensor(spec, gen) for _ in range(table.numel())])
        addresses = torch.tensor([t.data_ptr() for t in pointees[-1]], dtype=torch.uint64)
        table.copy_(addresses.reshape(table.shape))
    grid = tuple(launch.grid)

    def run() -> None:
        launch.kernel[grid](*args, **kwargs)

    run()  # compiles
    torch.cuda.synchronize()
    p50, p20, p80 = triton.testing.do_bench(run, warmup=25, rep=100, quantiles=[0.5, 0.2, 0.8])
    return {"case": name, "status": "ok", "p50_us": 1e3 * p50, "p20_us": 1e3 * p20, "p80_us": 1e3 * p80}


def _run_isolated(name: str, kernels: Path) -> dict[str, Any]:
    """One case timed in a process of its own (``--case``): a kernel that faults (an illegal address leaves
    the process's CUDA context unusable) costs its own row, not the sweep's remaining cases."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--kernels", str(kernels), "--out", os.devnull,
           "--case", name]  # fmt: skip
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=CASE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"case": name, "status": "error", "error": f"timed out after {CASE_TIMEOUT_S} s"}
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    if done.returncode == 0 and lines:
        return json.loads(lines[-1])
    tail = (done.stderr or done.stdout)[-1200:]
    return {"case": name, "status": "error", "error": f"exit status {done.returncode}", "trace": tail}


# one case's compile and timing, with room to spare (the slowest case, a 4k-token MoE, takes seconds)
CASE_TIMEOUT_S = 300


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernels", type=Path, required=True, help="the modules extract.py wrote")
    ap.add_argument("--out", type=Path, required=True, help="timings (JSON lines) and a .meta.json beside")
    ap.add_argument("--only", default="", help="comma-separated substrings of the case names to run")
    ap.add_argument("--case", default="", help=argparse.SUPPRESS)  # the child of _run_isolated
    args = ap.parse_args()
    _import_path(args.kernels)
    import cases
    import common  # benchmarks/robustness (on the path above): its imports are the standard library's
    import torch
    import triton

    from kernels.triton.tma_gemm import install_allocator

    install_allocator()
    if args.case:  # one case in this process (the sweep's child): its row on the last line of stdout
        gen = torch.Generator(device="cuda")
        gen.manual_seed(0)
        try:
            row = measure(args.case, cases, gen)
        except Exception as e:  # a case that does not run here is a row, not the end of the sweep
            row = {"case": args.case, "status": "error", "error": f"{type(e).__name__}: {e}"[:400],
                   "trace": traceback.format_exc()[-1200:]}  # fmt: skip
        print(json.dumps(row), flush=True)
        return 0
    names = common.selected(cases.CASES, args.only)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    started = time.time()
    with args.out.open("w") as f:
        for name in names:
            row = _run_isolated(name, args.kernels)
            print(json.dumps({k: v for k, v in row.items() if k != "trace"}), flush=True)
            f.write(json.dumps(row) + "\n")
    meta = {
        "command": " ".join(["python", *sys.argv]),
        "date": time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(started)),
        "gpu": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "triton": triton.__version__,
        "python": sys.version.split()[0],
        "timing": "triton.testing.do_bench(warmup=25, rep=100, quantiles=[0.5, 0.2, 0.8]); cold L2; us",
        "seconds": round(time.time() - started, 1),
    }
    args.out.with_suffix(".meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

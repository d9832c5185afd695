#!/usr/bin/env python3
r"""Robustness sweep of TileSight over FlagGems' Triton kernels, captured from the ops that launch them.

Each case (``cases.py``) calls a FlagGems op on torch *meta* tensors with every Triton launch captured
(``capture.py``): the grid, arguments, constexprs and num_warps are what FlagGems' own wrapper computes, and
nothing runs. Each captured launch goes to ``tilesight.estimate`` (h200) with its tensors as TensorSpec. The
kernel is unwrapped first: FlagGems' LibEntry gives its ``.fn``; a LibTuner (FlagGems' own Autotuner subclass)
becomes a plain ``triton.autotune`` with the same configs and key. Every launch ends predicted, refused,
harness (nothing captured) or crash (see ``../common.py``).

    bash benchmarks/robustness/fetch.sh flaggems /tmp/flaggems
    python benchmarks/robustness/flaggems/run.py --src /tmp/flaggems \
        --out benchmarks/data/robustness/flaggems_results.json
    python benchmarks/robustness/flaggems/run.py --src /tmp/flaggems --case softmax_inner  # one, printed

``--src`` (or ``FLAGGEMS_SRC``) is a FlagGems tree: ``src/flag_gems`` under it. Nothing of FlagGems is copied
into this repository.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import common  # noqa: E402  (benchmarks/robustness, put on the path above)

REPO_URL = "https://github.com/FlagOpen/FlagGems"
TIMEOUT_S = 600  # per case (one op: capture plus every launch's estimate)


def _tensor_spec(value: Any) -> tuple[Any, int]:
    """A torch tensor (or FlagGems' StridedBuffer view of one) as a TensorSpec, with its bytes; anything else
    unchanged, with 0 bytes. Stride-0 dimensions (broadcasts) add no bytes."""
    import torch

    from tilesight import TensorSpec

    if not (isinstance(value, torch.Tensor) or type(value).__name__ == "StridedBuffer"):
        return value, 0
    shape = tuple(int(s) for s in value.shape)
    stride = tuple(int(s) for s in value.stride())
    elements = 1
    for size, step in zip(shape, stride, strict=True):
        if step != 0:
            elements *= size
    nbytes = elements * torch.empty((), dtype=value.dtype).element_size()
    return TensorSpec(shape, str(value.dtype).removeprefix("torch."), stride), nbytes


def _unwrap(kernel: Any) -> Any:
    """LibEntry -> the kernel it holds; a LibTuner -> an equal ``triton.autotune`` (which TileSight reads)."""
    import triton

    while type(kernel).__name__ == "LibEntry":
        kernel = kernel.fn

    def rebuild(obj: Any) -> Any:
        if isinstance(obj, triton.runtime.Autotuner) and type(obj).__name__ != "Autotuner":
            prune = None
            if getattr(obj, "early_config_prune", None) is not None:
                prune = {"early_config_prune": obj.early_config_prune}
            return triton.autotune(configs=list(obj.configs), key=list(obj.keys), prune_configs_by=prune)(
                rebuild(obj.fn)
            )
        if type(obj).__name__ == "Heuristics" and not hasattr(obj.fn, "params"):
            obj.fn = rebuild(obj.fn)
        return obj

    return rebuild(kernel)


def _kernel_name(kernel: Any) -> str:
    while hasattr(kernel, "fn") and type(kernel).__name__ != "JITFunction":
        kernel = kernel.fn
    return getattr(kernel, "__name__", type(kernel).__name__)


def run_case(src: Path, name: str, *, verbose: bool) -> None:
    """Capture one case's launches and estimate each; its records go to stdout (``common.emit``)."""
    import cases

    case = cases.CASES[name]
    base = {"case": name, "src": case.source, "category": case.category}
    failed = {**base, "idx": 0, "kernel": "-"}
    try:
        import capture

        gems = capture.install(src, block_pointers=case.block_pointers)
        launches, error = capture.capture(lambda: case.call(gems))
    except Exception as e:  # FlagGems did not import (or the shim failed): the harness's failure, recorded
        common.emit(common.harness_failure(failed, e))
        return
    if not launches:  # the op stopped (or returned) before its first launch
        reason = error or RuntimeError("the op returned without launching a Triton kernel")
        common.emit(common.harness_failure(failed, reason, context="no launch captured"))
        return
    import tilesight

    for idx, launch in enumerate(launches):
        converted = [_tensor_spec(a) for a in launch.args]
        args = [spec for spec, _ in converted]
        arg_bytes = sum(n for _, n in converted)
        target = _unwrap(launch.kernel) if case.unwrap else launch.kernel
        record: dict[str, Any] = {
            **base,
            "idx": idx,
            "kernel": _kernel_name(launch.kernel),
            "arg_bytes": arg_bytes,
            "grid": list(launch.grid) if isinstance(launch.grid, tuple) else "callable",
            "args": [repr(a) for a in args],
            "kwargs": {k: repr(v) for k, v in launch.kwargs.items()},
            "wrapper": type(target).__name__,
        }
        estimate = functools.partial(
            tilesight.estimate, target, launch.grid, *args, hw=common.HW, **launch.kwargs
        )
        report = common.estimate_into(record, estimate)
        if report is not None:
            record["flags"] = common.sanity_flags(
                record, arg_bytes=arg_bytes, memory_bound=case.category == cases.MEMORY
            )
            if verbose:
                print(report)
        common.emit(record)


def main() -> int:
    ap = common.sweep_parser(__doc__.splitlines()[0], "FLAGGEMS_SRC", "a FlagGems tree", TIMEOUT_S)
    args = ap.parse_args()
    import cases

    if args.list:
        print("\n".join(cases.CASES))
        return 0
    if args.src is None:
        ap.error("give --src (or FLAGGEMS_SRC): a FlagGems tree, e.g. from benchmarks/robustness/fetch.sh")
    return common.tree_sweep(
        ap, args, Path(__file__), cases.CASES, run_case, sweep="flaggems", repo_url=REPO_URL
    )


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
r"""Robustness sweep of TileSight's TileLang frontend over kernels from TileLang's own ``examples/``.

Each case (``cases.py``) imports one example file (with module-level CUDA tensors made CPU ones; nothing else
changed), takes one of its kernels and calls ``tilesight.estimate`` (h200) with realistic sizes and the
example's own or tuned configs. Where an example asks the CUDA driver for the SM count (persistent kernels)
it gets the H200's 132. Every case ends predicted, refused, harness (the example itself failed to build) or
crash (see ``../common.py``).

    bash benchmarks/robustness/fetch.sh tilelang /tmp/tilelang
    python benchmarks/robustness/tilelang_examples/run.py --src /tmp/tilelang \
        --out benchmarks/data/robustness/tilelang_examples_results.json
    python benchmarks/robustness/tilelang_examples/run.py --src /tmp/tilelang \
        --case "gemm/example_gemm matmul 4096^3"  # one case, printed

``--src`` (or ``TILELANG_SRC``) is a folder holding TileLang's ``examples/``: a checkout, or what fetch.sh
extracts. Nothing of TileLang is copied into this repository. (``benchmarks/tilelang_examples/`` is another
sweep: it runs every example script whole and predicts the first kernel each builds, at the script's sizes.)
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import common  # noqa: E402  (benchmarks/robustness, put on the path above)

REPO_URL = "https://github.com/tile-ai/tilelang"
TIMEOUT_S = 300  # per case: building the example's kernel and its estimate
H200_SMS = 132


def _kernel_name(target: Any) -> str:
    """The Python name of a kernel: a ``tilelang.jit`` wrapper's function, else the object's type."""
    for obj in (target, getattr(target, "func", None), getattr(target, "__wrapped__", None)):
        name = getattr(obj, "__name__", None)
        if isinstance(name, str):
            return name
    return type(target).__name__


def run_case(src: Path, name: str, *, verbose: bool) -> None:
    """Build one case's kernel and estimate it; its record goes to stdout (``common.emit``)."""
    record: dict[str, Any] = {"case": name, "idx": 0}
    try:
        from tilelang.carver.arch import driver

        driver.get_num_sms = lambda *a, **k: H200_SMS
        import cases

        case = cases.CASES[name]
        loader = cases.ExampleLoader(src / "examples")
        try:
            target, args, kwargs = case.build(loader)
        finally:
            record["examples"] = loader.loaded
        record["kernel"] = _kernel_name(target)
    except Exception as e:  # the example (or its import) failed before TileSight was asked: recorded
        common.emit(common.harness_failure(record, e))
        return
    import tilesight

    estimate = functools.partial(tilesight.estimate, target, *args, hw=common.HW, **kwargs)
    report = common.estimate_into(record, estimate)
    if report is not None:
        record["flags"] = common.sanity_flags(record, flops=case.flops, tc_dtype=case.tc_dtype)
        if verbose:
            print(report)
    common.emit(record)


def main() -> int:
    ap = common.sweep_parser(__doc__.splitlines()[0], "TILELANG_SRC", "a folder with examples/", TIMEOUT_S)
    args = ap.parse_args()
    import cases

    if args.list:
        print("\n".join(cases.CASES))
        return 0
    if args.src is None:
        ap.error("give --src (or TILELANG_SRC): a folder with TileLang's examples/, e.g. from fetch.sh")
    if not (args.src / "examples").is_dir():
        ap.error(f"{args.src} has no examples/ folder")
    return common.tree_sweep(
        ap, args, Path(__file__), cases.CASES, run_case, sweep="tilelang_examples", repo_url=REPO_URL
    )


if __name__ == "__main__":
    sys.exit(main())

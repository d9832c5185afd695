#!/usr/bin/env python3
r"""Robustness sweep of TileSight over the Triton kernels of two LLM serving engines, vLLM and SGLang.

The kernels come from vLLM's source distribution and SGLang's wheel at pinned versions, unpacked by
``fetch.sh serving``; ``extract.py`` copies each kernel verbatim, with its jit helpers and constants, into a
standalone module in a temporary folder (importing the engines whole would need their CUDA builds). Each case
(``cases.py``) launches one kernel the way its engine's wrapper would: paged KV caches with real block tables
and sequence lengths, MoE routing as ``moe_align_block_size`` computes it, LoRA token orders, all given as
``TensorSpec(..., values=...)``. Every case ends predicted, refused, harness or crash (see ``../common.py``);
a prediction is also set against the case's floor: its bytes at the h200 profile's DRAM rate or its flops
at the tensor-core rate, whichever is longer (``bound_us``, ``ratio_to_bound``), and flagged where it is
below that floor or moves under a quarter of the case's bytes through DRAM (besides ``common``'s flags).

    bash benchmarks/robustness/fetch.sh serving /tmp/robustness_src/serving [ARCHIVE_DIR]
    python benchmarks/robustness/serving/run.py --src /tmp/robustness_src/serving \
        --out benchmarks/data/robustness/serving_results.json
    python benchmarks/robustness/serving/run.py --src /tmp/robustness_src/serving \
        --case v_fused_moe_w13_m256  # one case, its report printed

``--src`` (or ``SERVING_SRC``) is the folder fetch.sh unpacked into (its ``SOURCES`` file names the archives
and their sha256, which the results record). Nothing of vLLM or SGLang is copied into this repository.
"""

from __future__ import annotations

import functools
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import common  # noqa: E402  (benchmarks/robustness, put on the path above)
import extract  # noqa: E402  (this folder: the script's own)

TIMEOUT_S = 600  # per case: building the launch and its estimate (the kernels are extracted once, before)
FEW_BYTES = 0.25  # a prediction moving less than this share of the case's ideal bytes through DRAM ...
FEW_BYTES_MIN = 1e6  # ... where those are at least this many is flagged


def _kernel_name(kernel: Any) -> str:
    while hasattr(kernel, "fn") and type(kernel).__name__ != "JITFunction":
        kernel = kernel.fn
    return getattr(kernel, "__name__", type(kernel).__name__)


def _describe(value: Any) -> str:
    """An argument for the results file: a TensorSpec's repr, with a summary of the values it carries."""
    text = repr(value)
    values = getattr(value, "values", None)
    if values is not None:
        text += f" values[{values.size}] in [{values.min()}, {values.max()}]"
    return text


def _size(nbytes: float) -> str:
    return f"{nbytes / 1e6:.1f} MB" if nbytes >= 1e5 else f"{nbytes / 1e3:.1f} KB"


def _bound(record: dict[str, Any], tc_dtype: str | None) -> tuple[float, float]:
    """The launch's floor in us: its ideal bytes at the profile's DRAM rate, its ideal flops at the
    tensor-core rate of ``tc_dtype``; and the bytes' part of it."""
    import tilesight

    profile = tilesight.load_profile(common.HW)
    bytes_us = record["ideal_bytes"] / profile.ddr_bw_bytes_per_s * 1e6
    flops_us = 0.0
    if tc_dtype and record["ideal_flops"]:
        flops_us = record["ideal_flops"] / profile.tc_spec_flops_per_s[tc_dtype] * 1e6
    return max(bytes_us, flops_us), bytes_us


def run_case(name: str, kernels: Path, *, verbose: bool) -> None:
    """Build one case's launch (its module from ``kernels``) and estimate it; the record goes to stdout."""
    import cases

    case = cases.CASES[name]
    record: dict[str, Any] = {"case": name, "idx": 0, "project": case.project, "src": case.source}
    try:
        sys.path.insert(0, str(kernels))
        launch = case.launch()
    except Exception as e:  # the kernel's module did not import or the launch did not build: recorded
        common.emit(common.harness_failure({**record, "kernel": "-"}, e))
        return
    import tilesight

    kwargs = dict(launch.kwargs)
    num_warps = kwargs.pop("num_warps", 4)
    num_stages = kwargs.pop("num_stages", 3)
    record.update(
        kernel=_kernel_name(launch.kernel),
        grid=list(launch.grid),
        num_warps=num_warps,
        num_stages=num_stages,
        args=[_describe(a) for a in launch.args],
        kwargs={k: _describe(v) for k, v in kwargs.items()},
        ideal_bytes=launch.ideal_bytes,
        ideal_flops=launch.ideal_flops,
        tc_dtype=case.tc_dtype,
    )
    estimate = functools.partial(
        tilesight.estimate,
        launch.kernel,
        launch.grid,
        *launch.args,
        hw=common.HW,
        num_warps=num_warps,
        num_stages=num_stages,
        **kwargs,
    )
    report = common.estimate_into(record, estimate)
    if report is not None:
        bound_us, bytes_us = _bound(record, case.tc_dtype)
        ratio = record["latency_us"] / bound_us
        record.update(bound_us=bound_us, ratio_to_bound=ratio, notes=[n[:300] for n in report.notes])
        flags = common.sanity_flags(
            record,
            arg_bytes=launch.ideal_bytes,
            memory_bound=bytes_us >= bound_us,
            flops=launch.ideal_flops if case.tc_dtype else 0.0,
            tc_dtype=case.tc_dtype,
        )
        if ratio < 1.0:
            what = "its bytes at the DRAM rate" if bytes_us >= bound_us else "its flops at the TC rate"
            flags.append(f"{ratio:.2f}x its floor ({bound_us:.1f} us, {what})")
        dram = record.get("dram_bytes") or 0.0
        if launch.ideal_bytes >= FEW_BYTES_MIN and dram < FEW_BYTES * launch.ideal_bytes:
            flags.append(f"DRAM {_size(dram)} of the {_size(launch.ideal_bytes)} it must move")
        record["flags"] = flags
        if verbose:
            print(report)
    common.emit(record)


def _archives(src: Path) -> list[dict[str, str]]:
    return [{k: v for k, v in s.items() if k != "folder"} for s in extract.read_sources(src)]


def main() -> int:
    ap = common.sweep_parser(
        __doc__.splitlines()[0], "SERVING_SRC", "what fetch.sh serving unpacked", TIMEOUT_S
    )
    ap.add_argument("--kernels", type=Path, help="the modules extract.py wrote (default: extract afresh)")
    args = ap.parse_args()
    import cases

    if args.list:
        print("\n".join(cases.CASES))
        return 0
    if args.src is None:
        ap.error("give --src (or SERVING_SRC): what benchmarks/robustness/fetch.sh serving unpacked")
    src = args.src.resolve()
    if args.out is None and not args.case:
        ap.error("give --out (or --case NAME)")
    with tempfile.TemporaryDirectory(prefix="tilesight_serving_") as tmp:
        kernels = args.kernels
        failures: dict[str, str | None] = {}
        if kernels is None:
            kernels = Path(tmp)
            failures = extract.extract_all(extract.project_roots(src), kernels)
            for module, why in failures.items():
                if why:
                    print(f"extracting {module} failed: {why}", file=sys.stderr)
        if args.case:
            run_case(args.case, kernels, verbose=True)
            return 0
        names = common.selected(cases.CASES, args.only)
        started = common.now()
        records = common.run_children(
            Path(__file__),
            src,
            names,
            jobs=args.jobs,
            timeout_s=args.timeout,
            extra_args=("--kernels", str(kernels)),
        )
    source = {
        "projects": ["https://github.com/vllm-project/vllm", "https://github.com/sgl-project/sglang"],
        "archives": _archives(src),
        "extraction_failures": {m: why for m, why in failures.items() if why},
        "cases": len(names),
    }
    return common.finish(args.out, sweep="serving", source=source, records=records, started=started)


if __name__ == "__main__":
    sys.exit(main())

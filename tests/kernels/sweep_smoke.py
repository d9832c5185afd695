"""Runs the sweep harness's launch path on CPU: tiny cases built by the same builders, tensors made by
the harness's TensorPool, launched under TRITON_INTERPRET=1, spot-checked against the harness's reference.

Catches argument-order and reference mistakes that would otherwise surface only on the GPU. Usage:
``TRITON_INTERPRET=1 python sweep_smoke.py`` (the test in test_triton_sweep.py does this in a subprocess).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

if os.environ.get("TRITON_INTERPRET") != "1":
    raise SystemExit("run with TRITON_INTERPRET=1")

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks" / "triton_sweep")]

import sweep_cases as sc  # noqa: E402
import sweep_gpu  # noqa: E402
import torch  # noqa: E402

sweep_gpu.DEVICE = "cpu"
TINY_GEMM = sc.GemmConfig(16, 16, 16, 4, 2, 2)


def tiny_cases() -> list[sc.Case]:
    cases = [
        sc.gemm_case("grouped", ("t", 37, 29, 45), "float16", TINY_GEMM),
        sc.gemm_case("persistent", ("t", 40, 33, 32), "float16", TINY_GEMM, num_sms=3),
        sc.gemm_case("tma", ("t", 32, 48, 64), "float16", TINY_GEMM),
        sc.add_case(1000, "float32", 256, 4),
        sc.row_case("softmax", 5, 37, "float16", 4),
        sc.row_case("layernorm", 6, 45, "float32", 4),
        sc.row_case("rmsnorm", 4, 100, "bfloat16", 4, 32),
        sc.gather_case(23, 50, 70, 8, 32, 4),
    ]
    cases += [sc.attention_case(2, 3, 40, 16, causal, (16, 16, 4, 2)) for causal in (False, True)]
    return cases


def main() -> None:
    import triton

    torch.manual_seed(0)
    triton.set_allocator(lambda size, alignment, stream: torch.empty(size, dtype=torch.int8))
    for case in tiny_cases():
        rec = case.to_json()
        pool = sweep_gpu.TensorPool()
        kernel = sweep_gpu.load_kernel(rec["kernel"])
        args = sweep_gpu._launch_args(rec, pool.get)
        sweep_gpu.launch(rec, kernel, args)
        err = sweep_gpu.spot_check(rec, args)
        tol = sweep_gpu.SPOT_CHECK_REL_TOL
        assert err <= tol, f"{rec['id']}: relative error {err:.3g} > {tol}"
        print(f"{rec['id']}: ok ({err:.2g})")


if __name__ == "__main__":
    main()

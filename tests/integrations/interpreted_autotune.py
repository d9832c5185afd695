"""Run by test_autotune.py in a subprocess: a real triton.autotune launch pruned by TileSight, on CPU.

TileSight predicts the ``@triton.jit`` kernel (compiled to TTGIR for sm_90); its launches go through Triton's
interpreter (switched on after the import, so the kernel stays a JITFunction, and its ``run`` replaced by the
interpreter's in this process only).
Prints one JSON line: the configs Triton benchmarked, the one it chose, the listener's rows and whether the
results are right. The benchmark function only calls the kernel (the interpreter has no GPU timer).
"""

from __future__ import annotations

import json

import torch
import triton
from tilesight.kernels.triton.vector_add import add_kernel
from triton.runtime.interpreter import InterpretedFunction

from tilesight.integrations.autotune import AutotuneLog, Pruner, autotune

N = 3000
CONFIGS = [triton.Config({"BLOCK": b}, num_warps=w) for b in (256, 1024, 4096) for w in (4, 8)]


def fake_bench(kernel_call, quantiles=None):
    kernel_call()
    return [1.0, 1.0, 1.0]


def main() -> None:
    triton.knobs.runtime.interpret = True
    add_kernel.run = InterpretedFunction(add_kernel.fn).run
    x, y = torch.randn(N), torch.randn(N)
    log = AutotuneLog()
    pruner = Pruner(hw="h200", top_k=2, log=log)
    tuned = triton.autotune(
        CONFIGS, key=["n_elements"], prune_configs_by=pruner.prune_configs_by, do_bench=fake_bench
    )(pruner.kernel(add_kernel))
    out = torch.empty(N)
    with log.listening():
        tuned[lambda meta: (triton.cdiv(N, meta["BLOCK"]),)](x, y, out, N)
    predicted = autotune(CONFIGS, key=["n_elements"], hw="h200", mode="predict")(add_kernel)
    out2 = torch.empty(N)
    predicted[lambda meta: (triton.cdiv(N, meta["BLOCK"]),)](x, y, out2, N)
    print(
        json.dumps(
            {
                "benchmarked": len(log.rows),
                "predicted_rows": sum(r.predicted_s is not None for r in log.rows),
                "chosen": tuned.best_config.kwargs["BLOCK"],
                "predict_mode_choice": next(iter(predicted.cache.values())).kwargs["BLOCK"],
                "correct": bool(torch.allclose(out, x + y)) and bool(torch.allclose(out2, x + y)),
                "table": log.format_table(),
            }
        )
    )


if __name__ == "__main__":
    main()

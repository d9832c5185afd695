#!/usr/bin/env python3
"""The main loop of the sweep GEMM's SASS with B row-major and K-major, as this machine's Triton compiles it.

For each config: the loop's instruction count and its instructions by opcode (the loop is the body between a
backward branch and its target), for both layouts of B (``stride_bk`` 1 or ``stride_bn`` 1, both specialised
to the constant 1 as a launch would). Runs on CPU with an explicit sm_90 target, or on the GPU machine (its
own Triton):

    python3 benchmarks/ncu_diag/kmajor_sass.py > kmajor_sass.jsonl
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402

from kernels.triton.gemm import matmul_kernel  # noqa: E402

# (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages)
CONFIGS = ((128, 128, 64, 4, 4), (128, 256, 64, 8, 3), (128, 128, 64, 8, 3), (128, 128, 32, 4, 4))
_LINE = re.compile(r"\s*/\*([0-9a-f]{4,})\*/\s*(.*?);")


def loop_ops(sass: str) -> Counter:
    lines = [(int(m.group(1), 16), m.group(2)) for m in map(_LINE.match, sass.splitlines()) if m]
    best: list[str] = []
    for addr, text in lines:
        jump = re.search(r"BRA (0x[0-9a-f]+)", text)
        if jump and int(jump.group(1), 16) < addr and text.startswith("@"):
            body = [t for a, t in lines if int(jump.group(1), 16) <= a <= addr]
            if len(body) > len(best):
                best = body
    return Counter(re.sub(r"^@!?U?P\w+\s+", "", t).split()[0] for t in best)


def main() -> int:
    cuobjdump = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    try:
        import torch

        target = None if torch.cuda.is_available() else GPUTarget("cuda", 90, 32)
    except ImportError:
        target = GPUTarget("cuda", 90, 32)
    for bm, bn, bk, warps, stages in CONFIGS:
        for k_major in (False, True):
            sig = {n: "*fp16" for n in ("a_ptr", "b_ptr", "c_ptr")}
            sig |= {n: "i32" for n in ("M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn")}
            sig |= {"stride_cm": "i32", "stride_cn": "i32"}
            sig |= {n: "constexpr" for n in ("BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M")}
            consts = {
                "BLOCK_M": bm,
                "BLOCK_N": bn,
                "BLOCK_K": bk,
                "GROUP_M": 8,
                "stride_ak": 1,
                "stride_cn": 1,
            }
            consts["stride_bk" if k_major else "stride_bn"] = 1
            for k in consts:
                sig[k] = "constexpr"
            divisible = [i for i, n in enumerate(sig) if sig[n] != "constexpr" and n != "M"]
            attrs = {(i,): [["tt.divisibility", 16]] for i in divisible}
            src = triton.compiler.ASTSource(fn=matmul_kernel, signature=sig, constexprs=consts, attrs=attrs)
            opts = {"num_warps": warps, "num_stages": stages}
            kernel = (
                triton.compile(src, target=target, options=opts)
                if target
                else triton.compile(src, options=opts)
            )
            with tempfile.NamedTemporaryFile(suffix=".cubin") as fh:
                fh.write(kernel.asm["cubin"])
                fh.flush()
                sass = subprocess.run(
                    [str(cuobjdump), "-sass", fh.name], capture_output=True, text=True
                ).stdout
            ops = loop_ops(sass)
            row = {"config": f"m{bm}n{bn}k{bk}w{warps}s{stages}", "b": "k-major" if k_major else "row-major"}
            row |= {"triton": triton.__version__, "loop_instructions": sum(ops.values()), "ops": dict(ops)}
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

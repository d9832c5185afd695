"""How nvcc unrolls TileLang's serial loops of plain global loads, read from the SASS on CPU (no GPU).

    python benchmarks/tilelang_sweep/nvcc_unroll.py [--out benchmarks/data/nvcc_unroll_tilelang.json]

Each case is a small TileLang program whose ``T.serial`` loop copies a chunk of a global row into shared
memory or reads it into a fragment, and does some work on it. It is lowered for sm_90a with TileLang's own
passes (``tilelang.engine.lower``), compiled by ``nvcc -arch=sm_90a -cubin -O3`` with TileLang's include
paths, and disassembled with the ``cuobjdump`` Triton ships. Per kernel the script records ptxas's
registers, the global loads (``LDG``) the SASS issues back to back before anything else (the unrolled
iterations whose loads are in flight together) against one iteration's loads a thread, and the order of its
memory instructions, barriers and branches: the facts behind ``frontends/tilelang/lower.py``'s
``SERIAL_COPY_UNROLL`` rule. A fact about the compiler, not the GPU: nothing
here is timed, and nothing is fitted to a measurement.

Needs tilelang (with its CUDA templates and CUTLASS headers) and nvcc on PATH; a case nvcc cannot build is
recorded with its error. (No ``from __future__ import annotations`` here: TileLang evaluates a prim_func's
annotations, ``T.Tensor((m, n), ...)``, in the builder's scope.)
"""

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "benchmarks" / "survey_tilelang"))  # the survey's kernel builders

_REGS = re.compile(r"Used (\d+) registers")
_OP = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_]+)")
_FUNCTION = re.compile(r"\n\s+Function : (\S+)")
# the instructions whose order shows how an unrolled loop's loads are issued
_SEQUENCE_OPS = frozenset({"LDG", "STG", "LDS", "STS", "BAR", "BRA", "MUFU", "UTMASTG", "LDGSTS"})


def row_chunks(m: int, n: int, bk: int, threads: int, body: str):
    """A row sum over fp32 rows of ``n`` in ``T.serial`` chunks of ``bk`` into shared memory; ``body`` is the
    chunk's work: "fma" (acc += x * x), "fma4" (a degree-3 polynomial), "exp" (acc += exp(x)), "reduce" (a
    block reduction of each chunk)."""
    import tilelang.language as T

    nk = n // bk

    @T.prim_func
    def main(A: T.Tensor((m, n), "float32"), B: T.Tensor((m,), "float32")):
        with T.Kernel(m, threads=threads) as bx:
            a_s = T.alloc_shared((1, bk), "float32")
            acc = T.alloc_fragment((1, bk), "float32")
            tot = T.alloc_fragment((1,), "float32")
            part = T.alloc_fragment((1,), "float32")
            T.clear(acc)
            T.clear(tot)
            for kk in T.serial(nk):
                T.copy(A[bx, kk * bk], a_s)
                if body == "fma":
                    for i, j in T.Parallel(1, bk):
                        acc[i, j] += a_s[i, j] * a_s[i, j]
                elif body == "fma4":
                    for i, j in T.Parallel(1, bk):
                        acc[i, j] += ((a_s[i, j] * 1.5 + 2.0) * a_s[i, j] + 3.0) * a_s[i, j] + 0.5
                elif body == "exp":
                    for i, j in T.Parallel(1, bk):
                        acc[i, j] += T.exp(a_s[i, j])
                else:
                    for i, j in T.Parallel(1, bk):
                        acc[i, j] = a_s[i, j] * a_s[i, j]
                    T.reduce_sum(acc, part, dim=1)
                    tot[0] += part[0]
            if body != "reduce":
                T.reduce_sum(acc, tot, dim=1)
            B[bx] = tot[0]

    return main, bk * 4 // threads


def two_pass_rmsnorm(m: int, n: int, bk: int, threads: int):
    """The TileLang example's RMSNorm (a sum of squares over chunks, then a second pass scaling and storing
    each chunk): the guards set's kernel (``kernels_guards.two_pass_rmsnorm_case``), walking forwards."""
    from kernels_guards import two_pass_rmsnorm_case

    return two_pass_rmsnorm_case(m, n, bk, threads, backward=False).func, bk * 4 // threads


def split_reduce(splits: int, dim: int, threads: int):
    """A split-KV combine's weighted sum: a ``T.Parallel`` over the head dim reads each split's partial
    output straight into a fragment inside a ``T.serial`` loop."""
    import tilelang.language as T

    @T.prim_func
    def main(P: T.Tensor((64, splits, dim), "float32"), Out: T.Tensor((64, dim), "float32")):
        with T.Kernel(64, threads=threads) as b:
            acc = T.alloc_fragment((dim,), "float32")
            T.clear(acc)
            for s in T.serial(splits):
                for d in T.Parallel(dim):
                    acc[d] += P[b, s, d] * 0.5
            for d in T.Parallel(dim):
                Out[b, d] = acc[d]

    return main, dim * 4 // threads


def cases() -> list[tuple[str, dict, object]]:
    out = []
    for n, bk, threads, body in [
        (4096, 512, 128, "fma"),
        (8192, 512, 128, "fma"),
        (16384, 512, 128, "fma"),
        (32768, 512, 128, "fma"),
        (65536, 512, 128, "fma"),
        (16384, 1024, 128, "fma"),
        (32768, 1024, 128, "fma"),
        (16384, 2048, 128, "fma"),
        (8192, 512, 128, "fma4"),
        (16384, 512, 128, "fma4"),
        (32768, 512, 128, "fma4"),
        (8192, 512, 128, "exp"),
        (16384, 1024, 128, "exp"),
        (4096, 512, 128, "reduce"),
        (8192, 512, 128, "reduce"),
    ]:
        params = {"kernel": "row_chunks", "n": n, "bk": bk, "threads": threads, "body": body}
        out.append(
            (
                f"row_chunks_{body}_n{n}_bk{bk}_t{threads}",
                params,
                lambda p=params: row_chunks(1024, **{k: v for k, v in p.items() if k != "kernel"}),
            )
        )
    for m, n, bk, threads in [(8192, 8192, 512, 128), (4096, 16384, 1024, 128), (16384, 4096, 512, 256)]:
        params = {"kernel": "two_pass_rmsnorm", "m": m, "n": n, "bk": bk, "threads": threads}
        out.append(
            (
                f"two_pass_rmsnorm_{m}x{n}_bk{bk}_t{threads}",
                params,
                lambda m=m, n=n, bk=bk, t=threads: two_pass_rmsnorm(m, n, bk, t),
            )
        )
    for splits, dim, threads in [(8, 128, 128), (8, 128, 64), (8, 128, 32)]:
        params = {"kernel": "split_reduce", "splits": splits, "dim": dim, "threads": threads}
        out.append(
            (
                f"split_reduce_s{splits}_d{dim}_t{threads}",
                params,
                lambda s=splits, d=dim, t=threads: split_reduce(s, d, t),
            )
        )
    return out


def _cuobjdump() -> str:
    found = shutil.which("cuobjdump")
    if found:
        return found
    import triton

    bundled = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    if bundled.exists():
        return str(bundled)
    raise SystemExit("cuobjdump not found (neither on PATH nor in Triton's bundled CUDA tools)")


def compile_and_read(func, workdir: Path, tag: str, cuobjdump: str) -> dict:
    """Lower ``func`` for sm_90a, compile it with nvcc, and read registers and global loads per kernel."""
    import tilelang.env as tl_env
    from tilelang.engine.lower import lower
    from tvm.target import Target

    target = Target({"kind": "cuda", "arch": "sm_90a"})
    with target:
        art = lower(func, target=target)
    cu, cubin = workdir / f"{tag}.cu", workdir / f"{tag}.cubin"
    cu.write_text(art.kernel_source)
    cmd = [
        "nvcc",
        "-arch=sm_90a",
        "-cubin",
        "-O3",
        "-std=c++17",
        "-Xptxas",
        "-v",
        f"-I{tl_env.TILELANG_TEMPLATE_PATH}",
        f"-I{tl_env.CUTLASS_INCLUDE_DIR}",
        "-o",
        str(cubin),
        str(cu),
    ]
    built = subprocess.run(cmd, capture_output=True, text=True)
    if built.returncode:
        return {"error": built.stderr.strip().splitlines()[-1] if built.stderr.strip() else "nvcc failed"}
    sass = subprocess.run([cuobjdump, "-sass", str(cubin)], capture_output=True, text=True, check=True).stdout
    kernels = {}
    parts = _FUNCTION.split(sass)
    for name, text in zip(parts[1::2], parts[2::2], strict=True):
        ops = [op for op in _OP.findall(text) if op in _SEQUENCE_OPS]
        runs: list[list] = []
        for op in ops:
            if runs and runs[-1][0] == op:
                runs[-1][1] += 1
            else:
                runs.append([op, 1])
        kernels[name] = {
            "ldg_total": ops.count("LDG"),
            "ldg_first_run": runs[0][1] if runs and runs[0][0] == "LDG" else 0,
            "sequence": " ".join(f"{op}x{k}" for op, k in runs[:40]),
        }
    regs = [int(r) for r in _REGS.findall(built.stderr)]
    return {"registers": regs, "kernels": kernels}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "data" / "nvcc_unroll_tilelang.json")
    args = ap.parse_args()
    import tilelang

    nvcc = subprocess.run(["nvcc", "--version"], capture_output=True, text=True)
    if nvcc.returncode:
        raise SystemExit("nvcc not found on PATH")
    cuobjdump = _cuobjdump()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, params, build in cases():
            func, loads_per_iteration = build()
            row = {
                "name": name,
                "params": params,
                "vector_loads_per_iteration": max(1, loads_per_iteration // 16),
            }
            row.update(compile_and_read(func, Path(tmp), name, cuobjdump))
            rows.append(row)
            print(json.dumps(row), flush=True)
    meta = {
        "command": "python benchmarks/tilelang_sweep/nvcc_unroll.py",
        "tilelang": tilelang.__version__,
        "nvcc": " ".join(nvcc.stdout.strip().splitlines()[-2:]),
        "target": "sm_90a, nvcc -O3",
        "what": "per kernel: ldg_first_run, the global loads the kernel issues back to back before any other "
        "memory op, barrier, branch or special function (an unrolled loop's loads in flight together); "
        "sequence, those instructions in order, run-length coded; vector_loads_per_iteration: one "
        "iteration's load instructions a thread (chunk bytes / threads / 16, at least 1)",
    }
    args.out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

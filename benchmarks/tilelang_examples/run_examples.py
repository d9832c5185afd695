#!/usr/bin/env python3
"""Run TileLang's own example scripts on this CPU with every kernel compile intercepted, and predict each
intercepted ``T.prim_func`` with TileSight (h200 profile): which are predicted, which refused (and why), and
which crash (a traceback instead of a typed error: a bug).

    python benchmarks/tilelang_examples/run_examples.py TILELANG_CHECKOUT --out results.jsonl [--jobs 2]

``TILELANG_CHECKOUT`` is a checkout of github.com/tile-ai/tilelang (its ``examples/`` folder is run; nothing
of it is copied here). Each file runs in its own process (``--one FILE``) as ``__main__``: CUDA tensors are
made on the CPU, the target detection answers sm_90a, and the first ``JITKernel`` the example builds is
predicted instead of compiled, after which the example is stopped. Examples that need a module not
installed, or that touch the GPU before they compile, end as ``example-error``; ``no-kernel`` where the
script compiled nothing. ``--summary`` prints the counts and every refusal and crash of a results file.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import runpy
import subprocess
import sys
import tempfile
import traceback
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

TIMEOUT_S = 120


class _Stop(BaseException):
    """Raised in place of compiling: the example has handed over its kernel."""


def _offline_cuda() -> None:
    """Make an example's CUDA tensors CPU ones and TileLang's target detection answer sm_90a."""
    import torch

    def on_cpu(fn):
        def wrapped(*a, **kw):
            if "cuda" in str(kw.get("device", "")):
                kw["device"] = "cpu"
            return fn(*a, **kw)

        return wrapped

    for name in ("randn", "rand", "empty", "zeros", "ones", "full", "randint", "arange", "tensor", "eye",
                 "empty_like", "zeros_like", "ones_like", "randn_like", "rand_like", "full_like", "linspace",
                 "normal"):  # fmt: skip
        if hasattr(torch, name):
            setattr(torch, name, on_cpu(getattr(torch, name)))
    to = torch.Tensor.to

    def to_cpu(self, *a, **kw):
        a = tuple("cpu" if "cuda" in str(x) and isinstance(x, str | torch.device) else x for x in a)
        if "cuda" in str(kw.get("device", "")):
            kw["device"] = "cpu"
        return to(self, *a, **kw)

    torch.Tensor.to = to_cpu
    torch.Tensor.cuda = lambda self, *a, **kw: self
    torch.cuda.is_available = lambda: True
    torch.cuda.synchronize = lambda *a, **kw: None
    torch.cuda.current_device = lambda: 0
    torch.cuda.device_count = lambda: 1
    torch.cuda.get_device_capability = lambda *a, **kw: (9, 0)
    import tilelang.backend.target as target
    import tilelang.cuda.target as cuda_target

    target.auto_detect_target = lambda: "cuda"
    cuda_target._detect_torch_cuda_arch = lambda: "sm_90a"


def run_one(path: str, result: Path) -> None:
    """Run one example file, predicting the first kernel it builds; its records go to ``result`` as they
    are made (an example may end its process in ways no return survives)."""
    warnings.simplefilter("ignore")
    _offline_cuda()
    from tilelang.jit import kernel as jit_kernel

    import tilesight
    from tilesight.errors import TileSightError

    records: list[dict] = []

    def intercept(self, func=None, *args, **kwargs):
        rec: dict = {"file": path}
        try:
            rec.update(status="predicted", us=float(tilesight.estimate(func, hw="h200").latency_us))
        except TileSightError as e:
            rec.update(status="refused", kind=type(e).__name__, why=str(e)[:300])
        except Exception as e:  # noqa: BLE001  (a crash, recorded: not a typed error)
            frames = traceback.extract_tb(e.__traceback__)[-3:]
            where = [f"{os.path.basename(f.filename)}:{f.lineno}" for f in frames]
            rec.update(status="crash", kind=type(e).__name__, why=str(e)[:300], where=where)
        records.append(rec)
        with open(result, "a") as fh:
            fh.write(json.dumps(rec) + "\n")
        raise _Stop

    jit_kernel.JITKernel.__init__ = intercept
    folder = os.path.dirname(path)
    sys.argv = [path]
    os.chdir(folder)
    sys.path.insert(0, folder)
    try:
        runpy.run_path(path, run_name="__main__")
    except _Stop:
        pass
    except SystemExit:
        pass
    except BaseException as e:  # noqa: BLE001
        if not records:
            error = {"status": "example-error", "kind": type(e).__name__, "why": str(e)[:200]}
            records.append({"file": path, **error})
            with open(result, "a") as fh:
                fh.write(json.dumps(records[-1]) + "\n")
    if not records:
        with open(result, "a") as fh:
            fh.write(json.dumps({"file": path, "status": "no-kernel"}) + "\n")


def summary(rows: list[dict]) -> None:
    print(dict(collections.Counter(r["status"] for r in rows)))
    for r in rows:
        if r["status"] == "crash":
            print("crash:", r["file"], r["kind"], r["why"][:160], r.get("where"))
    refusals = collections.Counter(r["why"][:110] for r in rows if r["status"] == "refused")
    for why, n in refusals.most_common():
        print(f"{n:3d} refused: {why}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkout", nargs="?", type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--result", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--summary", type=Path, help="print the counts of a results file")
    args = ap.parse_args()
    if args.one:
        run_one(args.one, args.result)
        return 0
    if args.summary:
        summary([json.loads(line) for line in args.summary.read_text().splitlines()])
        return 0
    if args.checkout is None or args.out is None:
        ap.error("give a tilelang checkout and --out")
    files = sorted(
        str(p.resolve())
        for p in (args.checkout / "examples").rglob("*.py")
        if not p.name.startswith("test_") and p.name != "conftest.py" and "bitnet" not in str(p)
    )

    def one(path: str) -> list[dict]:
        with tempfile.TemporaryDirectory() as tmp:
            result = Path(tmp) / "result.jsonl"
            cmd = [sys.executable, str(Path(__file__).resolve()), "--one", path, "--result", str(result)]
            try:
                subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S)
            except subprocess.TimeoutExpired:
                pass
            if result.exists():
                rows = [json.loads(line) for line in result.read_text().splitlines()]
                if rows:
                    return rows
            return [{"file": path, "status": "timeout-or-killed"}]

    with ThreadPoolExecutor(args.jobs) as pool:
        rows = [r for rs in pool.map(one, files) for r in rs]
    root = str(args.checkout.resolve()) + "/"
    for r in rows:
        r["file"] = r["file"].replace(root, "")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    summary(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Probe: attention over a packed (tokens, heads, dim) layout against the (batch, heads, tokens, dim) one.

Every measured attention launch of the project's sets keeps each head's rows contiguous ((B, H, N, D): a
K tile of 64 rows is one 16 KB run at d128). Q, K and V straight out of a fused projection, and every
varlen kernel, interleave the heads ((B, N, H, D) or packed (tokens, H, D): a tile's rows lie ``H x D``
elements apart). The survey's varlen forward, which reads that layout, runs 24-25% slower than predicted on
the H200 while the project's own kernel of the same tile comes within a few percent. This probe times the
project's attention kernel (``kernels/triton/attention.py``) on both layouts at the same shapes and
configs, and the survey's varlen kernel on equal-length and mixed-length batches, timed and under ncu's L2
and DRAM counters, so that a layout cost shows apart from the varlen kernel's own code.

    python3 benchmarks/ncu_diag/layout.py --predict > FOLDER/predicted.json     # CPU, first
    python3 benchmarks/ncu_diag/layout.py --time OUT/layout_time.jsonl           # GPU: do_bench
    ncu --csv --metrics $(python3 benchmarks/ncu_diag/layout.py --metrics) \\
        -k regex:'attention_fwd_kernel|varlen_fwd' \\
        python3 benchmarks/ncu_diag/layout.py --once > OUT/layout_ncu.csv
    python3 benchmarks/ncu_diag/layout.py --report FOLDER                        # CPU: the table
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks" / "survey_triton"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402
import numpy as np  # noqa: E402
import probe_cli  # noqa: E402
import triton  # noqa: E402
from k_attn import varlen_fwd  # noqa: E402
from probe_cli import Probe, read_ncu  # noqa: E402

from kernels.triton.attention import attention_fwd_kernel  # noqa: E402

METRICS = (
    "gpu__time_duration.sum",
    "lts__t_sector_hit_rate.pct",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "lts__t_sectors_op_read.sum",
    "smsp__inst_executed.sum",
)
# (batch, heads, tokens, head dim, BLOCK_M, BLOCK_N, warps, stages)
OWN = (
    (4, 32, 2048, 128, 128, 64, 8, 3),
    (4, 32, 2048, 128, 64, 64, 4, 3),
    (4, 32, 2048, 64, 128, 64, 8, 3),
    (4, 32, 2048, 64, 64, 64, 4, 3),
)
MIXED = (512, 1024, 2048, 1536, 300, 4096, 700, 2000)  # the survey's varlen_fwd_cu_seqlens lengths


def _own(b: int, h: int, n: int, d: int, bm: int, bn: int, w: int, s: int, packed: bool) -> Probe:
    t = harness.T
    # (B, H, N, D) element strides: heads contiguous, or interleaved as a (B, N, H, D) tensor's view
    strides = (n * h * d, d, h * d, 1) if packed else (h * n * d, n * d, d, 1)
    qkvo = tuple(t((b, h, n, d), "float16", strides) for _ in range(4))
    args = (*qkvo, 1.0 / d**0.5, strides[0], strides[1], strides[2], strides[3], h, n)
    kw = dict(HEAD_DIM=d, BLOCK_M=bm, BLOCK_N=bn, CAUSAL=False, num_warps=w, num_stages=s)
    name = f"own_{'bnhd' if packed else 'bhnd'}_b{b}h{h}n{n}d{d}_m{bm}n{bn}w{w}s{s}"
    return Probe(name, attention_fwd_kernel, (triton.cdiv(n, bm), b * h), args, kw)


def _varlen(name: str, lens: tuple[int, ...], h: int) -> Probe:
    t = harness.T
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    tot = int(cu[-1])
    args = (
        *(t((tot, h, 128), "float16") for _ in range(4)),
        t((len(cu),), "int32", values=cu),
        0.088,
        h,
    )
    kw = dict(HEAD_DIM=128, BLOCK_M=128, BLOCK_N=64, num_warps=8, num_stages=3)
    return Probe(name, varlen_fwd, (triton.cdiv(max(lens), 128), h, len(lens)), args, kw)


def probes() -> list[Probe]:
    out = []
    for c in OWN:
        out += [_own(*c, packed=False), _own(*c, packed=True)]
    out.append(_varlen("varlen_equal_4x2048_h32", (2048,) * 4, 32))
    out.append(_varlen("varlen_mixed_h32", MIXED, 32))
    return out


def _launch_args(p: Probe):
    import torch
    from run_gpu import _tensor

    out = []
    for i, a in enumerate(p.args):
        if isinstance(a, harness.T) and a.strides is not None and len(a.shape) == 4:
            b, h, n, d = a.shape
            packed = a.strides[1] == d
            base = torch.randn((b, n, h, d) if packed else (b, h, n, d), device="cuda").half()
            out.append(base.permute(0, 2, 1, 3) if packed else base)
        elif isinstance(a, harness.T):
            out.append(_tensor(a, [], i))
        else:
            out.append(a)
    return out


def _report(folder: Path) -> int:
    pred = json.loads((folder / "predicted.json").read_text())["cases"]
    hw = "h100" if "h100" in folder.name else "h200"
    timed = {}
    for line in (folder / "layout_time.jsonl").read_text().splitlines():
        r = json.loads(line)
        timed[r["name"]] = r
    ncu_file = folder / "layout_ncu.csv"
    ncu = read_ncu(ncu_file.read_text()) if ncu_file.exists() else {}
    nan = float("nan")
    print(
        f"{'case':44s} {'meas us':>9s} {'pred us':>9s} {'err':>7s} | {'L2 hit':>6s} {'pred':>6s} | "
        f"{'DRAM MB':>8s} {'pred':>7s} | {'L2 rd MB':>8s}"
    )
    for name, row in pred.items():
        t, m, p = timed.get(name), ncu.get(name, {}), row[hw]
        meas = t["p50_us"] if t else nan
        dram = (m.get("dram__bytes_read.sum", nan) + m.get("dram__bytes_write.sum", 0.0)) / 1e6
        print(
            f"{name:44s} {meas:9.1f} {p['us']:9.1f} {100 * (p['us'] / meas - 1):+6.1f}% | "
            f"{m.get('lts__t_sector_hit_rate.pct', nan):6.1f} {p['l2_hit_pct']:6.1f} | "
            f"{dram:8.1f} {p['dram_bytes'] / 1e6:7.1f} | "
            f"{m.get('lts__t_sectors_op_read.sum', nan) * 32 / 1e6:8.1f}"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    return probe_cli.main(argv, __doc__.splitlines()[0], probes, _launch_args, _report, METRICS)


if __name__ == "__main__":
    sys.exit(main())

"""Roofline baseline for the Triton sweep records: ``max(flops / TC rate, compulsory bytes / DDR bandwidth)``.

Both rates come from the hardware profile (the tensor-core rate of the operands' dtype, the calibrated DRAM
bandwidth), and the profile's launch overhead is added, exactly as TileSight adds it, so the comparison in
``benchmarks/accuracy.py`` isolates the model. Compulsory bytes are every tensor argument read or written once
(the rows an indirect gather touches, not its whole table); flops count tensor-core work only (2 per
multiply-add), so memory-bound kernels are bounded by bytes alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tilesight.dtypes import dtype_bytes
from tilesight.hardware import HardwareProfile

MATMULS_PER_ATTENTION_PAIR = 2  # Q K^T and P V: each query-key pair costs two head_dim-long dot products
FLOPS_PER_MAC = 2


@dataclass(frozen=True)
class Roofline:
    """One launch under the roofline: its work, both bounds, and the launch overhead."""

    flops: float
    bytes: float
    compute_s: float
    memory_s: float
    launch_overhead_s: float

    @property
    def latency_s(self) -> float:
        return max(self.compute_s, self.memory_s) + self.launch_overhead_s

    @property
    def bound(self) -> str:
        return "compute" if self.compute_s >= self.memory_s else "memory"


def tensor_core_flops(problem: dict) -> float:
    """Tensor-core FLOPs of a sweep problem (0 for kernels without dots)."""
    op = problem["op"]
    if op == "gemm":
        return FLOPS_PER_MAC * problem["M"] * problem["N"] * problem["K"]
    if op == "attention":
        n = problem["n_ctx"]
        pairs = n * (n + 1) / 2 if problem["causal"] else n * n  # query-key pairs not masked out
        heads = problem["batch"] * problem["heads"]
        return FLOPS_PER_MAC * MATMULS_PER_ATTENTION_PAIR * heads * pairs * problem["head_dim"]
    return 0.0


def compulsory_bytes(record: dict) -> float:
    """Bytes of every tensor argument once; an indirect gather's table counts only the rows it reads."""
    total = 0.0
    problem = record["problem"]
    for i, arg in enumerate(record["args"]):
        if "tensor" not in arg:
            continue
        t = arg["tensor"]
        nbytes = math.prod(t["shape"]) * dtype_bytes(t["dtype"])
        if problem["op"] == "gather" and i == 0:
            nbytes = min(nbytes, problem["n_idx"] * problem["cols"] * dtype_bytes(t["dtype"]))
        total += nbytes
    return total


def roofline(record: dict, hw: HardwareProfile) -> Roofline:
    problem = record["problem"]
    flops = tensor_core_flops(problem)
    nbytes = compulsory_bytes(record)
    compute_s = flops / hw.tc_rate(problem["dtype"]) if flops else 0.0
    return Roofline(
        flops=flops,
        bytes=nbytes,
        compute_s=compute_s,
        memory_s=nbytes / hw.ddr_bw_bytes_per_s,
        launch_overhead_s=hw.launch_overhead_s,
    )

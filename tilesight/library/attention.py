"""A hand-written tile plan for FlashAttention forward (non-causal), ``O = softmax(Q K^T / sqrt(d)) V``.

Grid ``(ceil(seq_q / block_m), batch x heads)`` with dims ``("m", "bh")``, launched column-major (``m``
fastest, as Triton's ``program_id(0)``): one tile owns ``block_m`` query rows of one head. The tile loads its
Q block once, then runs a software-pipelined loop over KV blocks of ``block_n`` keys: K and V loads into
shared memory, ``qk = Q K^T`` on tensor cores, the online softmax (row max, exp2, row sum, rescaling of the
running accumulator) and ``acc += P V``; finally it stores its O block. K and V blocks are reused across the
``m`` tiles of the same head.
"""

from __future__ import annotations

import math

from ..dtypes import canonical_dtype, dtype_bytes
from ..plan import (
    AccessMode,
    ActionKind,
    BlockResources,
    LaunchOrder,
    Loop,
    MemLevel,
    TensorAccess,
    TileAction,
    TileGrid,
    TilePlan,
)
from ._args import positive_int

# Threads per warp in the CUDA execution model that Triton's ``num_warps`` counts.
THREADS_PER_WARP = 32
# Element operations of the online softmax per score element: scale and subtract the row max before exp2.
SCORE_PREP_OPS_PER_ELEMENT = 2


def attention_forward_plan(
    batch: int,
    heads: int,
    seq_q: int,
    seq_k: int,
    head_dim: int,
    *,
    block_m: int = 128,
    block_n: int = 64,
    num_stages: int = 2,
    num_warps: int = 8,
    dtype: str = "float16",
) -> TilePlan:
    """The FlashAttention-forward tile plan (module docstring); actions are named as in the paper's DAG."""
    for name, v in (
        ("batch", batch),
        ("heads", heads),
        ("seq_q", seq_q),
        ("seq_k", seq_k),
        ("head_dim", head_dim),
        ("block_m", block_m),
        ("block_n", block_n),
        ("num_stages", num_stages),
        ("num_warps", num_warps),
    ):
        positive_int(f"attention.{name}", v)
    dtype = canonical_dtype(dtype)
    bh = batch * heads
    tiles_m, kv_trips = math.ceil(seq_q / block_m), math.ceil(seq_k / block_n)
    mask_m, mask_n = seq_q % block_m != 0, seq_k % block_n != 0
    tensors = (
        TensorAccess("q", dtype, (bh * seq_q, head_dim), (block_m, head_dim), masked=mask_m),
        TensorAccess(
            "k", dtype, (bh * seq_k, head_dim), (block_n, head_dim), reuse_dims={"m"}, masked=mask_n
        ),
        TensorAccess(
            "v", dtype, (bh * seq_k, head_dim), (block_n, head_dim), reuse_dims={"m"}, masked=mask_n
        ),
        TensorAccess(
            "o", dtype, (bh * seq_q, head_dim), (block_m, head_dim), AccessMode.WRITE, masked=mask_m
        ),
    )
    scores = block_m * block_n
    kv_loop = Loop(
        name="kv_loop",
        trips=kv_trips,
        stages=num_stages,
        reduction=True,
        deps=("load_q",),
        body=(
            TileAction("load_k", ActionKind.LOAD, tensor="k", dst=MemLevel.SMEM),
            TileAction("load_v", ActionKind.LOAD, tensor="v", dst=MemLevel.SMEM),
            TileAction(
                "qk",
                ActionKind.DOT,
                dtype=dtype,
                shape=(block_m, block_n, head_dim),
                src=MemLevel.SMEM,
                deps=("load_k",),
            ),
            TileAction("rowmax", ActionKind.REDUCE, flops=scores, deps=("qk",)),
            TileAction("exp2", ActionKind.SFU, flops=scores + block_m, deps=("rowmax",)),
            TileAction("rowsum", ActionKind.REDUCE, flops=scores, deps=("exp2",)),
            TileAction(
                "rescale",
                ActionKind.ELEMENTWISE,
                flops=SCORE_PREP_OPS_PER_ELEMENT * scores + block_m * head_dim,
                deps=("rowmax",),
            ),
            TileAction(
                "pv",
                ActionKind.DOT,
                dtype=dtype,
                shape=(block_m, head_dim, block_n),
                src=MemLevel.SMEM,
                deps=("exp2", "load_v", "rescale"),
            ),
        ),
    )
    body = (
        TileAction("load_q", ActionKind.LOAD, tensor="q", dst=MemLevel.SMEM),
        kv_loop,
        TileAction("store_o", ActionKind.STORE, tensor="o", src=MemLevel.REG, deps=("kv_loop",)),
    )
    smem = int((block_m * head_dim + num_stages * 2 * block_n * head_dim) * dtype_bytes(dtype))
    return TilePlan(
        name=f"attention_fwd_b{batch}h{heads}_{seq_q}x{seq_k}x{head_dim}_{block_m}x{block_n}",
        # Triton's program_id(0) (the query block) varies fastest in launch order: column-major over (m, bh)
        grid=TileGrid(shape=(tiles_m, bh), dims=("m", "bh"), order=LaunchOrder.COLUMN_MAJOR),
        tensors=tensors,
        body=body,
        resources=BlockResources(threads=num_warps * THREADS_PER_WARP, smem_bytes=smem),
        source="tilesight.library.attention.attention_forward_plan",
    )

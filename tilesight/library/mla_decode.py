"""A hand-written tile plan for multi-head latent attention (MLA) decode, the paper's 11-action example.

DeepSeek-style MLA decode with the absorbed up-projection: every query head attends to one shared latent
KV cache of ``latent_dim`` (512) features plus a ``rope_dim`` (64) positional key. Grid ``(batch, heads /
block_h)``, dims ``("b", "h")``: one tile owns ``block_h`` heads of one sequence. After loading its queries
it loops over KV blocks of ``block_n`` tokens; the loop body is the 11-action DAG

    load_kv -> qk_nope ─┐                        ┌-> rowsum ──────────┐
    load_kpe -> qk_pe ──┴-> rowmax -> exp2 ──────┼-> cast_p -> pv     ├-> update_l
                                 └-> rescale_acc ┴─────────-> pv      ┘

(``pv`` also reads the latent block ``load_kv``: in MLA the latent cache serves as both K and V), whose
dependencies leave exactly 132 legal topological orders (paper section 3.4). KV blocks are reused across the
head blocks ``h`` of the same sequence.
"""

from __future__ import annotations

import math

from ..dtypes import canonical_dtype, dtype_bytes
from ..plan import (
    AccessMode,
    ActionKind,
    BlockResources,
    Loop,
    MemLevel,
    TensorAccess,
    TileAction,
    TileGrid,
    TilePlan,
)
from ._args import positive_int

# FlashMLA runs two warpgroups of 128 threads per block.
MLA_THREADS_PER_BLOCK = 256
# Running-sum update per head row: l = l * alpha + rowsum (a multiply and an add).
UPDATE_L_OPS_PER_ROW = 2


def mla_decode_body(
    block_h: int, block_n: int, latent_dim: int, rope_dim: int, dtype: str
) -> tuple[TileAction, ...]:
    """The 11 actions of one KV-block iteration (module docstring)."""
    scores = block_h * block_n
    return (
        TileAction("load_kv", ActionKind.LOAD, tensor="kv", dst=MemLevel.SMEM),
        TileAction("load_kpe", ActionKind.LOAD, tensor="kpe", dst=MemLevel.SMEM),
        TileAction(
            "qk_nope",
            ActionKind.DOT,
            dtype=dtype,
            shape=(block_h, block_n, latent_dim),
            src=MemLevel.SMEM,
            deps=("load_kv",),
        ),
        TileAction(
            "qk_pe",
            ActionKind.DOT,
            dtype=dtype,
            shape=(block_h, block_n, rope_dim),
            src=MemLevel.SMEM,
            deps=("load_kpe",),
        ),
        TileAction("rowmax", ActionKind.REDUCE, flops=scores, deps=("qk_nope", "qk_pe")),
        TileAction("exp2", ActionKind.SFU, flops=scores + block_h, deps=("rowmax",)),
        TileAction("rowsum", ActionKind.REDUCE, flops=scores, deps=("exp2",)),
        TileAction("rescale_acc", ActionKind.ELEMENTWISE, flops=block_h * latent_dim, deps=("rowmax",)),
        TileAction("cast_p", ActionKind.ELEMENTWISE, flops=scores, deps=("exp2",)),
        TileAction(
            "pv",
            ActionKind.DOT,
            dtype=dtype,
            shape=(block_h, latent_dim, block_n),
            src=MemLevel.SMEM,
            deps=("cast_p", "load_kv", "rescale_acc"),
        ),
        TileAction(
            "update_l",
            ActionKind.ELEMENTWISE,
            flops=UPDATE_L_OPS_PER_ROW * block_h,
            deps=("rowsum", "rescale_acc"),
        ),
    )


def mla_decode_plan(
    batch: int,
    seq_len: int,
    *,
    heads: int = 128,
    latent_dim: int = 512,
    rope_dim: int = 64,
    block_h: int = 64,
    block_n: int = 64,
    num_stages: int = 2,
    dtype: str = "bfloat16",
) -> TilePlan:
    """The MLA-decode tile plan: one query token per sequence, ``heads`` query heads, one latent KV cache."""
    for name, v in (
        ("batch", batch),
        ("seq_len", seq_len),
        ("heads", heads),
        ("latent_dim", latent_dim),
        ("rope_dim", rope_dim),
        ("block_h", block_h),
        ("block_n", block_n),
        ("num_stages", num_stages),
    ):
        positive_int(f"mla_decode.{name}", v)
    dtype = canonical_dtype(dtype)
    head_blocks, kv_trips = math.ceil(heads / block_h), math.ceil(seq_len / block_n)
    qdim = latent_dim + rope_dim
    mask_h, mask_n = heads % block_h != 0, seq_len % block_n != 0
    tensors = (
        TensorAccess("q", dtype, (batch * heads, qdim), (block_h, qdim), masked=mask_h),
        TensorAccess(
            "kv", dtype, (batch * seq_len, latent_dim), (block_n, latent_dim), reuse_dims={"h"}, masked=mask_n
        ),
        TensorAccess(
            "kpe", dtype, (batch * seq_len, rope_dim), (block_n, rope_dim), reuse_dims={"h"}, masked=mask_n
        ),
        TensorAccess(
            "o", dtype, (batch * heads, latent_dim), (block_h, latent_dim), AccessMode.WRITE, masked=mask_h
        ),
    )
    kv_loop = Loop(
        name="kv_loop",
        trips=kv_trips,
        stages=num_stages,
        reduction=True,
        deps=("load_q",),
        body=mla_decode_body(block_h, block_n, latent_dim, rope_dim, dtype),
    )
    body = (
        TileAction("load_q", ActionKind.LOAD, tensor="q", dst=MemLevel.SMEM),
        kv_loop,
        TileAction("store_o", ActionKind.STORE, tensor="o", src=MemLevel.REG, deps=("kv_loop",)),
    )
    smem = int((block_h * qdim + num_stages * block_n * qdim) * dtype_bytes(dtype))
    return TilePlan(
        name=f"mla_decode_b{batch}_s{seq_len}_h{heads}_{block_h}x{block_n}",
        grid=TileGrid(shape=(batch, head_blocks), dims=("b", "h")),
        tensors=tensors,
        body=body,
        resources=BlockResources(threads=MLA_THREADS_PER_BLOCK, smem_bytes=smem),
        source="tilesight.library.mla_decode.mla_decode_plan",
    )

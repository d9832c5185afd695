"""Embedding-style gather ``out[i, :] = table[idx[i], :]``: addresses depend on data (an index tensor).

A program copies ``BLOCK_R`` gathered rows by ``BLOCK_D`` columns; grid
``(cdiv(n_idx, BLOCK_R), cdiv(D, BLOCK_D))``. The table reads are indirect, so which rows are touched (and how
often) is only known at run time.
"""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def gather_rows_kernel(
    table_ptr,
    idx_ptr,
    out_ptr,
    n_idx,
    D,
    stride_table,
    stride_out,
    BLOCK_R: tl.constexpr,
    BLOCK_D: tl.constexpr,
):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    row_ok = rows < n_idx
    ok = row_ok[:, None] & (cols[None, :] < D)
    src_rows = tl.load(idx_ptr + rows, mask=row_ok, other=0).to(tl.int64)
    vals = tl.load(table_ptr + src_rows[:, None] * stride_table + cols[None, :], mask=ok)
    tl.store(out_ptr + rows[:, None].to(tl.int64) * stride_out + cols[None, :], vals, mask=ok)


def gather_grid(n_idx: int, D: int, meta: dict) -> tuple[int, int]:
    return (triton.cdiv(n_idx, meta["BLOCK_R"]), triton.cdiv(D, meta["BLOCK_D"]))


def gather_rows(table, idx, *, block_r=16, block_d=256, num_warps=4):
    import torch

    if table.ndim != 2 or table.stride(1) != 1 or idx.ndim != 1:
        raise ValueError(f"gather_rows: table {tuple(table.shape)} (rows contiguous), idx {tuple(idx.shape)}")
    n_idx, D = idx.shape[0], table.shape[1]
    out = torch.empty((n_idx, D), device=table.device, dtype=table.dtype)
    grid = gather_grid(n_idx, D, {"BLOCK_R": block_r, "BLOCK_D": block_d})
    gather_rows_kernel[grid](
        table, idx, out, n_idx, D, table.stride(0), out.stride(0), BLOCK_R=block_r, BLOCK_D=block_d,
        num_warps=num_warps,
    )  # fmt: skip
    return out

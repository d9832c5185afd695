"""In-tile gathers (``tl.gather``) and histograms (``tl.histogram``), measured after their pricing was added
(stop 23; both were refused before): an out-of-sample check of the two rules read from the survey's
``gather_in_tile`` and ``moe_histogram`` alone. Index and id tensors hold real values (a random permutation,
random expert ids), given as ``TensorSpec(values=...)`` so that the GPU run fills them the same way.

Names end in ``_g``; all are memory-bound kernels (family ``memory``).
"""

import numpy as np
import triton
import triton.language as tl
from harness import Case, T, nbytes
from k_mem import expert_histogram, gather_in_tile


@triton.jit
def permute_columns_2d(x_ptr, idx_ptr, y_ptr, N, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    # ROWS rows a program, the same column permutation applied to each: a gather along axis 1 of a 2-D tile
    r0 = tl.program_id(0) * ROWS
    rows = r0 + tl.arange(0, ROWS)[:, None]
    cols = tl.arange(0, BLOCK)[None, :]
    x = tl.load(x_ptr + rows * N + cols)
    idx = tl.broadcast_to(tl.load(idx_ptr + cols), (ROWS, BLOCK))
    tl.store(y_ptr + rows * N + cols, tl.gather(x, idx, axis=1))


def gathers_cases() -> list[Case]:
    rng = np.random.default_rng(23)
    f16, f32 = "float16", "float32"
    out = []
    for rows, width, warps, dtype in ((16384, 1024, 4, f16), (8192, 2048, 8, f16), (32768, 512, 4, f32)):
        perm = rng.permutation(width).astype(np.int32)
        out.append(
            Case(
                f"gather_row_r{rows}_w{width}_nw{warps}_{dtype}_g",
                "tl.gather(axis=0) of a row tile by a permutation",
                gather_in_tile,
                (rows,),
                (T((rows, width), dtype), T((width,), "int32", values=perm), T((rows, width), dtype), width),
                dict(BLOCK=width, num_warps=warps),
                2 * nbytes((rows, width), dtype),
            )
        )
    for rows, width, per, warps in ((16384, 512, 8, 4), (8192, 1024, 4, 8)):
        perm = rng.permutation(width).astype(np.int32)
        out.append(
            Case(
                f"gather_2d_r{rows}_w{width}_p{per}_nw{warps}_g",
                "tl.gather(axis=1) of a 2-D tile by a broadcast permutation",
                permute_columns_2d,
                (rows // per,),
                (T((rows, width), f16), T((width,), "int32", values=perm), T((rows, width), f16), width),
                dict(ROWS=per, BLOCK=width, num_warps=warps),
                2 * nbytes((rows, width), f16),
            )
        )
    for n, bins, block, warps in ((1 << 22, 64, 4096, 8), (1 << 22, 256, 2048, 4), (1 << 24, 128, 8192, 8)):
        ids = rng.integers(0, bins, n, dtype=np.int32)
        out.append(
            Case(
                f"histogram_n{n}_b{bins}_blk{block}_nw{warps}_g",
                "tl.histogram per block + vector atomic_add into global counts",
                expert_histogram,
                (triton.cdiv(n, block),),
                (T((n,), "int32", values=ids), T((bins,), "int32"), n),
                dict(NUM_EXPERTS=bins, BLOCK=block, num_warps=warps),
                nbytes((n,), "int32"),
            )
        )
    return out

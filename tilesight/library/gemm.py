"""A hand-written tile plan for the classic tiled GEMM ``C[M, N] = A[M, K] @ B[K, N]``.

The plan mirrors Triton's tutorial matmul (and its persistent variant): a grid of ``(ceil(M / block_m),
ceil(N / block_n))`` output tiles, walked row-major or with the GROUP_M swizzle; each tile runs a software-
pipelined K loop that loads an A tile and a B tile into shared memory and issues one tensor-core dot, then
stores its C tile. ``programs`` smaller than the tile count makes it persistent (program ``p`` handles tiles
``p, p + programs, ...``, as Triton's ``matmul_persistent_kernel`` does with ``NUM_SMS``).
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

# Threads per Triton warp on NVIDIA targets: Triton's ``num_warps`` counts warps of this many threads
# (a property of the CUDA execution model that Triton's launcher assumes, not of one GPU model).
THREADS_PER_TRITON_WARP = 32


def gemm_plan(
    M: int,
    N: int,
    K: int,
    block_m: int,
    block_n: int,
    block_k: int,
    *,
    group_m: int = 1,
    num_stages: int = 3,
    num_warps: int = 4,
    dtype: str = "float16",
    out_dtype: str | None = None,
    programs: int | None = None,
    smem_bytes: int | None = None,
    regs_per_thread: int | None = None,
    variant: str | None = None,
) -> TilePlan:
    """The tile plan of ``C = A @ B`` with ``A: (M, K)``, ``B: (K, N)``, ``C: (M, N)``.

    * grid dims ``("m", "n")``; GROUP_M swizzle when ``group_m > 1``, row-major otherwise;
    * tensors ``a`` (reused across ``n``), ``b`` (reused across ``m``), ``c`` (written once per tile);
      accesses are masked when a block does not divide its extent;
    * body: ``k_loop`` (``ceil(K / block_k)`` trips, reduction, ``num_stages`` stages) of ``load_a`` and
      ``load_b`` into shared memory and a ``dot``, then ``store_c`` after the loop;
    * ``smem_bytes`` defaults to ``num_stages * (block_m * block_k + block_k * block_n)`` operand elements,
      the pipelined operand buffers Triton allocates.
    """
    for name, v in (
        ("M", M),
        ("N", N),
        ("K", K),
        ("block_m", block_m),
        ("block_n", block_n),
        ("block_k", block_k),
    ):
        positive_int(f"gemm.{name}", v)
    positive_int("gemm.group_m", group_m)
    positive_int("gemm.num_stages", num_stages)
    positive_int("gemm.num_warps", num_warps)
    if programs is not None:
        positive_int("gemm.programs", programs)
    dtype = canonical_dtype(dtype)
    out_dtype = canonical_dtype(out_dtype) if out_dtype is not None else dtype
    tiles_m, tiles_n, k_trips = math.ceil(M / block_m), math.ceil(N / block_n), math.ceil(K / block_k)

    order = LaunchOrder.GROUPED if group_m > 1 else LaunchOrder.ROW_MAJOR
    grid = TileGrid(
        shape=(tiles_m, tiles_n),
        dims=("m", "n"),
        order=order,
        group_size=group_m,
        programs=programs if programs is not None and programs < tiles_m * tiles_n else None,
    )
    mask_m, mask_n, mask_k = M % block_m != 0, N % block_n != 0, K % block_k != 0
    tensors = (
        TensorAccess(
            "a", dtype, (M, K), (block_m, block_k), AccessMode.READ, frozenset({"n"}), masked=mask_m or mask_k
        ),
        TensorAccess(
            "b", dtype, (K, N), (block_k, block_n), AccessMode.READ, frozenset({"m"}), masked=mask_k or mask_n
        ),
        TensorAccess(
            "c", out_dtype, (M, N), (block_m, block_n), AccessMode.WRITE, frozenset(), masked=mask_m or mask_n
        ),
    )
    k_loop = Loop(
        name="k_loop",
        trips=k_trips,
        stages=num_stages,
        reduction=True,
        body=(
            TileAction("load_a", ActionKind.LOAD, tensor="a", dst=MemLevel.SMEM),
            TileAction("load_b", ActionKind.LOAD, tensor="b", dst=MemLevel.SMEM),
            TileAction(
                "dot",
                ActionKind.DOT,
                dtype=dtype,
                shape=(block_m, block_n, block_k),
                src=MemLevel.SMEM,
                deps=("load_a", "load_b"),
                variant=variant,
            ),
        ),
    )
    store_c = TileAction("store_c", ActionKind.STORE, tensor="c", src=MemLevel.REG, deps=("k_loop",))
    if smem_bytes is None:
        smem_bytes = int(num_stages * (block_m * block_k + block_k * block_n) * dtype_bytes(dtype))
    resources = BlockResources(
        threads=num_warps * THREADS_PER_TRITON_WARP, smem_bytes=smem_bytes, regs_per_thread=regs_per_thread
    )
    kind = "persistent" if grid.persistent else "grouped" if group_m > 1 else "row-major"
    name = f"gemm_{M}x{N}x{K}_{block_m}x{block_n}x{block_k}_g{group_m}"
    if grid.persistent:
        name += f"_p{grid.programs}"
    return TilePlan(
        name=name,
        grid=grid,
        tensors=tensors,
        body=(k_loop, store_c),
        resources=resources,
        source="tilesight.library.gemm.gemm_plan",
        notes=(f"{kind} GEMM, {tiles_m}x{tiles_n} tiles, {k_trips} K steps, {num_stages} stages",),
    )

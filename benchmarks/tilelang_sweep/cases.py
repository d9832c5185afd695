"""The measured TileLang cases: every parameter needed to rebuild each prim_func, on the GPU or on CPU.

A case is ``{"id", "family", "kernel", "params"}``; ``build(case)`` returns its ``T.prim_func`` from the
reference kernels in ``kernels/tilelang/``. ``OUT_IDX`` and ``flops()`` describe each family for the harness
and the accuracy script. No GPU and no torch are needed to list or build cases.
"""

from __future__ import annotations

import importlib.util
import itertools
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

# (M, N, K): square sizes and LLaMA-7B/13B projection shapes at a few token counts
GEMM_SHAPES = [
    (2048, 2048, 2048),
    (4096, 4096, 4096),
    (8192, 8192, 8192),
    (4096, 11008, 4096),
    (4096, 4096, 11008),
    (1024, 5120, 5120),
]
# (block_M, block_N, block_K, num_stages, threads, use_swizzle)
GEMM_CONFIGS = [
    (128, 128, 32, 3, 128, True),
    (128, 128, 64, 3, 128, False),
    (128, 256, 32, 3, 256, True),
    (128, 256, 64, 3, 256, False),
    (64, 128, 64, 4, 128, True),
    (128, 128, 64, 2, 256, True),
    (256, 128, 32, 3, 256, False),
]
GEMM_DTYPES = ["float16", "bfloat16"]

# (batch, heads, seq_len, dim)
FA_SHAPES = [(4, 16, 1024, 64), (2, 16, 2048, 128), (1, 32, 4096, 64), (1, 16, 4096, 128)]
FA_CAUSAL = [False, True]
# (block_M, block_N, num_stages, threads)
FA_CONFIGS = [(128, 128, 2, 256), (64, 64, 1, 128), (128, 64, 2, 128)]

# (batch, heads, seqlen_kv); (block_H, block_N, num_stages, threads)
MLA_SHAPES = [(32, 128, 4096), (64, 128, 8192), (128, 128, 2048)]
MLA_CONFIGS = [(64, 32, 2, 256), (64, 64, 1, 256)]

DEQUANT_SHAPES = [(4096, 4096, 4096), (1024, 11008, 4096)]
DEQUANT_CONFIGS = [(128, 128, 64, 2, 128), (128, 256, 64, 3, 256)]
DEQUANT_WEIGHTS = ["int4", "uint4"]

# The validation set (``sweep.py --set validation``), measured after the model's rules were set and never
# used to choose them: block configurations and shapes the main set does not have.
VALIDATION_GEMM_SHAPES = [(2048, 8192, 8192), (8192, 4096, 2048)]
VALIDATION_GEMM_CONFIGS = [
    (128, 128, 64, 4, 128, True),
    (128, 64, 64, 3, 128, False),
    (256, 128, 64, 3, 256, True),
    (128, 256, 32, 4, 256, False),
]
VALIDATION_FA_SHAPES = [(2, 32, 2048, 64), (1, 8, 8192, 128)]
VALIDATION_FA_CONFIGS = [(64, 128, 2, 128), (128, 64, 3, 256)]
VALIDATION_DEQUANT_SHAPES = [(2048, 8192, 8192), (512, 14336, 4096)]
VALIDATION_DEQUANT_CONFIGS = [
    (128, 128, 32, 3, 128),
    (128, 128, 128, 2, 128),
    (64, 128, 64, 3, 128),
    (128, 256, 32, 4, 256),
    (128, 128, 64, 3, 256),
    (256, 128, 64, 2, 256),
]

# index of the output tensor among each kernel's arguments (by family; OUT_IDX_KERNEL where a kernel differs)
OUT_IDX = {"gemm": 2, "flash_attention": 3, "mla_decode": 4, "dequant_gemm": 2}
OUT_IDX_KERNEL = {"flash_attention_varlen_fwd": 6, "flash_attention_blocksparse_fwd": 4}


def _numbered(cases: list[dict[str, Any]], prefix: str) -> list[dict[str, Any]]:
    """``cases``, each given the id ``<prefix>-<family>-<index>`` (three digits, in list order)."""
    for i, c in enumerate(cases):
        c["id"] = f"{prefix}-{c['family']}-{i:03d}"
    return cases


def out_index(case: dict[str, Any]) -> int:
    """Index of the case's output tensor among its kernel's arguments."""
    return OUT_IDX_KERNEL.get(case["kernel"], OUT_IDX[case["family"]])


def gemm_case(shape: tuple, config: tuple) -> dict[str, Any]:
    """A reference GEMM case: ``shape`` (M, N, K), ``config`` (block_M, block_N, block_K, num_stages,
    threads, use_swizzle, dtype)."""
    (m, n, k), (bm, bn, bk, st, th, sw, dt) = shape, config
    params = dict(M=m, N=n, K=k, block_M=bm, block_N=bn, block_K=bk, num_stages=st, threads=th)
    params.update(dtype=dt, accum_dtype="float32", use_swizzle=sw, panel_size=10)
    return {"family": "gemm", "kernel": "gemm", "params": params}


def fa_case(shape: tuple, causal: bool, config: tuple) -> dict[str, Any]:
    """A FlashAttention forward case: ``shape`` (batch, heads, seq_len, dim), ``config`` (block_M, block_N,
    num_stages, threads)."""
    (b, h, s, d), (bm, bn, st, th) = shape, config
    params = dict(batch=b, heads=h, seq_len=s, dim=d, causal=causal, block_M=bm, block_N=bn)
    params.update(num_stages=st, threads=th, dtype="float16", accum_dtype="float32")
    return {"family": "flash_attention", "kernel": "flash_attention_fwd", "params": params}


def mla_case(shape: tuple, config: tuple) -> dict[str, Any]:
    """An MLA decode case: ``shape`` (batch, heads, seqlen_kv), ``config`` (block_H, block_N, num_stages,
    threads)."""
    (b, h, s), (bh, bn, st, th) = shape, config
    params = dict(batch=b, heads=h, seqlen_kv=s, dim=512, pe_dim=64, block_H=bh, block_N=bn)
    params.update(num_stages=st, threads=th, dtype="float16", accum_dtype="float32")
    return {"family": "mla_decode", "kernel": "mla_decode", "params": params}


def gemm_cases() -> list[dict[str, Any]]:
    return [
        gemm_case(shape, (*config, dt))
        for shape, config, dt in itertools.product(GEMM_SHAPES, GEMM_CONFIGS, GEMM_DTYPES)
    ]


def fa_cases() -> list[dict[str, Any]]:
    return [fa_case(*c) for c in itertools.product(FA_SHAPES, FA_CAUSAL, FA_CONFIGS)]


def mla_cases() -> list[dict[str, Any]]:
    return [mla_case(*c) for c in itertools.product(MLA_SHAPES, MLA_CONFIGS)]


def dequant_cases() -> list[dict[str, Any]]:
    return [dequant_case(*c) for c in itertools.product(DEQUANT_SHAPES, DEQUANT_CONFIGS, DEQUANT_WEIGHTS)]


def validation_cases() -> list[dict[str, Any]]:
    """The validation set: fp16 GEMMs, FlashAttention (causal and not) and int4 dequantising GEMMs."""
    cases = [
        gemm_case(shape, (*config, "float16"))
        for shape, config in itertools.product(VALIDATION_GEMM_SHAPES, VALIDATION_GEMM_CONFIGS)
    ]
    cases += [fa_case(*c) for c in itertools.product(VALIDATION_FA_SHAPES, FA_CAUSAL, VALIDATION_FA_CONFIGS)]
    cases += _dequant_cases(itertools.product(VALIDATION_DEQUANT_SHAPES, VALIDATION_DEQUANT_CONFIGS))
    return _numbered(cases, "val")


# The register-unpacking dequantiser (``dequant_gemm(..., unpack="registers")``, TileLang's own examples'
# style), measured as a set of its own (``sweep.py --set variants``) after the shared-memory one was modelled.
VARIANT_DEQUANT_SHAPES = [(4096, 4096, 4096), (2048, 8192, 8192)]
VARIANT_DEQUANT_CONFIGS = [(128, 128, 64, 2, 128), (128, 256, 64, 3, 256), (128, 128, 32, 3, 128)]


# 8-bit weights converted by a shared-to-shared T.copy (``dequant_gemm(..., weight="int8" | "float8_e4m3")``),
# added to the variants set after its first six launches were measured.
VARIANT_COPY_WEIGHTS = ["int8", "float8_e4m3"]
VARIANT_COPY_CONFIGS = [(128, 128, 64, 3, 128), (128, 256, 64, 3, 256)]


def variant_cases() -> list[dict[str, Any]]:
    """The variants set: int4 dequantising GEMMs that unpack in registers, then 8-bit weights converted by a
    T.copy."""
    cases = []
    for (m, n, k), (bm, bn, bk, st, th) in itertools.product(VARIANT_DEQUANT_SHAPES, VARIANT_DEQUANT_CONFIGS):
        params = dict(
            M=m, N=n, K=k, block_M=bm, block_N=bn, block_K=bk, num_stages=st, threads=th, weight="int4"
        )
        params["unpack"] = "registers"
        cases.append({"family": "dequant_gemm", "kernel": "dequant_gemm", "params": params})
    for (m, n, k), (bm, bn, bk, st, th), w in itertools.product(
        VARIANT_DEQUANT_SHAPES, VARIANT_COPY_CONFIGS, VARIANT_COPY_WEIGHTS
    ):
        params = dict(M=m, N=n, K=k, block_M=bm, block_N=bn, block_K=bk, num_stages=st, threads=th, weight=w)
        cases.append({"family": "dequant_gemm", "kernel": "dequant_gemm", "params": params})
    return _numbered(cases, "var")


# The stages set (``sweep.py --set stages``): GEMMs whose K loop TileLang does not warp-specialise
# (``num_stages=0``) or pipelines with one stage, and split-K GEMMs whose epilogue adds element by element
# with atomics (TileLang's split-K example style); measured after the frontend learned both.
STAGES_GEMM_SHAPES = [(4096, 4096, 4096), (4096, 11008, 4096)]
# (block_M, block_N, block_K, num_stages, threads, use_swizzle)
STAGES_GEMM_CONFIGS = [
    (128, 128, 32, 0, 128, False),
    (64, 64, 32, 0, 128, False),
    (64, 128, 64, 0, 128, True),
    (128, 128, 64, 1, 128, True),
    (128, 256, 64, 1, 256, False),
]
SPLITK_SHAPES = [(512, 4096, 16384), (1024, 1024, 8192)]
# (block_M, block_N, block_K, split_k, num_stages, threads)
SPLITK_CONFIGS = [(128, 128, 64, 4, 3, 128), (64, 128, 64, 8, 3, 128), (128, 128, 32, 2, 2, 128)]


def stages_cases() -> list[dict[str, Any]]:
    """The stages set: fp16 GEMMs at num_stages 0 and 1, then split-K GEMMs."""
    cases = []
    for (m, n, k), (bm, bn, bk, st, th, sw) in itertools.product(STAGES_GEMM_SHAPES, STAGES_GEMM_CONFIGS):
        params = dict(M=m, N=n, K=k, block_M=bm, block_N=bn, block_K=bk, num_stages=st, threads=th)
        params.update(dtype="float16", accum_dtype="float32", use_swizzle=sw, panel_size=10)
        cases.append({"family": "gemm", "kernel": "gemm", "params": params})
    for (m, n, k), (bm, bn, bk, sk, st, th) in itertools.product(SPLITK_SHAPES, SPLITK_CONFIGS):
        params = dict(
            M=m, N=n, K=k, block_M=bm, block_N=bn, block_K=bk, split_k=sk, num_stages=st, threads=th
        )
        params.update(dtype="float16", accum_dtype="float32")
        cases.append({"family": "gemm", "kernel": "gemm_splitk", "params": params})
    return _numbered(cases, "stg")


# The persistent set (``sweep.py --set persistent``): GEMMs whose blocks loop over the tiles
# (``kernels/tilelang/gemm.py::gemm_persistent``, ``T.Persistent`` and the hand-written wave loop), each
# beside the non-persistent kernel of the same configuration; measured after the frontend learned persistent
# grids.
PERSISTENT_SHAPES = [(4096, 4096, 4096), (8192, 8192, 4096)]
# (block_M, block_N, block_K, num_stages, threads)
PERSISTENT_CONFIGS = [(128, 256, 64, 3, 256), (128, 128, 64, 3, 128)]
PERSISTENT_FORMS = ["primitive", "manual", None]  # None: the plain kernel of the same configuration


def persistent_cases() -> list[dict[str, Any]]:
    """The persistent set: fp16 GEMMs, persistent in two forms and plain."""
    cases = []
    for (m, n, k), (bm, bn, bk, st, th), form in itertools.product(
        PERSISTENT_SHAPES, PERSISTENT_CONFIGS, PERSISTENT_FORMS
    ):
        params = dict(M=m, N=n, K=k, block_M=bm, block_N=bn, block_K=bk, num_stages=st, threads=th)
        params.update(dtype="float16", accum_dtype="float32")
        if form is None:
            params.update(use_swizzle=False, panel_size=10)
            cases.append({"family": "gemm", "kernel": "gemm", "params": params})
        else:
            params.update(programs=132, form=form)
            cases.append({"family": "gemm", "kernel": "gemm_persistent", "params": params})
    return _numbered(cases, "pst")


# The split set: MLA decode with its KV cache split over ``num_split`` slices (kernels/tilelang/mla_decode.py:
# a split kernel and a combine kernel in one prim_func) at small batches, beside the unsplit kernel.
# (batch, seqlen_kv, splits); heads 128 (one KV head), dim 512 + 64 rotary as in DeepSeek's MLA
SPLIT_SHAPES = [(1, 32768, (1, 8, 32, 64)), (4, 16384, (1, 4, 16)), (16, 8192, (1, 2, 8)), (64, 4096, (1, 2))]
SPLIT_CONFIGS = [(64, 64, 2, 256), (64, 32, 2, 256)]  # block_H, block_N, num_stages, threads


def split_cases() -> list[dict[str, Any]]:
    """The split set: split-KV MLA decode programs (two kernels) and the plain kernel, small batches."""
    cases = []
    for (b, s, splits), (bh, bn, st, th) in itertools.product(SPLIT_SHAPES, SPLIT_CONFIGS):
        for n in splits:
            params = dict(batch=b, heads=128, seqlen_kv=s, dim=512, pe_dim=64, block_H=bh, block_N=bn)
            params.update(num_stages=st, threads=th, dtype="float16", accum_dtype="float32")
            if n > 1:
                params["num_split"] = n
            cases.append({"family": "mla_decode", "kernel": "mla_decode", "params": params})
    return _numbered(cases, "split")


# The two-kernel split-K set: kernels/tilelang/gemm.py::gemm_splitk_reduce (partial tiles to a global
# workspace, then a reduction kernel: one prim_func, two kernels) beside the plain GEMM of the same tile.
# (M, N, K, block_M, splits); block_N 128, block_K 64, 3 stages, 128 threads
SPLITK2_SHAPES = [
    (64, 8192, 8192, 64, (2, 4, 8)),
    (128, 4096, 16384, 128, (4, 8, 16)),
    (256, 14336, 4096, 128, (2, 4)),
    (2048, 2048, 8192, 128, (2, 4)),
]


def splitk2_cases() -> list[dict[str, Any]]:
    """The two-kernel split-K set: fp16 split-K GEMM programs (split + reduction kernel), plain GEMMs."""
    cases = []
    for m, n, k, bm, splits in SPLITK2_SHAPES:
        params = dict(M=m, N=n, K=k, block_M=bm, block_N=128, block_K=64, num_stages=3, threads=128)
        params.update(dtype="float16", accum_dtype="float32")
        cases.append({"family": "gemm", "kernel": "gemm", "params": {**params, "use_swizzle": False}})
        for sk in splits:
            cases.append(
                {"family": "gemm", "kernel": "gemm_splitk_reduce", "params": {**params, "split_k": sk}}
            )
    return _numbered(cases, "sk2")


# The fp8 set: kernels/tilelang/gemm.py::gemm_fp8 (K-major e4m3 operands, fp16 C), plain and with the 2xAcc
# promotion every 128 / block_K steps (DeepSeek's interval of 128 along K).
FP8_SHAPES = [(4096, 4096, 4096), (4096, 14336, 4096), (8192, 8192, 8192)]
FP8_CONFIGS = [
    (128, 128, 128, 3, 128),
    (128, 256, 128, 3, 256),
    (128, 128, 64, 4, 128),
    (64, 128, 128, 4, 128),
]


def fp8_cases() -> list[dict[str, Any]]:
    """The fp8 set: fp8 GEMMs, with and without promoting the accumulator every 128 K elements."""
    cases = []
    for (m, n, k), (bm, bn, bk, st, th), promote in itertools.product(FP8_SHAPES, FP8_CONFIGS, (False, True)):
        params = dict(M=m, N=n, K=k, block_M=bm, block_N=bn, block_K=bk, num_stages=st, threads=th)
        params.update(dtype="float8_e4m3", out_dtype="float16", promote_every=128 // bk if promote else 0)
        cases.append({"family": "gemm", "kernel": "gemm_fp8", "params": params})
    return _numbered(cases, "fp8")


# The varlen set: kernels/tilelang/flash_attention.py::flash_attention_varlen_fwd over packed batches whose
# sequence lengths (``lens``: the case's ``cu_seqlens`` offsets, queries and keys alike) the estimate reads
# from the offsets tensor's contents; measured after the frontend learned to read them.
VARLEN_BATCHES = [
    [1024] * 8,  # equal lengths: the dense kernel's work in the packed layout
    [128, 4096, 1024, 300, 2048, 700, 3000, 64],
    [8192, 512, 512, 512],
    [1500, 37, 900, 2500, 250, 1800, 3200, 640, 77, 1024, 2048, 333],
]
# (heads, dim)
VARLEN_HEADS = [(16, 128), (32, 64)]
# (block_M, block_N, num_stages, threads)
VARLEN_CONFIGS = [(128, 128, 2, 256), (64, 64, 1, 128)]


def varlen_cases() -> list[dict[str, Any]]:
    """The varlen set: FlashAttention forward over packed variable-length batches, causal and not."""
    cases = []
    for lens, (h, d), causal, (bm, bn, st, th) in itertools.product(
        VARLEN_BATCHES, VARLEN_HEADS, FA_CAUSAL, VARLEN_CONFIGS
    ):
        total = sum(lens)
        params = dict(batch=len(lens), total_q=total, total_kv=total, heads=h, dim=d, causal=causal)
        params.update(block_M=bm, block_N=bn, num_stages=st, threads=th)
        params.update(dtype="float16", accum_dtype="float32")
        case = {"family": "flash_attention", "kernel": "flash_attention_varlen_fwd", "params": params}
        cases.append({**case, "lens": list(lens)})
    # one (heads, dim) per batch, alternating: 16 launches (every batch, both masks, both configs)
    cases = [c for i, c in enumerate(cases) if (i // 4) % 2 == (i // 8) % 2]
    return _numbered(cases, "vl")


# The block-sparse set: kernels/tilelang/flash_attention.py::flash_attention_blocksparse_fwd with a random
# block mask of a given density (each query block keeps its diagonal key block), drawn from ``seed`` with
# numpy on either machine; measured after the frontend learned to read masks.
BLOCKSPARSE_SHAPES = [(2, 16, 4096, 128), (4, 32, 2048, 64), (1, 16, 8192, 128)]
BLOCKSPARSE_DENSITY = [0.1, 0.3, 0.6, 1.0]
BLOCKSPARSE_CONFIGS = [(128, 2, 256), (64, 1, 128)]  # block_M = block_N, num_stages, threads


def blocksparse_cases() -> list[dict[str, Any]]:
    """The block-sparse set: FlashAttention forward over random block masks, 10% to 100% kept."""
    cases = []
    for (b, h, s, d), density, (bm, st, th) in itertools.product(
        BLOCKSPARSE_SHAPES, BLOCKSPARSE_DENSITY, BLOCKSPARSE_CONFIGS
    ):
        params = dict(batch=b, heads=h, seq_len=s, dim=d, block_M=bm, block_N=bm, num_stages=st, threads=th)
        case = {"family": "flash_attention", "kernel": "flash_attention_blocksparse_fwd", "params": params}
        cases.append({**case, "density": density, "seed": len(cases)})
    return _numbered(cases, "bs")


def block_mask(case: dict[str, Any]) -> Any:
    """A block-sparse case's mask (numpy int32, ``[batch, heads, q_blocks, k_blocks]``, 1 = keep)."""
    import numpy as np

    p = case["params"]
    nq, nk = p["seq_len"] // p["block_M"], p["seq_len"] // p["block_N"]
    mask = np.random.default_rng(case["seed"]).random((p["batch"], p["heads"], nq, nk)) < case["density"]
    mask[..., np.arange(nq), np.arange(nq) * nk // nq] = True  # every query block keeps its diagonal block
    return mask.astype(np.int32)


def cu_seqlens(case: dict[str, Any]) -> list[int]:
    """The offsets of a varlen case's sequences in its packed tensors (``batch + 1`` of them)."""
    out = [0]
    for n in case["lens"]:
        out.append(out[-1] + n)
    return out


def launch_args(case: dict[str, Any]) -> tuple[Any, ...]:
    """The arguments ``tilesight.estimate`` takes besides the program (CPU side; imports tilesight): a varlen
    case's tensors and offsets (their contents), nothing for the fixed-shape kernels."""
    from tilesight import TensorSpec

    p = case["params"]
    if case["kernel"] == "flash_attention_blocksparse_fwd":
        x = TensorSpec((p["batch"], p["heads"], p["seq_len"], p["dim"]), "float16")
        return (x, x, x, block_mask(case), x)
    if case["kernel"] != "flash_attention_varlen_fwd":
        return ()
    import numpy as np

    x = TensorSpec((p["total_q"], p["heads"], p["dim"]), p["dtype"])
    cu = np.asarray(cu_seqlens(case), dtype=np.int32)
    return (x, x, x, cu, cu, max(case["lens"]), x)


# A second validation set (stop 20, ``sweep.py --set validation2``): shapes and block configurations of the
# reference GEMM, FlashAttention and MLA decode that no earlier set has, bf16 GEMMs among them; predictions
# recorded before it was measured, nothing changed after.
VALIDATION2_GEMM_SHAPES = [(3072, 3072, 3072), (6144, 2048, 5120), (1024, 16384, 4096)]
VALIDATION2_GEMM_CONFIGS = [  # (block_M, block_N, block_K, num_stages, threads, use_swizzle, dtype)
    (128, 128, 64, 3, 256, True, "bfloat16"),
    (64, 256, 64, 3, 256, False, "float16"),
    (128, 192, 64, 3, 256, True, "float16"),
    (256, 128, 64, 2, 256, False, "bfloat16"),
]
VALIDATION2_FA_SHAPES = [(4, 16, 1024, 128), (1, 32, 4096, 64), (2, 8, 3072, 128)]
VALIDATION2_FA_CONFIGS = [(128, 128, 2, 256), (64, 128, 2, 128), (128, 32, 3, 256)]
VALIDATION2_MLA_SHAPES = [(16, 128, 16384), (48, 128, 4096)]
VALIDATION2_MLA_CONFIGS = [(64, 32, 2, 256), (64, 64, 1, 256)]


def _validation_set(
    prefix: str, gemm: tuple, fa: tuple, mla: tuple, extra: Iterable[dict[str, Any]] = ()
) -> list[dict[str, Any]]:
    """A validation set's cases: every (shape, config) pair of its GEMM, FlashAttention (causal and not) and
    MLA decode lists, then the ``extra`` cases (dequantising and fp8 GEMMs), numbered
    ``{prefix}-{family}-NNN`` in that order."""
    (gemm_shapes, gemm_configs), (fa_shapes, fa_configs), (mla_shapes, mla_configs) = gemm, fa, mla
    cases = [gemm_case(*c) for c in itertools.product(gemm_shapes, gemm_configs)]
    cases += [fa_case(*c) for c in itertools.product(fa_shapes, FA_CAUSAL, fa_configs)]
    cases += [mla_case(*c) for c in itertools.product(mla_shapes, mla_configs)]
    cases += extra
    return _numbered(cases, prefix)


def dequant_case(shape: tuple, config: tuple, weight: str = "int4") -> dict[str, Any]:
    """A dequantising GEMM case: ``shape`` (M, N, K), ``config`` (block_M, block_N, block_K, num_stages,
    threads), ``weight`` int4 or uint4."""
    (m, n, k), (bm, bn, bk, st, th) = shape, config
    params = dict(M=m, N=n, K=k, block_M=bm, block_N=bn, block_K=bk, num_stages=st, threads=th, weight=weight)
    return {"family": "dequant_gemm", "kernel": "dequant_gemm", "params": params}


def fp8_case(shape: tuple, config: tuple) -> dict[str, Any]:
    """An fp8 GEMM case (``gemm_fp8``, e4m3 in, fp16 out): ``shape`` (M, N, K), ``config`` (block_M, block_N,
    block_K, num_stages, threads, promote_every)."""
    (m, n, k), (bm, bn, bk, st, th, promote) = shape, config
    params = dict(M=m, N=n, K=k, block_M=bm, block_N=bn, block_K=bk, num_stages=st, threads=th)
    params.update(dtype="float8_e4m3", out_dtype="float16", promote_every=promote)
    return {"family": "gemm", "kernel": "gemm_fp8", "params": params}


def _dequant_cases(pairs: Iterable[tuple]) -> list[dict[str, Any]]:
    """int4 dequantising GEMM cases, one per ``((M, N, K), (block_M, block_N, block_K, num_stages,
    threads))``."""
    return [dequant_case(shape, config) for shape, config in pairs]


def _fp8_cases(pairs: Iterable[tuple]) -> list[dict[str, Any]]:
    """fp8 GEMM cases, one per ``((M, N, K), (block_M, block_N, block_K, num_stages, threads,
    promote_every))``."""
    return [fp8_case(shape, config) for shape, config in pairs]


def validation2_cases() -> list[dict[str, Any]]:
    """The second validation set: new GEMM, FlashAttention (causal and not) and MLA decode launches."""
    return _validation_set(
        "val2",
        (VALIDATION2_GEMM_SHAPES, VALIDATION2_GEMM_CONFIGS),
        (VALIDATION2_FA_SHAPES, VALIDATION2_FA_CONFIGS),
        (VALIDATION2_MLA_SHAPES, VALIDATION2_MLA_CONFIGS),
    )


# A third validation set (stop 21, ``sweep.py --set validation3``): new shapes and block configurations of the
# reference GEMM, FlashAttention (block_N 32 among them) and MLA decode, predicted after the stop's rules and
# before it was measured.
VALIDATION3_GEMM_SHAPES = [(2560, 5120, 3072), (8192, 1024, 8192)]
VALIDATION3_GEMM_CONFIGS = [  # (block_M, block_N, block_K, num_stages, threads, use_swizzle, dtype)
    (128, 128, 32, 4, 128, True, "float16"),
    (128, 256, 64, 4, 256, True, "bfloat16"),
    (64, 128, 32, 3, 128, False, "float16"),
]
VALIDATION3_FA_SHAPES = [(2, 24, 2048, 128), (8, 8, 1536, 64)]
VALIDATION3_FA_CONFIGS = [(64, 32, 2, 128), (128, 32, 2, 256), (128, 64, 3, 256)]
VALIDATION3_MLA_SHAPES = [(24, 128, 6144), (96, 128, 2048)]
VALIDATION3_MLA_CONFIGS = [(64, 32, 2, 256), (64, 64, 2, 256)]


def validation3_cases() -> list[dict[str, Any]]:
    """The third validation set: new GEMM, FlashAttention (causal and not) and MLA decode launches."""
    return _validation_set(
        "val3",
        (VALIDATION3_GEMM_SHAPES, VALIDATION3_GEMM_CONFIGS),
        (VALIDATION3_FA_SHAPES, VALIDATION3_FA_CONFIGS),
        (VALIDATION3_MLA_SHAPES, VALIDATION3_MLA_CONFIGS),
    )


# A fourth validation set (stop 26, ``sweep.py --set validation4``): shapes and block configurations no set
# had (block_K 32 at two stages, 64 x 256 and 256 x 128 x 64 tiles, bf16 at two stages), predicted after the
# stop's lone warp-specialised ring and TMA latencies and before it was measured.
VALIDATION4_GEMM_SHAPES = [(3072, 3072, 6144), (1536, 8192, 4096), (6144, 2048, 2048)]
VALIDATION4_GEMM_CONFIGS = [  # (block_M, block_N, block_K, num_stages, threads, use_swizzle, dtype)
    (128, 128, 32, 2, 128, True, "bfloat16"),
    (128, 128, 64, 4, 128, False, "float16"),
    (64, 256, 32, 3, 128, True, "float16"),
    (128, 256, 32, 2, 256, False, "bfloat16"),
    (256, 128, 64, 2, 256, True, "float16"),
]
VALIDATION4_FA_SHAPES = [(4, 32, 1024, 128), (1, 40, 3072, 64)]
VALIDATION4_FA_CONFIGS = [(64, 64, 2, 128), (128, 128, 3, 256)]
VALIDATION4_MLA_SHAPES = [(8, 128, 8192), (32, 128, 3072)]
VALIDATION4_MLA_CONFIGS = [(64, 32, 1, 256), (64, 64, 2, 256)]


def validation4_cases() -> list[dict[str, Any]]:
    """The fourth validation set: new GEMM, FlashAttention (causal and not) and MLA decode launches."""
    return _validation_set(
        "val4",
        (VALIDATION4_GEMM_SHAPES, VALIDATION4_GEMM_CONFIGS),
        (VALIDATION4_FA_SHAPES, VALIDATION4_FA_CONFIGS),
        (VALIDATION4_MLA_SHAPES, VALIDATION4_MLA_CONFIGS),
    )


# A fifth validation set (stop 27, ``sweep.py --set validation5``): FlashAttention only, at shapes and
# block configurations no set had, with two consumer warpgroups (the waited-step rule's configs, block_N 32 to
# 128, two and three stages) and one (its controls); predictions recorded with and without the rule before it
# was measured.
VALIDATION5_FA_SHAPES = [(3, 20, 2560, 64), (2, 12, 5120, 128), (6, 16, 1536, 64)]
VALIDATION5_FA_CONFIGS = [
    (128, 32, 2, 256),
    (128, 64, 2, 256),
    (128, 32, 3, 256),
    (128, 128, 3, 256),
    (64, 32, 2, 128),
    (128, 64, 2, 128),
]


def validation5_cases() -> list[dict[str, Any]]:
    """The fifth validation set: FlashAttention launches (causal and not) only."""
    return _validation_set("val5", ([], []), (VALIDATION5_FA_SHAPES, VALIDATION5_FA_CONFIGS), ([], []))


# A sixth validation set (stop 41, ``sweep.py --set validation6``): shapes and block configurations no set
# had, block_K 32 among them (64-byte rows, whose share of the L2 coalescer's merges stop 41 changed), bf16
# and 256 x 128 tiles, FlashAttention at new lengths and head counts, MLA decode; predictions recorded
# before it was measured.
VALIDATION6_GEMM_SHAPES = [(4608, 4608, 2048), (2048, 10240, 3584)]
VALIDATION6_GEMM_CONFIGS = [  # (block_M, block_N, block_K, num_stages, threads, use_swizzle, dtype)
    (128, 128, 32, 3, 128, True, "float16"),
    (64, 128, 32, 4, 128, False, "bfloat16"),
    (128, 256, 32, 3, 256, True, "float16"),
    (128, 128, 64, 3, 128, True, "bfloat16"),
    (256, 128, 32, 3, 256, False, "float16"),
]
VALIDATION6_FA_SHAPES = [(2, 28, 2304, 64), (3, 16, 3584, 128)]
VALIDATION6_FA_CONFIGS = [(128, 64, 2, 256), (64, 64, 2, 128), (128, 128, 2, 256)]
VALIDATION6_MLA_SHAPES = [(12, 128, 10240), (64, 128, 5120)]
VALIDATION6_MLA_CONFIGS = [(64, 32, 2, 256), (64, 64, 1, 256)]


def validation6_cases() -> list[dict[str, Any]]:
    """The sixth validation set: new GEMM, FlashAttention (causal and not) and MLA decode launches."""
    return _validation_set(
        "val6",
        (VALIDATION6_GEMM_SHAPES, VALIDATION6_GEMM_CONFIGS),
        (VALIDATION6_FA_SHAPES, VALIDATION6_FA_CONFIGS),
        (VALIDATION6_MLA_SHAPES, VALIDATION6_MLA_CONFIGS),
    )


# A seventh validation set (stop 43, ``sweep.py --set validation7``): FlashAttention only, at shapes no set
# had, with two consumer warpgroups (block_M 128 on 256 threads: block_N 32 to 128, two and three stages,
# head dims 64 and 128, where stop 43's rule lets one group's exponentials run beside the other's dots) and
# one (128 threads: its controls, which the rule leaves alone); predictions recorded with and without the rule
# before it was measured.
VALIDATION7_FA_SHAPES = [(2, 20, 3072, 128), (4, 12, 2560, 64), (1, 24, 6144, 128)]
VALIDATION7_FA_CONFIGS = [
    (128, 128, 2, 256),
    (128, 64, 2, 256),
    (128, 128, 3, 256),
    (128, 32, 3, 256),
    (64, 64, 2, 128),
    (128, 64, 2, 128),
]


def validation7_cases() -> list[dict[str, Any]]:
    """The seventh validation set: FlashAttention launches (causal and not) only."""
    return _validation_set("val7", ([], []), (VALIDATION7_FA_SHAPES, VALIDATION7_FA_CONFIGS), ([], []))


# An eighth validation set (stop 43, ``sweep.py --set validation8``): a cross-family blind sample of the
# TileLang kernels at LLM-layer shapes no set had (GEMMs, FlashAttention on one and two consumer warpgroups,
# MLA decode, int4 dequantising GEMMs), predicted with stop 43's model before it was measured.
VALIDATION8_GEMM_SHAPES = [(4096, 14336, 4096), (2048, 8192, 8192), (8192, 3584, 3584)]
VALIDATION8_GEMM_CONFIGS = [  # (block_M, block_N, block_K, num_stages, threads, use_swizzle, dtype)
    (128, 256, 64, 3, 256, True, "float16"),
    (128, 128, 64, 4, 128, True, "bfloat16"),
    (256, 128, 64, 3, 256, False, "float16"),
]
VALIDATION8_FA_SHAPES = [(4, 32, 2048, 128), (2, 48, 3072, 64)]
VALIDATION8_FA_CONFIGS = [(128, 128, 2, 256), (128, 64, 3, 256), (64, 64, 2, 128)]
VALIDATION8_MLA_SHAPES = [(32, 128, 8192), (8, 128, 16384)]
VALIDATION8_MLA_CONFIGS = [(64, 64, 2, 256), (64, 32, 2, 256)]
VALIDATION8_DEQUANT_SHAPES = [(1024, 14336, 4096), (4096, 4096, 14336)]
VALIDATION8_DEQUANT_CONFIGS = [(128, 128, 64, 2, 128), (128, 256, 64, 3, 256)]  # (bM, bN, bK, stages, thr)


def validation8_cases() -> list[dict[str, Any]]:
    """The eighth validation set: GEMM, FlashAttention (causal and not), MLA decode and int4 dequantising GEMM
    launches at new shapes."""
    return _validation_set(
        "val8",
        (VALIDATION8_GEMM_SHAPES, VALIDATION8_GEMM_CONFIGS),
        (VALIDATION8_FA_SHAPES, VALIDATION8_FA_CONFIGS),
        (VALIDATION8_MLA_SHAPES, VALIDATION8_MLA_CONFIGS),
        _dequant_cases(itertools.product(VALIDATION8_DEQUANT_SHAPES, VALIDATION8_DEQUANT_CONFIGS)),
    )


# The ninth validation set (stop 44, ``sweep.py --set validation9``): fp8 GEMMs promoting their accumulator
# (gemm_fp8's 2xAcc) at shapes and promotion intervals the fp8 set does not have, predicted before it ran
# with and without the register-spill rule (frontends/tilelang/lower.py: LOOP_STATE_REGISTERS), and plain
# fp8 and 64-row controls that do not spill. (block_M, block_N, block_K, num_stages, threads, promote_every)
VALIDATION9_FP8_SHAPES = [(2048, 8192, 4096), (6144, 6144, 6144), (3072, 12288, 2048)]
VALIDATION9_FP8_CONFIGS = [
    (128, 128, 128, 3, 128, 2),
    (128, 128, 128, 4, 128, 4),
    (128, 128, 64, 4, 128, 4),
    (128, 256, 128, 3, 256, 2),
    (128, 256, 64, 3, 256, 1),
    (128, 128, 128, 4, 128, 0),
    (64, 128, 128, 4, 128, 2),
    (64, 256, 128, 3, 256, 1),
]


def validation9_cases() -> list[dict[str, Any]]:
    """The ninth validation set: fp8 GEMMs promoting their accumulator, with plain and 64-row controls."""
    pairs = itertools.product(VALIDATION9_FP8_SHAPES, VALIDATION9_FP8_CONFIGS)
    return _numbered(_fp8_cases(pairs), "val9")


# The tenth validation set (stop 44, ``sweep.py --set validation10``): a third cross-family blind sample at
# shapes no set has (a 5120 x 13824 MLP, a 6144 x 4096 x 12288 projection, 40-head attention at 2048 / 4096,
# MLA decode at 16 x 128 x 12288 and 48 x 128 x 4096, int4 weights at 2048 x 13824 x 5120), and fp8 plain and
# promoting GEMMs at one more shape.
VALIDATION10_GEMM_SHAPES = [(5120, 13824, 5120), (6144, 4096, 12288)]
VALIDATION10_GEMM_CONFIGS = [  # (block_M, block_N, block_K, num_stages, threads, use_swizzle, dtype)
    (128, 256, 64, 3, 256, True, "bfloat16"),
    (128, 128, 64, 3, 128, True, "float16"),
    (128, 128, 32, 4, 128, False, "float16"),
]
VALIDATION10_FA_SHAPES = [(2, 40, 4096, 128), (4, 40, 2048, 64)]
VALIDATION10_FA_CONFIGS = [(128, 128, 2, 256), (128, 64, 2, 256)]
VALIDATION10_MLA_SHAPES = [(16, 128, 12288), (48, 128, 4096)]
VALIDATION10_MLA_CONFIGS = [(64, 64, 2, 256), (64, 32, 2, 256)]
VALIDATION10_DEQUANT = [
    ((2048, 13824, 5120), (128, 128, 64, 2, 128)),
    ((2048, 13824, 5120), (128, 256, 64, 3, 256)),
]
VALIDATION10_FP8 = [  # (M, N, K), (block_M, block_N, block_K, num_stages, threads, promote_every)
    ((5120, 13824, 5120), (128, 256, 128, 3, 256, 0)),
    ((5120, 13824, 5120), (128, 128, 128, 3, 128, 1)),
    ((5120, 13824, 5120), (128, 256, 128, 3, 256, 1)),
]


def validation10_cases() -> list[dict[str, Any]]:
    """The tenth validation set: GEMM, FlashAttention (causal and not), MLA decode, int4 dequantising GEMM and
    fp8 GEMM launches at new shapes."""
    return _validation_set(
        "val10",
        (VALIDATION10_GEMM_SHAPES, VALIDATION10_GEMM_CONFIGS),
        (VALIDATION10_FA_SHAPES, VALIDATION10_FA_CONFIGS),
        (VALIDATION10_MLA_SHAPES, VALIDATION10_MLA_CONFIGS),
        _dequant_cases(VALIDATION10_DEQUANT) + _fp8_cases(VALIDATION10_FP8),
    )


# The eleventh validation set (stop 45, ``sweep.py --set validation11``): fp8 GEMMs whose two consumer
# warpgroups split the tile's columns (128 x 256 and 64 x 256 on 256 threads: TileLang's 4 x 2 warp
# partition), promoting every 1-4 K steps, at shapes no set has, predicted before they ran with the
# column-group rule (frontends/tilelang/lower.py: _columns_apart) and without it; a plain two-group launch
# and a one-group promoting launch as controls. (block_M, block_N, block_K, num_stages, threads,
# promote_every)
VALIDATION11_FP8_SHAPES = [(4096, 14336, 4096), (8192, 8192, 2048), (2048, 10240, 8192)]
VALIDATION11_FP8_CONFIGS = [
    (128, 256, 128, 3, 256, 1),
    (128, 256, 128, 3, 256, 4),
    (128, 256, 64, 4, 256, 2),
    (64, 256, 128, 3, 256, 2),
    (64, 256, 64, 4, 256, 1),
    (128, 256, 128, 3, 256, 0),
    (128, 128, 128, 3, 128, 2),
]


def validation11_cases() -> list[dict[str, Any]]:
    """The eleventh validation set: fp8 GEMMs on two column warpgroups, promoting, with controls."""
    pairs = itertools.product(VALIDATION11_FP8_SHAPES, VALIDATION11_FP8_CONFIGS)
    return _numbered(_fp8_cases(pairs), "val11")


# The twelfth validation set (stop 45, ``sweep.py --set validation12``): a fourth cross-family blind sample
# after stop 45's rules, at shapes no set has (a 7168 x 7168 x 2048 projection, a 2816 x 9728 x 3584 MLP,
# 28-head attention at 3200 and 14-head at 2432, MLA decode at 24 x 128 x 6144, int4 weights at
# 2816 x 9728 x 3584), and fp8 plain and promoting GEMMs at one more shape.
VALIDATION12_GEMM_SHAPES = [(7168, 7168, 2048), (2816, 9728, 3584)]
VALIDATION12_GEMM_CONFIGS = [  # (block_M, block_N, block_K, num_stages, threads, use_swizzle, dtype)
    (128, 256, 64, 3, 256, True, "float16"),
    (128, 128, 64, 3, 128, False, "bfloat16"),
    (64, 128, 64, 4, 128, True, "float16"),
]
VALIDATION12_FA_SHAPES = [(3, 28, 3200, 128), (6, 14, 2432, 64)]
VALIDATION12_FA_CONFIGS = [(128, 128, 2, 256), (64, 64, 2, 128)]
VALIDATION12_MLA_SHAPES = [(24, 128, 6144)]
VALIDATION12_MLA_CONFIGS = [(64, 64, 2, 256)]
VALIDATION12_DEQUANT = [((2816, 9728, 3584), (128, 128, 64, 2, 128))]
VALIDATION12_FP8 = [  # (M, N, K), (block_M, block_N, block_K, num_stages, threads, promote_every)
    ((4096, 7168, 4096), (128, 256, 128, 3, 256, 0)),
    ((4096, 7168, 4096), (128, 256, 128, 3, 256, 2)),
    ((4096, 7168, 4096), (128, 128, 128, 3, 128, 1)),
]


def validation12_cases() -> list[dict[str, Any]]:
    """The twelfth validation set: GEMM, FlashAttention (causal and not), MLA decode, int4 dequantising GEMM
    and fp8 GEMM launches at new shapes."""
    return _validation_set(
        "val12",
        (VALIDATION12_GEMM_SHAPES, VALIDATION12_GEMM_CONFIGS),
        (VALIDATION12_FA_SHAPES, VALIDATION12_FA_CONFIGS),
        (VALIDATION12_MLA_SHAPES, VALIDATION12_MLA_CONFIGS),
        _dequant_cases(VALIDATION12_DEQUANT) + _fp8_cases(VALIDATION12_FP8),
    )


def _random_gemm_cases(
    rng: Any, dims: tuple[int, ...], count: int, *, max_acc_per_thread: int, rows_per_warpgroup: bool = False
) -> list[dict[str, Any]]:
    """``count`` reference GEMM launches drawn with ``rng`` (a ``random.Random``): M, N, K from ``dims``,
    block_M / block_N 64-256, block_K 32 / 64, 2-4 stages, 128 / 256 threads, fp16 / bf16, swizzle or not,
    where the stages fit in 200 KiB of shared memory and the accumulator in ``max_acc_per_thread`` values a
    thread (and, with ``rows_per_warpgroup``, each consumer warpgroup has 64 rows of the tile)."""
    cases: list[dict[str, Any]] = []
    while len(cases) < count:
        bm, bn, bk = rng.choice((64, 128, 256)), rng.choice((64, 128, 256)), rng.choice((32, 64))
        st, th = rng.choice((2, 3, 4)), rng.choice((128, 256))
        if st * (bm + bn) * bk * 2 > 200 * 1024 or bm * bn / th > max_acc_per_thread:
            continue
        if rows_per_warpgroup and bm < 64 * th // 128:
            continue
        shape = (rng.choice(dims), rng.choice(dims), rng.choice(dims))
        dtype, swizzle = rng.choice(GEMM_DTYPES), rng.random() < 0.5
        cases.append(gemm_case(shape, (bm, bn, bk, st, th, swizzle, dtype)))
    return cases


def validation13_cases() -> list[dict[str, Any]]:
    """A random sample (stop 46): 40 launches a seeded generator draws from the reference kernels' spaces,
    nothing picked by hand: 16 GEMMs (fp16 / bf16; M, N, K multiples of 128 from 640 to 10240; block_M 64-256,
    block_N 64-256, block_K 32 / 64, 2-4 stages, 128 / 256 threads, swizzle or not, where the tiles fit in
    shared memory), 4 fp8 GEMMs, 4 int4 dequantising GEMMs, 12 FlashAttention launches (causal or not, head
    dim 64 / 128, lengths multiples of 128) and 4 MLA decode launches."""
    import random

    rng = random.Random(13)
    dims = tuple(128 * n for n in (5, 9, 14, 22, 31, 44, 58, 80))
    cases = _random_gemm_cases(rng, dims, 16, max_acc_per_thread=256)
    cases += _fp8_cases(
        (
            (rng.choice(dims), rng.choice(dims), rng.choice(dims)),
            rng.choice(
                (
                    (128, 256, 128, 3, 256, 0),
                    (128, 128, 128, 3, 128, 4),
                    (64, 256, 64, 4, 256, 0),
                    (128, 256, 64, 4, 256, 4),
                )
            ),
        )
        for _ in range(4)
    )
    cases += _dequant_cases(
        (
            (rng.choice(dims), rng.choice(dims), rng.choice(dims)),
            rng.choice(((128, 128, 64, 2, 128), (128, 256, 64, 3, 256), (64, 128, 64, 3, 128))),
        )
        for _ in range(4)
    )
    for _ in range(12):
        bm, bn, st, th = rng.choice(
            (
                (128, 128, 2, 256),
                (64, 64, 2, 128),
                (128, 64, 2, 128),
                (64, 128, 2, 128),
                (128, 32, 3, 256),
                (128, 64, 3, 256),
            )
        )
        shape = (rng.choice((1, 2, 4, 6)), rng.choice((8, 12, 20, 32)), 128 * rng.randint(6, 40))
        shape += (rng.choice((64, 128)),)
        cases.append(fa_case(shape, rng.random() < 0.5, (bm, bn, st, th)))
    for _ in range(4):
        bh, bn, st, th = rng.choice(((64, 32, 2, 256), (64, 64, 1, 256), (64, 64, 2, 256)))
        shape = (rng.choice((8, 24, 64, 96)), 128, 1024 * rng.randint(2, 12))
        cases.append(mla_case(shape, (bh, bn, st, th)))
    return _numbered(cases, "val13")


def _random_sample(seed: int, dims: tuple[int, ...], name: str, max_acc: int) -> list[dict[str, Any]]:
    """60 launches from a generator seeded with ``seed``: 28 GEMMs over ``dims`` whose accumulator takes up
    to ``max_acc`` registers a thread, 6 fp8 GEMMs and 16 FlashAttention launches with their block
    configuration drawn too (block_M 64 / 128, block_N 32-128, 1-3 stages, 128 / 256 threads), 6 int4
    dequantising GEMMs and 4 MLA decode launches, numbered ``name``. Nothing picked by hand."""
    import random

    rng = random.Random(seed)
    cases = _random_gemm_cases(rng, dims, 28, max_acc_per_thread=max_acc, rows_per_warpgroup=True)
    fp8: list[dict[str, Any]] = []
    while len(fp8) < 6:
        bm, bn, bk = rng.choice((64, 128)), rng.choice((128, 256)), rng.choice((64, 128))
        st, th = rng.choice((2, 3, 4)), rng.choice((128, 256))
        if st * (bm + bn) * bk > 200 * 1024 or bm < 64 * th // 128:
            continue
        promote = rng.choice((0, 128 // bk))
        fp8.append(
            fp8_case((rng.choice(dims), rng.choice(dims), rng.choice(dims)), (bm, bn, bk, st, th, promote))
        )
    cases += fp8
    cases += _dequant_cases(
        (
            (rng.choice(dims), rng.choice(dims), rng.choice(dims)),
            rng.choice(((128, 128, 64, 2, 128), (128, 256, 64, 3, 256), (64, 128, 64, 3, 128))),
        )
        for _ in range(6)
    )
    fa = 0
    while fa < 16:
        bm, bn, st, th = (
            rng.choice((64, 128)),
            rng.choice((32, 64, 128)),
            rng.choice((1, 2, 3)),
            rng.choice((128, 256)),
        )
        if bm < 64 * th // 128:
            continue
        shape = (rng.choice((1, 2, 4, 6)), rng.choice((8, 12, 20, 32)), 128 * rng.randint(4, 40))
        shape += (rng.choice((64, 128)),)
        cases.append(fa_case(shape, rng.random() < 0.5, (bm, bn, st, th)))
        fa += 1
    for _ in range(4):
        bh, bn, st, th = rng.choice(((64, 32, 2, 256), (64, 64, 1, 256), (64, 64, 2, 256)))
        shape = (rng.choice((8, 24, 64, 96)), 128, 1024 * rng.randint(2, 12))
        cases.append(mla_case(shape, (bh, bn, st, th)))
    return _numbered(cases, name)


def validation14_cases() -> list[dict[str, Any]]:
    """A second random sample (stop 47, after the wgmma accumulator swap rule, predicted before it ran): 60
    launches from a seeded generator, wider than validation 13's: 28 GEMMs whose accumulator may take up to
    512 registers a thread (validation 13 stopped at 256), 6 fp8 GEMMs and 16 FlashAttention launches with
    their block configuration drawn too (block_M 64 / 128, block_N 32-128, 1-3 stages, 128 / 256 threads), 6
    int4 dequantising GEMMs and 4 MLA decode launches. Nothing picked by hand."""
    return _random_sample(14, tuple(128 * n for n in (3, 6, 11, 17, 26, 37, 50, 67)), "val14", 512)


def validation15_cases() -> list[dict[str, Any]]:
    """A third random sample (stop 48, no TileLang rule changed since validation 14, predicted before it
    ran): :func:`_random_sample` with its own seed and sizes, accumulators up to 256 registers a thread."""
    return _random_sample(15, tuple(128 * n for n in (4, 9, 14, 21, 30, 44, 58, 72)), "val15", 256)


def validation16_cases() -> list[dict[str, Any]]:
    """A fourth random sample (stop 49, no TileLang rule changed since validation 15, predicted before it
    ran): :func:`_random_sample` with its own seed and sizes, accumulators up to 256 registers a thread."""
    return _random_sample(16, tuple(128 * n for n in (5, 8, 13, 19, 28, 40, 55, 70)), "val16", 256)


# The GEMM step set (stop 43, ``sweep.py --set gemm_steps``): one 128-row tile per SM (132 tiles) over a long
# K, the same tile on one consumer warpgroup (128 threads) and two (256), at block_K 32 / 64 and two to four
# stages: the time per K step of TileLang's warp-specialised GEMM loop, where the two-group block_K 32 tiles
# of every set run 8-16% slower than the model has them.
GEMM_STEPS_K = 16384
GEMM_STEPS_CONFIGS = [  # (M, N, block_M, block_N, block_K, num_stages, threads)
    (1536, 1408, 128, 128, 32, 2, 128),
    (1536, 1408, 128, 128, 32, 3, 128),
    (1536, 1408, 128, 128, 32, 4, 128),
    (1536, 1408, 128, 128, 32, 2, 256),
    (1536, 1408, 128, 128, 32, 3, 256),
    (1536, 1408, 128, 128, 32, 4, 256),
    (1536, 1408, 128, 128, 64, 2, 128),
    (1536, 1408, 128, 128, 64, 3, 128),
    (1536, 1408, 128, 128, 64, 2, 256),
    (1536, 1408, 128, 128, 64, 3, 256),
    (1536, 2816, 128, 256, 32, 3, 256),
    (1536, 2816, 128, 256, 64, 3, 256),
]


def gemm_steps_cases() -> list[dict[str, Any]]:
    """The GEMM step set (GEMM_STEPS_*): fp16, 132 tiles, K = GEMM_STEPS_K."""
    cases = []
    for m, n, bm, bn, bk, st, th in GEMM_STEPS_CONFIGS:
        params = dict(M=m, N=n, K=GEMM_STEPS_K, block_M=bm, block_N=bn, block_K=bk, num_stages=st, threads=th)
        params.update(dtype="float16", accum_dtype="float32", use_swizzle=False, panel_size=10)
        cases.append({"family": "gemm", "kernel": "gemm", "params": params})
    return _numbered(cases, "gsteps")


# The GEMM tile set (stop 43, ``sweep.py --set gemm_tiles``): 528 tiles (four waves of one block an SM) at K =
# 512 to 8192, so that the time against K's steps has each tile's fixed cost (its pipeline's fill, the
# epilogue, the next block's start) as its intercept: the two-group 128x256 tiles that multi-wave sets have
# 8-16% fast at block_K 32, and a one-group 128x128 control.
GEMM_TILES_K = (512, 1024, 2048, 4096, 8192)
GEMM_TILES_CONFIGS = [  # (M, N, block_M, block_N, block_K, num_stages, threads)
    (3072, 5632, 128, 256, 32, 3, 256),
    (3072, 5632, 128, 256, 64, 3, 256),
    (3072, 2816, 128, 128, 32, 3, 128),
]


def gemm_tiles_cases() -> list[dict[str, Any]]:
    """The GEMM tile set (GEMM_TILES_*): fp16, 528 tiles, K over GEMM_TILES_K."""
    cases = []
    for (m, n, bm, bn, bk, st, th), k in itertools.product(GEMM_TILES_CONFIGS, GEMM_TILES_K):
        params = dict(M=m, N=n, K=k, block_M=bm, block_N=bn, block_K=bk, num_stages=st, threads=th)
        params.update(dtype="float16", accum_dtype="float32", use_swizzle=False, panel_size=10)
        cases.append({"family": "gemm", "kernel": "gemm", "params": params})
    return _numbered(cases, "gtiles")


# The FlashAttention step set (stop 27, ``sweep.py --set fa_steps``): one head of one sequence, 16896 query
# rows, so that 128-row blocks fill the 132 SMs once and every block reads the same K and V (L2-resident
# after the first blocks' reads): the time per K/V step of the forward loop by block_N, warpgroups and head
# dim, where the committed sets' block_N = 32 launches are 18-34% fast.
FA_STEPS_SEQ = 16896
FA_STEPS_CONFIGS = [  # (dim, block_M, block_N, num_stages, threads)
    (64, 128, 32, 2, 256),
    (64, 128, 64, 2, 256),
    (64, 128, 128, 2, 256),
    (64, 128, 32, 3, 256),
    (64, 128, 64, 3, 256),
    (64, 64, 32, 2, 128),
    (64, 64, 64, 2, 128),
    (64, 64, 128, 2, 128),
    (64, 128, 64, 2, 128),
    (128, 128, 32, 2, 256),
    (128, 128, 64, 2, 256),
    (128, 128, 128, 2, 256),
    (128, 64, 32, 2, 128),
    (128, 64, 64, 2, 128),
]


def fa_steps_cases() -> list[dict[str, Any]]:
    """The FlashAttention step set (FA_STEPS_*): non-causal, one batch and one head."""
    cases = []
    for d, bm, bn, st, th in FA_STEPS_CONFIGS:
        params = dict(batch=1, heads=1, seq_len=FA_STEPS_SEQ, dim=d, causal=False, block_M=bm, block_N=bn)
        params.update(num_stages=st, threads=th, dtype="float16", accum_dtype="float32")
        cases.append({"family": "flash_attention", "kernel": "flash_attention_fwd", "params": params})
    return _numbered(cases, "steps")


def all_cases() -> list[dict[str, Any]]:
    cases = gemm_cases() + fa_cases() + mla_cases() + dequant_cases()
    for i, c in enumerate(cases):
        c["id"] = f"{c['family']}-{i:03d}"
    return cases


KERNELS_DIR = Path(__file__).resolve().parents[2] / "kernels" / "tilelang"
_KERNELS = {
    "gemm": ("gemm", "gemm"),
    "gemm_splitk": ("gemm", "gemm_splitk"),
    "gemm_splitk_reduce": ("gemm", "gemm_splitk_reduce"),
    "gemm_fp8": ("gemm", "gemm_fp8"),
    "gemm_persistent": ("gemm", "gemm_persistent"),
    "flash_attention_fwd": ("flash_attention", "flash_attention_fwd"),
    "flash_attention_varlen_fwd": ("flash_attention", "flash_attention_varlen_fwd"),
    "flash_attention_blocksparse_fwd": ("flash_attention", "flash_attention_blocksparse_fwd"),
    "mla_decode": ("mla_decode", "mla_decode"),
    "dequant_gemm": ("dequant_gemm", "dequant_gemm"),
}


def _builder(kernel: str) -> Callable[..., Any]:
    """The kernel's builder, loaded by path (the GPU machine does not install tilesight)."""
    module, func = _KERNELS[kernel]
    name = f"tilesight_ref_tilelang_{module}"
    mod = sys.modules.get(name)
    if mod is None:
        spec = importlib.util.spec_from_file_location(name, KERNELS_DIR / f"{module}.py")
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return getattr(mod, func)


def build(case: dict[str, Any]) -> Any:
    """The ``T.prim_func`` of one case."""
    return _builder(case["kernel"])(**case["params"])


def flops(case: dict[str, Any]) -> float:
    """Useful floating-point operations of one case (multiply-add = 2), as the literature counts them."""
    p = case["params"]
    fam = case["family"]
    if fam in ("gemm", "dequant_gemm"):
        return 2.0 * p["M"] * p["N"] * p["K"]
    if case["kernel"] == "flash_attention_blocksparse_fwd":  # the kept blocks' work
        kept = float(block_mask(case).sum())
        return 4.0 * kept * p["block_M"] * p["block_N"] * p["dim"]
    if fam == "flash_attention":
        lens = case.get("lens") or [p["seq_len"]] * p["batch"]
        full = 4.0 * p["heads"] * p["dim"] * sum(n * n for n in lens)
        return full / 2 if p["causal"] else full
    if fam == "mla_decode":
        return 2.0 * p["batch"] * p["heads"] * p["seqlen_kv"] * (2 * p["dim"] + p["pe_dim"])
    raise KeyError(fam)

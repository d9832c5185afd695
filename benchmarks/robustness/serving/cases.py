"""The serving cases: vLLM's and SGLang's Triton kernels, each launched the way its library's wrapper would.

A case imports the module ``extract.py`` copied its kernel into (``v_*`` from vLLM, ``s_*`` from SGLang) and
builds one launch: the grid, the arguments in the kernel's order and its constexprs and launch options. The
tensors are ``TensorSpec``; the ones whose contents decide control flow carry them as ``values``: paged KV
caches get a real block table (each sequence's pages placed at random in the pool) and sequence lengths,
SGLang's decode its KV indices, the MoE kernels the routing ``moe_align_block_size`` computes (here on the
CPU: tokens sorted by expert, padded per expert to BLOCK_SIZE_M, with ``expert_ids`` and
``num_tokens_post_padded``), LoRA the token order and per-adapter counts. The random draws come from
``numpy.random.default_rng(SEED)``, fresh for each case.

Each launch also brings its own floor: ``ideal_bytes`` (what it must move: the KV actually attended to, the
weights of the experts routed to, ...) and ``ideal_flops``, with the tensor-core type ``tc_dtype`` its flops
run at; ``run.py`` divides them by the h200 profile's DRAM and tensor-core rates for the case's bound.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import triton.language as tl

from tilesight import TensorSpec, tensor_descriptor
from tilesight.tensorspec import contiguous_strides

SEED = 0


@dataclass(frozen=True)
class Launch:
    """One launch: ``tilesight.estimate(kernel, grid, *args, **kwargs)``; num_warps / num_stages are in
    ``kwargs`` where the wrapper sets them."""

    kernel: Any
    grid: tuple[int, ...]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    ideal_bytes: float
    ideal_flops: float
    # argument index -> the TensorSpec each address of a uint64 pointer table there points at (vLLM's LoRA
    # kernels take several slices' weights as such a table): the model reads the table as the tensor it is,
    # the GPU run fills it with real tensors' addresses (measure.py)
    pointees: dict[int, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Case:
    name: str
    project: str  # vllm or sglang
    source: str  # the project file and kernel
    build: Callable[[np.random.Generator], Launch] = field(repr=False)
    tc_dtype: str | None = None  # the tensor-core type of its flops (None: no flops bound)

    def launch(self) -> Launch:
        return self.build(np.random.default_rng(SEED))


CASES: dict[str, Case] = {}


def case(
    project: str, source: str, tc_dtype: str | None = None
) -> Callable[[Callable[[np.random.Generator], Launch]], Callable[[np.random.Generator], Launch]]:
    def register(fn: Callable[[np.random.Generator], Launch]) -> Callable[[np.random.Generator], Launch]:
        CASES[fn.__name__] = Case(fn.__name__, project, source, fn, tc_dtype)
        return fn

    return register


def T(shape: tuple[int, ...], dtype: str = "float16", strides: Any = None, values: Any = None) -> TensorSpec:
    return TensorSpec(tuple(shape), dtype, strides, values=values)


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def seqlens(rng: np.random.Generator, b: int, lo: int, hi: int) -> np.ndarray:
    return rng.integers(lo, hi + 1, size=b).astype(np.int32)


def block_table(
    rng: np.random.Generator, lens: Any, page: int, shuffle: bool = True
) -> tuple[np.ndarray, int]:
    """A block table (int32): each sequence's pages, placed at random in the pool; and the pool's pages."""
    npages = [int(math.ceil(n / page)) for n in lens]
    total = sum(npages)
    perm = rng.permutation(total).astype(np.int32) if shuffle else np.arange(total, dtype=np.int32)
    table = np.zeros((len(lens), max(npages)), np.int32)
    off = 0
    for i, n in enumerate(npages):
        table[i, :n] = perm[off : off + n]
        off += n
    return table, total


VLLM_DECODE = "vllm/v1/attention/ops/triton_decode_attention.py"
VLLM_UNIFIED = "vllm/v1/attention/ops/triton_unified_attention.py"
VLLM_MOE = "vllm/model_executor/layers/fused_moe/fused_moe.py"
VLLM_FP8 = "vllm/model_executor/layers/quantization/utils/fp8_utils.py"
SGL_DECODE = "sglang/kernels/ops/attention/decode_attention.py"


# ------------------------------------------------------------------------------ vLLM decode attention


def _vllm_decode_common(rng, B, HQ, HKV, D, lo, hi, page=16, splits=8):
    lens = seqlens(rng, B, lo, hi)
    bt, npages = block_table(rng, lens, page)
    q = T((B, HQ, D), "bfloat16")
    kshape = (npages, page, HKV, D)
    k = T(kshape, "bfloat16")
    v = T(kshape, "bfloat16")
    att = T((B, HQ, splits, D + 1), "float32")
    return lens, bt, npages, q, k, v, att, contiguous_strides(kshape)


def attn_decode_bounds(lens, HQ, HKV, D, esz=2):
    """The KV each sequence attends to, read once per KV head, and QK^T plus PV."""
    kv = int(lens.sum()) * HKV * D * 2 * esz
    flops = 4.0 * int(lens.sum()) * HQ * D
    return kv, flops


@case("vllm", f"{VLLM_DECODE}:_fwd_grouped_kernel_stage1", "bfloat16")
def v_decode_grouped_stage1_b32_kv4k(rng):
    import v_decode

    B, HQ, HKV, D, page, splits = 32, 32, 8, 128, 16, 8
    lens, bt, npages, q, k, v, att, ks = _vllm_decode_common(rng, B, HQ, HKV, D, 3000, 5000, page, splits)
    grid = (B, cdiv(HQ, min(16, HQ // HKV)), splits)
    args = (q, k, v, 1 / math.sqrt(D), T(bt.shape, "int32", values=bt), T((B,), "int32", values=lens), att,
            bt.shape[1], HQ * D, D, ks[0], ks[1], ks[2], ks[0], ks[1], ks[2], HQ * splits * (D + 1),
            splits * (D + 1), D + 1, T((1,), "float32"), T((1,), "float32"))  # fmt: skip
    kw = dict(kv_group_num=HQ // HKV, q_head_num=HQ, BLOCK_DMODEL=128, BLOCK_DPE=0, BLOCK_DV=128, BLOCK_N=32,
              BLOCK_H=16, NUM_KV_SPLITS=splits, PAGE_SIZE=page, logit_cap=0.0, num_warps=4, num_stages=2,
              Lk=D, Lv=D, IS_MLA=False, SLIDING_WINDOW=0)  # fmt: skip
    by, fl = attn_decode_bounds(lens, HQ, HKV, D)
    return Launch(v_decode._fwd_grouped_kernel_stage1, grid, args, kw, by, fl)


@case("vllm", f"{VLLM_DECODE}:_fwd_kernel_stage1", "bfloat16")
def v_decode_stage1_mha_b16_kv2k(rng):
    import v_decode

    B, HQ, HKV, D, page, splits = 16, 32, 32, 128, 16, 8
    lens, bt, npages, q, k, v, att, ks = _vllm_decode_common(rng, B, HQ, HKV, D, 1500, 2500, page, splits)
    grid = (B, HQ, splits)
    args = (q, k, v, 1 / math.sqrt(D), T(bt.shape, "int32", values=bt), T((B,), "int32", values=lens), att,
            bt.shape[1], HQ * D, D, ks[0], ks[1], ks[2], ks[0], ks[1], ks[2], HQ * splits * (D + 1),
            splits * (D + 1), D + 1, T((1,), "float32"), T((1,), "float32"))  # fmt: skip
    kw = dict(kv_group_num=1, BLOCK_DMODEL=128, BLOCK_DV=128, BLOCK_N=64, NUM_KV_SPLITS=splits,
              PAGE_SIZE=page, logit_cap=0.0, num_warps=4, num_stages=2, Lk=D, Lv=D,
              SLIDING_WINDOW=0)  # fmt: skip
    by, fl = attn_decode_bounds(lens, HQ, HKV, D)
    return Launch(v_decode._fwd_kernel_stage1, grid, args, kw, by, fl)


@case("vllm", f"{VLLM_DECODE}:_fwd_kernel_stage2", "bfloat16")
def v_decode_stage2_b32(rng):
    import v_decode

    B, HQ, D, splits = 32, 32, 128, 8
    lens = seqlens(rng, B, 3000, 5000)
    args = (T((B, HQ, splits, D + 1), "float32"), T((B, HQ, D), "bfloat16"), T((B, HQ), "float32"),
            T((B,), "int32", values=lens), HQ * splits * (D + 1), splits * (D + 1), D + 1, HQ * D, D,
            HQ)  # fmt: skip
    kw = dict(NUM_KV_SPLITS=splits, BLOCK_DV=128, Lv=D, SLIDING_WINDOW=0, num_warps=4, num_stages=2)
    by = B * HQ * splits * (D + 1) * 4 + B * HQ * D * 2
    return Launch(v_decode._fwd_kernel_stage2, (B, HQ), args, kw, by, B * HQ * splits * D * 4)


# ------------------------------------------------------------------------------ vLLM unified attention


def _unified(rng, num_seqs, qlens, kvlens, HQ=32, HKV=8, D=128, page=16, use_3d=False, segments=16):
    import v_unified

    qlens = np.asarray(qlens, np.int32)
    kvlens = np.asarray(kvlens, np.int32)
    cu = np.concatenate([[0], np.cumsum(qlens)]).astype(np.int32)
    ntok = int(cu[-1])
    bt, npages = block_table(rng, kvlens, page)
    qpk = HQ // HKV
    BLOCK_M = 16 if qpk <= 16 else 1 << (qpk - 1).bit_length()
    BLOCK_Q = BLOCK_M // qpk
    total_q_blocks = ntok // BLOCK_Q + num_seqs
    tile = 16 if use_3d else 32
    kshape = (npages, page, HKV, D)
    ks = contiguous_strides(kshape)
    q = T((ntok, HQ, D), "bfloat16")
    out = T((ntok, HQ, D), "bfloat16")
    kw = dict(output_ptr=out, query_ptr=q, key_cache_ptr=T(kshape, "bfloat16"),
              value_cache_ptr=T(kshape, "bfloat16"), sink_ptr=None,
              block_tables_ptr=T(bt.shape, "int32", values=bt),
              seq_lens_ptr=T((num_seqs,), "int32", values=kvlens), alibi_slopes_ptr=None, qq_bias_ptr=None,
              k_scale_cache_ptr=None, v_scale_cache_ptr=None, scale=1 / math.sqrt(D),
              q_scale=T((1,), "float32"), k_scale=T((1,), "float32"), v_scale=T((1,), "float32"),
              out_scale=1.0, softcap=0.0, num_query_heads=HQ, num_queries_per_kv=qpk,
              block_table_stride=bt.shape[1], query_stride_0=HQ * D, query_stride_1=D, output_stride_0=HQ * D,
              output_stride_1=D, qq_bias_stride_0=0, BLOCK_SIZE=page, TILE_SIZE=tile, HEAD_SIZE=D,
              HEAD_SIZE_PADDED=D, USE_ALIBI_SLOPES=False, USE_ALIBI_SQRT=False, USE_QQ_BIAS=False,
              USE_SOFTCAP=False, USE_SINKS=False, SLIDING_WINDOW=0, USE_CAUSAL=True, USE_PER_SEQ_CAUSAL=False,
              per_seq_causal_ptr=None, USE_MM_PREFIX=False, MAX_MM_RANGES=0, mm_prefix_range_ptr=None,
              rswa_prefix_lens_ptr=T((num_seqs,), "int32", values=kvlens), R_SWA_WINDOW=0, USE_R_SWA=False,
              stride_k_cache_0=ks[0], stride_k_cache_1=ks[1], stride_k_cache_2=ks[2], stride_k_cache_3=ks[3],
              stride_v_cache_0=ks[0], stride_v_cache_1=ks[1], stride_v_cache_2=ks[2], stride_v_cache_3=ks[3],
              stride_ks_blk=None, stride_ks_slot=None, stride_ks_head=None, stride_vs_blk=None,
              stride_vs_slot=None, stride_vs_head=None, query_start_len_ptr=T(cu.shape, "int32", values=cu),
              BLOCK_Q=BLOCK_Q, num_seqs=num_seqs, BLOCK_M=BLOCK_M,
              NUM_SEGMENTS_PER_SEQ=segments if use_3d else 1, USE_FP8=False, IS_3D=use_3d, KV_QUANT_MODE=0,
              Q_IS_FP8=False, CHUNK_LOOKBACK=-1, CHUNK_SIZE=-1, USE_TD=False, USE_TD_QO=False,
              MM_PREFIX_CLAMP_SW=False)  # fmt: skip
    if use_3d:
        kw.update(segm_output_ptr=T((ntok, HQ, segments, D), "float32"),
                  segm_max_ptr=T((ntok, HQ, segments), "float32"),
                  segm_expsum_ptr=T((ntok, HQ, segments), "float32"))  # fmt: skip
        grid = (total_q_blocks, HKV, segments)
    else:
        grid = (total_q_blocks, HKV)
    # bytes: the KV read once per KV head, Q and the output; flops: causal QK^T + PV
    by = int(kvlens.sum()) * HKV * D * 2 * 2 + 2 * ntok * HQ * D * 2
    fl = 0.0
    for ql, kl in zip(qlens, kvlens, strict=True):
        ctx = kl - ql
        fl += 4.0 * HQ * D * (ql * ctx + ql * (ql + 1) / 2)
    return Launch(v_unified.kernel_unified_attention, grid, (), kw, by, fl)


@case("vllm", f"{VLLM_UNIFIED}:kernel_unified_attention (2D, decode)", "bfloat16")
def v_unified_decode2d_b64_kv4k(rng):
    B = 64
    return _unified(rng, B, [1] * B, seqlens(rng, B, 3000, 5000))


@case("vllm", f"{VLLM_UNIFIED}:kernel_unified_attention (3D, 16 segments)", "bfloat16")
def v_unified_decode3d_b8_kv8k(rng):
    B = 8
    return _unified(rng, B, [1] * B, seqlens(rng, B, 7000, 8192), use_3d=True)


@case("vllm", f"{VLLM_UNIFIED}:reduce_segments")
def v_unified_reduce_segments_b8(rng):
    import v_unified

    B, HQ, D, seg = 8, 32, 128, 16
    lens = seqlens(rng, B, 7000, 8192)
    cu = np.arange(B + 1, dtype=np.int32)
    kw = dict(output_ptr=T((B, HQ, D), "bfloat16"), segm_output_ptr=T((B, HQ, seg, D), "float32"),
              segm_max_ptr=T((B, HQ, seg), "float32"), segm_expsum_ptr=T((B, HQ, seg), "float32"),
              seq_lens_ptr=T((B,), "int32", values=lens), num_seqs=B, num_query_heads=HQ, out_scale_inv=1.0,
              output_stride_0=HQ * D, output_stride_1=D, block_table_stride=600, TILE_SIZE=16, HEAD_SIZE=D,
              HEAD_SIZE_PADDED=D, query_start_len_ptr=T((B + 1,), "int32", values=cu), BLOCK_Q=4,
              NUM_SEGMENTS_PER_SEQ=seg, USE_FP8=False)  # fmt: skip
    by = B * HQ * seg * (D + 2) * 4 + B * HQ * D * 2
    return Launch(v_unified.reduce_segments, (B, HQ), (), kw, by, 0.0)


@case("vllm", f"{VLLM_UNIFIED}:kernel_unified_attention (2D, prefill)", "bfloat16")
def v_unified_prefill_4x2k(rng):
    return _unified(rng, 4, [2048] * 4, [2048] * 4)


@case("vllm", f"{VLLM_UNIFIED}:kernel_unified_attention (2D, 4 prefill chunks + 28 decodes)", "bfloat16")
def v_unified_chunked_mixed(rng):
    # 4 prefill chunks of 512 on 2k context + 28 decodes at ~4k
    ql = [512] * 4 + [1] * 28
    kl = [2560] * 4 + list(seqlens(rng, 28, 3000, 5000))
    return _unified(rng, 32, ql, kl)


# ------------------------------------------------------------------------------ vLLM prefix prefill


@case("vllm", "vllm/v1/attention/ops/prefix_prefill.py:_fwd_kernel", "bfloat16")
def v_prefix_prefill_8x512_ctx2k(rng):
    import v_prefix_prefill as m

    B, HQ, HKV, D, page, x = 8, 32, 8, 128, 16, 8
    qlen, ctx = 512, 2048
    seq = np.full(B, qlen + ctx, np.int32)
    start = (np.arange(B + 1) * qlen).astype(np.int32)
    bt, npages = block_table(rng, seq, page)
    ntok = B * qlen
    kc_shape = (npages, HKV, D // x, page, x)
    vc_shape = (npages, HKV, D, page)
    kcs, vcs = contiguous_strides(kc_shape), contiguous_strides(vc_shape)
    args = (T((ntok, HQ, D), "bfloat16"), T((ntok, HKV, D), "bfloat16"), T((ntok, HKV, D), "bfloat16"),
            T(kc_shape, "bfloat16"), T(vc_shape, "bfloat16"), None, T(bt.shape, "int32", values=bt),
            1 / math.sqrt(D), T((1,), "float32"), T((1,), "float32"), 1.0, T((B + 1,), "int32", values=start),
            T((B,), "int32", values=seq), x, T((ntok, HQ, D), "bfloat16"), bt.shape[1], 1, HQ * D, D, 1,
            HKV * D, D, 1, HKV * D, D, 1, HQ * D, D, 1)  # fmt: skip
    kw = dict(stride_k_cache_bs=kcs[0], stride_k_cache_h=kcs[1], stride_k_cache_d=kcs[2],
              stride_k_cache_bl=kcs[3], stride_k_cache_x=kcs[4], stride_v_cache_bs=vcs[0],
              stride_v_cache_h=vcs[1], stride_v_cache_d=vcs[2], stride_v_cache_bl=vcs[3], BLOCK_SIZE=32,
              PHYSICAL_BLOCK_SIZE=page, num_queries_per_kv=HQ // HKV, IN_PRECISION=None, BLOCK_DMODEL=D,
              BLOCK_DMODEL_PADDED=D, SLIDING_WINDOW=0, SKIP_DECODE=False, USE_FP8=False, BLOCK_M=128,
              BLOCK_N=64, num_unroll_cache=4, num_unroll_request=1, num_warps=4, num_stages=1,
              USE_SINKS=False, INTERLEAVED_V_PACK_FACTOR=0, CAUSAL=True, KV_FROM_CACHE=False)  # fmt: skip
    grid = (B, HQ, cdiv(qlen, 128))
    by = B * (ctx * HKV * D * 2 * 2 + qlen * (HQ * D * 2 * 2 + HKV * D * 2 * 2))
    fl = B * 4.0 * HQ * D * (qlen * ctx + qlen * (qlen + 1) / 2)
    return Launch(m._fwd_kernel, grid, args, kw, by, fl)


# ------------------------------------------------------------------------ vLLM chunked_prefill_paged_decode


@case("vllm", "vllm/v1/attention/ops/chunked_prefill_paged_decode.py:kernel_paged_attention_2d", "bfloat16")
def v_paged_decode_2d_b64_kv4k(rng):
    import v_chunked as m

    B, HQ, HKV, D, page, x = 64, 32, 8, 128, 16, 8
    lens = seqlens(rng, B, 3000, 5000)
    bt, npages = block_table(rng, lens, page)
    kc_shape = (npages, HKV, D // x, page, x)
    vc_shape = (npages, HKV, D, page)
    kcs, vcs = contiguous_strides(kc_shape), contiguous_strides(vc_shape)
    cu = np.arange(B + 1, dtype=np.int32)
    kw = dict(output_ptr=T((B, HQ, D), "bfloat16"), query_ptr=T((B, HQ, D), "bfloat16"),
              key_cache_ptr=T(kc_shape, "bfloat16"), value_cache_ptr=T(vc_shape, "bfloat16"), sink_ptr=None,
              block_tables_ptr=T(bt.shape, "int32", values=bt), seq_lens_ptr=T((B,), "int32", values=lens),
              alibi_slopes_ptr=None, scale=1 / math.sqrt(D), k_scale=T((1,), "float32"),
              v_scale=T((1,), "float32"), out_scale_inv=1.0, num_query_heads=HQ, num_queries_per_kv=HQ // HKV,
              num_queries_per_kv_padded=16, block_table_stride=bt.shape[1], query_stride_0=HQ * D,
              query_stride_1=D, output_stride_0=HQ * D, output_stride_1=D, BLOCK_SIZE=16,
              PHYSICAL_BLOCK_SIZE=page, HEAD_SIZE=D, HEAD_SIZE_PADDED=D, USE_ALIBI_SLOPES=False,
              SLIDING_WINDOW=0, x=x, stride_k_cache_0=kcs[0], stride_k_cache_1=kcs[1],
              stride_k_cache_2=kcs[2], stride_k_cache_3=kcs[3], stride_k_cache_4=kcs[4],
              stride_v_cache_0=vcs[0], stride_v_cache_1=vcs[1], stride_v_cache_2=vcs[2],
              stride_v_cache_3=vcs[3], filter_by_query_len=True,
              query_start_len_ptr=T((B + 1,), "int32", values=cu), USE_SINKS=False, USE_FP8=False,
              INTERLEAVED_V_PACK_FACTOR=0)  # fmt: skip
    by, fl = attn_decode_bounds(lens, HQ, HKV, D)
    return Launch(m.kernel_paged_attention_2d, (B, HKV), (), kw, by, fl)


# ------------------------------------------------------------------------------ MoE


def moe_align(rng, M, E, topk, block_m, skew=False):
    """moe_align_block_size on the CPU: token slots sorted by expert, each expert's padded to block_m;
    the expert of each block (-1 past the last) and the padded count."""
    if skew:
        p = np.exp(-np.arange(E) / (E / 4))
        p /= p.sum()
    else:
        p = np.full(E, 1.0 / E)
    topk_ids = np.stack([rng.choice(E, size=topk, replace=False, p=p) for _ in range(M)]).astype(np.int32)
    flat = topk_ids.reshape(-1)
    numel = flat.size
    max_padded = numel + E * (block_m - 1)
    sorted_ids = np.full(max_padded, numel, np.int32)
    expert_ids = np.full(cdiv(max_padded, block_m), -1, np.int32)
    off = 0
    for e in range(E):
        idx = np.nonzero(flat == e)[0]
        n = len(idx)
        padded = cdiv(n, block_m) * block_m
        sorted_ids[off : off + n] = idx
        expert_ids[off // block_m : (off + padded) // block_m] = e
        off += padded
    ntpp = np.array([off], np.int32)
    return topk_ids, sorted_ids, expert_ids, ntpp


H200_CFG = {  # vLLM's tuned fused_moe configs for the H200 (E=8, N=14336) at these batch sizes
    16: dict(BLOCK_SIZE_M=16, BLOCK_SIZE_N=64, BLOCK_SIZE_K=256, GROUP_SIZE_M=16, num_warps=4, num_stages=3),
    256: dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=256, BLOCK_SIZE_K=64, GROUP_SIZE_M=1, num_warps=8, num_stages=4),
    4096: dict(
        BLOCK_SIZE_M=128, BLOCK_SIZE_N=256, BLOCK_SIZE_K=64, GROUP_SIZE_M=16, num_warps=8, num_stages=4
    ),
}


def _vllm_moe(rng, M, E=8, topk=2, hidden=4096, inter=14336, which="w13", cfg=None, dtype="bfloat16"):
    import v_fused_moe as m

    cfg = dict(cfg or H200_CFG[M])
    bm = cfg["BLOCK_SIZE_M"]
    topk_ids, sid, eid, ntpp = moe_align(rng, M, E, topk, bm)
    if which == "w13":
        N, K, a_rows, mul, tk = 2 * inter, hidden, M, False, topk
    else:
        N, K, a_rows, mul, tk = hidden, inter, M * topk, True, 1
    A = T((a_rows, K), dtype)
    B = T((E, N, K), dtype)
    C = T((M, topk, N), dtype)
    EM = sid.size
    if M < bm:
        EM = min(EM, M * topk * bm)
    grid = (cdiv(EM, bm) * cdiv(N, cfg["BLOCK_SIZE_N"]),)
    # stride_cm = C.stride(1) = N, stride_cn = 1
    args = (A, B, None, C, None, None, None, T((M, topk), "float32"), T(sid.shape, "int32", values=sid),
            T(eid.shape, "int32", values=eid), T((1,), "int32", values=ntpp), None, N, K, EM, M * topk, K, 1,
            N * K, 1, K, N, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0)  # fmt: skip
    kw = dict(MUL_ROUTED_WEIGHT=mul, top_k=tk, compute_type=tl.bfloat16, use_fp8_w8a8=False,
              use_int8_w8a8=False, use_int8_w8a16=False, per_channel_quant=False,
              naive_block_assignment=False, HAS_BIAS=False, SWAP_AB=False, USE_TD=False, USE_TMA_B=False,
              USE_TMA_A=False, C_IS_SORTED=False, SPLIT_K=1, **cfg)  # fmt: skip
    active = len(np.unique(topk_ids))
    by = active * N * K * 2 + M * topk * (K + N) * 2
    fl = 2.0 * M * topk * N * K
    return Launch(m.fused_moe_kernel, grid, args, kw, by, fl)


@case("vllm", f"{VLLM_MOE}:fused_moe_kernel (w13, E=8 top2, M=16)", "bfloat16")
def v_fused_moe_w13_m16(rng):
    return _vllm_moe(rng, 16)


@case("vllm", f"{VLLM_MOE}:fused_moe_kernel (w13, E=8 top2, M=256)", "bfloat16")
def v_fused_moe_w13_m256(rng):
    return _vllm_moe(rng, 256)


@case("vllm", f"{VLLM_MOE}:fused_moe_kernel (w13, E=8 top2, M=4096)", "bfloat16")
def v_fused_moe_w13_m4096(rng):
    return _vllm_moe(rng, 4096)


@case("vllm", f"{VLLM_MOE}:fused_moe_kernel (w2, routed weights, M=256)", "bfloat16")
def v_fused_moe_w2_m256(rng):
    return _vllm_moe(rng, 256, which="w2")


@case("vllm", f"{VLLM_MOE}:fused_moe_kernel (fp8 w8a8 block [128,128], TMA B)", "float8_e4m3fn")
def v_fused_moe_fp8_block_tma_e64_m512(rng):
    """DeepSeek/Qwen-MoE-like: E=64, top8, hidden 4096, inter 1408; fp8 w8a8 block [128,128], TMA B."""
    import v_fused_moe as m

    M, E, topk, K, inter = 512, 64, 8, 4096, 1408
    N = 2 * inter
    cfg = dict(
        BLOCK_SIZE_M=64, BLOCK_SIZE_N=128, BLOCK_SIZE_K=128, GROUP_SIZE_M=32, num_warps=4, num_stages=3
    )
    topk_ids, sid, eid, ntpp = moe_align(rng, M, E, topk, 64, skew=True)
    A = T((M, K), "float8_e4m3fn")
    Bspec = T((E, N, K), "float8_e4m3fn")
    b_desc = tensor_descriptor(Bspec, [1, 128, 128])
    As = T((M, K // 128), "float32")
    Bs = T((E, N // 128, K // 128), "float32")
    C = T((M, topk, N), "bfloat16")
    EM = sid.size
    grid = (cdiv(EM, 64) * cdiv(N, 128),)
    bss = contiguous_strides((E, N // 128, K // 128))
    args = (A, Bspec, b_desc, C, None, As, Bs, T((M, topk), "float32"), T(sid.shape, "int32", values=sid),
            T(eid.shape, "int32", values=eid), T((1,), "int32", values=ntpp), None, N, K, EM, M * topk, K, 1,
            N * K, 1, K, N, 1, K // 128, 1, bss[0], bss[2], bss[1], 0, 0, 128, 128)  # fmt: skip
    kw = dict(MUL_ROUTED_WEIGHT=False, top_k=topk, compute_type=tl.bfloat16, use_fp8_w8a8=True,
              use_int8_w8a8=False, use_int8_w8a16=False, per_channel_quant=False,
              naive_block_assignment=False, HAS_BIAS=False, SWAP_AB=False, USE_TD=False, USE_TMA_B=True,
              USE_TMA_A=False, C_IS_SORTED=False, SPLIT_K=1, **cfg)  # fmt: skip
    active = len(np.unique(topk_ids))
    by = active * N * K + M * topk * N * 2 + M * K
    fl = 2.0 * M * topk * N * K
    return Launch(m.fused_moe_kernel, grid, args, kw, by, fl)


@case("sglang", "sglang/kernels/ops/moe/fused_moe_triton_kernels.py:fused_moe_kernel (w13, PDL)", "bfloat16")
def s_fused_moe_w13_m256(rng):
    import s_fused_moe as m

    M, E, topk, K, inter = 256, 8, 2, 4096, 14336
    N = 2 * inter
    cfg = dict(H200_CFG[256])
    bm = cfg["BLOCK_SIZE_M"]
    topk_ids, sid, eid, ntpp = moe_align(rng, M, E, topk, bm)
    grid = (cdiv(sid.size, bm) * cdiv(N, cfg["BLOCK_SIZE_N"]),)
    args = (T((M, K), "bfloat16"), None, T((E, N, K), "bfloat16"), None, None, T((M, topk, N), "bfloat16"),
            None, None, T((M, topk), "float32"), T(sid.shape, "int32", values=sid),
            T(eid.shape, "int32", values=eid), T((1,), "int32", values=ntpp), None, N, K, sid.size, M * topk,
            K, 1, N * K, 1, K, 0, 0, N, 1, 0, 0, 0, 0, 0, 0, 0)  # fmt: skip
    kw = dict(MUL_ROUTED_WEIGHT=False, top_k=topk, compute_type=tl.bfloat16, use_fp8_w8a8=False,
              use_int8_w8a8=False, use_int8_w8a16=False, per_channel_quant=False, even_Ks=True,
              c_sorted=False, swap_ab=False, FUSE_ADD_TO_OUTPUT=False, A_OUTPUT_SLICES=1,
              A_OUTPUT_SLICE_WIDTH=0, A_OUTPUT_SLICE_K=0, MASK_OUTPUT=False, FUSE_SUM_ALL_REDUCE=False,
              ROUTER_TOPK=1, FUSE_SWIGLU=False, USE_GDC=True, GDC_EARLY=True, launch_pdl=True,
              **cfg)  # fmt: skip
    active = len(np.unique(topk_ids))
    by = active * N * K * 2 + M * topk * (K + N) * 2
    return Launch(m.fused_moe_kernel, grid, args, kw, by, 2.0 * M * topk * N * K)


# ------------------------------------------------------------------------------ fp8 quantisation and GEMM


@case("vllm", f"{VLLM_FP8}:_per_token_group_quant_fp8")
def v_per_token_group_quant_fp8_4096x7168(rng):
    import v_fp8 as m

    M, K, g = 4096, 7168, 128
    rows = M * K // g
    args = (T((M, K), "bfloat16"), T((M, K), "float8_e4m3fn"), T((M, K // g), "float32"), g, K, K, 1e-10)
    kw = dict(fp8_min=-448.0, fp8_max=448.0, use_ue8m0=False, BLOCK=128, num_warps=1, num_stages=1)
    return Launch(m._per_token_group_quant_fp8, (rows,), args, kw, M * K * 3 + rows * 4, 0.0)


@case("vllm", f"{VLLM_FP8}:_w8a8_triton_block_scaled_mm", "float8_e4m3fn")
def v_w8a8_block_fp8_mm_1024x4096x14336(rng):
    import v_fp8 as m

    M, N, K = 1024, 4096, 14336
    cfg = dict(
        BLOCK_SIZE_M=64, BLOCK_SIZE_N=128, BLOCK_SIZE_K=128, GROUP_SIZE_M=32, num_warps=4, num_stages=2
    )
    grid = (cdiv(M, 64) * cdiv(N, 128),)
    args = (T((M, K), "float8_e4m3fn"), T((N, K), "float8_e4m3fn"), T((M, N), "bfloat16"),
            T((M, K // 128), "float32"), T((N // 128, K // 128), "float32"), M, N, K, 128, 128, K, 1, 1, K, N,
            1, K // 128, 1, 1, K // 128)  # fmt: skip
    return Launch(m._w8a8_triton_block_scaled_mm, grid, args, cfg, M * K + N * K + M * N * 2, 2.0 * M * N * K)


@case("sglang", "sglang/kernels/ops/quantization/fp8_kernel.py:_per_token_group_quant_8bit")
def s_per_token_group_quant_8bit_4096x7168(rng):
    import s_fp8 as m

    M, K, g = 4096, 7168, 128
    rows = M * K // g
    args = (T((M, K), "bfloat16"), T((M, K), "float8_e4m3fn"), T((M, K // g), "float32"), g, g, 1e-10, -448.0,
            448.0)  # fmt: skip
    kw = dict(BLOCK=128, num_warps=1, num_stages=1)
    return Launch(m._per_token_group_quant_8bit, (rows,), args, kw, M * K * 3 + rows * 4, 0.0)


# ------------------------------------------------------------------------------ LoRA


def _lora_shrink(rng, slices):
    import v_lora_shrink as m

    M, K, R, L = 256, 4096, 16, 4
    mapping = rng.integers(0, L, size=M).astype(np.int32)
    order = np.argsort(mapping, kind="stable").astype(np.int32)
    ids = np.arange(L, dtype=np.int32)
    counts = np.array([(mapping == i).sum() for i in ids], np.int32)
    start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    BM, BN, BK, SK = 32, 16, 32, 8  # vLLM's default config for a batch of 128 or more
    # one slice: the weights tensor itself; several: a uint64 array of their addresses
    lora = T((L, R, K), "bfloat16") if slices == 1 else T((slices,), "uint64")
    s0, s1, s2 = R * K, K, 1
    grid = (SK * cdiv(M, BM) * cdiv(R, BN), slices, L)
    args = (T((M, K), "bfloat16"), lora, T((slices, M, R), "float32"), M, R, K,
            T((M,), "int32", values=order), T((L,), "int32", values=counts),
            T((L + 1,), "int32", values=start), T((L,), "int32", values=ids), 1.0, K, 1, s0, s1, s2, M * R, R,
            1)  # fmt: skip
    kw = dict(BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, EVEN_K=K % (BK * SK) == 0, SPLIT_K=SK, GROUP_SIZE_M=8,
              SLICE_NUM=slices, USE_GDC=False, launch_pdl=False, num_warps=4, num_stages=2)  # fmt: skip
    by = slices * (M * K * 2 + L * R * K * 2 + M * R * 4)
    pointees = {} if slices == 1 else {1: T((L, R, K), "bfloat16")}
    return Launch(m._lora_shrink_kernel, grid, args, kw, by, 2.0 * slices * M * R * K, pointees)


LORA_SHRINK = "vllm/lora/ops/triton_ops/lora_shrink_op.py:_lora_shrink_kernel"


@case("vllm", f"{LORA_SHRINK} (1 slice)", "bfloat16")
def v_lora_shrink_1slice_m256(rng):
    return _lora_shrink(rng, 1)


@case("vllm", f"{LORA_SHRINK} (3 slices, pointer array)", "bfloat16")
def v_lora_shrink_3slice_ptrarray_m256(rng):
    return _lora_shrink(rng, 3)


# ------------------------------------------------------------------------------ KV cache write, merge


@case("vllm", "vllm/v1/attention/ops/triton_reshape_and_cache_flash.py:reshape_and_cache_kernel_flash")
def v_reshape_and_cache_flash_4096tok(rng):
    import v_reshape_cache as m

    ntok, H, D, page = 4096, 8, 128, 16
    nblocks = 2048
    slots = rng.permutation(nblocks * page)[:ntok].astype(np.int64)
    kc = (nblocks, page, H, D)
    cs = contiguous_strides(kc)
    n = H * D
    tile = min(2048, 1 << (n - 1).bit_length())
    kw = dict(key_ptr=T((ntok, H, D), "bfloat16"), value_ptr=T((ntok, H, D), "bfloat16"),
              key_cache_ptr=T(kc, "bfloat16"), value_cache_ptr=T(kc, "bfloat16"),
              slot_mapping_ptr=T((ntok,), "int64", values=slots), k_scale=T((1,), "float32"),
              v_scale=T((1,), "float32"), key_stride=H * D, value_stride=H * D, block_stride=cs[0],
              head_stride=cs[2], dim_stride_k=1, dim_stride_v=1, page_stride=cs[1], num_heads=H, head_size=D,
              block_size=page, x=1, USE_HEAD_MAJOR_LAYOUT=False, INTERLEAVED_V_PACK_FACTOR=0,
              FP8_KV_CACHE=False, TILE_SIZE=tile, num_warps=16, num_stages=10)  # fmt: skip
    return Launch(m.reshape_and_cache_kernel_flash, (ntok, cdiv(n, tile)), (), kw, ntok * n * 2 * 2 * 2, 0.0)


@case("vllm", "vllm/v1/attention/ops/triton_merge_attn_states.py:merge_attn_states_kernel")
def v_merge_attn_states_4096tok(rng):
    import v_merge as m

    ntok, H, D = 4096, 32, 128
    args = (T((ntok, H, D), "bfloat16"), None, T((ntok, H, D), "bfloat16"), T((H, ntok), "float32"),
            T((ntok, H, D), "bfloat16"), T((H, ntok), "float32"), D, D, ntok, 1, ntok, 1, 0, 0, None, ntok, D,
            D, False, False)  # fmt: skip
    return Launch(m.merge_attn_states_kernel, (ntok, H), args, {}, ntok * H * (D * 2 * 3 + 8), 0.0)


# ------------------------------------------------------------------------------ SGLang attention


def _sgl_decode_inputs(rng, B, HQ, HKV, D, lo, hi, splits=8):
    """Sequence lengths, their offsets into the KV index array, the indices (slots of a shuffled pool)."""
    lens = seqlens(rng, B, lo, hi)
    indptr = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    total = int(indptr[-1])
    pool = total + 1024
    indices = rng.permutation(pool)[:total].astype(np.int64)
    return lens, indptr, indices, pool


@case("sglang", f"{SGL_DECODE}:_fwd_grouped_kernel_stage1", "bfloat16")
def s_decode_grouped_stage1_b32_kv4k(rng):
    import s_decode as m

    B, HQ, HKV, D, splits = 32, 32, 8, 128, 8
    lens, indptr, indices, pool = _sgl_decode_inputs(rng, B, HQ, HKV, D, 3000, 5000)
    nsplit = np.full(B, splits, np.int32)
    args = (T((B, HQ, D), "bfloat16"), T((pool, HKV, D), "bfloat16"), T((pool, HKV, D), "bfloat16"),
            1 / math.sqrt(D), T(indptr.shape, "int32", values=indptr),
            T(indices.shape, "int64", values=indices), T((B, HQ, splits, D), "float32"),
            T((B, HQ, splits), "float32"), T((B,), "int32", values=nsplit), HQ * D, D, HKV * D, D, HKV * D, D,
            HKV * D, HKV * D, HKV * D, HKV * D, HQ * splits * D, splits * D, D)  # fmt: skip
    kw = dict(kv_group_num=HQ // HKV, q_head_num=HQ, BLOCK_DMODEL=128, BLOCK_DPE=0, BLOCK_DV=128, BLOCK_N=32,
              BLOCK_H=16, MIN_BLOCK_KV=32, logit_cap=0.0, xai_temperature_len=-1, num_warps=4, num_stages=2,
              Lk=D, Lv=D, HAS_MLA=False, USE_PDL=False, IS_GFX1250=False, PAGE_SIZE=1, SCORE_MOD=None,
              Aux0=None, aux0_stride_t=0, aux0_stride_h=0, aux0_len=0, forced_kv_splits=0, USE_FORCED=False,
              uneven_batch=None, ROTATE_BATCH=False)  # fmt: skip
    by, fl = attn_decode_bounds(lens, HQ, HKV, D)
    return Launch(m._fwd_grouped_kernel_stage1, (B, cdiv(HQ, min(16, HQ // HKV)), splits), args, kw, by, fl)


@case("sglang", f"{SGL_DECODE}:_fwd_kernel_stage2", "bfloat16")
def s_decode_stage2_b32(rng):
    import s_decode as m

    B, HQ, D, splits = 32, 32, 128, 8
    lens = seqlens(rng, B, 3000, 5000)
    indptr = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    args = (T((B, HQ, splits, D), "float32"), T((B, HQ, splits), "float32"), T((B, HQ, D), "bfloat16"), 1.0,
            T(indptr.shape, "int32", values=indptr), T((B,), "int32", values=np.full(B, splits, np.int32)),
            None, HQ * splits * D, splits * D, D, HQ * D, D)  # fmt: skip
    kw = dict(MAX_KV_SPLITS=splits, MIN_BLOCK_KV=32, BLOCK_DV=128, Lv=D, HAS_SINK=False, USE_PDL=False,
              FORCED_KV_SPLITS=0, num_warps=4, num_stages=2)  # fmt: skip
    by = B * HQ * splits * (D + 1) * 4 + B * HQ * D * 2
    return Launch(m._fwd_kernel_stage2, (B, HQ), args, kw, by, B * HQ * splits * D * 4)


@case("sglang", "sglang/kernels/ops/attention/prefill_attention.py:_fwd_kernel (causal)", "bfloat16")
def s_prefill_attention_causal_4x2k(rng):
    import s_prefill as m

    B, HQ, HKV, D, L = 4, 32, 8, 128, 2048
    ntok = B * L
    start = (np.arange(B) * L).astype(np.int32)
    seq = np.full(B, L, np.int32)
    args = (T((ntok, HQ, D), "bfloat16"), T((ntok, HKV, D), "bfloat16"), T((ntok, HKV, D), "bfloat16"),
            1 / math.sqrt(D), T((B,), "int32", values=start), T((B,), "int32", values=seq),
            T((ntok, HQ, D), "bfloat16"), HQ * D, D, HKV * D, D, HKV * D, D, HQ * D, D)  # fmt: skip
    kw = dict(kv_group_num=HQ // HKV, BLOCK_M=128, BLOCK_DMODEL=128, BLOCK_N=128, IS_CAUSAL=True, Lk=D,
              num_warps=8, num_stages=1)  # fmt: skip
    by = ntok * (HQ * D * 2 * 2 + HKV * D * 2 * 2)
    fl = B * 4.0 * HQ * D * L * (L + 1) / 2
    return Launch(m._fwd_kernel, (B, HQ, cdiv(L, 128)), args, kw, by, fl)

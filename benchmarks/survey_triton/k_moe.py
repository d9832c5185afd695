"""Fused mixture-of-experts GEMMs (vLLM-style), the blind set for blocks chosen through an index tensor.

Each program takes one ``BM``-row block of the expert-sorted token list (``sorted_token_ids``, padded per
expert to a multiple of ``BM`` with the invalid id ``num_valid_tokens``) and one ``BN``-column block, gathers
its tokens' rows of A, and multiplies them by the ``K x N`` weight of the block's expert (``expert_ids``,
read by the program: the B block it reads is chosen by data, not by its row coordinate). Programs are
grouped ``GROUP_M`` row blocks at a time, as vLLM's kernel does; programs past the padded token count
return at once. The routing is random top-k (fixed seed), aligned as vLLM's ``moe_align_block_size`` does.
Shapes are those of public MoE models' expert projections (Mixtral 8x7B, DeepSeek-V2-Lite, Qwen1.5-MoE) at
prefill and decode batch sizes. Names start with ``fused_moe`` (family ``gemm``) and end in ``_moe``.
"""

import numpy as np
import triton
import triton.language as tl
from harness import Case, T


@triton.jit
def moe_gemm(
    a_ptr,
    b_ptr,
    c_ptr,
    sorted_token_ids_ptr,
    expert_ids_ptr,
    num_tokens_post_padded_ptr,
    N,
    K,
    EM,
    num_valid_tokens,
    stride_am,
    stride_be,
    stride_bk,
    stride_bn,
    stride_cm,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    GROUP_M: tl.constexpr,
    TOP_K: tl.constexpr,
):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(EM, BM)
    num_pid_n = tl.cdiv(N, BN)
    in_group = GROUP_M * num_pid_n
    first_m = (pid // in_group) * GROUP_M
    group_rows = tl.minimum(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % in_group) % group_rows
    pid_n = (pid % in_group) // group_rows
    if pid_m * BM >= tl.load(num_tokens_post_padded_ptr):
        return
    token = tl.load(sorted_token_ids_ptr + pid_m * BM + tl.arange(0, BM))
    valid = token < num_valid_tokens
    cols = (pid_n * BN + tl.arange(0, BN)) % N
    ks = tl.arange(0, BK)
    a_ptrs = a_ptr + (token[:, None] // TOP_K) * stride_am + ks[None, :]
    expert = tl.load(expert_ids_ptr + pid_m).to(tl.int64)
    b_ptrs = b_ptr + expert * stride_be + ks[:, None] * stride_bk + cols[None, :] * stride_bn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        left = K - k * BK
        a = tl.load(a_ptrs, mask=valid[:, None] & (ks[None, :] < left), other=0.0)
        b = tl.load(b_ptrs, mask=ks[:, None] < left, other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    out_cols = pid_n * BN + tl.arange(0, BN)
    c_ptrs = c_ptr + token[:, None] * stride_cm + out_cols[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=valid[:, None] & (out_cols[None, :] < N))


def routing(tokens: int, experts: int, top_k: int, bm: int, seed: int):
    """Random top-k routing aligned to ``bm``-row blocks: (sorted token ids padded with the invalid id
    ``tokens * top_k``, the expert of each block, the padded length), the buffers sized for the worst case
    as vLLM sizes them."""
    rng = np.random.default_rng(seed)
    choice = np.argsort(rng.random((tokens, experts)), axis=1)[:, :top_k]  # distinct experts per token
    flat = choice.reshape(-1)
    invalid = tokens * top_k
    ids, block_experts = [], []
    for e in range(experts):
        mine = np.flatnonzero(flat == e)
        padded = -(-mine.size // bm) * bm
        ids.append(np.concatenate([mine, np.full(padded - mine.size, invalid)]))
        block_experts += [e] * (padded // bm)
    sorted_ids = np.concatenate(ids).astype(np.int32)
    used = sorted_ids.size
    cap = tokens * top_k + experts * (bm - 1)
    sorted_ids = np.concatenate([sorted_ids, np.full(cap - used, invalid, np.int32)])
    blocks = -(-cap // bm)
    expert_ids = np.array(block_experts + [0] * (blocks - len(block_experts)), dtype=np.int32)
    return sorted_ids, expert_ids, used, cap


# (name, tokens, experts, top_k, K, N, BM, BN, BK, GROUP_M, warps, stages)
SHAPES = (
    ("mixtral_up_t4096_g1", 4096, 8, 2, 4096, 14336, 64, 128, 64, 1, 4, 3),
    ("mixtral_up_t4096_g16", 4096, 8, 2, 4096, 14336, 64, 128, 64, 16, 4, 3),
    ("mixtral_down_t4096_g1", 4096, 8, 2, 14336, 4096, 64, 128, 64, 1, 4, 3),
    ("mixtral_up_t1024_g8", 1024, 8, 2, 4096, 14336, 64, 128, 64, 8, 8, 4),
    ("mixtral_up_t64_g1", 64, 8, 2, 4096, 14336, 16, 128, 128, 1, 4, 4),
    ("dsv2lite_up_t8192_g8", 8192, 64, 6, 2048, 2816, 64, 128, 64, 8, 4, 3),
    ("dsv2lite_up_t8192_g1", 8192, 64, 6, 2048, 2816, 64, 128, 64, 1, 4, 3),
    ("qwen15_down_t2048_g8", 2048, 60, 4, 1408, 2048, 64, 64, 64, 8, 4, 4),
)


# A second, blind set (stop 75: other models, token counts, tiles and GROUP_M than SHAPES, predicted with the
# model that stop 75's fixes made from SHAPES, before timing; `benchmarks/ncu_diag/moe.py` with MOE_SET=blind)
BLIND_SHAPES = (
    ("mixtral_down_t1024_g8", 1024, 8, 2, 14336, 4096, 64, 128, 64, 8, 4, 3),
    ("dsv2lite_down_t4096_g8", 4096, 64, 6, 1408, 2048, 64, 64, 64, 8, 4, 4),
    ("qwen15_up_t2048_g1", 2048, 60, 4, 2048, 2816, 64, 128, 64, 1, 4, 3),
    ("mixtral_up_t2048_g4_m128", 2048, 8, 2, 4096, 14336, 128, 128, 64, 4, 8, 3),
    ("mixtral_up_t512_g1_m32", 512, 8, 2, 4096, 14336, 32, 128, 64, 1, 4, 4),
    ("olmoe_up_t4096_g8", 4096, 64, 8, 2048, 2048, 64, 128, 64, 8, 4, 3),
    ("mixtral_down_t4096_g8_m128", 4096, 8, 2, 14336, 4096, 128, 128, 64, 8, 8, 3),
    ("olmoe_down_t8192_g1", 8192, 64, 8, 1024, 2048, 64, 128, 64, 1, 4, 3),
)


def moe_cases(shapes: tuple = SHAPES, seed0: int = 0) -> list[Case]:
    out = []
    bf = "bfloat16"
    for i, (name, tokens, experts, top_k, k, n, bm, bn, bk, group, warps, stages) in enumerate(shapes):
        sorted_ids, expert_ids, used, cap = routing(tokens, experts, top_k, bm, seed=seed0 + i)
        grid = (triton.cdiv(cap, bm) * triton.cdiv(n, bn),)
        args = (
            T((tokens, k), bf),
            T((experts, n, k), bf),  # vLLM's weights: (E, N, K), K contiguous
            T((tokens * top_k, n), bf),
            T((cap,), "int32", values=sorted_ids),
            T((expert_ids.size,), "int32", values=expert_ids),
            T((1,), "int32", values=np.array([used], np.int32)),
            n,
            k,
            cap,
            tokens * top_k,
            k,
            n * k,
            1,
            k,
            n,
        )
        blocks_used = used // bm
        weights = len(set(expert_ids[:blocks_used].tolist())) * n * k * 2
        out.append(
            Case(
                f"fused_moe_{name}_moe",
                "B block chosen by a loaded expert id; A rows gathered through token ids; early return",
                moe_gemm,
                grid,
                args,
                dict(BM=bm, BN=bn, BK=bk, GROUP_M=group, TOP_K=top_k, num_warps=warps, num_stages=stages),
                tokens * k * 2 + weights + tokens * top_k * n * 2,
                2.0 * used * n * k,
            )
        )
    return out

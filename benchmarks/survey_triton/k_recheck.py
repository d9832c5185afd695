"""New shapes of the survey kernels the stop-20 fixes were read from (split-KV and paged decode, varlen
attention, Liger cross-entropy with ignored rows, dropout, fp32 GEMM, MoE): an out-of-sample check of those
fixes, measured after their predictions were recorded (``recheck_cases``; names end in ``_r``)."""

import numpy as np
from harness import Case, T
from k_attn import decode_splitk_case, varlen_fwd
from k_gemm import gemm_fp32_tf32
from k_mem import cross_entropy_fwd_bwd, dropout_rand
from k_variants import paged_decode_case


def _cd(a, b):
    return (a + b - 1) // b


def recheck_cases():
    f16, f32 = "float16", "float32"
    out = []
    # split-KV decode: batch 16, 32 q heads over 8 kv heads, 16k keys, 8 and 32 splits
    for ns, L in ((8, 16384), (32, 4096)):
        name = f"decode_splitk_ns{ns}_L{L}_r"
        out.append(decode_splitk_case(name, "split-KV decode, new splits and lengths", 16, 32, 8, L, ns))
    # paged decode: batch 64 of 2048 keys in pages of 32, GQA 32/4
    rng = np.random.default_rng(7)
    out.append(
        paged_decode_case(
            "paged_decode_b64_r", "paged decode, new batch / page size / GQA", 64, 32, 4, 2048, 32, rng
        )
    )
    # varlen attention: 12 sequences of mixed lengths, 16 heads
    lens = [3000, 128, 900, 2500, 4000, 64, 1200, 700, 1800, 256, 3500, 1000]
    cu = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    tot, Hh = int(cu[-1]), 16
    out.append(
        Case(
            "varlen_fwd_mixed_r",
            "varlen attention, new length mix",
            varlen_fwd,
            (_cd(max(lens), 128), Hh, len(lens)),
            (
                T((tot, Hh, 128), f16),
                T((tot, Hh, 128), f16),
                T((tot, Hh, 128), f16),
                T((tot, Hh, 128), f16),
                T((len(cu),), "int32", values=cu),
                0.088,
                Hh,
            ),  # fmt: skip
            dict(HEAD_DIM=128, BLOCK_M=128, BLOCK_N=64, num_warps=8, num_stages=3),
            4 * tot * Hh * 128 * 2,
            4.0 * Hh * 128 * sum(n * n for n in lens),
        )
    )
    # Liger cross-entropy over a 128k vocabulary, a quarter of the rows ignored (labels given)
    nr, V = 2048, 128256
    labels = rng.integers(0, V, nr).astype(np.int64)
    labels[rng.random(nr) < 0.25] = -100
    out.append(
        Case(
            "cross_entropy_v128k_r",
            "Liger cross-entropy, 128k vocabulary, 25% ignored rows",
            cross_entropy_fwd_bwd,
            (nr,),
            (T((nr, V), "bfloat16"), T((nr,), "int64", values=labels), T((nr,), f32), V, V, -100),
            dict(BLOCK=8192, num_warps=16),
            2 * nr * V * 2,
        )
    )
    # dropout at a new size and block
    n = 1 << 26
    out.append(
        Case(
            "dropout_64m_r",
            "tl.rand dropout, 64M elements, 2048-element blocks",
            dropout_rand,
            (_cd(n, 2048),),
            (T((n,), f16), T((n,), f16), n, 0.2, 42),
            dict(BLOCK=2048, num_warps=8),
            2 * n * 2,
        )
    )
    # fp32 (TF32) GEMMs through the survey's own kernel at new shapes
    for M, N, K in ((2048, 2048, 8192), (8192, 4096, 1024)):
        out.append(
            Case(
                f"gemm_fp32_tf32_{M}x{N}x{K}_r",
                "TF32 dot, row-major B, new shape",
                gemm_fp32_tf32,
                (_cd(M, 128), _cd(N, 128)),
                (T((M, K), f32), T((K, N), f32), T((M, N), f32), M, N, K, K, N, N),
                dict(BM=128, BN=128, BK=32, PREC="tf32", num_warps=8, num_stages=3),
                (M * K + K * N + M * N) * 4,
                2.0 * M * N * K,
                peak=494e12,
            )
        )
    return out

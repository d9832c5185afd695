"""Runs one reference kernel under the Triton interpreter on tiny CPU tensors and checks it against torch.

Used by the tests in this folder as ``python interpreted.py NAME`` in a subprocess: TRITON_INTERPRET must be
set before triton is imported, and setting it in the pytest process would leak into the frontend tests, which
compile real TTGIR. Exits non-zero (an AssertionError with the worst error) if a result is off.
"""

from __future__ import annotations

import os
import sys

if os.environ.get("TRITON_INTERPRET") != "1":
    raise SystemExit("run with TRITON_INTERPRET=1 (the tests in tests/kernels do)")

import torch  # noqa: E402

# fp16 inputs, fp32 accumulation: a few fp16 ulps of the output's magnitude
TOL_FP16 = 2e-2
TOL_FP32 = 1e-4


def close(name: str, got: torch.Tensor, want: torch.Tensor, tol: float) -> None:
    err = (got.float() - want.float()).abs().max().item()
    assert err <= tol, f"{name}: max abs error {err:.3g} > {tol}"


def check_gemm() -> None:
    from tilesight.kernels.triton.gemm import matmul, matmul_grid

    assert matmul_grid(33, 70, {"BLOCK_M": 16, "BLOCK_N": 32}) == (3 * 3,)
    # unaligned M, N, K (K tail masked), group larger than the tile rows, and a transposed (column-major) B
    for (m, n, k), group_m in (((37, 29, 45), 2), ((16, 64, 32), 8), ((50, 18, 70), 1)):
        a = torch.randn(m, k, dtype=torch.float16)
        b_t = torch.randn(n, k, dtype=torch.float16)
        for b in (b_t.T.contiguous(), b_t.T):
            c = matmul(a, b, block_m=16, block_n=16, block_k=16, group_m=group_m, num_warps=4, num_stages=2)
            assert c.dtype == torch.float16 and c.shape == (m, n)
            close(f"gemm {m}x{n}x{k} strides {b.stride()}", c, a.float() @ b.float(), TOL_FP16)


def check_persistent_gemm() -> None:
    from tilesight.kernels.triton.persistent_gemm import matmul_persistent, persistent_grid

    assert persistent_grid(64, 64, {"BLOCK_M": 16, "BLOCK_N": 16, "NUM_SMS": 5}) == (5,)
    assert persistent_grid(16, 32, {"BLOCK_M": 16, "BLOCK_N": 16, "NUM_SMS": 5}) == (2,)
    a = torch.randn(45, 33, dtype=torch.float16)
    b = torch.randn(33, 40, dtype=torch.float16)
    for num_sms in (1, 3, 64):  # one program does everything / strided / more programs than tiles
        c = matmul_persistent(
            a, b, block_m=16, block_n=16, block_k=16, group_m=2, num_warps=4, num_stages=2, num_sms=num_sms
        )
        close(f"persistent gemm num_sms={num_sms}", c, a.float() @ b.float(), TOL_FP16)


def check_tma_gemm() -> None:
    import triton
    from tilesight.kernels.triton.tma_gemm import matmul_tma

    triton.set_allocator(lambda size, alignment, stream: torch.empty(size, dtype=torch.int8))
    for m, n, k in ((32, 48, 64), (40, 24, 56)):  # the second has partial tiles in M, N and K
        a = torch.randn(m, k, dtype=torch.float16)
        b = torch.randn(k, n, dtype=torch.float16)
        c = matmul_tma(a, b, block_m=16, block_n=16, block_k=16, group_m=2, num_warps=4, num_stages=2)
        close(f"tma gemm {m}x{n}x{k}", c, a.float() @ b.float(), TOL_FP16)


def check_softmax() -> None:
    from tilesight.kernels.triton.softmax import softmax

    for shape in ((5, 37), (3, 64), (1, 1)):
        x = torch.randn(shape, dtype=torch.float32) * 4
        close(f"softmax {shape}", softmax(x), torch.softmax(x, dim=-1), TOL_FP32)
    x = torch.randn(4, 100, dtype=torch.float16)[:, :60]  # rows with a stride larger than the width
    close("softmax strided rows", softmax(x), torch.softmax(x.float(), dim=-1), TOL_FP16)


def check_layernorm() -> None:
    from tilesight.kernels.triton.layernorm import layernorm

    x = torch.randn(6, 45, dtype=torch.float32) * 3 + 1
    w, b = torch.randn(45), torch.randn(45)
    y, mean, rstd = layernorm(x, w, b, eps=1e-5)
    close("layernorm y", y, torch.nn.functional.layer_norm(x, (45,), w, b, eps=1e-5), TOL_FP32 * 10)
    close("layernorm mean", mean, x.mean(dim=1), TOL_FP32)
    close("layernorm rstd", rstd, torch.rsqrt(x.var(dim=1, unbiased=False) + 1e-5), TOL_FP32)


def check_rmsnorm() -> None:
    from tilesight.kernels.triton.rmsnorm import rmsnorm

    for n_cols, block in (
        (37, 16),
        (64, 64),
        (100, 128),
    ):  # several chunks with a tail, one chunk, one partial
        x = torch.randn(4, n_cols, dtype=torch.float32)
        w = torch.randn(n_cols)
        want = x * torch.rsqrt(x.pow(2).mean(dim=1, keepdim=True) + 1e-6) * w
        close(f"rmsnorm n={n_cols} block={block}", rmsnorm(x, w, eps=1e-6, block=block), want, TOL_FP32 * 10)


def check_vector_add() -> None:
    from tilesight.kernels.triton.vector_add import add, add_grid

    assert add_grid(1000, {"BLOCK": 256}) == (4,)
    x, y = torch.randn(1000), torch.randn(1000)
    close("vector add", add(x, y, block=256), x + y, 0.0)


def check_attention() -> None:
    from tilesight.kernels.triton.attention import attention

    sdpa = torch.nn.functional.scaled_dot_product_attention
    # n_ctx 40 is not a multiple of the blocks: both the query and the key tails are masked
    for causal in (False, True):
        for n_ctx, block_m, block_n in ((40, 16, 16), (32, 32, 16)):
            q, k, v = (torch.randn(2, 3, n_ctx, 16, dtype=torch.float16) for _ in range(3))
            o = attention(q, k, v, causal=causal, block_m=block_m, block_n=block_n)
            want = sdpa(q.float(), k.float(), v.float(), is_causal=causal)
            close(f"attention causal={causal} n={n_ctx} {block_m}x{block_n}", o, want, TOL_FP16)
    # CAUSAL_MASK=False (the timing ablation): the causal loop bounds without the per-element mask, so a
    # query attends to every key up to the end of its own query block
    from tilesight.kernels.triton.attention import attention_fwd_kernel, attention_grid

    n_ctx, block_m, block_n = 40, 16, 16
    q, k, v = (torch.randn(2, 3, n_ctx, 16, dtype=torch.float16) for _ in range(3))
    o = torch.empty_like(q)
    attention_fwd_kernel[attention_grid(n_ctx, 6, {"BLOCK_M": block_m})](
        q, k, v, o, 16**-0.5, *q.stride(), 3, n_ctx,
        HEAD_DIM=16, BLOCK_M=block_m, BLOCK_N=block_n, CAUSAL=True, CAUSAL_MASK=False,
    )  # fmt: skip
    block_end = (torch.arange(n_ctx) // block_m + 1) * block_m
    visible = torch.arange(n_ctx)[None, :] < block_end[:, None]
    want = sdpa(q.float(), k.float(), v.float(), attn_mask=visible)
    close("attention causal bounds, mask skipped", o, want, TOL_FP16)
    # FOLD_SCALE=True (the scale folded into the exponent, as the staged kernel does): the same attention
    for causal in (False, True):
        o = torch.empty_like(q)
        attention_fwd_kernel[attention_grid(n_ctx, 6, {"BLOCK_M": block_m})](
            q, k, v, o, 16**-0.5, *q.stride(), 3, n_ctx,
            HEAD_DIM=16, BLOCK_M=block_m, BLOCK_N=block_n, CAUSAL=causal, FOLD_SCALE=True,
        )  # fmt: skip
        want = sdpa(q.float(), k.float(), v.float(), is_causal=causal)
        close(f"attention causal={causal}, scale folded", o, want, TOL_FP16)


def check_gather_rows() -> None:
    from tilesight.kernels.triton.gather_rows import gather_grid, gather_rows

    assert gather_grid(23, 70, {"BLOCK_R": 8, "BLOCK_D": 32}) == (3, 3)
    table = torch.randn(50, 70)
    idx = torch.tensor([49, 0, 3, 3, 3] + list(range(18)), dtype=torch.int32)  # repeats and both ends
    close("gather_rows", gather_rows(table, idx, block_r=8, block_d=32), table[idx.long()], 0.0)


CHECKS = {name.removeprefix("check_"): fn for name, fn in globals().items() if name.startswith("check_")}

if __name__ == "__main__":
    torch.manual_seed(0)
    if len(sys.argv) != 2 or sys.argv[1] not in CHECKS:
        raise SystemExit(f"usage: interpreted.py {{{','.join(CHECKS)}}}")
    CHECKS[sys.argv[1]]()
    print(f"{sys.argv[1]}: ok")

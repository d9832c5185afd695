"""Validation 31: another library's kernels. Liger-Kernel's own Triton ops (normalisations, activations,
softmax, rotary embeddings, losses), launched with the arguments, block sizes and warps its Python wrappers
pick, at LLM sizes. One difference: Liger leaves ``num_stages`` to Triton's default (3) where it does not
set it; these sets launch with 1 unless Liger sets it (2 for fused add + RMSNorm and Llama 4's RoPE), which
matters only for the kernels with a loop over the row (the losses, the row-partitioned backward kernels);
prediction and measurement use the same value. TileSight's frontend had never read these kernels before the
set's predictions were recorded; they are the same kinds as the sweep's memory family (row kernels,
elementwise, reductions over a vocabulary) written by other hands.

The kernels are not part of this repository (nothing of them is copied here): the harness imports them as
``liger_kernel.ops.*`` from Liger-Kernel's ``src`` folder at :data:`LIGER_COMMIT`. Put that folder at
``external/liger`` (``git archive <commit> src/liger_kernel | tar -x`` then move ``src`` there; the folder
is git-ignored) and put it on ``PYTHONPATH`` for ``predict_set.py``, ``run.sh`` and ``accuracy.py``
(``benchmarks/data/README.md``, validation31, gives the commands).

Sizes: 8192 and 4096 tokens, hidden 4096, intermediate 14336 (Llama-3-8B), vocabularies 32000 and 128256,
bf16 activations; the backward kernels that partition rows over the SMs use 132 programs as Liger's wrappers
do on an H200. ``calculate_settings`` below is Liger's rule for BLOCK_SIZE and warps (``ops/utils.py``).
"""

from __future__ import annotations

import math

from sweep_cases import H200_SM_COUNT, Case, Tensor, _all_held_out

LIGER_COMMIT = "ead96b618e5c67bddc6a6e9bcb99bfe6b5ab661c"  # linkedin/Liger-Kernel, 2026-08-21
BF16, F32, I64 = "bfloat16", "float32", "int64"


def next_power_of_2(n: int) -> int:
    return 1 << (n - 1).bit_length()


def calculate_settings(n: int) -> tuple[int, int]:
    """Liger's BLOCK_SIZE (the next power of two of the row) and warps (4, 8 from 2048, 16 from 8192, 32
    from 32768) for a row of ``n`` elements on CUDA."""
    block = next_power_of_2(n)
    warps = 32 if block >= 32768 else 16 if block >= 8192 else 8 if block >= 2048 else 4
    return block, warps


def _case(op: str, shape: str, kernel: str, grid, args, constexprs, warps, stages=1, **problem) -> Case:
    return Case(
        id=f"memory/liger_{op}/{shape}",
        family="memory",
        kernel=f"liger_kernel.ops.{kernel}",
        grid=tuple(grid),
        args=tuple(args),
        constexprs=dict(constexprs),
        num_warps=warps,
        num_stages=stages,
        problem={"op": f"liger_{op}", "check": False, **problem},
    )


def _rows(rows: int, cols: int, dtype: str = BF16, init: str = "randn") -> Tensor:
    return Tensor((rows, cols), dtype, init=init)


def rms_norm(rows: int, cols: int) -> Case:
    block, warps = calculate_settings(cols)
    args = (_rows(rows, cols, init="empty"), cols, _rows(rows, cols), cols, Tensor((cols,), BF16), 1,
            Tensor((rows,), F32, init="empty"), 1, cols, 1e-6, 0.0)  # fmt: skip
    consts = {"casting_mode": 0, "elementwise_affine": True, "BLOCK_SIZE": block}  # Llama casting
    kernel = "rms_norm:_rms_norm_forward_kernel"
    return _case("rms_norm", f"{rows}x{cols}", kernel, (rows,), args, consts, warps)


def fused_add_rms_norm(rows: int, cols: int) -> Case:
    block, warps = calculate_settings(cols)
    out = [_rows(rows, cols, init="empty"), cols, _rows(rows, cols, init="empty"), cols]
    args = (*out, _rows(rows, cols), cols, _rows(rows, cols), cols, Tensor((cols,), BF16), 1,
            Tensor((rows,), F32, init="empty"), 1, cols, 1e-6, 0.0)  # fmt: skip
    consts = {"casting_mode": 0, "BLOCK_SIZE": block}
    kernel = "fused_add_rms_norm:_fused_add_rms_norm_forward_kernel"
    return _case("fused_add_rms_norm", f"{rows}x{cols}", kernel, (rows,), args, consts, warps, stages=2)


def layer_norm(rows: int, cols: int) -> Case:
    block, warps = calculate_settings(cols)
    stats = (Tensor((rows,), F32, init="empty"), 1, Tensor((rows,), F32, init="empty"), 1)  # mean, rstd
    args = (_rows(rows, cols, init="empty"), cols, _rows(rows, cols), cols, Tensor((cols,), BF16), 1,
            Tensor((cols,), BF16), 1, *stats, cols, 1e-6)  # fmt: skip
    kernel = "layer_norm:_layer_norm_forward_kernel"
    return _case("layer_norm", f"{rows}x{cols}", kernel, (rows,), args, {"BLOCK_SIZE": block}, warps)


def layer_norm_backward(rows: int, cols: int) -> Case:
    """The backward over 132 programs, each a contiguous run of rows, partial dW / dB per program."""
    block, warps = calculate_settings(cols)
    sms = H200_SM_COUNT
    args = (_rows(rows, cols), cols, Tensor((cols,), BF16), Tensor((rows,), F32), 1, Tensor((rows,), F32), 1,
            _rows(rows, cols, init="empty"), cols, _rows(sms, cols, F32, "empty"), cols,
            _rows(sms, cols, F32, "empty"), cols, _rows(rows, cols), cols, rows, cols)  # fmt: skip
    consts = {"rows_per_program": math.ceil(rows / sms), "BLOCK_SIZE": block}
    kernel = "layer_norm:_layer_norm_backward_kernel"
    return _case("layer_norm_backward", f"{rows}x{cols}", kernel, (sms,), args, consts, warps)


def gated(op: str, rows: int, cols: int, backward: bool) -> Case:
    """SwiGLU (``gate_multiplier`` 1) or tanh-GeGLU, forward (c = act(a) * b) or backward (in place)."""
    block, warps = calculate_settings(cols)
    if backward:
        tensors = (_rows(rows, cols), _rows(rows, cols), _rows(rows, cols))  # dc, a, b; grads in place
    else:
        tensors = (_rows(rows, cols), _rows(rows, cols), _rows(rows, cols, init="empty"))
    extra = (1.0,) if op == "swiglu" else ()
    name = f"_{op}_{'backward' if backward else 'forward'}_kernel"
    if op == "geglu":
        name = f"_geglu_tanh_{'backward' if backward else 'forward'}_kernel"
    consts = {"n_cols": cols, "BLOCK_SIZE": block}
    suffix = "_backward" if backward else ""
    args = (*tensors, cols, *extra)
    return _case(f"{op}{suffix}", f"{rows}x{cols}", f"{op}:{name}", (rows,), args, consts, warps)


def softmax(rows: int, cols: int, backward: bool = False) -> Case:
    block, warps = calculate_settings(cols)
    if backward:
        args = (_rows(rows, cols), cols, _rows(rows, cols), cols, _rows(rows, cols, init="empty"), cols, cols)
        kernel = "softmax:_softmax_single_block_backward_kernel"
    else:
        args = (_rows(rows, cols, init="empty"), cols, _rows(rows, cols), cols, cols)
        kernel = "softmax:_softmax_single_block_forward_kernel"
    op = "softmax_backward" if backward else "softmax"
    return _case(op, f"{rows}x{cols}", kernel, (rows,), args, {"BLOCK_SIZE": block}, warps)


def rope(batch: int, seq: int, q_heads: int, k_heads: int, head_dim: int) -> Case:
    """Rotary embedding of q and k in place, one program per token, cos / sin of one batch (cos_bs = 1)."""
    q = Tensor((batch, seq, q_heads, head_dim), BF16)
    k = Tensor((batch, seq, k_heads, head_dim), BF16)
    cos, sin = Tensor((1, seq, head_dim), BF16), Tensor((1, seq, head_dim), BF16)
    args = (q, q_heads * head_dim, k, k_heads * head_dim, cos, head_dim, sin, head_dim, seq)
    pad_q, pad_k = next_power_of_2(q_heads), next_power_of_2(k_heads)
    consts = {"bs": batch, "cos_bs": 1, "n_qh": q_heads, "n_kh": k_heads, "hd": head_dim, "pad_n_qh": pad_q,
              "pad_n_kh": pad_k, "pad_hd": next_power_of_2(head_dim), "BLOCK_SIZE": max(pad_q, pad_k),
              "BACKWARD_PASS": False}  # fmt: skip
    shape = f"{batch}x{seq}x{q_heads}/{k_heads}x{head_dim}"
    return _case("rope", shape, "rope:_triton_rope", (batch * seq,), args, consts, 4)


def cross_entropy(rows: int, vocab: int) -> Case:
    """The loss and its gradient in place over each row of logits (two passes over the row), labels drawn
    in the vocabulary (none ignored), mean reduction, no weights, softcapping or z-loss."""
    block = min(32768, next_power_of_2(vocab))
    args = (_rows(rows, vocab), vocab, Tensor((rows,), I64, init=f"randint:{vocab}"), 1, None,
            Tensor((rows,), F32, init="empty"), None, 1, None, 0, None, 0, vocab, rows, float(rows), 0.0,
            -100)  # fmt: skip
    # softcap (a runtime parameter after the constexprs) goes by keyword with them
    consts = {"lse_square_scale": 0.0, "label_smoothing": 0.0, "reduction": "mean", "softcap": None,
              "RETURN_Z_LOSS": False,
              "RETURN_TOKEN_ACCURACY": False, "RETURN_PREDICTED_TOKENS": False, "BLOCK_SIZE": block,
              "HAS_WEIGHT": False, "HAS_SOFTCAPPING": False, "HAS_GRADIENTS": True}  # fmt: skip
    kernel = "cross_entropy:liger_cross_entropy_kernel"
    return _case("cross_entropy", f"{rows}x{vocab}", kernel, (rows,), args, consts, 32)


def element_mul(rows: int, vocab: int) -> Case:
    """The cross entropy's backward: the stored gradient times the upstream scalar, in place."""
    args = (_rows(rows, vocab), vocab, Tensor((1,), F32), vocab)
    kernel = "utils:element_mul_kernel"
    return _case("element_mul", f"{rows}x{vocab}", kernel, (rows,), args, {"BLOCK_SIZE": 32768}, 32)


def relu_squared(rows: int, cols: int, backward: bool = False) -> Case:
    block, warps = calculate_settings(cols)
    if backward:
        args = (_rows(rows, cols, init="empty"), cols, _rows(rows, cols), cols, _rows(rows, cols), cols)
        kernel = "relu_squared:_relu_squared_backward_kernel"
    else:
        args = (_rows(rows, cols, init="empty"), cols, _rows(rows, cols), cols)
        kernel = "relu_squared:_relu_squared_forward_kernel"
    op = "relu_squared_backward" if backward else "relu_squared"
    return _case(op, f"{rows}x{cols}", kernel, (rows,), args, {"n_cols": cols, "BLOCK_SIZE": block}, warps)


def kl_div(rows: int, vocab: int, backward: bool = False) -> Case:
    """KL divergence over a vocabulary: the forward's batchmean loss per row, or the backward's gradient."""
    block = min(16384, next_power_of_2(vocab))
    if backward:
        args = (_rows(rows, vocab), vocab, _rows(rows, vocab, init="empty"), vocab, vocab)
        consts = {"BLOCK_SIZE": block, "log_target": False}
        kernel = "kl_div:_kldiv_kernel_backward"
    else:
        args = (_rows(rows, vocab), vocab, _rows(rows, vocab), vocab, Tensor((rows,), F32, init="empty"), 1,
                vocab, 1e-10)  # fmt: skip
        consts = {"BLOCK_SIZE": block, "log_target": False, "reduction": 3}  # batchmean
        kernel = "kl_div:_kldiv_kernel_forward"
    op = "kl_div_backward" if backward else "kl_div"
    return _case(op, f"{rows}x{vocab}", kernel, (rows,), args, consts, 16)


def jsd(rows: int, vocab: int) -> Case:
    """Generalised Jensen-Shannon divergence (beta 0.5) with its gradient, no labels, Liger's 4 warps."""
    block = min(65536 // 2, next_power_of_2(vocab))
    args = (_rows(rows, vocab), vocab, _rows(rows, vocab), vocab, _rows(rows, vocab, F32, "empty"), vocab,
            _rows(rows, vocab, init="empty"), vocab, Tensor((1,), F32))  # fmt: skip
    # n_non_ignore and n_cols (runtime parameters between the constexprs) go by keyword with them
    consts = {"beta": 0.5, "n_non_ignore": rows, "ignore_index": -100, "n_cols": vocab, "BLOCK_SIZE": block,
              "HAS_LABEL": False}  # fmt: skip
    return _case("jsd", f"{rows}x{vocab}", "jsd:_jsd_kernel", (rows,), args, consts, 4)


def tvd(rows: int, vocab: int) -> Case:
    """Total variation distance of two fp32 distributions, batchmean, with its gradient."""
    block = min(16384, next_power_of_2(vocab))
    loss = Tensor((rows,), F32, init="empty")
    args = (_rows(rows, vocab, F32), vocab, _rows(rows, vocab, F32), vocab, loss, 1,
            _rows(rows, vocab, F32, "empty"), vocab, Tensor((1,), F32))  # fmt: skip
    # n_cols and scale (runtime parameters after the constexpr ignore_index) go by keyword with the constexprs
    consts = {"ignore_index": -100, "n_cols": vocab, "scale": 1.0 / rows, "BLOCK_SIZE": block,
              "HAS_LABEL": False, "reduction": 3}  # fmt: skip
    return _case("tvd", f"{rows}x{vocab}", "tvd:_tv_distance_kernel", (rows,), args, consts, 16)


def poly_norm(rows: int, cols: int, backward: bool = False) -> Case:
    block, warps = calculate_settings(cols)
    if backward:
        sms = H200_SM_COUNT
        args = (_rows(rows, cols), cols, _rows(rows, cols, init="empty"), cols, _rows(rows, cols), cols,
                Tensor((3,), BF16), Tensor((rows, 3), F32), 3, _rows(sms, 3, F32, "empty"), 3,
                Tensor((sms,), F32, init="empty"), rows, cols)  # fmt: skip
        consts = {"rows_per_program": math.ceil(rows / sms), "BLOCK_SIZE": block}
        kernel, grid, op = "poly_norm:_poly_norm_backward_kernel", (sms,), "poly_norm_backward"
    else:
        args = (_rows(rows, cols, init="empty"), cols, _rows(rows, cols), cols, Tensor((3,), BF16),
                Tensor((1,), BF16), _rows(rows, 3, F32, "empty"), 3, cols, 1e-6)  # fmt: skip
        consts = {"BLOCK_SIZE": block}
        kernel, grid, op = "poly_norm:_poly_norm_forward_kernel", (rows,), "poly_norm"
    return _case(op, f"{rows}x{cols}", kernel, grid, args, consts, warps)


def llama4_rope(batch: int, seq: int, q_heads: int, k_heads: int, head_dim: int) -> Case:
    """Llama 4's complex-pair rotary embedding, one program per (token, head), 4 warps as Liger picks for a
    64-wide half head."""
    q = Tensor((batch, seq, q_heads, head_dim), BF16)
    k = Tensor((batch, seq, k_heads, head_dim), BF16)
    freqs = Tensor((seq, head_dim // 2, 2), F32)
    strides = (q_heads * head_dim, k_heads * head_dim, head_dim, head_dim, head_dim)
    args = (q, k, freqs, *strides, seq, batch, 1.0)
    consts = {"head_dim_half": head_dim // 2, "n_q_heads": q_heads, "n_k_heads": k_heads, "BLOCK_SIZE": 64}
    shape = f"{batch}x{seq}x{q_heads}/{k_heads}x{head_dim}"
    grid = (batch * seq, max(q_heads, k_heads))
    return _case("llama4_rope", shape, "llama4_rope:_llama4_rope_kernel", grid, args, consts, 4, stages=2)


def group_norm(batch: int, channels: int, groups: int, spatial: int) -> Case:
    """GroupNorm forward over fp32 activations (channels x spatial per sample), one program per group."""
    per_group = channels // groups * spatial
    block = min(65536, next_power_of_2(per_group))
    x = Tensor((batch, groups, per_group), F32)
    y = Tensor((batch, groups, per_group), F32, init="empty")
    args = (y, groups * per_group, per_group, x, groups * per_group, per_group,
            Tensor((batch, groups), F32, init="empty"), groups, 1, Tensor((batch, groups), F32, init="empty"),
            groups, 1, Tensor((channels,), F32), Tensor((channels,), F32), per_group, channels // groups,
            1e-6)  # fmt: skip
    kernel = "group_norm:_group_norm_forward_kernel"
    shape = f"{batch}x{channels}x{spatial}g{groups}"
    return _case("group_norm", shape, kernel, (batch, groups), args, {"BLOCK_SIZE": block}, 4)


def validation31_cases() -> list[Case]:
    """Liger-Kernel's kernels at LLM sizes: 31 launches, all held out (nothing was ever fitted to them)."""
    cases = [
        rms_norm(8192, 4096), rms_norm(4096, 8192), rms_norm(16384, 2048),
        fused_add_rms_norm(8192, 4096),
        layer_norm(8192, 4096), layer_norm(4096, 2048), layer_norm_backward(8192, 4096),
        gated("swiglu", 8192, 14336, False), gated("swiglu", 4096, 14336, True),
        gated("geglu", 8192, 14336, False), gated("geglu", 4096, 11008, True),
        softmax(8192, 4096), softmax(8192, 32000), softmax(4096, 4096, backward=True),
        rope(4, 2048, 32, 8, 128), rope(2, 4096, 28, 4, 128),
        cross_entropy(8192, 32000), cross_entropy(4096, 128256), element_mul(4096, 128256),
        relu_squared(8192, 14336), relu_squared(4096, 14336, backward=True),
        kl_div(4096, 32000), kl_div(2048, 128256, backward=True),
        jsd(4096, 32000), tvd(4096, 32000),
        poly_norm(8192, 4096), poly_norm(8192, 4096, backward=True),
        llama4_rope(2, 2048, 40, 8, 128), llama4_rope(1, 4096, 32, 8, 128),
        group_norm(32, 256, 32, 1024), group_norm(16, 512, 32, 4096),
    ]  # fmt: skip
    return _all_held_out(cases, "validation31")


def validation32_cases() -> list[Case]:
    """The blind check of the rules validation 31 led to (a lone block's stores leave it at the SM's L2
    port; a spilling kernel without dots reloads its frame once a pass): Liger-Kernel's kernels at sizes and
    vocabularies validation 31 did not time, one-block-per-SM launches and spilling ones among them
    (22 launches, all held out)."""
    cases = [
        rms_norm(8192, 16384), fused_add_rms_norm(4096, 8192),
        layer_norm(16384, 8192), layer_norm_backward(16384, 2048),
        gated("swiglu", 4096, 11008, False), gated("swiglu", 8192, 14336, True),
        gated("geglu", 4096, 11008, False), gated("geglu", 16384, 4096, False),
        softmax(8192, 16384), softmax(16384, 8192, backward=True),
        rope(1, 8192, 32, 8, 128), llama4_rope(4, 1024, 40, 8, 128),
        cross_entropy(8192, 50257), cross_entropy(2048, 151936), element_mul(8192, 32000),
        relu_squared(4096, 11008),
        kl_div(8192, 50257), tvd(8192, 32000), jsd(2048, 50257),
        poly_norm(4096, 8192, backward=True),
        group_norm(8, 512, 32, 4096), group_norm(64, 128, 32, 1024),
    ]  # fmt: skip
    return _all_held_out(cases, "validation32")


def validation33_cases() -> list[Case]:
    """The blind check of the store rule at every residency (b1b6e6d applied it to lone blocks; validation 32,
    once measured, led to every residency): Liger-Kernel's kernels at sizes neither earlier set timed, and
    the repository's own softmax, LayerNorm and RMSNorm at new shapes and warps (27 launches, held out)."""
    from sweep_cases import row_case

    cases = [
        rms_norm(32768, 1024), rms_norm(2048, 16384), fused_add_rms_norm(16384, 2048),
        layer_norm(8192, 1536), layer_norm_backward(4096, 8192), poly_norm(16384, 2048),
        softmax(16384, 2048), softmax(4096, 16384), softmax(8192, 8192, backward=True),
        gated("swiglu", 16384, 4096, False), gated("geglu", 8192, 8192, True),
        relu_squared(16384, 8192), relu_squared(8192, 4096, backward=True),
        kl_div(4096, 65536), tvd(4096, 50257), element_mul(4096, 65536), cross_entropy(16384, 32000),
        rope(8, 1024, 16, 16, 64), llama4_rope(2, 2048, 16, 4, 128),
        group_norm(32, 64, 16, 4096),
        row_case("softmax", 6144, 6144, "float16", 8), row_case("softmax", 10240, 1280, "bfloat16", 4),
        row_case("layernorm", 3072, 12288, "float16", 16), row_case("layernorm", 20480, 2560, "bfloat16", 8),
        row_case("rmsnorm", 20480, 2560, "float16", 8, 1024),
        row_case("rmsnorm", 5120, 10240, "bfloat16", 16, 2048),
        row_case("softmax", 2560, 20480, "float16", 16),
    ]  # fmt: skip
    return _all_held_out(cases, "validation33")


def validation34_cases() -> list[Case]:
    """Liger's kernels with a loop over the row at three stages, Triton's default, which Liger's wrappers
    leave (validations 31-33 launched them at one): the losses, the row-partitioned backward kernels and the
    element-wise backward at sizes those sets timed (12 launches, held out)."""
    looped = [
        cross_entropy(8192, 32000), cross_entropy(4096, 128256), cross_entropy(8192, 50257),
        element_mul(4096, 128256), kl_div(4096, 32000), kl_div(2048, 128256, backward=True),
        jsd(4096, 32000), tvd(4096, 32000), tvd(8192, 32000),
        layer_norm_backward(8192, 4096), layer_norm_backward(16384, 2048),
        poly_norm(8192, 4096, backward=True),
    ]  # fmt: skip
    cases = [Case(**{**c.__dict__, "id": f"{c.id}/s3", "num_stages": 3}) for c in looped]
    return _all_held_out(cases, "validation34")


def validation36_cases() -> list[Case]:
    """The blind check of stop 37's lone-block load rule (a load that a block alone on its SM waits for
    transfers at the SM's port, not at its DRAM share): Liger's cross-entropy, softmax, TVD and LayerNorm and
    the repository's 16-warp LayerNorm and softmax at sizes no set timed, where one block fits an SM (the rule
    applies), beside controls of the same kernels at two or more blocks an SM, where it does not (18
    launches, held out)."""
    from sweep_cases import row_case

    cases = [
        cross_entropy(2048, 100352), cross_entropy(4096, 65536), cross_entropy(1024, 256000),
        softmax(2048, 65536), softmax(4096, 50257), tvd(4096, 65536), layer_norm(4096, 16384),
        row_case("layernorm", 4096, 16384, "float16", 16), row_case("layernorm", 1536, 24576, "bfloat16", 16),
        row_case("softmax", 3072, 24576, "float16", 16), row_case("softmax", 2048, 32768, "float16", 16),
        # controls: two or more blocks an SM
        cross_entropy(16384, 16384), softmax(16384, 16384), kl_div(8192, 32000), kl_div(2048, 100352),
        rms_norm(4096, 16384), element_mul(2048, 151936),
        row_case("rmsnorm", 4096, 16384, "bfloat16", 16, 4096),
    ]  # fmt: skip
    return _all_held_out(cases, "validation36")


def block_rms_norm(rows: int, cols: int, block_row: int = 16) -> Case:
    """RMSNorm over many short rows (a q/k norm over heads: rows = tokens x heads), BLOCK_ROW rows a
    program."""
    block, warps = calculate_settings(cols)
    args = (_rows(rows, cols, init="empty"), cols, _rows(rows, cols), cols, Tensor((cols,), BF16), 1,
            Tensor((rows,), F32, init="empty"), 1, rows, cols, 1e-6, 0.0)  # fmt: skip
    consts = {"casting_mode": 0, "elementwise_affine": True, "BLOCK_SIZE": block, "BLOCK_ROW": block_row}
    kernel = "rms_norm:_block_rms_norm_forward_kernel"
    grid = (-(-rows // block_row),)
    return _case("block_rms_norm", f"{rows}x{cols}r{block_row}", kernel, grid, args, consts, warps)


def attn_res(blocks: int, tokens: int, dim: int, backward: bool = False) -> Case:
    """Attention residuals over ``blocks`` stacked [tokens, dim] values, one program a token: the forward's
    two passes over the slabs (scores, then the weighted sum), or the backward with its atomic weight
    gradients."""
    v = Tensor((blocks, tokens, dim), BF16)
    stats = (Tensor((tokens, blocks), F32), Tensor((tokens, blocks), F32))
    if backward:
        args = (_rows(tokens, dim), v, Tensor((dim,), BF16), Tensor((dim,), BF16), *stats,
                Tensor((blocks, tokens, dim), BF16, init="empty"), Tensor((dim,), F32, init="zeros"),
                Tensor((dim,), F32, init="zeros"), blocks, tokens, dim, 1e-6)  # fmt: skip
        kernel, op = "attn_res:_attn_res_bwd_kernel", "attn_res_backward"
        consts = {"BLOCK_D": next_power_of_2(dim), "MAX_BLOCKS": next_power_of_2(blocks)}
    else:
        out = (_rows(tokens, dim, init="empty"), Tensor((tokens, blocks), F32, init="empty"),
               Tensor((tokens, blocks), F32, init="empty"))  # fmt: skip
        args = (v, Tensor((dim,), BF16), Tensor((dim,), BF16), *out, blocks, tokens, dim)
        kernel, op = "attn_res:_attn_res_fwd_kernel", "attn_res"
        consts = {"eps": 1e-6, "BLOCK_D": next_power_of_2(dim), "MAX_BLOCKS": next_power_of_2(blocks)}
    return _case(op, f"{blocks}x{tokens}x{dim}", kernel, (tokens,), args, consts, 8)


def modulated_rms_norm(rows: int, cols: int, modulations: int) -> Case:
    """RMSNorm with a per-sample scale and shift (adaptive norm), ``rows // modulations`` rows a sample."""
    block, warps = calculate_settings(cols)
    rstd = Tensor((rows,), F32, init="empty")
    scale, shift = _rows(modulations, cols), _rows(modulations, cols)
    args = (_rows(rows, cols, init="empty"), cols, _rows(rows, cols), cols, Tensor((cols,), BF16), 1,
            scale, cols, shift, cols, rstd, 1, cols, 1e-6, 0.0)  # fmt: skip
    consts = {"casting_mode": 0, "elementwise_affine": True, "has_shift": True,
              "rows_per_modulation": rows // modulations, "BLOCK_SIZE": block}  # fmt: skip
    kernel = "modulated_rms_norm:_modulated_rms_norm_forward_kernel"
    return _case("modulated_rms_norm", f"{rows}x{cols}m{modulations}", kernel, (rows,), args, consts, warps)


def validation35_cases() -> list[Case]:
    """Liger kernels the survey flagged as predicted latency-bound far above their DRAM floor (attention
    residuals, the many-short-rows RMSNorm) or not timed yet (the modulated RMSNorm): 7 launches, held out."""
    cases = [
        attn_res(8, 8192, 4096), attn_res(4, 16384, 2048), attn_res(8, 8192, 4096, backward=True),
        block_rms_norm(262144, 128), block_rms_norm(131072, 64, 32),
        modulated_rms_norm(8192, 4096, 4), modulated_rms_norm(16384, 2048, 8),
    ]  # fmt: skip
    return _all_held_out(cases, "validation35")

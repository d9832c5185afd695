"""The FlagGems cases: each calls one op (``flag_gems.ops``) on torch meta tensors at a realistic size.

``CASES`` maps a case name to a ``Case``. An op may launch several kernels (a two-pass reduction, a sort):
every launch is its own record. ``source`` names the FlagGems file and kernel the case exercises.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import torch

MEMORY = "memory"  # its time should follow its bytes: checked against the DRAM rate
COMPUTE = "compute"
NO_BLOCK_PTR = "_nobptr"  # a case name ending so runs pointwise_dynamic without block pointers


@dataclass(frozen=True)
class Case:
    """One op call. ``block_pointers``: let pointwise_dynamic generate block-pointer code (FlagGems' default);
    ``unwrap``: hand TileSight the Triton kernel inside FlagGems' LibEntry / LibTuner wrappers."""

    name: str
    category: str
    source: str
    call: Callable[[ModuleType], Any]
    block_pointers: bool = True
    unwrap: bool = True

    def __post_init__(self) -> None:
        if self.category not in (MEMORY, COMPUTE):
            raise ValueError(f"case {self.name}: category {self.category!r} is not {MEMORY!r} or {COMPUTE!r}")


CASES: dict[str, Case] = {}


def case(
    name: str, category: str, source: str, *, no_block_ptr: bool = False, unwrap: bool = True
) -> Callable[[Callable[[ModuleType], Any]], Callable[[ModuleType], Any]]:
    """Register ``fn(flag_gems)`` as a case. ``no_block_ptr``: also register ``name + "_nobptr"``, the same
    call with pointwise_dynamic generating pointer tensors (Triton 3.9 removed tl.make_block_ptr)."""

    def register(fn: Callable[[ModuleType], Any]) -> Callable[[ModuleType], Any]:
        CASES[name] = Case(name, category, source, fn, unwrap=unwrap)
        if no_block_ptr:
            variant = name + NO_BLOCK_PTR
            CASES[variant] = Case(
                variant, category, source + " [no block pointers]", fn, block_pointers=False
            )
        return fn

    return register


def meta(*shape: int, dtype: str = "float16") -> torch.Tensor:
    return torch.empty(*shape, dtype=getattr(torch, dtype), device="meta")


# ---------------------------------------------------------------------------------- element-wise


@case("add", MEMORY, "ops/add.py:add_func (pointwise_dynamic rank 1)", no_block_ptr=True)
def _(g):
    x = meta(4096, 4096)
    return g.ops.add(x, x)


@case(
    "add_bcast_rank2",
    MEMORY,
    "ops/add.py:add_func (pointwise_dynamic rank 2, stride-0 broadcast)",
    no_block_ptr=True,
)
def _(g):
    return g.ops.add(meta(4096, 4096), meta(4096))


@case("add_transposed", MEMORY, "ops/add.py:add_func rank 2, one input transposed", no_block_ptr=True)
def _(g):
    return g.ops.add(meta(4096, 4096), meta(4096, 4096).t())


@case("gelu_tanh_big", MEMORY, "ops/gelu.py:gelu_tanh (pointwise_dynamic) 32768x4096 fp16", no_block_ptr=True)
def _(g):
    return g.ops.gelu(meta(32768, 4096), approximate="tanh")


@case("silu_bf16", MEMORY, "ops/silu.py:silu_forward (pointwise)", no_block_ptr=True)
def _(g):
    return g.ops.silu(meta(8, 4096, 4096, dtype="bfloat16"))


@case("where_self", MEMORY, "ops/where.py:where_inner (pointwise, bool cond)", no_block_ptr=True)
def _(g):
    return g.ops.where_self(meta(4096, 4096, dtype="bool"), meta(4096, 4096), meta(4096, 4096))


@case("masked_fill", MEMORY, "ops/masked_fill.py:masked_fill_kernel", no_block_ptr=True)
def _(g):
    return g.ops.masked_fill(meta(4096, 4096), meta(4096, 4096, dtype="bool"), 0.0)


@case("to_copy_fp32_to_bf16", MEMORY, "ops/to.py (pointwise cast)", no_block_ptr=True)
def _(g):
    return g.ops.to_copy(meta(4096, 4096, dtype="float32"), dtype=torch.bfloat16)


# ---------------------------------------------------------------------------------- reductions


@case("sum_all", MEMORY, "ops/sum.py:sum_kernel_1/sum_kernel_2")
def _(g):
    return g.ops.sum(meta(4096, 4096))


@case("sum_dim_last", MEMORY, "ops/sum.py:sum_dim_kernel")
def _(g):
    return g.ops.sum_dim(meta(32768, 4096, dtype="bfloat16"), [-1])


@case("mean_dim0", MEMORY, "ops/mean.py:mean_dim (non-inner)")
def _(g):
    return g.ops.mean_dim(meta(4096, 4096, dtype="float32"), [0])


@case("var_mean_last", MEMORY, "ops/var_mean.py:var_mean_welford_kernel")
def _(g):
    return g.ops.var_mean(meta(32768, 4096), dim=[-1])


@case("var_mean_all", MEMORY, "ops/var_mean.py:var_mean_kernel_1/_2")
def _(g):
    return g.ops.var_mean(meta(4096, 4096))


@case("argmax_vocab", MEMORY, "ops/argmax.py:argmax_kernel (dim=1)")
def _(g):
    return g.ops.argmax(meta(4096, 32000), dim=1)


@case("argmax_all", MEMORY, "ops/argmax.py:argmax_kernel_1/_2")
def _(g):
    return g.ops.argmax(meta(4096, 4096))


@case("amax_last", MEMORY, "ops/amax.py:amax_kernel")
def _(g):
    return g.ops.amax(meta(32768, 4096), [-1])


# ---------------------------------------------------------------------------------- softmax and norms


@case("softmax_inner", MEMORY, "ops/softmax.py:softmax_kernel_inner")
def _(g):
    return g.ops.softmax(meta(32768, 4096), -1)


@case("softmax_non_inner", MEMORY, "ops/softmax.py:softmax_kernel_non_inner (dim=0)")
def _(g):
    return g.ops.softmax(meta(4096, 4096), 0)


@case("softmax_backward_inner", MEMORY, "ops/softmax.py:softmax_backward_kernel_inner (autotune)")
def _(g):
    x = meta(32768, 4096)
    return g.ops.softmax_backward(x, x, -1, torch.float16)


@case("log_softmax_vocab", MEMORY, "ops/log_softmax.py:log_softmax_kernel")
def _(g):
    return g.ops.log_softmax(meta(4096, 32000, dtype="float32"), -1)


@case("layer_norm_fwd", MEMORY, "ops/layernorm.py:layer_norm_* (fwd)")
def _(g):
    return g.ops.layer_norm(meta(32768, 4096), [4096], meta(4096), meta(4096))


@case("layer_norm_bwd", MEMORY, "ops/layernorm.py:layer_norm_backward_kernel + weight_bias_backward_kernel")
def _(g):
    x = meta(32768, 4096)
    mean, rstd = meta(32768, dtype="float32"), meta(32768, dtype="float32")
    return g.ops.layer_norm_backward(
        x, x, [4096], mean, rstd, meta(4096), meta(4096), output_mask=[True, True, True]
    )


@case("rms_norm_fwd", MEMORY, "ops/rms_norm.py:rms_norm_kernel")
def _(g):
    return g.ops.rms_norm(meta(32768, 4096), [4096], meta(4096))


@case("group_norm_fwd", MEMORY, "ops/groupnorm.py:group_norm_kernel")
def _(g):
    return g.ops.group_norm(meta(32, 256, 56, 56), meta(256), meta(256), 32, 256, 56 * 56, 32)


@case("batch_norm_train", MEMORY, "ops/batch_norm.py:batch_norm_forward_kernel")
def _(g):
    c = 256
    running_mean, running_var = meta(c, dtype="float32"), meta(c, dtype="float32")
    return g.ops.batch_norm(meta(32, c, 56, 56), meta(c), meta(c), running_mean, running_var, True, 0.1, 1e-5)


# ---------------------------------------------------------------------------------- scans, gathers, scatters


@case("cumsum_last", MEMORY, "ops/cumsum.py:scan_part_sum_kernel/add_base_sum_kernel or normal path")
def _(g):
    return g.ops.cumsum(meta(4096, 4096, dtype="float32"), -1)


@case("cumsum_1d_long", MEMORY, "ops/cumsum.py scan-then-fan, 1D 16M elements")
def _(g):
    return g.ops.cumsum(meta(16 * 1024 * 1024, dtype="float32"), 0)


@case("cummax_last", MEMORY, "ops/cummax.py")
def _(g):
    return g.ops.cummax(meta(4096, 4096, dtype="float32"), -1)


@case("gather_dim1", MEMORY, "ops/gather.py:generated gather kernel")
def _(g):
    return g.ops.gather(meta(4096, 4096), 1, meta(4096, 1024, dtype="int64"))


@case("index_select_rows", MEMORY, "ops/index_select.py:index_select_kernel")
def _(g):
    return g.ops.index_select(meta(32000, 4096), 0, meta(8192, dtype="int64"))


@case("embedding_fwd", MEMORY, "ops/embedding.py:embedding_kernel")
def _(g):
    return g.ops.embedding(meta(32000, 4096), meta(8, 2048, dtype="int64"))


@case("embedding_bwd", MEMORY, "ops/embedding.py:embedding_backward_kernel (atomics)")
def _(g):
    return g.ops.embedding_backward(
        meta(8 * 2048, 4096), meta(8, 2048, dtype="int64"), 32000, -1, False, False
    )


@case("scatter_dim1", MEMORY, "ops/scatter.py:generated scatter kernel")
def _(g):
    return g.ops.scatter(meta(4096, 4096), 1, meta(4096, 1024, dtype="int64"), meta(4096, 1024))


# ---------------------------------------------------------------------------------- sorting, GEMMs, attention


@case("topk_vocab", COMPUTE, "ops/topk.py:topk_stage1_kernel/topk_stage2_kernel")
def _(g):
    return g.ops.topk(meta(64, 32000, dtype="float32"), 50)


@case("sort_rows", COMPUTE, "ops/sort.py:sort_kernel")
def _(g):
    return g.ops.sort(meta(4096, 1024, dtype="float32"), -1)


@case("mm_4096", COMPUTE, "ops/mm.py:mm_kernel (libtuner)")
def _(g):
    x = meta(4096, 4096)
    return g.ops.mm(x, x)


@case("mm_skinny", COMPUTE, "ops/mm.py:mm_kernel M=16 decode shape")
def _(g):
    return g.ops.mm(meta(16, 4096), meta(4096, 14336))


@case("addmm", COMPUTE, "ops/addmm.py:addmm_kernel")
def _(g):
    x = meta(4096, 4096)
    return g.ops.addmm(meta(4096), x, x)


@case("bmm", COMPUTE, "ops/bmm.py:bmm_kernel")
def _(g):
    return g.ops.bmm(meta(32, 1024, 1024), meta(32, 1024, 1024))


@case("mv", MEMORY, "ops/mv.py:mv_kernel")
def _(g):
    return g.ops.mv(meta(4096, 4096), meta(4096))


@case("sdpa_causal", COMPUTE, "ops/attention.py:_attn_fwd (scaled_dot_product_attention)")
def _(g):
    q = meta(8, 32, 2048, 128)
    return g.ops.scaled_dot_product_attention(q, q, q, is_causal=True)


# ---------------------------------------------------------------------------------- random numbers, copies


@case("dropout", MEMORY, "ops/dropout.py:dropout_forward_kernel (philox)")
def _(g):
    return g.ops.dropout(meta(32768, 4096), 0.1, True)


@case("rand", MEMORY, "ops/rand.py:rand_kernel (philox)")
def _(g):
    return g.ops.rand((4096, 4096), dtype=torch.float32, device=torch.device("meta"))


@case("pad_constant", MEMORY, "ops/pad.py:generated pad kernel")
def _(g):
    return g.ops.constant_pad_nd(meta(8, 64, 256, 256), [1, 1, 1, 1], 0.0)


@case("cat_dim1", MEMORY, "ops/cat.py:cat_copy_func_kernel_4")
def _(g):
    return g.ops.cat([meta(4096, 1024) for _ in range(4)], 1)


@case("repeat", MEMORY, "ops/repeat.py:generated repeat kernel")
def _(g):
    return g.ops.repeat(meta(1024, 1024), (4, 4))


@case("nll_loss", MEMORY, "ops/nllloss.py:nll_loss_forward_kernel")
def _(g):
    return g.ops.nll_loss_forward(meta(8192, 32000, dtype="float32"), meta(8192, dtype="int64"))


@case("vector_norm_l2", MEMORY, "ops/vector_norm.py:l2_norm_kernel_1/_2")
def _(g):
    return g.ops.vector_norm(meta(4096, 4096, dtype="float32"))


@case("triu", MEMORY, "ops/triu.py:triu_kernel")
def _(g):
    return g.ops.triu(meta(4096, 4096, dtype="float32"))


@case("flip", MEMORY, "ops/flip.py (pointwise with negative strides)", no_block_ptr=True)
def _(g):
    return g.ops.flip(meta(4096, 4096), [0])


@case("max_pool2d", MEMORY, "ops/max_pool2d_with_indices.py:max_pool2d_forward_kernel")
def _(g):
    return g.ops.max_pool2d_with_indices(meta(32, 64, 112, 112), [3, 3], [2, 2], [1, 1])


@case("conv2d", COMPUTE, "ops/conv2d.py:conv2d_forward_kernel")
def _(g):
    return g.ops.conv2d(meta(32, 64, 56, 56), meta(64, 64, 3, 3), None, 1, 1)


# ------------------------------------------------------------------------------ edge shapes, dtypes, more ops


@case(
    "add_int64_index",
    MEMORY,
    "ops/add.py:add_func rank 1, 2^32+ elements (int64 offsets, tiles_per_cta>1)",
    no_block_ptr=True,
)
def _(g):
    x = meta(65536, 65536 + 64)
    return g.ops.add(x, x)


@case("gelu_backward", MEMORY, "ops/gelu.py:gelu_backward_tanh (pointwise, 2 in)", no_block_ptr=True)
def _(g):
    x = meta(8192, 4096)
    return g.ops.gelu_backward(x, x, approximate="tanh")


@case("glu", MEMORY, "ops/glu.py:glu_kernel (pointwise on two halves, strided)", no_block_ptr=True)
def _(g):
    return g.ops.glu(meta(8192, 8192), -1)


@case("softmax_tiny", MEMORY, "ops/softmax.py:softmax_kernel_inner 1x7")
def _(g):
    return g.ops.softmax(meta(1, 7), -1)


@case("softmax_vocab_loop", MEMORY, "ops/softmax.py:softmax_kernel_inner N=128256 (loop path)")
def _(g):
    return g.ops.softmax(meta(1024, 128256, dtype="bfloat16"), -1)


@case("softmax_3d_mid", MEMORY, "ops/softmax.py:softmax_kernel_non_inner dim=1 of (64,512,64)")
def _(g):
    return g.ops.softmax(meta(64, 512, 64, dtype="float32"), 1)


@case("log_softmax_backward", MEMORY, "ops/log_softmax.py:log_softmax_backward_kernel")
def _(g):
    x = meta(4096, 32000, dtype="float32")
    return g.ops.log_softmax_backward(x, x, -1, torch.float32)


@case("layer_norm_odd_N", MEMORY, "ops/layernorm.py layer_norm N=1000")
def _(g):
    return g.ops.layer_norm(meta(8192, 1000), [1000], meta(1000), meta(1000))


@case("layer_norm_wide_loop", MEMORY, "ops/layernorm.py:layer_norm_loop_kernel N=65536")
def _(g):
    weight, bias = meta(65536, dtype="float32"), meta(65536, dtype="float32")
    return g.ops.layer_norm(meta(1024, 65536, dtype="float32"), [65536], weight, bias)


@case("layer_norm_multiline", MEMORY, "ops/layernorm.py:layer_norm_persistent_kernel_multiline N=128")
def _(g):
    return g.ops.layer_norm(meta(262144, 128), [128], meta(128), meta(128))


@case("rms_norm_bf16_5120", MEMORY, "ops/rms_norm.py:rms_norm_kernel N=5120 bf16")
def _(g):
    return g.ops.rms_norm(meta(16384, 5120, dtype="bfloat16"), [5120], meta(5120, dtype="bfloat16"))


@case("sum_one_elem", MEMORY, "ops/sum.py sum of 1 element")
def _(g):
    return g.ops.sum(meta(1, dtype="float32"))


@case("prod_dim", MEMORY, "ops/prod.py:prod_kernel dim")
def _(g):
    return g.ops.prod_dim(meta(4096, 4096, dtype="float32"), 1)


@case("max_dim", MEMORY, "ops/max.py:max_kernel (values+indices)")
def _(g):
    return g.ops.max_dim(meta(8192, 4096), 1)


@case("all_bool", MEMORY, "ops/all.py:all_kernel_1/_2 (bool)")
def _(g):
    return g.ops.all(meta(4096, 4096, dtype="bool"))


@case("count_nonzero_dim", MEMORY, "ops/count_nonzero.py:count_nonzero_kernel")
def _(g):
    return g.ops.count_nonzero(meta(4096, 4096, dtype="float32"), 1)


@case("mse_loss", MEMORY, "ops/mse_loss.py:kernel_1/_2 (mean)")
def _(g):
    x = meta(4096, 4096, dtype="float32")
    return g.ops.mse_loss(x, x)


@case("dot_fp32", MEMORY, "ops/dot.py:dot_kernel_1/_2")
def _(g):
    return g.ops.dot(meta(16 * 1024 * 1024, dtype="float32"), meta(16 * 1024 * 1024, dtype="float32"))


@case("cumsum_int64", MEMORY, "ops/cumsum.py int64 cumsum dim=1 of (8,4096,64)")
def _(g):
    return g.ops.cumsum(meta(8, 4096, 64, dtype="int64"), 1)


@case("index_add", MEMORY, "ops/index_add.py:index_add_kernel")
def _(g):
    return g.ops.index_add(meta(32000, 4096), 0, meta(8192, dtype="int64"), meta(8192, 4096))


@case("index_put_acc", MEMORY, "ops/index_put.py:generated index_put kernel (accumulate)")
def _(g):
    values = meta(8192, 4096, dtype="float32")
    return g.ops.index_put(meta(32000, 4096, dtype="float32"), [meta(8192, dtype="int64")], values, True)


@case("repeat_interleave", MEMORY, "ops/repeat_interleave.py:repeat_interleave_self_int")
def _(g):
    return g.ops.repeat_interleave_self_int(meta(4096, 1024), 4, 0)


@case("kron", MEMORY, "ops/kron.py:kron_kernel")
def _(g):
    return g.ops.kron(meta(64, 64, dtype="float32"), meta(64, 64, dtype="float32"))


@case("diag_embed", MEMORY, "ops/diag_embed.py")
def _(g):
    return g.ops.diag_embed(meta(64, 1024, dtype="float32"))


@case("weight_norm", MEMORY, "ops/weightnorm.py:weight_norm_kernel_first")
def _(g):
    return g.ops.weight_norm_interface(meta(4096, 4096, dtype="float32"), meta(4096, 1, dtype="float32"), 0)


@case("isin", COMPUTE, "ops/isin.py")
def _(g):
    return g.ops.isin(meta(1 << 20, dtype="int32"), meta(4096, dtype="int32"))


@case("uniform_", MEMORY, "ops/uniform.py:uniform_kernel (philox)")
def _(g):
    return g.ops.uniform_(meta(8192, 4096, dtype="float32"))


@case("exponential_", MEMORY, "ops/exponential_.py (philox)")
def _(g):
    return g.ops.exponential_(meta(8192, 4096, dtype="float32"))


@case("multinomial", COMPUTE, "ops/multinomial.py:multinomial_with_replacement")
def _(g):
    return g.ops.multinomial(meta(64, 32000, dtype="float32"), 4, True)


@case("avg_pool2d", MEMORY, "ops/avg_pool2d.py:avg_pool2d_forward_kernel")
def _(g):
    return g.ops.avg_pool2d(meta(32, 64, 112, 112), [3, 3], [2, 2], [1, 1])


@case("conv1d", COMPUTE, "ops/conv1d.py -> conv2d kernel")
def _(g):
    return g.ops.conv1d(meta(32, 256, 1024), meta(256, 256, 3), None, 1, 1)


@case("mm_fp32_tf32", COMPUTE, "ops/mm.py:mm_kernel fp32")
def _(g):
    x = meta(4096, 4096, dtype="float32")
    return g.ops.mm(x, x)


@case("mm_transposed_b_bf16", COMPUTE, "ops/mm.py:mm_kernel, B transposed (column-major)")
def _(g):
    return g.ops.mm(meta(4096, 4096, dtype="bfloat16"), meta(11008, 4096, dtype="bfloat16").t())


@case("mm_tiny", COMPUTE, "ops/mm.py:mm_kernel 1x1x1")
def _(g):
    return g.ops.mm(meta(1, 1), meta(1, 1))


@case("bmm_odd", COMPUTE, "ops/bmm.py:bmm_kernel (12,197,64)x(12,64,197)")
def _(g):
    return g.ops.bmm(meta(12, 197, 64), meta(12, 64, 197))


@case("sdpa_bf16_d64_noncausal", COMPUTE, "ops/attention.py:_attn_fwd bf16 d=64 seq 4096")
def _(g):
    q = meta(4, 16, 4096, 64, dtype="bfloat16")
    return g.ops.scaled_dot_product_attention(q, q, q)


@case("sdpa_gqa_decode", COMPUTE, "ops/attention.py:_attn_fwd GQA q_len=1 kv 8192")
def _(g):
    k = meta(8, 8, 8192, 128)
    return g.ops.scaled_dot_product_attention(meta(8, 32, 1, 128), k, k, enable_gqa=True)


@case("sdpa_backward", COMPUTE, "ops/attention.py: sdpa backward kernels")
def _(g):
    q = meta(4, 16, 2048, 128)
    lse = meta(4, 16, 2048, dtype="float32")
    return g.ops.scaled_dot_product_attention_backward(q, q, q, q, q, lse, is_causal=True)


@case("topk_k1_large", COMPUTE, "ops/topk.py k=1 over 1M")
def _(g):
    return g.ops.topk(meta(4, 1 << 20, dtype="float32"), 1)


@case("sort_small_rows", COMPUTE, "ops/sort.py small N=256 rows")
def _(g):
    return g.ops.sort(meta(8192, 256), -1)


@case("quantile", COMPUTE, "ops/quantile.py")
def _(g):
    return g.ops.quantile(meta(1024, 4096, dtype="float32"), 0.5, 1)


@case("nll_loss2d", MEMORY, "ops/nllloss.py:nll_loss2d_forward_kernel")
def _(g):
    return g.ops.nll_loss2d_forward(
        meta(16, 21, 512, 512, dtype="float32"), meta(16, 512, 512, dtype="int64")
    )


@case("batch_norm_eval", MEMORY, "ops/batch_norm.py eval mode")
def _(g):
    c = 256
    running_mean, running_var = meta(c, dtype="float32"), meta(c, dtype="float32")
    return g.ops.batch_norm(
        meta(32, c, 56, 56), meta(c), meta(c), running_mean, running_var, False, 0.1, 1e-5
    )


@case("group_norm_bwd", MEMORY, "ops/groupnorm.py:group_norm_backward_kernel + weight_bias")
def _(g):
    x = meta(32, 256, 56, 56)
    mean, rstd = meta(32, 32, dtype="float32"), meta(32, 32, dtype="float32")
    return g.ops.group_norm_backward(x, x, mean, rstd, meta(256), 32, 256, 3136, 32, [True, True, True])


@case("embedding_bf16_big", MEMORY, "ops/embedding.py:embedding_kernel vocab 128256 dim 8192")
def _(g):
    return g.ops.embedding(meta(128256, 8192, dtype="bfloat16"), meta(4, 8192, dtype="int64"))


@case(
    "libentry_passed_raw",
    MEMORY,
    "ops/softmax.py:softmax_kernel_inner passed as the LibEntry wrapper",
    unwrap=False,
)
def _(g):
    return g.ops.softmax(meta(32768, 4096), -1)

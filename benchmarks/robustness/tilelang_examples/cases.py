"""The TileLang example cases: a kernel from TileLang's ``examples/``, called with realistic sizes.

A case's ``build(load)`` imports the example file it needs through ``load`` (an ``ExampleLoader``) and returns
``(target, args, kwargs)`` for ``tilesight.estimate(target, *args, hw=..., **kwargs)``. ``flops`` (a GEMM's
work) and ``tc_dtype`` (its operand type) let the harness check the prediction against the datasheet
tensor-core rate.
"""

from __future__ import annotations

import re
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import tilelang.language as T

from tilesight import TensorSpec as TS

_ON_CPU = (('device="cuda"', 'device="cpu"'), ("device='cuda'", "device='cpu'"), (".cuda()", ""))
Build = Callable[["ExampleLoader"], tuple[Any, tuple[Any, ...], dict[str, Any]]]


class ExampleLoader:
    """Imports ``examples/<rel>`` as a module, with ``device="cuda"`` and ``.cuda()`` made CPU (only
    module-level tensors need it); nothing else in the example changes. ``cut``: drop the source from the
    first line that starts with this text (module-level benchmark code)."""

    def __init__(self, examples: Path) -> None:
        self.examples = examples
        self.loaded: list[str] = []
        self._modules: dict[tuple[str, str | None], types.ModuleType] = {}

    def __call__(self, rel: str, cut: str | None = None) -> types.ModuleType:
        if (rel, cut) in self._modules:
            return self._modules[(rel, cut)]
        path = self.examples / rel
        if str(path.parent) not in sys.path:
            sys.path.insert(0, str(path.parent))
        src = path.read_text()
        if cut:
            src = src[: src.index("\n" + cut) + 1]
        for cuda, cpu in _ON_CPU:
            src = src.replace(cuda, cpu)
        name = "ex_" + re.sub(r"\W", "_", rel.removesuffix(".py"))
        module = types.ModuleType(name)
        module.__file__ = str(path)
        sys.modules[name] = module
        # dont_inherit: this file's `from __future__ import annotations` would make the example's annotations
        # strings, which TileLang cannot evaluate where they name a local (a shape built in the function)
        exec(compile(src, str(path), "exec", dont_inherit=True), module.__dict__)
        self._modules[(rel, cut)] = module
        self.loaded.append(rel)
        return module


@dataclass(frozen=True)
class Case:
    name: str
    build: Build
    flops: float = 0.0
    tc_dtype: str | None = None

    def __post_init__(self) -> None:
        if self.flops and self.tc_dtype is None:
            raise ValueError(f"case {self.name}: a GEMM's flops need its tensor-core dtype")


CASES: dict[str, Case] = {}


def case(name: str, flops: float = 0.0, tc_dtype: str | None = None) -> Callable[[Build], Build]:
    def register(build: Build) -> Build:
        CASES[name] = Case(name, build, flops, tc_dtype)
        return build

    return register


F16, BF16, F32, I32 = "float16", "bfloat16", "float32", "int32"
FP8 = "float8_e4m3"
G = 4096  # the square GEMM size
B_, H_, S_, D_ = 8, 32, 4096, 128  # attention: batch, heads, sequence, head dim

# ---------------------------------------------------------------------------------- GEMM family


@case("gemm/example_gemm matmul 4096^3", flops=2 * G**3, tc_dtype=F16)
def _(load):
    m = load("gemm/example_gemm.py")
    return m.matmul, (TS((G, G), F16), TS((G, G), F16)), dict(block_M=128, block_N=128, block_K=32)


@case("gemm/example_gemm_persistent matmul_persistent", flops=2 * G**3, tc_dtype=F16)
def _(load):
    m = load("gemm/example_gemm_persistent.py")
    cfg = dict(block_M=128, block_N=256, block_K=64, threads=256, num_stages=3)
    return m.matmul_persistent, (TS((G, G), F16), TS((G, G), F16)), cfg


@case("gemm/example_gemm_persistent matmul_persistent (manual)", flops=2 * G**3, tc_dtype=F16)
def _(load):
    m = load("gemm/example_gemm_persistent.py")
    cfg = dict(
        block_M=128, block_N=256, block_K=64, threads=256, num_stages=3, use_persistent_primitive=False
    )
    return m.matmul_persistent, (TS((G, G), F16), TS((G, G), F16)), cfg


@case("gemm/example_gemm_intrinsics tl_matmul", flops=2 * G**3, tc_dtype=F16)
def _(load):
    m = load("gemm/example_gemm_intrinsics.py")
    cfg = dict(in_dtype=T.float16, out_dtype=T.float16, accum_dtype=T.float32)
    return m.tl_matmul, (TS((G, G), F16), TS((G, G), F16)), cfg


@case("gemm_splitk/splitk matmul", flops=2 * G**3, tc_dtype=F16)
def _(load):
    m = load("gemm_splitk/example_tilelang_gemm_splitk.py")
    return m.matmul, (TS((G, G), F16), TS((G, G), F16), TS((G, G), F32), 128, 128, 32, 4), {}


@case("gemm_splitk/vectorize_atomicadd matmul", flops=2 * G**3, tc_dtype=F16)
def _(load):
    m = load("gemm_splitk/example_tilelang_gemm_splitk_vectorize_atomicadd.py")
    return m.matmul, (TS((G, G), F16), TS((G, G), F16), TS((G, G), F32), 128, 128, 32, 4), {}


@case("gemm_streamk tl_matmul_streamk (256x1024x512, module config)")
def _(load):
    m = load("gemm_streamk/example_tilelang_gemm_streamk.py")
    tensors = (TS((m.m, m.k), F16), TS((m.n, m.k), F16), TS((m.m, m.n), F32))
    blocks = (m.BLOCK_SIZE_M, m.BLOCK_SIZE_N, m.BLOCK_SIZE_K)
    rest = (False, True, T.float16, T.float32, T.float32, 2, 64)
    return m.tl_matmul_streamk, (*tensors, m.streamk_tiles, *blocks, *rest), {}


@case("gemm_fp8 e4m3 matmul 4096^3", flops=2 * G**3, tc_dtype="float8_e4m3fn")
def _(load):
    m = load("gemm_fp8/example_tilelang_gemm_fp8.py")
    dtype = T.float8_e4m3fn if hasattr(T, "float8_e4m3fn") else FP8
    return (
        m.matmul,
        (TS((G, G), FP8), TS((G, G), FP8)),
        dict(block_M=128, block_N=128, block_K=64, dtype=dtype),
    )


@case("gemm_fp8 e5m2 matmul 4096^3", flops=2 * G**3, tc_dtype="float8_e5m2")
def _(load):
    m = load("gemm_fp8/example_tilelang_gemm_fp8.py")
    cfg = dict(block_M=128, block_N=128, block_K=64, dtype="float8_e5m2")
    return m.matmul, (TS((G, G), "float8_e5m2"), TS((G, G), "float8_e5m2")), cfg


@case("gemm_fp8 2xAcc matmul 4096x4096x8192", flops=2 * G * G * 8192, tc_dtype="float8_e4m3fn")
def _(load):
    m = load("gemm_fp8/example_tilelang_gemm_fp8_2xAcc.py")
    cfg = dict(block_M=128, block_N=128, block_K=64, dtype=FP8)
    return m.matmul, (TS((G, 8192), FP8), TS((G, 8192), FP8)), cfg


@case("gemm_int4 matmul_nt_int4 4096^3", flops=2 * G**3, tc_dtype="int4")
def _(load):
    m = load("gemm_int4/example_tilelang_gemm_int4.py")
    return m.matmul_nt_int4(G, G, G, 128, 128, 64, 128), (), {}


# ---------------------------------------------------------------------------------- attention


@case("flash_attention/mha_fwd_bhsd b8 h32 s4096 d128 (64x64 cfg)")
def _(load):
    m = load("flash_attention/example_mha_fwd_bhsd.py")
    return m.flashattn, (B_, H_, S_, S_, D_, False), dict(block_M=64, block_N=64, num_stages=1, threads=128)


@case("flash_attention/mha_fwd_bhsd causal, seq_q 1024 < seq_kv 4096 (tuned cfg)")
def _(load):
    m = load("flash_attention/example_mha_fwd_bhsd.py")
    return (
        m.flashattn,
        (B_, H_, 1024, S_, D_, True),
        dict(block_M=128, block_N=128, num_stages=2, threads=256),
    )


@case("flash_attention/mha_fwd_bshd causal")
def _(load):
    m = load("flash_attention/example_mha_fwd_bshd.py")
    return m.flashattn, (B_, H_, S_, D_, True), dict(block_M=128, block_N=128, num_stages=2, threads=256)


@case("flash_attention/gqa_fwd_bshd groups=16")
def _(load):
    m = load("flash_attention/example_gqa_fwd_bshd.py")
    cfg = dict(groups=16, block_M=128, block_N=128, num_stages=2, threads=256)
    return m.flashattn, (B_, H_, S_, D_, False), cfg


@case("flash_attention/mha_bwd_bshd flashattn_bwd")
def _(load):
    m = load("flash_attention/example_mha_bwd_bshd.py")
    return m.flashattn_bwd, (B_, H_, S_, D_, False, 64, 64), {}


@case("flash_attention/mha_bwd_bshd preprocess")
def _(load):
    m = load("flash_attention/example_mha_bwd_bshd.py")
    return m.flashattn_bwd_preprocess, (B_, H_, S_, D_), {}


@case("flash_attention/gqa_bwd atomic_add d192/128 groups16")
def _(load):
    m = load("flash_attention/example_gqa_bwd.py")
    cfg = dict(threads=256, num_stages=2, groups=16)
    return m.flashattn_bwd_atomic_add, (B_, H_, S_, 192, 128, True, 128, 32), cfg


@case("flash_attention/gqa_bwd split d192/128 groups16")
def _(load):
    m = load("flash_attention/example_gqa_bwd.py")
    cfg = dict(threads=256, num_stages=2, groups=16)
    return m.flashattn_bwd_split, (B_, H_, S_, 192, 128, False, 128, 32), cfg


@case("flash_attention/gqa_bwd postprocess")
def _(load):
    m = load("flash_attention/example_gqa_bwd.py")
    return m.flashattn_bwd_postprocess, (B_, H_, S_, 192), {}


@case("flash_decoding/gqa_decode split=8 (heuristic cfg) b8 h32 g8 kv8192")
def _(load):
    m = load("flash_decoding/example_gqa_decode.py")
    cfg = dict(block_N=128, block_H=64, num_split=8, num_stages=2, threads=128)
    return m.flashattn, (8, 32, 8, 8192, 128), cfg


@case("flash_decoding/gqa_decode no split")
def _(load):
    m = load("flash_decoding/example_gqa_decode.py")
    cfg = dict(block_N=128, block_H=64, num_split=1, num_stages=2, threads=128)
    return m.flashattn, (8, 32, 8, 8192, 128), cfg


@case("flash_decoding/mha_inference q128 kv8192")
def _(load):
    m = load("flash_decoding/example_mha_inference.py")
    return m.flashattn, (8, 32, 128, 8192, 128, False, 128, 64), {}


@case("deepseek_mla/mla_decode b132 h128 kv8192")
def _(load):
    m = load("deepseek_mla/example_mla_decode.py")
    return m.flashattn, (132, 128, 1, 8192, 512, 64, 64, 64, 1, (512 + 64) ** -0.5), {}


@case("deepseek_mla/mla_decode_ws b132 h128 kv8192")
def _(load):
    m = load("deepseek_mla/example_mla_decode_ws.py")
    return m.flashattn, (132, 128, 1, 8192, 512, 64, 64, 64, 1, (512 + 64) ** -0.5), {}


@case("deepseek_mla/mla_decode_persistent b128 split2")
def _(load):
    m = load("deepseek_mla/example_mla_decode_persistent.py")
    return m.flashattn, (128, 128, 1, 8192, 512, 64, 64, 64, 2), {}


# ---------------------------------------------------------------------------------- linear attention, SSM


@case("linear_attention/linear_attn_fwd B8 S4096 H32 D128")
def _(load):
    m = load("linear_attention/example_linear_attn_fwd.py")
    return m.tl_fused_chunk_fwd_kernel, (8, 4096, 32, 128, 128), {}


@case("linear_attention/linear_attn_bwd B8 S4096 H32 D128")
def _(load):
    m = load("linear_attention/example_linear_attn_bwd.py")
    return m.tl_fused_chunk_bwd_kernel, (8, 4096, 32, 128, 128), {}


@case("linear_attention/retention_fwd B8 S4096 H32 D128")
def _(load):
    m = load("linear_attention/example_retention_fwd.py")
    return m.chunk_retention_fwd_kernel, (8, 4096, 32, 128, 128), {}


@case("linear_attention/mamba_chunk_scan b8 h80 s4096 c256")
def _(load):
    m = load("linear_attention/example_mamba_chunk_scan.py")
    b, h, g, s, c, d, n = 8, 80, 1, 4096, 256, 64, 128
    nc = s // c
    args = (
        TS((b, nc, g, c, c), F16),
        TS((b, s, h, d), F16),
        TS((b, h, nc, c), F16),
        TS((b, h, nc, c), F16),
        TS((b, s, g, n), F16),
        TS((b, nc, h, d, n), F16),
        TS((h,), F16),
    )
    cfg = dict(block_M=64, block_N=64, block_K=64, block_Dstate=128, num_stages=2, threads=128)
    return m.chunk_scan_fwd, args, cfg


@case("linear_attention/mamba_chunk_state b8 h80 s4096 c256")
def _(load):
    m = load("linear_attention/example_mamba_chunk_state.py")
    b, h, g, s, c, d, n = 8, 80, 1, 4096, 256, 64, 128
    nc = s // c
    args = (TS((b, s, g, n), F16), TS((b, s, h, d), F16), TS((b, h, nc, c), F16), TS((b, h, nc, c), F16))
    return m.chunk_state_fwd, args, dict(block_M=64, block_N=128, block_K=64, num_stages=4, threads=128)


# ------------------------------------------------------------------------- norms, element-wise, reductions


@case("norm/rms_norm_splitk 8192x8192 f32 blk_m1 blk_k512")
def _(load):
    m = load("norm/rms_norm.py")
    return m.rms_norm_splitk, (TS((8192, 8192), F32),), dict(blk_m=1, blk_k=512)


@case("norm/rms_norm 8192x8192 f32 blk_m1")
def _(load):
    m = load("norm/rms_norm.py")
    return m.rms_norm, (TS((8192, 8192), F32),), dict(blk_m=1)


@case("norm/layernorm fwd N16384 D4096 bf16")
def _(load):
    m = load("norm/layernorm.py")
    return m._layernorm_fwd, (16384, 4096), {}


@case("norm/layernorm bwd N16384 D4096 bf16")
def _(load):
    m = load("norm/layernorm.py")
    return m._layernorm_bwd, (16384, 4096), {}


@case("elementwise/elementwise_add 8192x8192 f32 32x32")
def _(load):
    m = load("elementwise/example_elementwise_add.py")
    cfg = dict(block_M=32, block_N=32, threads=128, in_dtype=T.float32, out_dtype=T.float32)
    return m.elementwise_add, (TS((8192, 8192), F32), TS((8192, 8192), F32)), cfg


@case("online_softmax 8192x8192 f16")
def _(load):
    m = load("online_softmax/online_softmax.py", cut="M = 8192")
    m.M, m.N = 8192, 8192  # module globals the kernel reads
    return m.softmax_kernel, (TS((8192, 8192), F16),), {}


@case("topk M=65536 N=128 topk6 blk_m64")
def _(load):
    m = load("topk/example_topk.py")
    return m.tl_topk, (TS((65536, 128), F32), 6), dict(blk_m=64, threads=128)


@case("gdn/cumsum B1 S32768 H32 chunk64 reverse")
def _(load):
    m = load("gdn/example_cumsum.py")
    cfg = dict(B=1, S=32768, H=32, chunk_size=64, reverse=True, head_first=False, input_dtype=T.float32)
    cfg.update(output_dtype=T.float32, block_S=64, threads=256, use_fragment=False)
    return m.tilelang_chunk_local_cumsum_scalar, (), cfg


@case("gdn/cumsum use_fragment=True")
def _(load):
    m = load("gdn/example_cumsum.py")
    cfg = dict(B=8, S=8192, H=32, chunk_size=64, reverse=False, head_first=False, input_dtype=T.float32)
    cfg.update(output_dtype=T.float32, block_S=64, threads=256, use_fragment=True)
    return m.tilelang_chunk_local_cumsum_scalar, (), cfg


@case("cast/per_token_cast_to_fp8 8192x8192 blk_m8")
def _(load):
    m = load("cast/example_per_token_cast_to_fp8.py")
    return m.per_token_cast_to_fp8, (TS((8192, 8192), F32), 8), {}


@case("hadamard b64 n32768 f32")
def _(load):
    m = load("hadamard_transform/example_hadamard.py")
    return m.hadamard, (TS((64, 32768), F32), 32768, T.float32), {}


@case("convolution n128 c128 64x64 f128 k3")
def _(load):
    m = load("convolution/example_convolution.py")
    args = (TS((128, 64, 64, 128), F16), TS((3, 3, 128, 128), F16), 1, 1, 1, 64, 128, 32, 3, 256)
    return m.convolution, args, {}


@case("blocksparse_gemm 4096^3 mask 50% (default cfg)", flops=2 * G**3, tc_dtype=F16)
def _(load):
    m = load("blocksparse_gemm/example_blocksparse_gemm.py")
    mask = np.random.default_rng(0).random((G // 128, G // 128, G // 32)) < 0.5
    cfg = dict(block_M=128, block_N=128, block_K=32, num_stages=2, thread_num=128, enable_rasteration=True)
    return m.blocksparse_matmul, (TS((G, G), F16), TS((G, G), F16), mask), cfg


# ----------------------------------------------------------------------------- sparse, MoE, quantized, misc


@case("deepseek_v32/sparse_mla_fwd B1 S4096 SKV8192 H128 topk2048 (indices given)")
def _(load):
    m = load("deepseek_v32/sparse_mla_fwd.py")
    idx = np.random.default_rng(0).integers(0, 8192, size=(1, 4096, 1, 2048), dtype=np.int32)
    args = (TS((1, 4096, 128, 576), BF16), TS((1, 8192, 1, 576), BF16), idx, 128, 512, 64, 2048)
    return m.sparse_mla_fwd, args, dict(block_I=64, num_stages=2, threads=256)


@case("deepseek_v32/sparse_mla_fwd (indices as TensorSpec, no values)")
def _(load):
    m = load("deepseek_v32/sparse_mla_fwd.py")
    idx = TS((1, 4096, 1, 2048), I32)
    args = (TS((1, 4096, 128, 576), BF16), TS((1, 8192, 1, 576), BF16), idx, 128, 512, 64, 2048)
    return m.sparse_mla_fwd, args, dict(block_I=64, num_stages=2, threads=256)


@case("deepseek_nsa/nsa_fwd B8 S4096 HQ64 H4 D128 S16 bs64 (indices given)")
def _(load):
    m = load("deepseek_nsa/example_tilelang_nsa_fwd.py")
    b, seq, h, hq, d, s, bs = 8, 4096, 4, 64, 128, 16, 64
    blocks = np.random.default_rng(0).integers(0, seq // bs, size=(b, seq, h, s))
    idx = np.sort(blocks, axis=-1).astype(np.int32)
    args = (TS((b, seq, hq, d), F16), TS((b, seq, h, d), F16), TS((b, seq, h, d), F16), idx)
    cfg = dict(dim=d, is_causal=True, block_size=bs, groups=hq // h, selected_blocks=s)
    return m.native_sparse_attention, args, cfg


def _padded_offsets(sizes: list[int], block: int) -> list[int]:
    padded = [0]
    for size in sizes[:-1]:
        padded.append(padded[-1] + -(-size // block) * block)
    return padded


@case("grouped_gemm fwd sizes[100,200,300,400] K8192 N8192 64^3 (offsets given)")
def _(load):
    m = load("grouped_gemm/example_grouped_gemm_fwd.py")
    sizes = [100, 200, 300, 400]
    offsets = np.array([0, *np.cumsum(sizes)[:-1]], dtype=np.int32)
    padded = np.array(_padded_offsets(sizes, 64), np.int32)
    a, b = TS((sum(sizes), 8192), F16), TS((4, 8192, 8192), F16)
    tensors = (a, b, np.array(sizes, np.int32), offsets, padded)
    return m.grouped_gemm, (*tensors, tuple(sizes), 64, 64, 64, False, 2, 128), {}


@case("grouped_gemm fwd (offset tensors without contents)")
def _(load):
    m = load("grouped_gemm/example_grouped_gemm_fwd.py")
    sizes = [100, 200, 300, 400]
    a, b = TS((sum(sizes), 8192), F16), TS((4, 8192, 8192), F16)
    tensors = (a, b, TS((4,), I32), TS((4,), I32), TS((4,), I32))
    return m.grouped_gemm, (*tensors, tuple(sizes), 64, 64, 64, False, 2, 128), {}


# M, N, K, in / out / accum dtype, num_bits, storage dtype, source format, n_partition, reduce_thread;
# the cases add fast_decoding, trans_A, trans_B, group_size, with_scaling
DEQUANT_GEMV = (1, 8192, 8192, "float16", "float16", "float16", 4, "int8", "uint", 4, 32)


@case("dequantize_gemm/dequant_gemv_fp16xint4 M1 N8192 K8192 fast_decoding")
def _(load):
    m = load("dequantize_gemm/example_dequant_gemv_fp16xint4.py")
    args = (*DEQUANT_GEMV, True, False, True, -1, False)
    return m.dequantize_gemv, args, {}


@case("dequantize_gemm/dequant_gemv_fp16xint4 (no fast_decoding)")
def _(load):
    m = load("dequantize_gemm/example_dequant_gemv_fp16xint4.py")
    args = (*DEQUANT_GEMV, False, False, True, -1, False)
    return m.dequantize_gemv, args, {}


@case("dequantize_gemm/w4a8 matmul_int8xint4 4096^3", flops=2 * G**3, tc_dtype="int8")
def _(load):
    m = load("dequantize_gemm/example_dequant_gemm_w4a8.py")
    cfg = dict(num_bits=4, block_M=32, block_N=32, block_K=128, num_stages=1, threads=128)
    return m.matmul_int8xint4, (G, G, G, "int8", "int32", "int32"), cfg


@case("dequantize_gemm/bf16_fp4_hopper 4096^3 fast_dequant", flops=2 * G**3, tc_dtype=BF16)
def _(load):
    m = load("dequantize_gemm/example_dequant_gemm_bf16_fp4_hopper.py")
    cfg = dict(
        num_bits=4, fast_dequant=True, block_M=256, block_N=128, block_K=128, num_stages=2, threads=256
    )
    return m.matmul, (G, G, G, T.bfloat16, T.bfloat16, T.float32), dict(cfg, split=1)


@case("dynamic_shape matmul_dynamic_mnk 16384^3 (m,n,k bound)", flops=2 * 16384**3, tc_dtype=F16)
def _(load):
    m = load("dynamic_shape/example_dynamic.py")
    n = 16384
    blocks, dtypes = (128, 128, 32), ("float16", "float16", "float32")
    args = (TS((n, n), F16), TS((n, n), F16), *blocks, False, False, *dtypes, 3, 128)
    return m.matmul_dynamic_mnk, args, {}


@case("deepseek_v32/sparse_mla_fwd sizes by name (batch=1 seq_len=4096 seq_len_kv=8192)")
def _(load):
    m = load("deepseek_v32/sparse_mla_fwd.py")
    idx = TS((1, 4096, 1, 2048), I32)
    args = (TS((1, 4096, 128, 576), BF16), TS((1, 8192, 1, 576), BF16), idx, 128, 512, 64, 2048)
    cfg = dict(block_I=64, num_stages=2, threads=256, batch=1, seq_len=4096, seq_len_kv=8192)
    return m.sparse_mla_fwd, args, cfg


@case("gdn/chunk_o B1 S32768 H32 DK=DV=128 use_g")
def _(load):
    m = load("gdn/example_chunk_o.py")
    args = (1, 32768, 32, 128, 128, T.bfloat16, T.bfloat16, T.float32, T.float32, 64, 128**-0.5, True)
    return (
        m.tilelang_chunk_fwd_o,
        args,
        dict(block_S=64, block_DK=128, block_DV=128, threads=128, num_stages=1),
    )


@case("gdn/chunk_delta_h B1 S32768 H32 DK=DV=128")
def _(load):
    m = load("gdn/example_chunk_delta_h.py")
    dtypes = (T.bfloat16, T.bfloat16, T.float32, T.float32, T.float32)
    args = (1, 32768, 32, 128, 128, *dtypes, 64, True, False, True, True)
    return (
        m.tilelang_chunk_gated_delta_rule_fwd_h,
        args,
        dict(block_DK=32, block_DV=32, threads=128, num_stages=2),
    )


@case("attention_sink/mha_sink_fwd_bhsd b8 h32 s4096 window=128")
def _(load):
    m = load("attention_sink/example_mha_sink_fwd_bhsd.py")
    return (
        m.flashattn,
        (8, 32, 4096, 4096, 128, 128),
        dict(block_M=128, block_N=128, num_stages=2, threads=256),
    )


@case("attention_sink/mha_sink_fwd_bhsd full attention (window None)")
def _(load):
    m = load("attention_sink/example_mha_sink_fwd_bhsd.py")
    return (
        m.flashattn,
        (8, 32, 4096, 4096, 128, None),
        dict(block_M=128, block_N=128, num_stages=2, threads=256),
    )


@case("block_causal_attention fwd b8 h32 s4096 d128 dllm_block=64")
def _(load):
    m = load("block_causal_attention/block_causal_attention.py")
    return m._fwd_template, (8, 32, 4096, 128, 64, 128**-0.5), {}


@case("warp_specialize gemm_copy_1_gemm_0 16384^3", flops=2 * 16384**3, tc_dtype=F16)
def _(load):
    m = load("warp_specialize/example_warp_specialize_gemm_copy_1_gemm_0.py")
    args = (TS((16384, 16384), F16), TS((16384, 16384), F16))
    return m.matmul_warp_specialize_copy_1_gemm_0, args, dict(block_M=128, block_N=128, block_K=64)


@case("rand/rand_uint M=2^26")
def _(load):
    m = load("rand/rand_uint.py")
    return m.tilelang_rand_1d, (), dict(M=1 << 26, seed=42)


# ---------------------------------------------------------------------------- the plain GEMM at other shapes


@case("gemm/example_gemm M=4095 N=4097 K=4096 (ragged)", flops=2 * 4095 * 4097 * 4096, tc_dtype=F16)
def _(load):
    m = load("gemm/example_gemm.py")
    return (
        m.matmul,
        (TS((4095, 4096), F16), TS((4096, 4097), F16)),
        dict(block_M=128, block_N=128, block_K=32),
    )


@case("gemm/example_gemm decode M=1 N=K=8192")
def _(load):
    m = load("gemm/example_gemm.py")
    return m.matmul, (TS((1, 8192), F16), TS((8192, 8192), F16)), dict(block_M=128, block_N=128, block_K=32)


@case("gemm/example_gemm K=100 (K < pipeline depth*block_K, ragged)")
def _(load):
    m = load("gemm/example_gemm.py")
    return m.matmul, (TS((8192, 100), F16), TS((100, 8192), F16)), dict(block_M=128, block_N=128, block_K=32)


@case("gemm/example_gemm 16384x16384x65536 (big)", flops=2 * 16384 * 16384 * 65536, tc_dtype=F16)
def _(load):
    m = load("gemm/example_gemm.py")
    args = (TS((16384, 65536), F16), TS((65536, 16384), F16))
    return m.matmul, args, dict(block_M=128, block_N=128, block_K=32)


@case("gemm/example_gemm bf16 via dtype kwarg", flops=2 * G**3, tc_dtype=BF16)
def _(load):
    m = load("gemm/example_gemm.py")
    cfg = dict(block_M=128, block_N=256, block_K=64, dtype=T.bfloat16)
    return m.matmul, (TS((G, G), BF16), TS((G, G), BF16)), cfg


@case("gemm_splitk split_k=1 and 64x64 tiles, M=64 decode-ish")
def _(load):
    m = load("gemm_splitk/example_tilelang_gemm_splitk.py")
    return m.matmul, (TS((64, 8192), F16), TS((8192, 8192), F16), TS((64, 8192), F32), 64, 64, 64, 16), {}


@case("deepseek_v32/fp8_lighting_indexer S4096 SKV8192 H32 D64 (sizes by name)")
def _(load):
    m = load("deepseek_v32/fp8_lighting_indexer.py")
    s, skv, h, d = 4096, 8192, 32, 64
    starts = np.zeros(s, np.int32)
    ends = np.minimum(np.arange(s, dtype=np.int32) + (skv - s) + 1, skv).astype(np.int32)
    args = (TS((s * h, d), FP8), TS((skv, d), FP8), TS((skv,), F32), TS((s, h), F32), starts, ends)
    return m.mqa_attn_return_logits, args, dict(seq_len=s, seq_len_kv=skv)


@case("deepseek_v32/topk_selector batch64 seq32768 topk2048 (sizes by name)")
def _(load):
    m = load("deepseek_v32/topk_selector.py")
    b, s, k = 64, 32768, 2048
    args = (TS((b, s), F32), TS((b, k), I32), np.zeros(b, np.int32), np.full(b, s, np.int32))
    return m.tl_topk_impl, args, dict(batch=b, seq_len=s)

"""New shapes of the survey kernels the stop-20 TileLang fixes were read from (a GEMV indexed by the thread
index, a split-KV combine): an out-of-sample check, measured after their predictions were recorded. Names end
in ``_r``; ``run_gpu.py --set recheck`` runs them."""

from common import case
from kernels_attn import combine_case
from kernels_gemm import gemv_case


@case("gemv_n8192_k28672_r", "GEMV recheck: 8192 x 28672 fp16, 64 x 4 threads, 8-wide vectors")
def gemv_a():
    return gemv_case(8192, 28672, 64, 4, 8, "float16")


@case("gemv_n28672_k8192_r", "GEMV recheck: 28672 x 8192 bf16, 32 x 8 threads, 8-wide vectors")
def gemv_b():
    return gemv_case(28672, 8192, 32, 8, 8, "bfloat16")


@case("flash_decode_combine_s16_r", "split-KV combine recheck: 16 splits, 64 x 32 heads, dim 128")
def combine_a():
    return combine_case(64, 32, 16, 128)


@case("flash_decode_combine_s4_d256_r", "split-KV combine recheck: 4 splits, 16 x 16 heads, dim 256")
def combine_b():
    return combine_case(16, 16, 4, 256)

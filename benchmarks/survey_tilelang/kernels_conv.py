"""Convolutions through ``T.im2col`` at shapes, filter sizes, strides and tiles the survey's one kernel does
not have (NHWC fp16, implicit GEMM: the im2col tile of the input beside a ``(kh, kw, c) x F`` weight tile,
a ``T.gemm`` a step): the blind check of stop 39's reading of ``T.im2col`` as a copy of the input pixels one
tap and channel slice of the tile's output pixels sit on, predicted before they were timed. Names end in
``_v``; ``run_gpu.py --set conv`` runs them.
"""

import tilelang.language as T
from common import Case, case


def conv_case(n, c, h, w, f, kk, s, p, bm, bn, bk, stages, threads, d=1) -> Case:
    """``n x h x w x c`` input, ``kk x kk x c x f`` weights, stride ``s``, padding ``p``: one block a
    ``bm x bn`` tile of the ``(n * oh * ow) x f`` output."""
    oh = (h + 2 * p - d * (kk - 1) - 1) // s + 1
    ow = (w + 2 * p - d * (kk - 1) - 1) // s + 1

    @T.prim_func
    def main(
        data: T.Tensor((n, h, w, c), "float16"),
        kernel: T.Tensor((kk, kk, c, f), "float16"),
        out: T.Tensor((n, oh, ow, f), "float16"),
    ):
        with T.Kernel(T.ceildiv(f, bn), T.ceildiv(n * oh * ow, bm), threads=threads) as (bx, by):
            data_s = T.alloc_shared((bm, bk), "float16")
            kern_s = T.alloc_shared((bk, bn), "float16")
            out_l = T.alloc_fragment((bm, bn), "float32")
            out_s = T.alloc_shared((bm, bn), "float16")
            kernel_flat = T.Tensor((kk * kk * c, f), "float16", kernel.data)
            out_flat = T.Tensor((n * oh * ow, f), "float16", out.data)
            T.clear(out_l)
            for k in T.Pipelined(T.ceildiv(kk * kk * c, bk), num_stages=stages):
                T.im2col(data, data_s, by, k, kk, s, d, p)
                T.copy(kernel_flat[k * bk, bx * bn], kern_s)
                T.gemm(data_s, kern_s, out_l)
            T.copy(out_l, out_s)
            T.copy(out_s, out_flat[by * bm, bx * bn])

    mg, ng, kg = n * oh * ow, f, kk * kk * c
    return Case(
        main,
        bytes=n * h * w * c * 2 + kk * kk * c * f * 2 + mg * ng * 2,
        flops=2 * mg * ng * kg,
        peak="tc16",
    )


@case("conv3x3_n32_64x64_c256_f256_bm128_bn128_bk64_s3_t256_v", "3x3 conv, 256 channels, two rows a tile")
def conv_a():
    return conv_case(32, 256, 64, 64, 256, 3, 1, 1, 128, 128, 64, 3, 256)


@case("conv3x3_n64_32x32_c128_f256_bm128_bn256_bk32_s3_t256_v", "3x3 conv, 128 -> 256 channels, 128x256x32")
def conv_b():
    return conv_case(64, 128, 32, 32, 256, 3, 1, 1, 128, 256, 32, 3, 256)


@case("conv1x1_n64_32x32_c512_f512_bm128_bn128_bk64_s4_t128_v", "1x1 conv (a pointwise GEMM), 128x128x64")
def conv_c():
    return conv_case(64, 512, 32, 32, 512, 1, 1, 0, 128, 128, 64, 4, 128)


@case("conv3x3s2_n32_64x64_c128_f256_bm64_bn128_bk32_s3_t128_v", "3x3 stride-2 conv, 64 -> 32 pixels a row")
def conv_d():
    return conv_case(32, 128, 64, 64, 256, 3, 2, 1, 32, 128, 32, 3, 128)


@case("conv5x5_n16_64x64_c64_f128_bm64_bn128_bk64_s2_t128_v", "5x5 conv, 64 channels, pad 2")
def conv_e():
    return conv_case(16, 64, 64, 64, 128, 5, 1, 2, 64, 128, 64, 2, 128)


@case("conv3x3_n128_16x16_c512_f512_bm256_bn128_bk64_s3_t256_v", "3x3 conv at 16x16, a whole image a tile")
def conv_f():
    return conv_case(128, 512, 16, 16, 512, 3, 1, 1, 256, 128, 64, 3, 256)

"""Convolutions through ``T.im2col`` that no rule was read against: the blind check of stop 40's reading of
the taps' re-reads (``walker.im2col_rereads``: a tap re-reads the previous one's pixels, the tile beside it
one filter row earlier, and only the steps with new pixels wait for DRAM), predicted before they were timed
and with the rule left out (``conv2_predicted_without_the_rule.json``). Filters of 3, 5 and 7, stride 2,
dilation 2, tiles of half a row, one row, two rows and a whole image's worth; names end in ``_k``;
``run_gpu.py --set conv2`` runs them.
"""

from common import case
from kernels_conv import conv_case


@case("conv3x3_n8_128x128_c64_f128_bm128_bn128_bk64_s3_t256_k", "3x3 conv, one 128-pixel row a tile")
def conv2_a():
    return conv_case(8, 64, 128, 128, 128, 3, 1, 1, 128, 128, 64, 3, 256)


@case("conv3x3_n8_128x128_c64_f64_bm64_bn64_bk64_s3_t128_k", "3x3 conv, half a row a tile, 64 filters")
def conv2_b():
    return conv_case(8, 64, 128, 128, 64, 3, 1, 1, 64, 64, 64, 3, 128)


@case("conv3x3_n16_64x64_c128_f128_bm64_bn128_bk64_s3_t128_k", "3x3 conv, one 64-pixel row a tile")
def conv2_c():
    return conv_case(16, 128, 64, 64, 128, 3, 1, 1, 64, 128, 64, 3, 128)


@case("conv7x7_n16_64x64_c64_f128_bm64_bn128_bk64_s2_t128_k", "7x7 conv, pad 3, one row a tile")
def conv2_d():
    return conv_case(16, 64, 64, 64, 128, 7, 1, 3, 64, 128, 64, 2, 128)


@case("conv3x3d2_n16_64x64_c128_f128_bm128_bn128_bk64_s3_t256_k", "3x3 conv, dilation 2, two rows a tile")
def conv2_e():
    return conv_case(16, 128, 64, 64, 128, 3, 1, 2, 128, 128, 64, 3, 256, d=2)


@case("conv5x5_n16_32x32_c128_f256_bm64_bn128_bk64_s3_t128_k", "5x5 conv, two 32-pixel rows a tile")
def conv2_f():
    return conv_case(16, 128, 32, 32, 256, 5, 1, 2, 64, 128, 64, 3, 128)


@case("conv3x3s2_n32_64x64_c128_f128_bm64_bn128_bk64_s3_t128_k", "3x3 stride-2 conv, two 32-pixel rows")
def conv2_g():
    return conv_case(32, 128, 64, 64, 128, 3, 2, 1, 64, 128, 64, 3, 128)

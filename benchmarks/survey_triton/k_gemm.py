"""GEMM variants."""

import triton
import triton.language as tl
from harness import Case, T, nbytes
from triton.language.extra import libdevice

M = N = K = 4096


@triton.jit
def gemm_basic(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    sam,
    sak,
    sbk,
    sbn,
    scm,
    scn,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    GROUP_M: tl.constexpr,
):
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    width = GROUP_M * num_n
    gid = pid // width
    first_m = gid * GROUP_M
    gsz = min(num_m - first_m, GROUP_M)
    pid_m = first_m + ((pid % width) % gsz)
    pid_n = (pid % width) // gsz
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b_ptrs = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k * BK), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < K - k * BK) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK * sak
        b_ptrs += BK * sbk
    c = acc.to(c_ptr.dtype.element_ty)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, c, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def gemm_hints(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    sam,
    sak,
    sbk,
    sbn,
    scm,
    scn,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    GROUP_M: tl.constexpr,
):
    # matmul tutorial: modulo-wrapped offsets with multiple_of/max_contiguous hints, no M/N masks
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    width = GROUP_M * num_n
    gid = pid // width
    first_m = gid * GROUP_M
    gsz = min(num_m - first_m, GROUP_M)
    pid_m = first_m + ((pid % width) % gsz)
    pid_n = (pid % width) // gsz
    offs_am = (pid_m * BM + tl.arange(0, BM)) % M
    offs_bn = (pid_n * BN + tl.arange(0, BN)) % N
    offs_am = tl.max_contiguous(tl.multiple_of(offs_am, BM), BM)
    offs_bn = tl.max_contiguous(tl.multiple_of(offs_bn, BN), BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_am[:, None] * sam + offs_k[None, :] * sak
    b_ptrs = b_ptr + offs_k[:, None] * sbk + offs_bn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BK * sak
        b_ptrs += BK * sbk
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    tl.store(
        c_ptr + rm[:, None] * scm + rn[None, :] * scn,
        acc.to(tl.float16),
        mask=(rm[:, None] < M) & (rn[None, :] < N),
    )


@triton.jit
def gemm_swizzle2d(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    sam,
    sak,
    sbk,
    sbn,
    scm,
    scn,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    GROUP_M: tl.constexpr,
):
    pid_m0 = tl.program_id(0)
    pid_n0 = tl.program_id(1)
    pid_m, pid_n = tl.swizzle2d(pid_m0, pid_n0, tl.num_programs(0), tl.num_programs(1), GROUP_M)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b_ptrs = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK * sak
        b_ptrs += BK * sbk
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc.to(tl.float16))


@triton.jit
def gemm_desc_unaligned(
    a_ptr, b_ptr, c_ptr, M, N, K, sam, sbk, scm, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr
):
    # (tl.make_block_ptr/tl.advance were removed in Triton 3.9: "Block pointers have been removed in favor of
    # the tensor descriptor API"); the descriptor equivalent on an unaligned problem, OOB padded with zeros
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[sam, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[sbk, 1], block_shape=[BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[scm, 1], block_shape=[BM, BN])
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    off_k = 0
    for _ in range(0, tl.cdiv(K, BK)):
        a = a_desc.load([pid_m * BM, off_k])
        b = b_desc.load([off_k, pid_n * BN])
        acc = tl.dot(a, b, acc)
        off_k += BK
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))


@triton.jit
def gemm_device_tma_range(
    a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, NSTAGE: tl.constexpr
):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])  # B^T (N,K)
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), num_stages=NSTAGE):
        a = a_desc.load([pid_m * BM, k * BK])
        b = b_desc.load([pid_n * BN, k * BK])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.bfloat16))


@triton.jit
def gemm_host_tma_persistent(
    a_desc,
    b_desc,
    c_desc,
    M,
    N,
    K,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    GROUP_M: tl.constexpr,
    NUM_SMS: tl.constexpr,
):
    # persistent matmul tutorial: flatten=True tile loop over host-side descriptors
    start_pid = tl.program_id(0)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    num_tiles = num_m * num_n
    num_in_group = GROUP_M * num_n
    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True):
        gid = tile_id // num_in_group
        first_m = gid * GROUP_M
        gsz = min(num_m - first_m, GROUP_M)
        pid_m = first_m + (tile_id % gsz)
        pid_n = (tile_id % num_in_group) // gsz
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for ki in range(k_tiles):
            a = a_desc.load([pid_m * BM, ki * BK])
            b = b_desc.load([ki * BK, pid_n * BN])
            acc = tl.dot(a, b, acc)
        c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))


@triton.jit
def gemm_ws(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # tl.range(warp_specialize=True) (Triton >= 3.4 automatic warp specialisation)
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), warp_specialize=True):
        a = a_desc.load([pid_m * BM, k * BK])
        b = b_desc.load([k * BK, pid_n * BN])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))


@triton.jit
def gemm_range_unroll(
    a_ptr, b_ptr, c_ptr, M, N, K, sam, sbk, scm, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, K, BK, num_stages=4, loop_unroll_factor=2):
        a = tl.load(a_ptr + rm[:, None] * sam + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * sbk + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :], acc.to(tl.float16))


@triton.jit
def gemm_splitk_atomic(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    sam,
    sbk,
    scm,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    SPLIT_K: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_k = tl.program_id(2)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = pid_k * BK + tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * sam + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * sbk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK * SPLIT_K)):
        k_rem = K - k * BK * SPLIT_K
        a = tl.load(a_ptrs, mask=rk[None, :] < k_rem, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < k_rem, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK * SPLIT_K
        b_ptrs += BK * SPLIT_K * sbk
    c_ptrs = c_ptr + rm[:, None] * scm + rn[None, :]
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.atomic_add(c_ptrs, acc, mask=mask, sem="relaxed")


@triton.jit
def gemm_batched(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    sab,
    sam,
    sbb,
    sbk,
    scb,
    scm,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    bid = tl.program_id(2).to(tl.int64)
    a_ptr += bid * sab
    b_ptr += bid * sbb
    c_ptr += bid * scb
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * sam + (k + rk)[None, :], mask=rm[:, None] < M, other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * sbk + rn[None, :], mask=rn[None, :] < N, other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(
        c_ptr + rm[:, None] * scm + rn[None, :],
        acc.to(tl.float16),
        mask=(rm[:, None] < M) & (rn[None, :] < N),
    )


@triton.jit
def gemm_bias_gelu(
    a_ptr,
    b_ptr,
    bias_ptr,
    c_ptr,
    M,
    N,
    K,
    sam,
    sbk,
    scm,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    ACT: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptr + rm[:, None] * sam + (k * BK + rk)[None, :])
        b = tl.load(b_ptr + (k * BK + rk)[:, None] * sbk + rn[None, :])
        acc = tl.dot(a, b, acc)
    bias = tl.load(bias_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)
    acc = acc + bias[None, :]
    if ACT == "gelu":
        acc = 0.5 * acc * (1.0 + libdevice.erf(acc * 0.7071067811865476))
    elif ACT == "gelu_tanh":
        acc = 0.5 * acc * (1.0 + libdevice.tanh(0.7978845608 * (acc + 0.044715 * acc * acc * acc)))
    elif ACT == "relu":
        acc = tl.maximum(acc, 0.0)
    elif ACT == "silu":
        acc = acc * tl.sigmoid(acc)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :], acc.to(tl.bfloat16))


@triton.jit
def gemm_fp8_scaled(
    a_ptr,
    b_ptr,
    c_ptr,
    a_scale_ptr,
    b_scale_ptr,
    M,
    N,
    K,
    sam,
    sbn,
    scm,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
):
    # fp8 e4m3 A (M,K) row-major, B given as (N,K) row-major (i.e. col-major KxN), per-row/col scales
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * sam + (k + rk)[None, :])
        b = tl.load(b_ptr + rn[None, :] * sbn + (k + rk)[:, None])
        acc = tl.dot(a, b, acc)
    sa = tl.load(a_scale_ptr + rm)
    sb = tl.load(b_scale_ptr + rn)
    acc = acc * sa[:, None] * sb[None, :]
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :], acc.to(tl.bfloat16))


@triton.jit
def gemm_int8(
    a_ptr, b_ptr, c_ptr, M, N, K, sam, sbk, scm, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.int32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * sam + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * sbk + rn[None, :])
        acc = tl.dot(a, b, acc, out_dtype=tl.int32)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :], acc)


@triton.jit
def gemm_fp32_tf32(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    sam,
    sbk,
    scm,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    PREC: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * sam + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * sbk + rn[None, :])
        acc = tl.dot(a, b, acc, input_precision=PREC)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :], acc)


def _cd(a, b):
    return (a + b - 1) // b


def cases():
    f16 = "float16"
    A = T((M, K), f16)
    B = T((K, N), f16)
    C = T((M, N), f16)
    gemm_bytes = nbytes((M, K), f16) * 3
    gf = 2.0 * M * N * K
    cfg = dict(BM=128, BN=128, BK=64, GROUP_M=8, num_warps=8, num_stages=3)
    g1 = (_cd(M, 128) * _cd(N, 128),)
    g2 = (_cd(M, 128), _cd(N, 128))
    out = []
    out.append(
        Case(
            "gemm_basic_rowB",
            "grouped pid, K-tail masks other=0, row-major B",
            gemm_basic,
            g1,
            (A, B, C, M, N, K, K, 1, N, 1, N, 1),
            cfg,
            gemm_bytes,
            gf,
        )
    )
    Bc = T((K, N), f16, strides=(1, K))  # column-major B
    out.append(
        Case(
            "gemm_basic_colB",
            "col-major B via strides (sbk=1, sbn=K)",
            gemm_basic,
            g1,
            (A, Bc, C, M, N, K, K, 1, 1, K, N, 1),
            cfg,
            gemm_bytes,
            gf,
        )
    )
    out.append(
        Case(
            "gemm_hints",
            "tl.multiple_of/max_contiguous, % wrap offsets, acc += tl.dot",
            gemm_hints,
            g1,
            (A, B, C, M, N, K, K, 1, N, 1, N, 1),
            cfg,
            gemm_bytes,
            gf,
        )
    )
    out.append(
        Case(
            "gemm_swizzle2d",
            "tl.swizzle2d, 2-D grid, tl.num_programs",
            gemm_swizzle2d,
            g2,
            (A, B, C, M, N, K, K, 1, N, 1, N, 1),
            cfg,
            gemm_bytes,
            gf,
        )
    )
    Mu, Nu, Ku = 4000, 4040, 4008
    out.append(
        Case(
            "gemm_desc_unaligned",
            "device TMA desc on 4000x4040x4008 (OOB zero pad), carried k offset",
            gemm_desc_unaligned,
            (_cd(Mu, 128), _cd(Nu, 128)),
            (T((Mu, Ku), f16), T((Ku, Nu), f16), T((Mu, Nu), f16), Mu, Nu, Ku, Ku, Nu, Nu),
            dict(BM=128, BN=128, BK=64, num_warps=8, num_stages=3),
            2 * (Mu * Ku + Ku * Nu + Mu * Nu),
            2.0 * Mu * Nu * Ku,
        )
    )
    bf = "bfloat16"
    out.append(
        Case(
            "gemm_device_tma",
            "tl.make_tensor_descriptor, tl.range(num_stages), b.T (NT)",
            gemm_device_tma_range,
            (_cd(M, 128), _cd(N, 256)),
            (T((M, K), bf), T((N, K), bf), T((M, N), bf), M, N, K),
            dict(BM=128, BN=256, BK=64, NSTAGE=3, num_warps=8, num_stages=3),
            gemm_bytes,
            gf,
        )
    )
    try:  # host-side descriptors are TileSight's Triton frontend's; the GPU machine skips these two
        from tilesight.frontends.triton.binding import tensor_descriptor
    except ImportError:
        tensor_descriptor = None
    if tensor_descriptor is not None:
        ad = tensor_descriptor(A, [128, 64])
        bd = tensor_descriptor(B, [64, 128])
        cd = tensor_descriptor(C, [128, 128])
        out.append(
            Case(
                "gemm_host_tma_persistent",
                "host TensorDescriptor, persistent tl.range(flatten=True)",
                gemm_host_tma_persistent,
                (132,),
                (ad, bd, cd, M, N, K),
                dict(BM=128, BN=128, BK=64, GROUP_M=8, NUM_SMS=132, num_warps=8, num_stages=3),
                gemm_bytes,
                gf,
            )
        )
        out.append(
            Case(
                "gemm_warp_specialize",
                "tl.range(warp_specialize=True) + host TMA",
                gemm_ws,
                g2,
                (ad, bd, cd, M, N, K),
                dict(BM=128, BN=128, BK=64, num_warps=8, num_stages=3),
                gemm_bytes,
                gf,
                note="num_warps=4 fails in Triton's own NVGPUWarpSpecialization pass",
            )
        )
    out.append(
        Case(
            "gemm_range_unroll",
            "tl.range(num_stages=4, loop_unroll_factor=2), unmasked",
            gemm_range_unroll,
            g2,
            (A, B, C, M, N, K, K, N, N),
            dict(BM=128, BN=128, BK=64, num_warps=8, num_stages=3),
            gemm_bytes,
            gf,
        )
    )
    Cf = T((M, N), "float32")
    out.append(
        Case(
            "gemm_splitk_atomic",
            "split-K 3-D grid, tl.atomic_add fp32 (sem=relaxed)",
            gemm_splitk_atomic,
            (_cd(M, 128), _cd(N, 128), 4),
            (A, B, Cf, M, N, K, K, N, N),
            dict(BM=128, BN=128, BK=64, SPLIT_K=4, num_warps=8, num_stages=3),
            2 * nbytes((M, K), f16) + nbytes((M, N), "float32"),
            gf,
        )
    )
    Bt, Mb, Nb, Kb = 16, 1024, 1024, 1024
    out.append(
        Case(
            "gemm_batched_3d",
            "batched 3-D grid, int64 batch offset ptr +=",
            gemm_batched,
            (_cd(Mb, 128), _cd(Nb, 128), Bt),
            (
                T((Bt, Mb, Kb), f16),
                T((Bt, Kb, Nb), f16),
                T((Bt, Mb, Nb), f16),
                Mb,
                Nb,
                Kb,
                Mb * Kb,
                Kb,
                Kb * Nb,
                Nb,
                Mb * Nb,
                Nb,
            ),
            dict(BM=128, BN=128, BK=64, num_warps=8, num_stages=3),
            3 * Bt * Mb * Kb * 2,
            2.0 * Bt * Mb * Nb * Kb,
        )
    )
    Abf = T((M, K), bf)
    Bbf = T((K, N), bf)
    Cbf = T((M, N), bf)
    for act in ("gelu", "gelu_tanh", "relu"):
        out.append(
            Case(
                f"gemm_bias_{act}",
                f"epilogue bias + {act} ({'libdevice' if 'gelu' in act else 'tl.maximum'})",
                gemm_bias_gelu,
                g2,
                (Abf, Bbf, T((N,), bf), Cbf, M, N, K, K, N, N),
                dict(BM=128, BN=128, BK=64, ACT=act, num_warps=8, num_stages=3),
                gemm_bytes,
                gf,
            )
        )
    f8 = "float8_e4m3fn"
    out.append(
        Case(
            "gemm_fp8_rowwise",
            "fp8e4m3 A, col-major B, per-row/col scales -> bf16",
            gemm_fp8_scaled,
            g2,
            (T((M, K), f8), T((N, K), f8), Cbf, T((M,), "float32"), T((N,), "float32"), M, N, K, K, K, N),
            dict(BM=128, BN=128, BK=128, num_warps=8, num_stages=4),
            2 * M * K + 2 * M * N,
            gf,
            peak=1979e12,
        )
    )
    out.append(
        Case(
            "gemm_int8",
            "int8 x int8 -> int32 acc, out_dtype=tl.int32",
            gemm_int8,
            g2,
            (T((M, K), "int8"), T((K, N), "int8"), T((M, N), "int32"), M, N, K, K, N, N),
            dict(BM=128, BN=128, BK=128, num_warps=8, num_stages=3),
            2 * M * K + 4 * M * N,
            gf,
            peak=1979e12,
        )
    )
    f32 = "float32"
    out.append(
        Case(
            "gemm_fp32_tf32",
            "fp32 inputs, input_precision='tf32'",
            gemm_fp32_tf32,
            g2,
            (T((M, K), f32), T((K, N), f32), T((M, N), f32), M, N, K, K, N, N),
            dict(BM=128, BN=128, BK=32, PREC="tf32", num_warps=8, num_stages=3),
            3 * M * K * 4,
            gf,
            peak=494e12,
        )
    )
    out.append(
        Case(
            "gemm_fp32_ieee",
            "fp32 inputs, input_precision='ieee' (FMA dot)",
            gemm_fp32_tf32,
            g2,
            (
                T((2048, 2048), f32),
                T((2048, 2048), f32),
                T((2048, 2048), f32),
                2048,
                2048,
                2048,
                2048,
                2048,
                2048,
            ),
            dict(BM=64, BN=64, BK=32, PREC="ieee", num_warps=4, num_stages=2),
            3 * 2048 * 2048 * 4,
            2.0 * 2048**3,
            peak=67e12,
        )
    )
    return out

"""GEMM-family survey kernels. Each builder returns a Case (see common.py)."""

import tilelang
import tilelang.language as T
from common import Case, case, nbytes
from tilelang.layout import make_swizzled_layout

M0 = N0 = K0 = 4096


def _gemm_bytes(M, N, K, a, b, c):
    return M * K * nbytes(a) + K * N * nbytes(b) + M * N * nbytes(c)


@case("gemm_fp16_basic", "T.Pipelined(num_stages=3), T.clear, T.copy frag->global, T.ceildiv")
def gemm_fp16_basic():
    M, N, K, bm, bn, bk = M0, N0, K0, 128, 128, 32

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            A_s = T.alloc_shared((bm, bk), "float16")
            B_s = T.alloc_shared((bk, bn), "float16")
            C_l = T.alloc_fragment((bm, bn), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=3):
                T.copy(A[by * bm, k * bk], A_s)
                T.copy(B[k * bk, bx * bn], B_s)
                T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C[by * bm, bx * bn])

    return Case(main, bytes=_gemm_bytes(M, N, K, "f16", "f16", "f16"), flops=2 * M * N * K, peak="tc16")


@case(
    "gemm_bf16_swizzle_layout",
    "bf16, T.use_swizzle(10), T.annotate_layout(make_swizzled_layout), 256 thr 128x256x64",
)
def gemm_bf16_swizzle_layout():
    M, N, K, bm, bn, bk = M0, N0, K0, 128, 256, 64

    @T.prim_func
    def main(
        A: T.Tensor((M, K), "bfloat16"), B: T.Tensor((K, N), "bfloat16"), C: T.Tensor((M, N), "bfloat16")
    ):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=256) as (bx, by):
            A_s = T.alloc_shared((bm, bk), "bfloat16")
            B_s = T.alloc_shared((bk, bn), "bfloat16")
            C_l = T.alloc_fragment((bm, bn), "float32")
            T.annotate_layout({A_s: make_swizzled_layout(A_s), B_s: make_swizzled_layout(B_s)})
            T.use_swizzle(panel_size=10)
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=3):
                T.copy(A[by * bm, k * bk], A_s)
                T.copy(B[k * bk, bx * bn], B_s)
                T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C[by * bm, bx * bn])

    return Case(main, bytes=_gemm_bytes(M, N, K, "bf16", "bf16", "bf16"), flops=2 * M * N * K, peak="tc16")


@case("gemm_transA", "transpose_A=True (A stored K x M)")
def gemm_transA():
    M, N, K, bm, bn, bk = M0, N0, K0, 128, 128, 32

    @T.prim_func
    def main(A: T.Tensor((K, M), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            A_s = T.alloc_shared((bk, bm), "float16")
            B_s = T.alloc_shared((bk, bn), "float16")
            C_l = T.alloc_fragment((bm, bn), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=3):
                T.copy(A[k * bk, by * bm], A_s)
                T.copy(B[k * bk, bx * bn], B_s)
                T.gemm(A_s, B_s, C_l, transpose_A=True)
            T.copy(C_l, C[by * bm, bx * bn])

    return Case(main, bytes=_gemm_bytes(M, N, K, "f16", "f16", "f16"), flops=2 * M * N * K, peak="tc16")


@case("gemm_transB_fullrow", "transpose_B=True (B: N x K), policy=GemmWarpPolicy.FullRow")
def gemm_transB_fullrow():
    M, N, K, bm, bn, bk = M0, N0, K0, 128, 128, 64

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((N, K), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=256) as (bx, by):
            A_s = T.alloc_shared((bm, bk), "float16")
            B_s = T.alloc_shared((bn, bk), "float16")
            C_l = T.alloc_fragment((bm, bn), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=3):
                T.copy(A[by * bm, k * bk], A_s)
                T.copy(B[bx * bn, k * bk], B_s)
                T.gemm(A_s, B_s, C_l, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)
            T.copy(C_l, C[by * bm, bx * bn])

    return Case(main, bytes=_gemm_bytes(M, N, K, "f16", "f16", "f16"), flops=2 * M * N * K, peak="tc16")


@case(
    "gemm_fullcol_square",
    "policy=GemmWarpPolicy.FullCol (64x256 tile, 4 stages)",
)
def gemm_fullcol_square():
    M, N, K, bm, bn, bk = M0, N0, K0, 64, 256, 64

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            A_s = T.alloc_shared((bm, bk), "float16")
            B_s = T.alloc_shared((bk, bn), "float16")
            C_l = T.alloc_fragment((bm, bn), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=4):
                T.copy(A[by * bm, k * bk], A_s)
                T.copy(B[k * bk, bx * bn], B_s)
                T.gemm(A_s, B_s, C_l, policy=T.GemmWarpPolicy.FullCol)
            T.copy(C_l, C[by * bm, bx * bn])

    return Case(main, bytes=_gemm_bytes(M, N, K, "f16", "f16", "f16"), flops=2 * M * N * K, peak="tc16")


@case("gemm_fp8_e4m3", "fp8 e4m3 x e4m3, transpose_B, bf16 out, block_K=128")
def gemm_fp8():
    M, N, K, bm, bn, bk = M0, N0, K0, 128, 128, 128

    @T.prim_func
    def main(
        A: T.Tensor((M, K), "float8_e4m3"),
        B: T.Tensor((N, K), "float8_e4m3"),
        C: T.Tensor((M, N), "bfloat16"),
    ):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            A_s = T.alloc_shared((bm, bk), "float8_e4m3")
            B_s = T.alloc_shared((bn, bk), "float8_e4m3")
            C_l = T.alloc_fragment((bm, bn), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=4):
                T.copy(A[by * bm, k * bk], A_s)
                T.copy(B[bx * bn, k * bk], B_s)
                T.gemm(A_s, B_s, C_l, transpose_B=True)
            T.copy(C_l, C[by * bm, bx * bn])

    return Case(main, bytes=_gemm_bytes(M, N, K, "f8", "f8", "bf16"), flops=2 * M * N * K, peak="tc8")


@case("gemm_int8", "int8 x int8 -> int32 accum, transpose_B")
def gemm_int8():
    M, N, K, bm, bn, bk = M0, N0, K0, 128, 128, 128

    @T.prim_func
    def main(A: T.Tensor((M, K), "int8"), B: T.Tensor((N, K), "int8"), C: T.Tensor((M, N), "int32")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            A_s = T.alloc_shared((bm, bk), "int8")
            B_s = T.alloc_shared((bn, bk), "int8")
            C_l = T.alloc_fragment((bm, bn), "int32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=3):
                T.copy(A[by * bm, k * bk], A_s)
                T.copy(B[bx * bn, k * bk], B_s)
                T.gemm(A_s, B_s, C_l, transpose_B=True)
            T.copy(C_l, C[by * bm, bx * bn])

    return Case(main, bytes=_gemm_bytes(M, N, K, "i8", "i8", "i32"), flops=2 * M * N * K, peak="tc8")


@case("gemm_pipelined_order_stage", "T.Pipelined(num_stages=2, order=[0,1,2], stage=[0,0,1])")
def gemm_pipelined_order_stage():
    M, N, K, bm, bn, bk = M0, N0, K0, 128, 128, 64

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            A_s = T.alloc_shared((bm, bk), "float16")
            B_s = T.alloc_shared((bk, bn), "float16")
            C_l = T.alloc_fragment((bm, bn), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=2, order=[0, 1, 2], stage=[0, 0, 1]):
                T.copy(A[by * bm, k * bk], A_s)
                T.copy(B[k * bk, bx * bn], B_s)
                T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C[by * bm, bx * bn])

    return Case(main, bytes=_gemm_bytes(M, N, K, "f16", "f16", "f16"), flops=2 * M * N * K, peak="tc16")


@case("gemm_persistent_bf16", "T.Persistent over [m_blocks, n_blocks], 132 programs, bf16 8192x8192x4096")
def gemm_persistent():
    M, N, K, bm, bn, bk = 8192, 8192, 4096, 128, 256, 64
    mb, nb, progs = M // bm, N // bn, 132

    @T.prim_func
    def main(
        A: T.Tensor((M, K), "bfloat16"), B: T.Tensor((K, N), "bfloat16"), C: T.Tensor((M, N), "bfloat16")
    ):
        with T.Kernel(progs, threads=256) as bid:
            A_s = T.alloc_shared((bm, bk), "bfloat16")
            B_s = T.alloc_shared((bk, bn), "bfloat16")
            C_l = T.alloc_fragment((bm, bn), "float32")
            C_s = T.alloc_shared((bm, bn), "bfloat16")
            for bi, bj in T.Persistent([mb, nb], progs, bid):
                T.clear(C_l)
                for k in T.Pipelined(T.ceildiv(K, bk), num_stages=3):
                    T.copy(A[bi * bm, k * bk], A_s)
                    T.copy(B[k * bk, bj * bn], B_s)
                    T.gemm(A_s, B_s, C_l)
                T.copy(C_l, C_s)
                T.copy(C_s, C[bi * bm, bj * bn])

    return Case(main, bytes=_gemm_bytes(M, N, K, "bf16", "bf16", "bf16"), flops=2 * M * N * K, peak="tc16")


@case(
    "gemm_splitk_tile_atomic",
    "split-K, tile-level T.atomic_add(C[...], C_shared) (vectorized atomic example)",
)
def gemm_splitk_tile_atomic():
    M, N, K, bm, bn, bk, sk = 1024, 1024, 16384, 128, 128, 64, 8
    part = K // sk

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), sk, threads=128) as (bx, by, bz):
            A_s = T.alloc_shared((bm, bk), "float16")
            B_s = T.alloc_shared((bk, bn), "float16")
            C_l = T.alloc_fragment((bm, bn), "float32")
            C_s = T.alloc_shared((bm, bn), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(part, bk), num_stages=3):
                T.copy(A[by * bm, bz * part + k * bk], A_s)
                T.copy(B[bz * part + k * bk, bx * bn], B_s)
                T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C_s)
            T.atomic_add(C[by * bm, bx * bn], C_s)

    return Case(main, bytes=M * K * 2 + K * N * 2 + M * N * 4 * sk, flops=2 * M * N * K, peak="tc16")


@case("gemm_splitk_elem_atomic", "split-K, T.atomic_add per element in T.Parallel")
def gemm_splitk_elem_atomic():
    M, N, K, bm, bn, bk, sk = 1024, 1024, 16384, 128, 128, 64, 8
    part = K // sk

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), sk, threads=128) as (bx, by, bz):
            A_s = T.alloc_shared((bm, bk), "float16")
            B_s = T.alloc_shared((bk, bn), "float16")
            C_l = T.alloc_fragment((bm, bn), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(part, bk), num_stages=3):
                T.copy(A[by * bm, bz * part + k * bk], A_s)
                T.copy(B[bz * part + k * bk, bx * bn], B_s)
                T.gemm(A_s, B_s, C_l)
            for i, j in T.Parallel(bm, bn):
                T.atomic_add(C[by * bm + i, bx * bn + j], C_l[i, j])

    return Case(main, bytes=M * K * 2 + K * N * 2 + M * N * 4 * sk, flops=2 * M * N * K, peak="tc16")


@case("bmm_3d_grid", "batched GEMM, 3-D grid (bx, by, bz=batch), 16 x 2048^2 x 1024")
def bmm_3d_grid():
    Bt, M, N, K, bm, bn, bk = 16, 2048, 2048, 1024, 128, 128, 32

    @T.prim_func
    def main(
        A: T.Tensor((Bt, M, K), "float16"),
        B: T.Tensor((Bt, K, N), "float16"),
        C: T.Tensor((Bt, M, N), "float16"),
    ):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), Bt, threads=128) as (bx, by, bz):
            A_s = T.alloc_shared((bm, bk), "float16")
            B_s = T.alloc_shared((bk, bn), "float16")
            C_l = T.alloc_fragment((bm, bn), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=3):
                T.copy(A[bz, by * bm, k * bk], A_s)
                T.copy(B[bz, k * bk, bx * bn], B_s)
                T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C[bz, by * bm, bx * bn])

    return Case(
        main, bytes=Bt * _gemm_bytes(M, N, K, "f16", "f16", "f16"), flops=2 * Bt * M * N * K, peak="tc16"
    )


@case("gemm_bias_relu", "epilogue in T.Parallel: + bias[j], T.max(.,0), cast, direct global store")
def gemm_bias_relu():
    M, N, K, bm, bn, bk = M0, N0, K0, 128, 128, 32

    @T.prim_func
    def main(
        A: T.Tensor((M, K), "float16"),
        B: T.Tensor((K, N), "float16"),
        bias: T.Tensor((N,), "float16"),
        C: T.Tensor((M, N), "float16"),
    ):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            A_s = T.alloc_shared((bm, bk), "float16")
            B_s = T.alloc_shared((bk, bn), "float16")
            C_l = T.alloc_fragment((bm, bn), "float32")
            bias_s = T.alloc_shared((bn,), "float16")
            T.clear(C_l)
            T.copy(bias[bx * bn], bias_s)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=3):
                T.copy(A[by * bm, k * bk], A_s)
                T.copy(B[k * bk, bx * bn], B_s)
                T.gemm(A_s, B_s, C_l)
            for i, j in T.Parallel(bm, bn):
                C[by * bm + i, bx * bn + j] = T.Cast(
                    "float16", T.max(C_l[i, j] + T.Cast("float32", bias_s[j]), 0.0)
                )

    return Case(main, bytes=_gemm_bytes(M, N, K, "f16", "f16", "f16"), flops=2 * M * N * K, peak="tc16")


@case(
    "gemm_unaligned_guard", "M=N=4000,K=4000 (not tile multiples), explicit if-guards in T.Parallel epilogue"
)
def gemm_unaligned_guard():
    M, N, K, bm, bn, bk = 4000, 4000, 4000, 128, 128, 32

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            A_s = T.alloc_shared((bm, bk), "float16")
            B_s = T.alloc_shared((bk, bn), "float16")
            C_l = T.alloc_fragment((bm, bn), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=3):
                for i, j in T.Parallel(bm, bk):
                    A_s[i, j] = T.if_then_else(
                        (by * bm + i < M) & (k * bk + j < K), A[by * bm + i, k * bk + j], 0
                    )
                for i, j in T.Parallel(bk, bn):
                    B_s[i, j] = T.if_then_else(
                        (k * bk + i < K) & (bx * bn + j < N), B[k * bk + i, bx * bn + j], 0
                    )
                T.gemm(A_s, B_s, C_l)
            for i, j in T.Parallel(bm, bn):
                if by * bm + i < M and bx * bn + j < N:
                    C[by * bm + i, bx * bn + j] = C_l[i, j]

    return Case(main, bytes=_gemm_bytes(M, N, K, "f16", "f16", "f16"), flops=2 * M * N * K, peak="tc16")


@case("gemm_unaligned_copy", "M=N=K=4000 relying on T.copy's automatic boundary handling")
def gemm_unaligned_copy():
    M, N, K, bm, bn, bk = 4000, 4000, 4000, 128, 128, 32

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            A_s = T.alloc_shared((bm, bk), "float16")
            B_s = T.alloc_shared((bk, bn), "float16")
            C_l = T.alloc_fragment((bm, bn), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=3):
                T.copy(A[by * bm, k * bk], A_s)
                T.copy(B[k * bk, bx * bn], B_s)
                T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C[by * bm, bx * bn])

    return Case(main, bytes=_gemm_bytes(M, N, K, "f16", "f16", "f16"), flops=2 * M * N * K, peak="tc16")


@case("gemm_dynamic_m", "T.dynamic('m') M dimension, bound m=4096 at estimate")
def gemm_dynamic_m():
    N, K, bm, bn, bk = N0, K0, 128, 128, 32
    m = T.dynamic("m")

    @T.prim_func
    def main(A: T.Tensor((m, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((m, N), "float16")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(m, bm), threads=128) as (bx, by):
            A_s = T.alloc_shared((bm, bk), "float16")
            B_s = T.alloc_shared((bk, bn), "float16")
            C_l = T.alloc_fragment((bm, bn), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=3):
                T.copy(A[by * bm, k * bk], A_s)
                T.copy(B[k * bk, bx * bn], B_s)
                T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C[by * bm, bx * bn])

    return Case(
        main,
        kwargs=dict(m=4096),
        bytes=_gemm_bytes(4096, N, K, "f16", "f16", "f16"),
        flops=2 * 4096 * N * K,
        peak="tc16",
    )


@case("gemm_jit_builder", "@tilelang.jit builder returning prim_func, estimate(builder, M=..,N=..,K=..)")
def gemm_jit_builder():
    @tilelang.jit(out_idx=[-1])
    def matmul(M, N, K, block_M=128, block_N=128, block_K=32, dtype="float16", accum_dtype="float32"):
        @T.prim_func
        def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), dtype)):
            with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
                A_s = T.alloc_shared((block_M, block_K), dtype)
                B_s = T.alloc_shared((block_K, block_N), dtype)
                C_l = T.alloc_fragment((block_M, block_N), accum_dtype)
                T.clear(C_l)
                for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
                    T.copy(A[by * block_M, k * block_K], A_s)
                    T.copy(B[k * block_K, bx * block_N], B_s)
                    T.gemm(A_s, B_s, C_l)
                T.copy(C_l, C[by * block_M, bx * block_N])

        return main

    return Case(
        matmul,
        kwargs=dict(M=4096, N=4096, K=4096),
        lower_func=matmul.get_tir(4096, 4096, 4096) if hasattr(matmul, "get_tir") else None,
        bytes=_gemm_bytes(4096, 4096, 4096, "f16", "f16", "f16"),
        flops=2 * 4096**3,
        peak="tc16",
    )


@case(
    "gemm_alloc_var_manual_raster", "T.alloc_var tile-index remap (grouped rasterization by hand), 1-D grid"
)
def gemm_alloc_var_manual_raster():
    M, N, K, bm, bn, bk, G = M0, N0, K0, 128, 128, 32, 8
    mb, nb = M // bm, N // bn

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(mb * nb, threads=128) as pid:
            A_s = T.alloc_shared((bm, bk), "float16")
            B_s = T.alloc_shared((bk, bn), "float16")
            C_l = T.alloc_fragment((bm, bn), "float32")
            pm = T.alloc_var("int32")
            pn = T.alloc_var("int32")
            group_id = pid // (G * nb)
            first_m = group_id * G
            pm = first_m + (pid % G)
            pn = (pid % (G * nb)) // G
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=3):
                T.copy(A[pm * bm, k * bk], A_s)
                T.copy(B[k * bk, pn * bn], B_s)
                T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C[pm * bm, pn * bn])

    return Case(main, bytes=_gemm_bytes(M, N, K, "f16", "f16", "f16"), flops=2 * M * N * K, peak="tc16")


@case(
    "gemv_alloc_local_vectorized",
    "GEMV: threads=(BLOCK_N, reduce_threads), get_thread_binding, alloc_local, "
    "T.vectorized, T.serial, atomic_add into shared",
)
def gemv_splitk_vectorized():
    return gemv_case(16384, 16384, 32, 8, 8, "float16")


def gemv_case(N, K, BN, RT, TILE_K, dtype):
    """TileLang's GEMV pattern: threads (BN, RT); thread (tn, tk) loads TILE_K elements of row tn a K step,
    accumulates in a register and adds into a shared row sum (the survey's case, and kernels_recheck's)."""
    BK = RT * TILE_K

    @T.prim_func
    def main(A: T.Tensor((K,), dtype), B: T.Tensor((N, K), dtype), C: T.Tensor((N,), dtype)):
        with T.Kernel(T.ceildiv(N, BN), threads=(BN, RT)) as bn:
            tn = T.get_thread_binding(0)
            tk = T.get_thread_binding(1)
            A_l = T.alloc_local((TILE_K,), dtype)
            B_l = T.alloc_local((TILE_K,), dtype)
            C_s = T.alloc_shared((BN,), "float32")
            C_acc = T.alloc_local((1,), "float32")
            if tk == 0:
                C_s[tn] = 0
            T.clear(C_acc)
            for bk in T.serial(T.ceildiv(K, BK)):
                for k in T.vectorized(TILE_K):
                    A_l[k] = A[bk * BK + tk * TILE_K + k]
                    B_l[k] = B[bn * BN + tn, bk * BK + tk * TILE_K + k]
                for k in T.serial(TILE_K):
                    C_acc[0] += A_l[k].astype("float32") * B_l[k].astype("float32")
            T.atomic_add(C_s[tn], C_acc[0])
            C[bn * BN + tn] = C_s[tn]

    size = 2 if dtype in ("float16", "bfloat16") else 4
    return Case(main, bytes=(N * K + K + N) * size, flops=2 * N * K, peak="fp32")


@case(
    "gemm_dequant_int4_groupscale",
    "int4 packed (uint8) -> bf16 in T.Parallel with per-group (128) scale, decode-ish M=16, N=K=8192",
)
def dequant_int4_groupscale():
    M, N, K, bm, bn, bk, gs = 16, 8192, 8192, 16, 128, 128, 128

    @T.prim_func
    def main(
        A: T.Tensor((M, K), "bfloat16"),
        B: T.Tensor((N, K // 2), "uint8"),
        S: T.Tensor((N, K // gs), "bfloat16"),
        C: T.Tensor((M, N), "bfloat16"),
    ):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            A_s = T.alloc_shared((bm, bk), "bfloat16")
            B_p = T.alloc_shared((bn, bk // 2), "uint8")
            B_local = T.alloc_fragment((bn, bk), "bfloat16")
            B_s = T.alloc_shared((bn, bk), "bfloat16")
            C_l = T.alloc_fragment((bm, bn), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=3):
                T.copy(A[by * bm, k * bk], A_s)
                T.copy(B[bx * bn, k * bk // 2], B_p)
                for i, j in T.Parallel(bn, bk):
                    B_local[i, j] = (
                        T.Cast("bfloat16", T.Cast("int8", (B_p[i, j // 2] >> ((j % 2) * 4)) & 0xF) - 8)
                        * S[bx * bn + i, (k * bk + j) // gs]
                    )
                T.copy(B_local, B_s)
                T.gemm(A_s, B_s, C_l, transpose_B=True)
            T.copy(C_l, C[by * bm, bx * bn])

    return Case(
        main, bytes=M * K * 2 + N * K // 2 + N * (K // gs) * 2 + M * N * 2, flops=2 * M * N * K, peak="tc16"
    )


@case(
    "conv2d_im2col", "conv via T.im2col, NHWC 128x64x64x128, 3x3, F=128, flat views via T.Tensor(..., data)"
)
def conv2d_im2col():
    N, C, H, W, F, KK, S, D, P = 128, 128, 64, 64, 128, 3, 1, 1, 1
    bm, bn, bk, stages, thr = 64, 128, 32, 3, 256
    OH = (H + 2 * P - D * (KK - 1) - 1) // S + 1
    OW = (W + 2 * P - D * (KK - 1) - 1) // S + 1

    @T.prim_func
    def main(
        data: T.Tensor((N, H, W, C), "float16"),
        kernel: T.Tensor((KK, KK, C, F), "float16"),
        out: T.Tensor((N, OH, OW, F), "float16"),
    ):
        with T.Kernel(T.ceildiv(F, bn), T.ceildiv(N * OH * OW, bm), threads=thr) as (bx, by):
            data_s = T.alloc_shared((bm, bk), "float16")
            kern_s = T.alloc_shared((bk, bn), "float16")
            out_l = T.alloc_fragment((bm, bn), "float32")
            out_s = T.alloc_shared((bm, bn), "float16")
            kernel_flat = T.Tensor((KK * KK * C, F), "float16", kernel.data)
            out_flat = T.Tensor((N * OH * OW, F), "float16", out.data)
            T.clear(out_l)
            for k in T.Pipelined(T.ceildiv(KK * KK * C, bk), num_stages=stages):
                T.im2col(data, data_s, by, k, KK, S, D, P)
                T.copy(kernel_flat[k * bk, bx * bn], kern_s)
                T.gemm(data_s, kern_s, out_l)
            T.copy(out_l, out_s)
            T.copy(out_s, out_flat[by * bm, bx * bn])

    Mg, Ng, Kg = N * OH * OW, F, KK * KK * C
    return Case(
        main,
        bytes=N * H * W * C * 2 + KK * KK * C * F * 2 + N * OH * OW * F * 2,
        flops=2 * Mg * Ng * Kg,
        peak="tc16",
    )


@case(
    "gemm_ws_barriers",
    "warp specialization: T.ws(0)/T.ws(1), T.alloc_barrier, T.barrier_wait/arrive, T.tma_copy",
)
def gemm_ws_barriers():
    M, N, K, bm, bn, bk = M0, N0, K0, 128, 128, 64

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=256) as (bx, by):
            A_s = T.alloc_shared((bm, bk), "float16")
            B_s = T.alloc_shared((bk, bn), "float16")
            C_l = T.alloc_fragment((bm, bn), "float32")
            data_is_ready = T.alloc_barrier(arrive_count=128)
            compute_is_done = T.alloc_barrier(arrive_count=128)
            with T.ws(1):
                T.clear(C_l)
            for ko in T.Pipelined(T.ceildiv(K, bk), num_stages=0):
                with T.ws(0):
                    T.barrier_wait(compute_is_done, (ko + 1) % 2)
                    T.tma_copy(A[by * bm, ko * bk], A_s, barrier=data_is_ready)
                    T.tma_copy(B[ko * bk, bx * bn], B_s, barrier=data_is_ready)
                    T.barrier_arrive(data_is_ready)
                with T.ws(1):
                    T.barrier_wait(data_is_ready, ko % 2)
                    T.gemm(A_s, B_s, C_l)
                    T.barrier_arrive(compute_is_done)
            with T.ws(1):
                T.copy(C_l, C[by * bm, bx * bn])

    return Case(main, bytes=_gemm_bytes(M, N, K, "f16", "f16", "f16"), flops=2 * M * N * K, peak="tc16")


@case(
    "gemm_ws_mbarrier_pipe_setnreg",
    "WS 2-stage mbarrier pipe: T.ws + T.mbarrier_wait_parity/arrive + tma_copy "
    "+ T.set_max_nreg(producer 40 / consumer 232)",
)
def gemm_ws_mbarrier_pipe():
    M, N, K, bm, bn, bk, ns = M0, N0, K0, 128, 128, 64, 2

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=256) as (bx, by):
            A_s = T.alloc_shared((ns, bm, bk), "float16")
            B_s = T.alloc_shared((ns, bk, bn), "float16")
            C_l = T.alloc_fragment((bm, bn), "float32")
            mbars = T.alloc_barrier([128, 128] * ns)
            with T.ws(0):
                T.set_max_nreg(232, 1)
                T.clear(C_l)
            with T.ws(1):
                T.set_max_nreg(40, 0)
            for ko in range(T.ceildiv(K, bk)):
                with T.ws(1):
                    T.mbarrier_wait_parity(mbarrier=mbars[ko % ns + ns], parity=((ko // ns) % ns) ^ 1)
                    T.tma_copy(
                        A[by * bm : (by + 1) * bm, ko * bk : (ko + 1) * bk],
                        A_s[ko % ns, :, :],
                        barrier=mbars[ko % ns],
                    )
                    T.tma_copy(
                        B[ko * bk : (ko + 1) * bk, bx * bn : (bx + 1) * bn],
                        B_s[ko % ns, :, :],
                        barrier=mbars[ko % ns],
                    )
                    T.mbarrier_arrive(mbarrier=mbars[ko % ns])
                with T.ws(0):
                    T.mbarrier_wait_parity(mbarrier=mbars[ko % ns], parity=(ko // ns) % ns)
                    T.gemm(A_s[ko % ns, :, :], B_s[ko % ns, :, :], C_l)
                    T.mbarrier_arrive(mbarrier=mbars[ko % ns + ns])
            with T.ws(0):
                T.copy(C_l, C[by * bm, bx * bn])

    return Case(main, bytes=_gemm_bytes(M, N, K, "f16", "f16", "f16"), flops=2 * M * N * K, peak="tc16")


@case(
    "gemm_disable_wg_reg_alloc",
    "T.disable_warp_group_reg_alloc() + coalesced T.copy(..., coalesced_width=8) epilogue via shared",
)
def gemm_disable_wg_reg_alloc():
    M, N, K, bm, bn, bk = M0, N0, K0, 128, 128, 64

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            T.disable_warp_group_reg_alloc()
            A_s = T.alloc_shared((bm, bk), "float16")
            B_s = T.alloc_shared((bk, bn), "float16")
            C_l = T.alloc_fragment((bm, bn), "float32")
            C_s = T.alloc_shared((bm, bn), "float16")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=3):
                T.copy(A[by * bm, k * bk], A_s)
                T.copy(B[k * bk, bx * bn], B_s)
                T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C_s)
            T.copy(C_s, C[by * bm, bx * bn], coalesced_width=8)

    return Case(main, bytes=_gemm_bytes(M, N, K, "f16", "f16", "f16"), flops=2 * M * N * K, peak="tc16")


@case(
    "gemm_fp8_2xacc_scaled",
    "DeepGEMM fp8 2xAcc (upstream example): per-128 block scales read inside the "
    "T.Parallel promotion (scales_a[...] element-wise, scalar Scale_B let), T.use_swizzle, block_M=64",
)
def gemm_fp8_2xacc_scaled():
    M, N, K, bm, bn, bk, gs = M0, N0, K0, 64, 128, 128, 128

    @T.prim_func
    def main(
        A: T.Tensor((M, K), "float8_e4m3"),
        B: T.Tensor((N, K), "float8_e4m3"),
        scales_a: T.Tensor((M, K // gs), "float32"),
        scales_b: T.Tensor((N // gs, K // gs), "float32"),
        C: T.Tensor((M, N), "bfloat16"),
    ):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            A_s = T.alloc_shared((bm, bk), "float8_e4m3")
            B_s = T.alloc_shared((bn, bk), "float8_e4m3")
            C_s = T.alloc_shared((bm, bn), "bfloat16")
            C_l = T.alloc_fragment((bm, bn), "float32")
            C_acc = T.alloc_fragment((bm, bn), "float32")
            T.use_swizzle(panel_size=10)
            T.clear(C_l)
            T.clear(C_acc)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=4):
                T.copy(A[by * bm, k * bk], A_s)
                T.copy(B[bx * bn, k * bk], B_s)
                Scale_B = scales_b[bx * bn // gs, k]
                T.gemm(A_s, B_s, C_l, transpose_B=True)
                for i, j in T.Parallel(bm, bn):
                    C_acc[i, j] += C_l[i, j] * (scales_a[by * bm + i, k] * Scale_B)
                T.clear(C_l)
            T.copy(C_acc, C_s)
            T.copy(C_s, C[by * bm, bx * bn])

    return Case(main, bytes=_gemm_bytes(M, N, K, "f8", "f8", "bf16"), flops=2 * M * N * K, peak="tc8")


@case(
    "gemm_dequant_int4_scale_shared",
    "as gemm_dequant_int4_groupscale but the group scale is first T.copy'd to "
    "shared (scale read not element-wise from global)",
)
def dequant_int4_scale_shared():
    M, N, K, bm, bn, bk, gs = 16, 8192, 8192, 16, 128, 128, 128

    @T.prim_func
    def main(
        A: T.Tensor((M, K), "bfloat16"),
        B: T.Tensor((N, K // 2), "uint8"),
        S: T.Tensor((N, K // gs), "bfloat16"),
        C: T.Tensor((M, N), "bfloat16"),
    ):
        with T.Kernel(T.ceildiv(N, bn), T.ceildiv(M, bm), threads=128) as (bx, by):
            A_s = T.alloc_shared((bm, bk), "bfloat16")
            B_p = T.alloc_shared((bn, bk // 2), "uint8")
            S_s = T.alloc_shared((bn, 1), "bfloat16")
            B_local = T.alloc_fragment((bn, bk), "bfloat16")
            B_s = T.alloc_shared((bn, bk), "bfloat16")
            C_l = T.alloc_fragment((bm, bn), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, bk), num_stages=3):
                T.copy(A[by * bm, k * bk], A_s)
                T.copy(B[bx * bn, k * bk // 2], B_p)
                T.copy(S[bx * bn, k], S_s)
                for i, j in T.Parallel(bn, bk):
                    B_local[i, j] = (
                        T.Cast("bfloat16", T.Cast("int8", (B_p[i, j // 2] >> ((j % 2) * 4)) & 0xF) - 8)
                        * S_s[i, 0]
                    )
                T.copy(B_local, B_s)
                T.gemm(A_s, B_s, C_l, transpose_B=True)
            T.copy(C_l, C[by * bm, bx * bn])

    return Case(
        main, bytes=M * K * 2 + N * K // 2 + N * (K // gs) * 2 + M * N * 2, flops=2 * M * N * K, peak="tc16"
    )

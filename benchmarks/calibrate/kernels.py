"""Triton microbenchmark kernels for the calibration suite (GPU side; importable and compilable on CPU).

Only APIs present in Triton 3.6 are used (the measurement GPU's version):
``tl.load(..., cache_modifier=".cg")``, ``tl.dot(..., input_precision=...)``, ``tl.math.exp2`` /
``tl.math.rsqrt``, ``tl.static_range``.

Tensor-core instruction family on sm_90 (Triton 3.6 ``lib/Analysis/Utility.cpp::supportMMA``): a dot is
lowered to wgmma (``versionMajor = 3``) only when ``num_warps % 4 == 0``, the per-CTA result's M is a multiple
of 64 and N a multiple of 8 (and K large enough); otherwise it falls back to warp-level ``mma.sync``
(``versionMajor = 2``).
``GEMM_WGMMA`` and ``GEMM_LEGACY`` below pick configs on each side of that rule; tests compile them for
``GPUTarget("cuda", 90, 32)`` and check the TTGIR, and run.py re-checks the PTX of what it times.
"""

from __future__ import annotations

import triton
import triton.language as tl

# (BLOCK_M, BLOCK_N, BLOCK_K for 16-bit operands, num_warps, num_stages). BLOCK_K scales with 1 / element size
# so a stage holds the same bytes for fp8/int8 (x2) and tf32 (/2).
GEMM_WGMMA = (128, 256, 64, 8, 3)
GEMM_LEGACY = (
    (64, 128, 64, 2, 3),  # num_warps % 4 != 0 -> mma.sync
    (32, 256, 64, 4, 3),  # BLOCK_M % 64 != 0 -> mma.sync
    (32, 128, 64, 4, 4),
)
GROUP_M = 8  # grouped tile order so the sweep over N reuses A tiles in L2 (the GEMM probes compute, not DRAM)


@triton.jit
def read_reduce(x_ptr, out_ptr, n_elem, BLOCK: tl.constexpr):
    """Grid-stride streaming read; one partial sum per program (keeps the loads live)."""
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(pid * BLOCK, n_elem, nprog * BLOCK):
        acc += tl.load(x_ptr + start + offs, cache_modifier=".cg")
    tl.store(out_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def copy(src_ptr, dst_ptr, n_elem, BLOCK: tl.constexpr):
    """Grid-stride streaming copy (reads + writes n_elem elements)."""
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    offs = tl.arange(0, BLOCK)
    for start in range(pid * BLOCK, n_elem, nprog * BLOCK):
        tl.store(dst_ptr + start + offs, tl.load(src_ptr + start + offs, cache_modifier=".cg"))


@triton.jit
def stream_mix(a_ptr, b_ptr, y_ptr, z_ptr, out_ptr, n_elem, READS: tl.constexpr, WRITES: tl.constexpr,
               BLOCK: tl.constexpr):  # fmt: skip
    """One ``BLOCK``-element tile a program, as an element-wise kernel has it: ``READS`` input streams (0-2,
    ``a`` then ``b``) summed, written to ``WRITES`` output streams (0-2, ``y`` then ``z`` = 2 y); with no
    output stream each program stores its tile's sum (the loads stay live), with no input the tiles hold
    the program's index. The read and write mixes of the ``ddr_mix`` probe."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    inside = offs < n_elem
    v = tl.zeros((BLOCK,), tl.float32) + pid
    if READS >= 1:
        v = tl.load(a_ptr + offs, mask=inside, other=0.0).to(tl.float32)
    if READS >= 2:
        v += tl.load(b_ptr + offs, mask=inside, other=0.0).to(tl.float32)
    if WRITES >= 1:
        tl.store(y_ptr + offs, v.to(y_ptr.dtype.element_ty), mask=inside)
    if WRITES >= 2:
        tl.store(z_ptr + offs, (2.0 * v).to(z_ptr.dtype.element_ty), mask=inside)
    if WRITES == 0:
        tl.store(out_ptr + pid, tl.sum(v, axis=0))


@triton.jit
def reread(x_ptr, out_ptr, n_elem, reps, BLOCK: tl.constexpr):
    """Read the same n_elem buffer ``reps`` times in one launch, bypassing L1 (.cg): L2-resident sets show L2
    bandwidth, larger ones DRAM bandwidth."""
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    for _ in range(reps):
        for start in range(pid * BLOCK, n_elem, nprog * BLOCK):
            acc += tl.load(x_ptr + start + offs, mask=start + offs < n_elem, other=0.0, cache_modifier=".cg")
    tl.store(out_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def _gemm_tile(a_ptr, bt_ptr, c_ptr, M, N, K, pid, BLOCK_M, BLOCK_N, BLOCK_K, GROUP, PRECISION):
    grid_n = N // BLOCK_N
    width = GROUP * grid_n
    group = pid // width
    first_m = group * GROUP
    size_m = min(M // BLOCK_M - first_m, GROUP)
    pid_m = first_m + (pid % width) % size_m
    pid_n = (pid % width) // size_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = bt_ptr + rn[None, :] * K + rk[:, None]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=c_ptr.dtype.element_ty)
    for _ in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        # out_dtype: an int8 dot accumulates in int32 (Triton's default out_dtype is float32)
        acc = tl.dot(a, b, acc, input_precision=PRECISION, out_dtype=acc.dtype)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def gemm(
    a_ptr,
    bt_ptr,
    c_ptr,
    M,
    N,
    K,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    GROUP: tl.constexpr,
    PRECISION: tl.constexpr,
):
    """C = A @ B with A (M, K) row-major and B given transposed, Bt (N, K) row-major (K-major operands, the
    layout wgmma wants for every dtype including fp8). M, N, K are multiples of the blocks (no masks)."""
    _gemm_tile(a_ptr, bt_ptr, c_ptr, M, N, K, tl.program_id(0), BLOCK_M, BLOCK_N, BLOCK_K, GROUP, PRECISION)


@triton.jit
def smid(x):
    """The SM this thread runs on (PTX ``%smid``); ``x`` only gives the result its shape."""
    return tl.inline_asm_elementwise("mov.u32 $0, %smid;", "=r,r", [x], dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def global_ns(x):
    """The GPU's global nanosecond timer (PTX ``%globaltimer``), shared by all SMs."""
    return tl.inline_asm_elementwise(
        "mov.u64 $0, %globaltimer;", "=l,r", [x], dtype=tl.int64, is_pure=False, pack=1
    )


@triton.jit
def placed_gemm(
    a_ptr,
    bt_ptr,
    c_ptr,
    place_ptr,
    M,
    N,
    K,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    """:func:`gemm` (GROUP 1, fp16) that also records, per program, the SM it ran on and its start and end on
    the global timer (``place_ptr[pid] = (sm, start_ns, end_ns)``, int64): the block scheduler's placement."""
    pid = tl.program_id(0)
    t0 = global_ns(pid)
    _gemm_tile(a_ptr, bt_ptr, c_ptr, M, N, K, pid, BLOCK_M, BLOCK_N, BLOCK_K, 1, "tf32")
    t1 = global_ns(pid)
    tl.store(place_ptr + 3 * pid, smid(pid).to(tl.int64))
    tl.store(place_ptr + 3 * pid + 1, t0)
    tl.store(place_ptr + 3 * pid + 2, t1)


@triton.jit
def timed_chase(start_addr, steps, target, flag_ptr, lat_ptr, who_ptr):
    """One program on SM ``target`` (any SM when ``target < 0``; the first to claim ``flag_ptr``) follows a
    chain of absolute addresses from ``start_addr`` for ``steps`` hops and records each hop's load-to-use
    latency in SM clocks (``lat_ptr[i]``) and its SM (``who_ptr``). Other programs exit at once, so a grid of
    a few programs per SM places the chase on a chosen SM."""
    pid = tl.program_id(0)
    sm = smid(pid)
    if (sm == target) | (target < 0):
        if tl.atomic_cas(flag_ptr, 0, 1) == 0:
            addr = start_addr.to(tl.int64)
            for i in range(steps):
                # in-order issue: the clock read after the dependent AND waits for the load
                lat, addr = tl.inline_asm_elementwise(
                    """{ .reg .u64 t0, t1, z;
                    mov.u64 t0, %clock64;
                    ld.global.cg.u64 $1, [$2];
                    shr.u64 z, $1, 63;
                    mov.u64 t1, %clock64;
                    sub.u64 $0, t1, t0;
                    add.u64 $0, $0, z; }""",
                    "=l,=l,l",
                    [addr],
                    dtype=(tl.int64, tl.int64),
                    is_pure=False,
                    pack=1,
                )
                tl.store(lat_ptr + i, lat)
            tl.store(who_ptr, sm)


@triton.jit
def fma_chain(x_ptr, out_ptr, iters, BLOCK: tl.constexpr, CHAINS: tl.constexpr):
    """CHAINS independent register-resident FMA chains per element; 2 * CHAINS FLOP per element per iter."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = x * 0.5
    a0 = x
    a1 = x + 1.0
    a2 = x + 2.0
    a3 = x + 3.0
    for _ in range(iters):
        for _u in tl.static_range(CHAINS // 4):
            a0 = a0 * x + y
            a1 = a1 * x + y
            a2 = a2 * x + y
            a3 = a3 * x + y
    tl.store(out_ptr + offs, a0 + a1 + a2 + a3)


@triton.jit
def _chain_starts(x):
    """Four independent chains' starting values from one loaded element in [0.5, 1]: ``x`` and three affine
    maps of it, each in [0.5, 1] too (the special-function and ALU chain probes')."""
    return x, x * 0.5 + 0.25, x * 0.25 + 0.5, x * 0.125 + 0.75


@triton.jit
def stream_fma(x_ptr, y_ptr, STEPS: tl.constexpr, BLOCK: tl.constexpr, CONSTANTS: tl.constexpr):
    """A streaming element-wise kernel with ``STEPS`` dependent fused multiply-adds an element between its
    load and its store (the ``stream_fma`` probe, stop 83): ``a = a * c1 + c2`` of constants (``CONSTANTS``: a
    polynomial's form, as libdevice's routines and the GELUs have it) or ``a = a * x + c`` with the loaded
    element as a register operand. Swept over ``STEPS`` at a fixed size, its time runs from the DRAM's
    (few steps) to the CUDA cores' (many); between them, where both take about as long, it shows how the two
    combine. The chain contracts to a fixed point in [0.4, 1.1], so the values stay finite."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs).to(tl.float32)
    a = x
    for _ in tl.static_range(STEPS):
        if CONSTANTS:
            a = a * 0.99951171875 + 0.000244140625
        else:
            a = a * x + 0.25
    tl.store(y_ptr + offs, a.to(y_ptr.dtype.element_ty))


# alu_forms' instruction forms, by FORM: what one step of a chain issues (module :func:`alu_forms`)
ALU_FORMS = ("fma_registers", "fma_constants", "add_mul_constants", "log_routine", "integer_lcg", "select")


@triton.jit
def alu_forms(x_ptr, out_ptr, iters, BLOCK: tl.constexpr, UNROLL: tl.constexpr, FORM: tl.constexpr):
    """Four independent chains an element of one instruction form (``ALU_FORMS[FORM]``), ``UNROLL`` steps an
    iteration: the CUDA cores' issue rate by the form of the operands, beside :func:`fma_chain`'s.

    0: ``a = a * x + y``, fused multiply-adds of three registers (fma_chain's form: the profile's
    ``cuda_flops_per_s``); 1: ``a = a * c1 + c2``, of a register and two constants (a polynomial's form, as in
    libdevice's routines); 2: ``a = (a + c) * d``, an add and a multiply of constants; 3: ``a = log(a + 1) +
    0.5``, libdevice's logf (straight-line, about 25 instructions: Liger's KL divergence); 4: ``i = (i ^ (i
    >> 7)) * 1664525 + 1013904223`` on 32-bit integers (a shift, an xor and a multiply-add of constants, as a
    counter-based random generator's rounds); 5: ``a = where(a > 1, a * 0.75, a + 0.5)``, a compare and a
    select beside two float ops. Values stay finite and bounded: the float forms contract to fixed points in
    [0.45, 1.5], the integer one wraps and is masked to 23 bits. The chains start as :func:`sfu_chain`'s."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = x * 0.5
    a0, a1, a2, a3 = _chain_starts(x)
    i0 = a0.to(tl.int32, bitcast=True)
    i1 = a1.to(tl.int32, bitcast=True)
    i2 = a2.to(tl.int32, bitcast=True)
    i3 = a3.to(tl.int32, bitcast=True)
    for _ in range(iters):
        for _u in tl.static_range(UNROLL):
            if FORM == 0:
                a0 = a0 * x + y
                a1 = a1 * x + y
                a2 = a2 * x + y
                a3 = a3 * x + y
            elif FORM == 1:
                a0 = a0 * 0.99951171875 + 0.000244140625
                a1 = a1 * 0.99951171875 + 0.000244140625
                a2 = a2 * 0.99951171875 + 0.000244140625
                a3 = a3 * 0.99951171875 + 0.000244140625
            elif FORM == 2:
                a0 = (a0 + 0.25) * 0.75
                a1 = (a1 + 0.25) * 0.75
                a2 = (a2 + 0.25) * 0.75
                a3 = (a3 + 0.25) * 0.75
            elif FORM == 3:
                a0 = tl.log(a0 + 1.0) + 0.5
                a1 = tl.log(a1 + 1.0) + 0.5
                a2 = tl.log(a2 + 1.0) + 0.5
                a3 = tl.log(a3 + 1.0) + 0.5
            elif FORM == 4:
                i0 = (i0 ^ (i0 >> 7)) * 1664525 + 1013904223
                i1 = (i1 ^ (i1 >> 7)) * 1664525 + 1013904223
                i2 = (i2 ^ (i2 >> 7)) * 1664525 + 1013904223
                i3 = (i3 ^ (i3 >> 7)) * 1664525 + 1013904223
            else:
                a0 = tl.where(a0 > 1.0, a0 * 0.75, a0 + 0.5)
                a1 = tl.where(a1 > 1.0, a1 * 0.75, a1 + 0.5)
                a2 = tl.where(a2 > 1.0, a2 * 0.75, a2 + 0.5)
                a3 = tl.where(a3 > 1.0, a3 * 0.75, a3 + 0.5)
    if FORM == 4:
        a0 = (i0 & 0x7FFFFF).to(tl.float32)
        a1 = (i1 & 0x7FFFFF).to(tl.float32)
        a2 = (i2 & 0x7FFFFF).to(tl.float32)
        a3 = (i3 & 0x7FFFFF).to(tl.float32)
    tl.store(out_ptr + offs, a0 + a1 + a2 + a3)


@triton.jit
def sfu_fma_mix(x_ptr, out_ptr, iters, BLOCK: tl.constexpr, UNROLL: tl.constexpr, FMAS: tl.constexpr):
    """Four independent exp2 chains beside four independent FMA chains: per element per unrolled
    step four exp2 (one special-function op each) and ``FMAS`` fused multiply-adds spread over the FMA
    chains (``FMAS`` a multiple of 4). Whether the exponentials' issue slots count against the FMAs' shows
    in where the time turns from the special-function units' to the FMAs'. Values stay finite as in
    :func:`sfu_chain` and :func:`fma_chain`."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = x * 0.5
    e0, e1, e2, e3 = _chain_starts(x)
    b0 = x
    b1 = x + 1.0
    b2 = x + 2.0
    b3 = x + 3.0
    for _ in range(iters):
        for _u in tl.static_range(UNROLL):
            e0 = tl.math.exp2(-e0)
            e1 = tl.math.exp2(-e1)
            e2 = tl.math.exp2(-e2)
            e3 = tl.math.exp2(-e3)
            for _f in tl.static_range(FMAS // 4):
                b0 = b0 * x + y
                b1 = b1 * x + y
                b2 = b2 * x + y
                b3 = b3 * x + y
    tl.store(out_ptr + offs, e0 + e1 + e2 + e3 + b0 + b1 + b2 + b3)


@triton.jit
def sfu_chain(x_ptr, out_ptr, iters, BLOCK: tl.constexpr, UNROLL: tl.constexpr, OP: tl.constexpr):
    """Four independent chains of a special-function op (OP 0: exp2(-a), 1: rsqrt(a)); 4 * UNROLL ops per
    element per iter. Values stay finite: exp2(-a) maps [0, 1] into [0.5, 1]; rsqrt(a) maps [0.5, 2] into
    itself."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    a0, a1, a2, a3 = _chain_starts(x)
    for _ in range(iters):
        for _u in tl.static_range(UNROLL):
            if OP == 0:
                a0 = tl.math.exp2(-a0)
                a1 = tl.math.exp2(-a1)
                a2 = tl.math.exp2(-a2)
                a3 = tl.math.exp2(-a3)
            else:
                a0 = tl.math.rsqrt(a0)
                a1 = tl.math.rsqrt(a1)
                a2 = tl.math.rsqrt(a2)
                a3 = tl.math.rsqrt(a3)
    tl.store(out_ptr + offs, a0 + a1 + a2 + a3)


@triton.jit
def smem_transpose(x_ptr, out_ptr, iters, T: tl.constexpr):
    """Shared-memory round trips: ``x + trans(x)`` on a T x T fp32 tile needs a layout conversion that goes
    through shared memory (every warp writes its part, then reads another warp's), T*T*4 bytes written and
    read per iteration. run.py checks the PTX has shared loads/stores inside the loop before trusting it."""
    pid = tl.program_id(0)
    r = tl.arange(0, T)
    x = tl.load(x_ptr + pid * T * T + r[:, None] * T + r[None, :])
    for _ in range(iters):
        x = x * 0.5 + tl.trans(x)
    tl.store(out_ptr + pid * T * T + r[:, None] * T + r[None, :], x)


@triton.jit
def empty():
    """Does nothing: its time under do_bench is the launch overhead."""
    pass


@triton.jit
def pointer_chase(next_ptr, out_ptr, steps):
    """One dependent load after another (a single program): time / steps is the load-to-use latency of the
    level the chain lives in. ``next_ptr`` holds, at each visited index, the index of the next element; the
    start index is read from ``out_ptr[0]`` (an int64 tensor, so the loop-carried index is int64 whatever the
    start value) and the final index is written back there."""
    p = tl.load(out_ptr)
    for _ in range(steps):
        p = tl.load(next_ptr + p, cache_modifier=".cg")
    tl.store(out_ptr, p)


@triton.jit
def _stream_panel(
    a_ptr, b_ptr, out_ptr, K, iters, panel, start, BM: tl.constexpr, BK: tl.constexpr, BN: tl.constexpr
):
    """Stream [BM, BK] tiles of A's row panel ``panel`` through the software-pipelined (async-copy) load path
    that GEMMs use, against a constant [BK, BN] B, re-reading the K-wide panel ``iters / (K / BK)`` times and
    ``start`` K steps behind step 0; the program's own rows of ``out`` receive the result."""
    offs_m = panel * BM + tl.arange(0, BM)
    offs_k = tl.arange(0, BK)
    offs_n = tl.arange(0, BN)
    b = tl.load(b_ptr + offs_k[:, None] * BN + offs_n[None, :])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    k_blocks = K // BK
    for it in range(0, iters):
        k0 = ((it + k_blocks * iters - start) % k_blocks) * BK
        a = tl.load(a_ptr + offs_m[:, None] * K + (k0 + offs_k)[None, :])
        acc = tl.dot(a, b, acc)
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    tl.store(out_ptr + rows[:, None] * BN + offs_n[None, :], acc)


@triton.jit
def l2_stream_dot(a_ptr, b_ptr, out_ptr, K, iters, BM: tl.constexpr, BK: tl.constexpr, BN: tl.constexpr):
    """Each program streams its own row panel of an L2- (or DRAM-) resident A (:func:`_stream_panel`).
    Bytes moved: grid x iters x BM x BK x 2."""
    _stream_panel(a_ptr, b_ptr, out_ptr, K, iters, tl.program_id(0), 0, BM, BK, BN)


@triton.jit
def l2_shared_dot(
    a_ptr, b_ptr, out_ptr, K, iters, share, BM: tl.constexpr, BK: tl.constexpr, BN: tl.constexpr
):
    """``l2_stream_dot`` with ``share`` consecutive programs reading the same [BM, K] row panel in step, as
    the CTAs of one GEMM tile row (or column) do: the L2 rate when a line is requested by several SMs at once
    rather than by one. Bytes requested: grid x iters x BM x BK x 2; unique bytes: 1 / share of that."""
    _stream_panel(a_ptr, b_ptr, out_ptr, K, iters, tl.program_id(0) // share, 0, BM, BK, BN)


@triton.jit
def l2_lagged_dot(
    a_ptr, b_ptr, out_ptr, K, iters, share, lag, BM: tl.constexpr, BK: tl.constexpr, BN: tl.constexpr
):
    """``l2_shared_dot`` with the ``share`` programs of a panel ``lag`` K steps apart: program ``j`` of a
    group starts at step ``j x lag``, so the group reads each line ``lag`` steps (K tiles) after another."""
    pid = tl.program_id(0)
    _stream_panel(a_ptr, b_ptr, out_ptr, K, iters, pid // share, (pid % share) * lag, BM, BK, BN)


@triton.jit
def tma_stream_dot(
    a_ptr, b_ptr, out_ptr, K, iters, share, BM: tl.constexpr, BK: tl.constexpr, BN: tl.constexpr
):
    """``l2_shared_dot`` with A read through a tensor descriptor (TMA bulk copies of [BM, BK] boxes): the rate
    of TMA loads by the box's inner extent (BK x 2 bytes per row)."""
    pid = tl.program_id(0)
    rows = tl.num_programs(0) // share * BM
    desc = tl.make_tensor_descriptor(a_ptr, shape=[rows, K], strides=[K, 1], block_shape=[BM, BK])
    offs_k = tl.arange(0, BK)
    offs_n = tl.arange(0, BN)
    b = tl.load(b_ptr + offs_k[:, None] * BN + offs_n[None, :])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    k_blocks = K // BK
    m0 = (pid // share) * BM
    for it in range(0, iters):
        a = desc.load([m0, (it % k_blocks) * BK])
        acc = tl.dot(a, b, acc)
    out_rows = pid * BM + tl.arange(0, BM)
    tl.store(out_ptr + out_rows[:, None] * BN + offs_n[None, :], acc)


@triton.jit
def overlap_dot(
    a_ptr, b_ptr, out_ptr, K, iters, share,
    BM: tl.constexpr, BK: tl.constexpr, BN: tl.constexpr, LOAD: tl.constexpr,
):  # fmt: skip
    """Tensor-core work and L2 traffic in one loop, each sized on its own: every K step streams a [BM, BK]
    tile of the program's row panel (``share`` programs per panel, as :func:`l2_shared_dot`) and runs one
    [BM, BK] x [BK, BN] dot on it, so BN scales the tensor-core time at fixed bytes. ``LOAD=False`` keeps
    the first tile and runs the same dot chain with no memory traffic (the tensor-core time alone)."""
    panel = tl.program_id(0) // share
    offs_m = panel * BM + tl.arange(0, BM)
    offs_k = tl.arange(0, BK)
    offs_n = tl.arange(0, BN)
    b = tl.load(b_ptr + offs_k[:, None] * BN + offs_n[None, :])
    first = tl.load(a_ptr + offs_m[:, None] * K + offs_k[None, :])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    k_blocks = K // BK
    for it in range(0, iters):
        if LOAD:
            a = tl.load(a_ptr + offs_m[:, None] * K + ((it % k_blocks) * BK + offs_k)[None, :])
        else:
            a = first
        acc = tl.dot(a, b, acc)
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    tl.store(out_ptr + rows[:, None] * BN + offs_n[None, :], acc)


@triton.jit
def tile_loop(
    a_ptr, b_ptr, out_ptr, K, N, iters, share,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, DOTS: tl.constexpr, LOAD: tl.constexpr,
):  # fmt: skip
    """A GEMM tile's main loop on its own: every K step loads a [BM, BK] tile of the program's A row panel and
    a [BK, BN] tile of its B column panel (``share`` consecutive programs read the same panels, at the same
    steps) and runs ``DOTS`` dots on them, so the tensor-core work per loaded byte is the GEMM tile's (or
    ``DOTS`` times it) with the L2 traffic either private or read by several SMs at once. The panels are
    ``K`` wide and re-read every ``K / BK`` steps (L2-resident). ``LOAD=False`` runs the same dots on the
    first tiles (the tensor-core time alone)."""
    panel = tl.program_id(0) // share
    offs_m = panel * BM + tl.arange(0, BM)
    offs_n = panel * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_first = tl.load(a_ptr + offs_m[:, None] * K + offs_k[None, :])
    b_first = tl.load(b_ptr + offs_k[:, None] * N + offs_n[None, :])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    k_blocks = K // BK
    for it in range(0, iters):
        if LOAD:
            k0 = (it % k_blocks) * BK
            a = tl.load(a_ptr + offs_m[:, None] * K + (k0 + offs_k)[None, :])
            b = tl.load(b_ptr + (k0 + offs_k)[:, None] * N + offs_n[None, :])
        else:
            a = a_first
            b = b_first
        for _ in tl.static_range(DOTS):
            acc = tl.dot(a, b, acc)
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    tl.store(out_ptr + rows[:, None] * BN + tl.arange(0, BN)[None, :], acc)


@triton.jit
def narrow_tiles(src_ptr, out_ptr, stride, n_rows, reps, R: tl.constexpr, C: tl.constexpr):
    """A GEMM operand's loop loads on their own: each program walks its own ``C``-column panel of an
    L2-resident fp16 matrix ``R`` rows at a time (wrapping at ``n_rows``) and sums the tiles. With a row
    stride Triton cannot prove aligned (odd), every load is element-wide and row-contiguous, as in an
    unaligned GEMM's operand tiles, so the element-wide instructions' rate in a tile loop sets the time."""
    pid = tl.program_id(0)
    rows = tl.arange(0, R)
    cols = pid * C + tl.arange(0, C)
    acc = tl.zeros((R, C), dtype=tl.float32)
    for r in range(reps):
        row0 = (r * R) % n_rows
        inside = (row0 + rows)[:, None] < n_rows
        x = tl.load(src_ptr + (row0 + rows)[:, None] * stride + cols[None, :], mask=inside)
        acc += x.to(tl.float32)
    tl.store(out_ptr + pid, tl.sum(tl.sum(acc, axis=1), axis=0))


@triton.jit
def touch(out_ptr):
    """One store per block and nothing else: the cost of dispatching, starting and retiring blocks."""
    pid = tl.program_id(0)
    tl.store(out_ptr + pid, pid)


@triton.jit
def copy_rows(src_ptr, dst_ptr, stride, n_cols, BLOCK: tl.constexpr):
    """One row per program: dst[row, :n_cols] = src[row, :n_cols]. With a row stride Triton cannot prove
    16-byte aligned (an odd stride), every access is element-wide: the probe then measures how fast an SM
    issues narrow memory instructions."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    x = tl.load(src_ptr + row * stride + cols, mask=inside)
    tl.store(dst_ptr + row * stride + cols, x, mask=inside)


@triton.jit
def read_rows(src_ptr, out_ptr, stride, n_cols, BLOCK: tl.constexpr):
    """One row per program, loads only: out[row] = sum(src[row, :n_cols]) (the narrow probe's load half)."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(src_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(x.to(tl.float32), axis=0))


@triton.jit
def reread_rows(src_ptr, out_ptr, stride, n_cols, n_rows, reps, BLOCK: tl.constexpr):
    """Loads only, from an L2-resident buffer: each program sums ``reps`` rows (row (pid + 7 r) mod n_rows),
    so with an odd row stride the element-wide load instructions, not DRAM, set the pace."""
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for r in range(reps):
        row = (pid + 7 * r) % n_rows
        acc += tl.load(src_ptr + row * stride + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    tl.store(out_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def reread_rows_unrolled(
    src_ptr, out_ptr, stride, n_cols, row_mask, iters, U: tl.constexpr, BLOCK: tl.constexpr
):
    """Loads only, ``U`` rows an iteration: iteration ``i`` of a program sums rows ``start + 7 u`` (``u < U``,
    ``start = (pid + 7 U i) & row_mask``; the buffer holds ``row_mask + 1 + 7 U`` rows), accumulating in the
    source's type. The row pointers cost an add each and every element one add, so the load instructions,
    not the address arithmetic, set the pace (the narrow_width probe)."""
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    acc = tl.zeros((BLOCK,), dtype=src_ptr.dtype.element_ty)
    for i in range(iters):
        start = (pid + 7 * U * i) & row_mask
        base = src_ptr + start * stride + cols
        for u in tl.static_range(U):
            acc += tl.load(base + u * 7 * stride, mask=inside, other=0.0)
    tl.store(out_ptr + pid, tl.sum(acc.to(tl.float32), axis=0))


@triton.jit
def reread_private(
    src_ptr, out_ptr, stride, n_cols, iters, U: tl.constexpr, BLOCK: tl.constexpr, CG: tl.constexpr
):
    """Loads only: program ``pid`` re-reads its own ``U`` rows (rows ``pid U`` to ``pid U + U - 1``, ``U`` a
    power of two) ``iters`` times, accumulating in the source's type; with ``CG`` the loads bypass L1
    (``.cg``), so L2 serves every re-read of the program's private lines (the narrow_private probe)."""
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    base = src_ptr + pid * U * stride + cols
    acc = tl.zeros((BLOCK,), dtype=src_ptr.dtype.element_ty)
    for i in range(iters):
        for u in tl.static_range(U):
            row = (i + u) & (U - 1)  # the program's rows in a rotating order, so no load is loop-invariant
            if CG:
                acc += tl.load(base + row * stride, mask=inside, other=0.0, cache_modifier=".cg")
            else:
                acc += tl.load(base + row * stride, mask=inside, other=0.0)
    tl.store(out_ptr + pid, tl.sum(acc.to(tl.float32), axis=0))


@triton.jit
def flat_loop(src_ptr, dst_ptr, out_ptr, n, chunks, BLOCK: tl.constexpr, MODE: tl.constexpr):
    """A flat read (``MODE`` 0, summed per program), write (1) or copy (2) of ``n`` elements in which every
    program walks ``chunks`` consecutive BLOCK-wide chunks, so few programs (a few an SM) stream the whole
    array and block dispatch does not set the pace (the narrow_dram probe)."""
    pid = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(chunks):
        offs = (pid * chunks + i) * BLOCK + tl.arange(0, BLOCK)
        inside = offs < n
        if MODE == 0:
            acc += tl.load(src_ptr + offs, mask=inside, other=0.0).to(tl.float32)
        elif MODE == 1:
            tl.store(dst_ptr + offs, (offs & 255).to(dst_ptr.dtype.element_ty), mask=inside)
        else:
            tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=inside), mask=inside)
    if MODE == 0:
        tl.store(out_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def write_rows(dst_ptr, stride, n_cols, BLOCK: tl.constexpr):
    """One row per program, stores only: dst[row, :n_cols] = row (the narrow probe's store half)."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    val = tl.full((BLOCK,), 1.0, tl.float16) * row.to(tl.float16)
    tl.store(dst_ptr + row * stride + cols, val, mask=cols < n_cols)


@triton.jit
def flat_copy(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    """dst[:n] = src[:n], BLOCK elements a program. With ``n`` no multiple of 16 the pointers stay 16-byte
    aligned, so the layout keeps 16 bytes a thread, but the mask splits each thread's access into element-wide
    ones whose lanes sit 16 bytes apart (the narrow_strided probe)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=inside), mask=inside)


@triton.jit
def flat_read(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """Loads only: out[pid] = sum(src[pid * BLOCK:][:BLOCK], masked at ``n``)."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(src_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + tl.program_id(0), tl.sum(x.to(tl.float32), axis=0))


@triton.jit
def flat_write(dst_ptr, n, BLOCK: tl.constexpr):
    """Stores only: dst[:n] = program id."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    val = tl.full((BLOCK,), 1.0, tl.float32) * tl.program_id(0).to(tl.float32)
    tl.store(dst_ptr + offs, val.to(dst_ptr.dtype.element_ty), mask=offs < n)


@triton.jit
def flat_write_paced(dst_ptr, n, BLOCK: tl.constexpr, FMAS: tl.constexpr):
    """:func:`flat_write` with ``FMAS`` dependent fused multiply-adds an element before the store: the same
    stores, issued at the pace of the arithmetic in front of them."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    val = offs.to(tl.float32)
    for _ in tl.static_range(FMAS):
        val = val * 0.999 + 0.5
    tl.store(dst_ptr + offs, val.to(dst_ptr.dtype.element_ty), mask=offs < n)


@triton.jit
def flat_copy_paced(src_ptr, dst_ptr, n, BLOCK: tl.constexpr, FMAS: tl.constexpr):
    """:func:`flat_copy` with ``FMAS`` dependent fused multiply-adds an element between the load and the
    store: a loaded element-wise kernel's shape (the GELU's, the dropout's) with arithmetic of known size."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = offs < n
    val = tl.load(src_ptr + offs, mask=inside, other=0.0).to(tl.float32)
    for _ in tl.static_range(FMAS):
        val = val * 0.999 + 0.5
    tl.store(dst_ptr + offs, val.to(dst_ptr.dtype.element_ty), mask=inside)


@triton.jit
def dot_chain(
    a_ptr, b_ptr, out_ptr, iters, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
    A_REGS: tl.constexpr = False,
):  # fmt: skip
    """``iters`` dependent tensor-core dots on operands loaded once: acc = a @ b + acc, each waiting for the
    last. One block per SM shows the dependent-dot cost; more blocks per SM show how it overlaps. ``A_REGS``
    (the ``regs_a`` probe, stop 72): ``a_ptr`` holds float32 and A is its float16 cast, computed in the
    warps' registers, so each warpgroup MMA takes A from registers instead of shared memory."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    if A_REGS:
        a = a.to(tl.float16)
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(iters):
        acc = tl.dot(a, b, acc)
    pid = tl.program_id(0)
    tl.store(out_ptr + pid * BM * BN + rm[:, None] * BN + rn[None, :], acc)


@triton.jit
def softmax_dot_chain(
    q_ptr, k_ptr, v_ptr, out_ptr, iters, BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr,
    MASK: tl.constexpr = False, SOFTMAX: tl.constexpr = True,
):  # fmt: skip
    """An attention inner loop on operands loaded once (no memory traffic in the loop): S = Q K^T, the online
    softmax (row max, exp2, row sum, rescale) and acc += P V, ``iters`` times. Time per iteration at 1, 2 and
    4 blocks per SM shows how a block's tensor-core and CUDA-core work serialise and how blocks overlap.
    ``MASK`` builds and applies a causal-style mask to the score tile every iteration (an integer compare of
    row and key indices that moves with the iteration, and a select, between S = Q K^T and the row max, as a
    single-loop causal attention kernel does): the difference to ``MASK=False`` is what the mask costs.
    ``SOFTMAX=False`` (the ``wrapped`` probe) keeps the two dots alone, acc += S V with S cast to fp16: the
    first dot's result still feeds the second, so Triton gives it the chained-dot MMA layout (``warpsPerCTA
    [num_warps, 1]``), which on 8 warps wraps a 64-row S (both warpgroups compute all of it, as the score dot
    of a 64-row attention tile on 8 warps does); beside the same tile on 4 warps this times what the wrapped
    copy costs the tensor cores."""
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + rm[:, None] * D + rd[None, :])
    kt = tl.load(k_ptr + rd[:, None] * BN + rn[None, :])
    v = tl.load(v_ptr + rn[:, None] * D + rd[None, :])
    row_max = tl.full((BM,), -float("inf"), dtype=tl.float32)
    row_sum = tl.zeros((BM,), dtype=tl.float32)
    acc = tl.zeros((BM, D), dtype=tl.float32)
    for it in range(iters):
        if SOFTMAX:
            s = tl.dot(q, kt) * 0.125
            if MASK:
                keys = (it % BN) + rn
                s = tl.where(rm[:, None] + BN >= keys[None, :], s, -1.0e6)
            m_new = tl.maximum(row_max, tl.max(s, axis=1))
            p = tl.math.exp2(s - m_new[:, None])
            alpha = tl.math.exp2(row_max - m_new)
            row_sum = row_sum * alpha + tl.sum(p, axis=1)
            acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
            row_max = m_new
        else:
            acc = tl.dot(tl.dot(q, kt).to(tl.float16), v, acc)
    pid = tl.program_id(0)
    out = acc / row_sum[:, None] if SOFTMAX else acc
    tl.store(out_ptr + pid * BM * D + rm[:, None] * D + rd[None, :], out)


@triton.jit
def reduce_chain(x_ptr, out_ptr, iters, BLOCK: tl.constexpr):
    """``iters`` dependent row reductions of a [BLOCK] vector (max, then fed back): with more than one warp
    each one combines the warps' partial results through shared memory behind a barrier."""
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for _ in range(iters):
        m = tl.max(x + acc, axis=0)
        acc = acc + m * 1e-9
    tl.store(out_ptr + pid * BLOCK + offs, acc)


@triton.jit
def barrier_chain(x_ptr, out_ptr, iters, WORK: tl.constexpr, BARRIERS: tl.constexpr, BLOCK: tl.constexpr):
    """``iters`` steps of a block whose warps each run ``WORK`` dependent FMAs on their own elements, then
    meet ``BARRIERS`` times at a CTA barrier (``tl.debug_barrier``), one more FMA before each meeting so that
    no two barriers stand side by side: beside the same loop with none, the time one meeting of the block's
    warps adds to a step (the descriptor attention's loop meets four times a step, its pointer twin once)."""
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    for _ in range(iters):
        for _w in tl.static_range(WORK):
            x = x * 0.999 + 0.5
        for _b in tl.static_range(BARRIERS):
            x = x * 0.999 + 0.25
            tl.debug_barrier()
    tl.store(out_ptr + pid * BLOCK + offs, x)


@triton.jit
def row_reduce_mix(x_ptr, out_ptr, stride, n_cols, REDS: tl.constexpr, BLOCK: tl.constexpr):
    """One fp16 row a program, ``n_cols`` of it (``stride`` elements apart: a stride or width no multiple
    of 8 leaves each element its own load), reduced ``REDS + 1`` times across the block's warps one after
    another (each sum fed back into the row, as a LayerNorm's mean into its variance), the last sum stored:
    the row kernels' loads and cross-warp reductions with no store traffic beside them (the reduce_mix
    probe)."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    for _ in tl.static_range(REDS):
        x = x - tl.sum(x, axis=0) * 1e-3
    tl.store(out_ptr + row, tl.sum(x, axis=0))


@triton.jit
def chunk_read(x_ptr, out_ptr, row_stride, ROWS: tl.constexpr, W: tl.constexpr):
    """Read a [ROWS, W] fp16 tile whose rows are ``row_stride`` elements apart: DRAM traffic in contiguous
    chunks of W x 2 bytes (a narrow GEMM operand tile's access pattern)."""
    pid = tl.program_id(0)
    rows = (pid * ROWS + tl.arange(0, ROWS)).to(tl.int64)  # the buffer is larger than 2**31 elements
    cols = tl.arange(0, W)
    x = tl.load(x_ptr + rows[:, None] * row_stride + cols[None, :])
    tl.store(out_ptr + pid, tl.sum(tl.sum(x.to(tl.float32), axis=1), axis=0))


# The static shared memory one block may declare (48 KB; more needs the dynamic opt-in Triton does not make
# for memory its own compiler does not allocate).
STATIC_SHARED_MAX_BYTES = 48 * 1024


def local_frame_asm(
    frame_bytes: int, unroll: int = 8, shared_pad_bytes: int = 0, dependent: bool = False
) -> str:
    """PTX for :func:`local_stream`: a per-thread ``.local`` array of ``frame_bytes`` (what ptxas allocates
    for spilled registers), initialised from ``$1``, then ``$2`` passes that each load every 4-byte word with
    a scalar ``ld.local.u32`` (a spill reload: ptxas's spill code is almost all 32-bit LDL/STL), add 1 and
    store it back with ``st.local.u32``. The frame is ``unroll`` lanes side by side and a step touches one
    word of each, ``frame_bytes / unroll`` apart: ``unroll`` independent loads in flight, none that ptxas can
    merge into a vector access. ``$0`` is the first word.

    ``shared_pad_bytes`` (at most the 48 KB of static shared memory a block may declare) reserves that much
    shared memory for the block and writes the result into it once, so it is allocated: the SM's unified
    L1 / shared array then keeps that much less L1 for the frames, as a GEMM's operand buffers do.

    ``dependent``: each step's ``unroll`` loads are a run that the next step waits for, as a spilled value is
    reloaded for the instruction that uses it: the next step's address adds the run's words masked to zero by
    a value ptxas cannot fold (``$2 >> 31``, the pass count, is 0 at run time), so a step takes at least one
    load latency from wherever the frame lives."""
    if frame_bytes % (4 * unroll):
        raise ValueError(f"frame_bytes {frame_bytes} is not a multiple of 4 x unroll ({4 * unroll})")
    if not 0 <= shared_pad_bytes <= STATIC_SHARED_MAX_BYTES or shared_pad_bytes % 16:
        raise ValueError(
            f"shared_pad_bytes {shared_pad_bytes}: a multiple of 16 up to {STATIC_SHARED_MAX_BYTES}"
        )
    lane = frame_bytes // unroll
    words = [f"w{j}" for j in range(unroll)]
    loads = "\n".join(f"ld.local.u32 {w}, [p+{lane * j}];" for j, w in enumerate(words))
    adds = "\n".join(f"add.u32 {w}, {w}, 1;" for w in words)
    stores = "\n".join(f"st.local.u32 [p+{lane * j}], {w};" for j, w in enumerate(words))
    # the dependent variant's registers, mask and chain (none of it in the independent frame, which the
    # local_memory probe measured as it was)
    regs32, regs64, mask, chain = "", "", "", ""
    if dependent:
        total = "\n".join(f"add.u32 dsum, dsum, {w};" for w in words)
        regs32, regs64, mask = "dsum, zmask, ", ", dd", "\n    shr.u32 zmask, $2, 31;"
        chain = f"""
    mov.u32 dsum, 0;
    {total}
    and.b32 dsum, dsum, zmask;
    cvt.u64.u32 dd, dsum;
    add.u64 p, p, dd;"""
    pad = ""
    if shared_pad_bytes:
        pad = f"""
    {{ .shared .align 16 .b8 spad[{shared_pad_bytes}];
    .reg .u32 sp;
    mov.u32 sp, spad;
    st.shared.u32 [sp], $0; }}"""
    return f"""{{ .local .align 16 .b8 frame[{frame_bytes}];
    .reg .u32 i, {regs32}{", ".join(words)};
    .reg .u64 base, p, end, lane_end{regs64};
    .reg .pred q;
    mov.u64 base, frame;
    add.u64 end, base, {frame_bytes};
    add.u64 lane_end, base, {lane};
    mov.u64 p, base;
    LOCAL_INIT:
    st.local.u32 [p], $1;
    add.u64 p, p, 4;
    setp.lt.u64 q, p, end;
    @q bra LOCAL_INIT;
    mov.u32 i, 0;{mask}
    LOCAL_PASS:
    mov.u64 p, base;
    LOCAL_STEP:
    {loads}
    {adds}
    {stores}{chain}
    add.u64 p, p, 4;
    setp.lt.u64 q, p, lane_end;
    @q bra LOCAL_STEP;
    add.u32 i, i, 1;
    setp.lt.u32 q, i, $2;
    @q bra LOCAL_PASS;
    ld.local.u32 $0, [base];{pad} }}"""


@triton.jit
def local_stream(out_ptr, iters, BLOCK: tl.constexpr, ASM: tl.constexpr):
    """Local-memory (register spill) traffic: one element per thread runs :func:`local_frame_asm`'s PTX,
    ``iters`` passes over its frame; the result (seed + iters) is stored so nothing is dead."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    seed = offs.to(tl.int32)
    n = tl.full([BLOCK], iters, tl.int32)
    r = tl.inline_asm_elementwise(ASM, "=r,r,r", [seed, n], dtype=tl.int32, is_pure=False, pack=1)
    tl.store(out_ptr + offs, r)


@triton.jit
def atomic_tiles(c_ptr, n_tiles, reps, BLOCK: tl.constexpr, ATOMIC: tl.constexpr):
    """Program p adds ones to tile ``p % n_tiles`` (BLOCK fp32 values) ``reps`` times: with atomics
    (``tl.atomic_add``, programs sharing a tile contend for its addresses) or as plain stores."""
    pid = tl.program_id(0)
    offs = (pid % n_tiles) * BLOCK + tl.arange(0, BLOCK)
    ones = tl.full((BLOCK,), 1.0, tl.float32)
    for _ in range(reps):
        if ATOMIC:
            tl.atomic_add(c_ptr + offs, ones)
        else:
            tl.store(c_ptr + offs, ones)


@triton.jit
def atomic_scatter(idx_ptr, bins_ptr, n, BLOCK: tl.constexpr, RELAXED: tl.constexpr = False):
    """Each of ``n`` elements adds one to the bin its index names (``tl.atomic_add`` of ones at gathered
    addresses, a bincount): with few bins, many programs contend for the same words. ``RELAXED``: the adds
    with ``sem="relaxed"`` (``REDG``), else Triton's default ``acq_rel``."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = offs < n
    i = tl.load(idx_ptr + offs, mask=inside, other=0)
    ones = tl.full((BLOCK,), 1, bins_ptr.dtype.element_ty)
    if RELAXED:
        tl.atomic_add(bins_ptr + i, ones, mask=inside, sem="relaxed")
    else:
        tl.atomic_add(bins_ptr + i, ones, mask=inside)


@triton.jit
def row_ring(
    x_ptr, y_ptr, n_rows, n_cols, stride_row,
    BLOCK: tl.constexpr, ROW_STAGES: tl.constexpr, BODY: tl.constexpr,
):  # fmt: skip
    """The row-striding softmax's loop (``kernels/triton/softmax.py::softmax_rows_kernel``: programs striding
    over rows, ``tl.range(..., num_stages=ROW_STAGES)``) with a body of known size: ``BODY`` 0 copies the row,
    1 subtracts its maximum (one cross-warp reduction), 2 is the softmax (two reductions and the
    exponentials). What a row costs a program beyond its compute when its loads run rows ahead."""
    cols = tl.arange(0, BLOCK)
    inside = cols < n_cols
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=ROW_STAGES):
        x = tl.load(x_ptr + row * stride_row + cols, mask=inside, other=-float("inf")).to(tl.float32)
        if BODY == 0:
            y = x
        elif BODY == 1:
            y = x - tl.max(x, axis=0)
        else:
            e = tl.exp(x - tl.max(x, axis=0))
            y = e / tl.sum(e, axis=0)
        tl.store(y_ptr + row * stride_row + cols, y.to(y_ptr.dtype.element_ty), mask=inside)


@triton.jit
def _scan_recurrence_step(a1, x1, a2, x2):
    return a1 * a2, x1 * a2 + x2


@triton.jit
def scan_chain(x_ptr, out_ptr, iters, L: tl.constexpr, D: tl.constexpr, OPERANDS: tl.constexpr):
    """``iters`` dependent scans along axis 0 of an on-chip [L, D] tile in fp32 (loaded once, stored once):
    with ``OPERANDS`` 1 ``tl.cumsum``, with 2 the linear recurrence through ``tl.associative_scan`` on a
    tuple (a, x).
    Spread over several warps along the axis, each scan chains its warps' chunk totals through shared memory
    one after another (Triton's scan lowering), which is what the probe times."""
    pid = tl.program_id(0)
    offs = tl.arange(0, L)[:, None] * D + tl.arange(0, D)[None, :]
    x = tl.load(x_ptr + offs).to(tl.float32)  # a 16-bit input gets the wider per-thread vector of its loads
    a = x * 1e-3 + 0.5
    for _ in range(iters):
        if OPERANDS == 1:
            x = tl.cumsum(x, axis=0) * 1e-3
        else:
            _, x = tl.associative_scan((a, x), axis=0, combine_fn=_scan_recurrence_step)
            x = x * 1e-3
    tl.store(out_ptr + pid * L * D + offs, x)


@triton.jit
def scan_rounds(
    x_ptr, y_ptr, seq_len, dim, BLOCK_L: tl.constexpr, BLOCK_D: tl.constexpr, SCANS: tl.constexpr,
    OPERANDS: tl.constexpr,
):  # fmt: skip
    """A ``[BLOCK_L, BLOCK_D]`` 16-bit tile of a ``[batch, seq_len, dim]`` tensor loaded, scanned along the
    sequence ``SCANS`` times (0: a copy; ``tl.cumsum``, or with ``OPERANDS`` 2 the tuple linear recurrence)
    and stored, one program a tile: what a scan adds to a program that loads and stores its tile, at the
    layout a real launch gets."""
    b = tl.program_id(0)
    d = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    t = tl.arange(0, BLOCK_L)
    offs = b * seq_len * dim + t[:, None] * dim + d[None, :]
    x = tl.load(x_ptr + offs).to(tl.float32)
    a = x * 1e-3 + 0.5
    for _ in tl.static_range(SCANS):
        if OPERANDS == 1:
            x = tl.cumsum(x, axis=0) * 1e-3
        else:
            _, x = tl.associative_scan((a, x), axis=0, combine_fn=_scan_recurrence_step)
    tl.store(y_ptr + offs, x.to(y_ptr.dtype.element_ty))


@triton.jit
def scan_loop(x_ptr, y_ptr, seq_len, dim, scans, BLOCK_L: tl.constexpr, BLOCK_D: tl.constexpr):
    """:func:`scan_rounds` with its ``tl.cumsum`` scans in a loop of ``scans`` trips (one scan's code, run
    ``scans`` times) instead of unrolled (``scans`` copies of it, one after another)."""
    b = tl.program_id(0)
    d = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    t = tl.arange(0, BLOCK_L)
    offs = b * seq_len * dim + t[:, None] * dim + d[None, :]
    x = tl.load(x_ptr + offs).to(tl.float32)
    for _ in range(scans):
        x = tl.cumsum(x, axis=0) * 1e-3
    tl.store(y_ptr + offs, x.to(y_ptr.dtype.element_ty))


@triton.jit
def code_size(x_ptr, y_ptr, iters, BLOCK: tl.constexpr, UNROLL: tl.constexpr):
    """``iters`` trips of a loop whose body is ``UNROLL`` unrolled dependent fused multiply-adds on each of a
    thread's ``BLOCK / threads`` values: the same arithmetic for any split of ``iters x UNROLL``, in a body of
    ``UNROLL`` x values-a-thread instructions (16 bytes of SASS each). Nothing else touches memory."""
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    for _ in range(iters):
        for _ in tl.static_range(UNROLL):
            x = x * 1.0001 + 0.5
    tl.store(y_ptr + tl.program_id(0) * BLOCK + offs, x)

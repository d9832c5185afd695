"""Calibration kernels on CPU: they compute the right thing under TRITON_INTERPRET=1 on tiny sizes, and
compile for sm_90 (GPUTarget("cuda", 90, 32)) to the instruction families the suite claims to time."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

# Runs in a fresh interpreter: TRITON_INTERPRET must be set before triton is imported. Each check redoes the
# kernel's arithmetic in torch (e.g. the chase 0 -> 2 -> 3 -> 1 ends on index 1 after 3 steps).
INTERPRETER_SCRIPT = r"""
import torch
from benchmarks.calibrate import kernels as K
x = torch.rand(4096); out = torch.zeros(4)
K.read_reduce[(4,)](x, out, 4096, BLOCK=256)
assert abs(out.sum().item() - x.sum().item()) < 1e-2, (out.sum(), x.sum())
dst = torch.empty_like(x); K.copy[(4,)](x, dst, 4096, BLOCK=256); assert torch.equal(x, dst)
K.reread[(4,)](x, out, 1024, 3, BLOCK=256); assert abs(out.sum().item() - 3 * x[:1024].sum().item()) < 1e-2
a = torch.randn(64, 32).half(); bt = torch.randn(32, 32).half(); c = torch.empty(64, 32)
K.gemm[(2,)](a, bt, c, 64, 32, 32, BLOCK_M=32, BLOCK_N=32, BLOCK_K=16, GROUP=2, PRECISION="tf32")
assert torch.allclose(c, a.float() @ bt.float().T, atol=1e-2), (c - a.float() @ bt.float().T).abs().max()
x = torch.rand(256) * 0.5 + 0.5; y = torch.empty_like(x)
K.fma_chain[(2,)](x, y, 3, BLOCK=128, CHAINS=8)
a0 = x.clone(); acc = []
for s in (0, 1, 2, 3):
    a = x + s
    for _ in range(3 * 2): a = a * x + x * 0.5
    acc.append(a)
assert torch.allclose(y, sum(acc), rtol=1e-5)
K.sfu_chain[(2,)](x, y, 2, BLOCK=128, UNROLL=2, OP=0)
a = x.clone()
for _ in range(4): a = torch.exp2(-a)
starts = [x, x*0.5+0.25, x*0.25+0.5, x*0.125+0.75]
ref = 0
for s in starts:
    a = s
    for _ in range(4): a = torch.exp2(-a)
    ref = ref + a
assert torch.allclose(y, ref, rtol=1e-5)
t = torch.rand(2 * 16 * 16); o = torch.empty_like(t)
K.smem_transpose[(2,)](t, o, 2, T=16)
r = t.view(2, 16, 16)
for _ in range(2): r = r * 0.5 + r.transpose(1, 2)
assert torch.allclose(o.view(2, 16, 16), r, rtol=1e-5)
nxt = torch.tensor([2, 0, 3, 1], dtype=torch.int64); po = torch.zeros(1, dtype=torch.int64)
K.pointer_chase[(1,)](nxt, po, 3)  # 0 -> 2 -> 3 -> 1
assert po.item() == 1, po
src = torch.randn(8, 2 * 8 + 1).half(); sums = torch.empty(2)
K.narrow_tiles[(2,)](src, sums, 2 * 8 + 1, 8, 3, R=4, C=8)  # 3 reps of 4 rows of 8: rows 0-3, 4-7, 0-3
panels = src.float()[:, :16].reshape(8, 2, 8)
ref = 2 * panels[:4].sum(dim=(0, 2)) + panels[4:].sum(dim=(0, 2))
assert torch.allclose(sums, ref, rtol=1e-4), (sums, ref)
c = torch.zeros(2 * 16)
K.atomic_tiles[(6,)](c, 2, 3, BLOCK=16, ATOMIC=True)  # 6 programs, 2 tiles: each element 3 programs x 3 reps
assert torch.all(c == 9), c
K.atomic_tiles[(6,)](c, 2, 3, BLOCK=16, ATOMIC=False)
assert torch.all(c == 1), c
sa, sb = torch.rand(600).half(), torch.rand(600).half()
sy, sz = torch.zeros(600).half(), torch.zeros(600).half()
so = torch.zeros(3)  # three 256-element tiles over 600 elements: the last one masked past 600
K.stream_mix[(3,)](sa, sb, sy, sz, so, 600, READS=2, WRITES=2, BLOCK=256)
assert torch.allclose(sy.float(), sa.float() + sb.float(), atol=1e-2) and torch.allclose(sz, 2 * sy), (sy, sz)
K.stream_mix[(3,)](sa, sb, sy, sz, so, 600, READS=1, WRITES=0, BLOCK=256)
assert torch.allclose(so, torch.stack([t.float().sum() for t in sa.split(256)]), rtol=1e-3), so
K.stream_mix[(3,)](sa, sb, sy, sz, so, 600, READS=0, WRITES=1, BLOCK=256)  # no input: the program index
assert torch.equal(sy.float(), torch.arange(600).div(256, rounding_mode="floor").float()), sy
rx = torch.rand(3 * 37).half()  # three rows of 35 elements, 37 apart, in 64-wide blocks
ro = torch.zeros(3)
K.row_reduce_mix[(3,)](rx, ro, 37, 35, REDS=0, BLOCK=64)
want = torch.stack([rx[r * 37 : r * 37 + 35].float().sum() for r in range(3)])
assert torch.allclose(ro, want, rtol=1e-3), (ro, want)
K.row_reduce_mix[(3,)](rx, ro, 37, 35, REDS=1, BLOCK=64)  # x - sum(x) / 1000 over the 64 lanes, summed
masked = torch.stack([torch.cat([rx[r * 37 : r * 37 + 35].float(), torch.zeros(29)]) for r in range(3)])
fed = masked - masked.sum(dim=1, keepdim=True) * 1e-3
assert torch.allclose(ro, fed.sum(dim=1), rtol=1e-3), (ro, fed.sum(dim=1))
x = torch.rand(256) * 0.5 + 0.5; y = torch.empty_like(x)
starts = [x, x*0.5+0.25, x*0.25+0.5, x*0.125+0.75]
steps = {1: lambda a: a * 0.99951171875 + 0.000244140625, 3: lambda a: torch.log(a + 1.0) + 0.5,
         5: lambda a: torch.where(a > 1.0, a * 0.75, a + 0.5)}
for form, step in steps.items():  # alu_forms: 2 iterations of 2 steps on each of the four chains
    K.alu_forms[(2,)](x, y, 2, BLOCK=128, UNROLL=2, FORM=form)
    want = 0
    for a in starts:
        for _ in range(4): a = step(a)
        want = want + a
    assert torch.allclose(y, want, rtol=1e-5), (form, y - want)
K.empty[(1,)]()
print("INTERPRETER_OK")
"""


@pytest.mark.triton
def test_kernels_compute_the_right_thing_under_the_interpreter(tmp_path):
    pytest.importorskip("triton")
    pytest.importorskip("torch")
    script = tmp_path / "interp.py"
    script.write_text(INTERPRETER_SCRIPT)
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300)
    assert "INTERPRETER_OK" in proc.stdout, proc.stderr[-3000:]


def _compile(fn, signature, constexprs, **options):
    triton = pytest.importorskip("triton")
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    sig = {**signature, **{k: "constexpr" for k in constexprs}}
    src = ASTSource(fn, sig, constexprs=constexprs)
    return triton.compile(src, target=GPUTarget("cuda", 90, 32), options=options)


@pytest.fixture(scope="module")
def K():
    pytest.importorskip("triton")
    sys.path.insert(0, str(ROOT))
    from benchmarks.calibrate import kernels

    return kernels


GEMM_SIG = {"a_ptr": "*fp16", "bt_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32"}


def _gemm(K, cfg):
    bm, bn, bk, nw, ns = cfg
    const = {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP": K.GROUP_M, "PRECISION": "tf32"}
    return _compile(K.gemm, GEMM_SIG, const, num_warps=nw, num_stages=ns)


@pytest.mark.triton
def test_wgmma_config_compiles_to_mma_v3(K):
    k = _gemm(K, K.GEMM_WGMMA)
    assert re.findall(r"versionMajor = (\d)", k.asm["ttgir"])[0] == "3"
    assert "wgmma" in k.asm["ptx"]


@pytest.mark.triton
@pytest.mark.parametrize("i", [0, 1])
def test_legacy_configs_compile_to_mma_sync(K, i):
    # rule (Triton supportMMA): v3 needs num_warps % 4 == 0 and BLOCK_M % 64 == 0; config 0 breaks the first
    # (2 warps), config 1 the second (BLOCK_M = 32)
    k = _gemm(K, K.GEMM_LEGACY[i])
    assert re.findall(r"versionMajor = (\d)", k.asm["ttgir"])[0] == "2"
    assert "mma.sync" in k.asm["ptx"] and "wgmma" not in k.asm["ptx"]


@pytest.mark.triton
def test_int8_gemm_probe_compiles_to_integer_wgmma(K):
    # an int8 dot must accumulate in int32 (out_dtype): without it Triton refuses the int32 accumulator and
    # the tensor-core probe left int8 to torch._int_mm alone
    bm, bn, bk, nw, ns = K.GEMM_WGMMA
    sig = {**GEMM_SIG, "a_ptr": "*i8", "bt_ptr": "*i8", "c_ptr": "*i32"}
    const = {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": 2 * bk, "GROUP": K.GROUP_M, "PRECISION": "tf32"}
    k = _compile(K.gemm, sig, const, num_warps=nw, num_stages=ns)
    assert re.search(r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k32\.s32\.s8\.s8", k.asm["ptx"])


@pytest.mark.triton
def test_smem_kernel_round_trips_through_shared_memory(K):
    sig = {"x_ptr": "*fp32", "out_ptr": "*fp32", "iters": "i32"}
    k = _compile(K.smem_transpose, sig, {"T": 64}, num_warps=8)
    assert "st.shared" in k.asm["ptx"] and "ld.shared" in k.asm["ptx"]


@pytest.mark.triton
def test_sfu_and_fma_kernels_emit_the_probed_instructions(K):
    sig = {"x_ptr": "*fp32", "out_ptr": "*fp32", "iters": "i32"}
    k = _compile(K.sfu_chain, sig, {"BLOCK": 1024, "UNROLL": 4, "OP": 0}, num_warps=4)
    # 4 chains x UNROLL 4 x 8 elements per thread (1024 / 128 threads) = 128 ex2 per loop body
    assert len(re.findall(r"ex2\.approx", k.asm["ptx"])) == 128
    k = _compile(K.fma_chain, sig, {"BLOCK": 1024, "CHAINS": 8}, num_warps=4)
    # 8 chains x 8 elements per thread = 64 fma per loop body
    assert len(re.findall(r"\bfma\.rn\.f32", k.asm["ptx"])) == 64


@pytest.mark.triton
def test_alu_forms_issue_the_instruction_forms_they_are_named_for(K):
    # 4 chains x UNROLL 4 x 8 elements a thread = 128 chain steps a loop body; the PTX of each form: FMAs of
    # three registers (fma_chain's), FMAs of constants, libdevice's log with no special-function op, the
    # integer rounds' shift, xor and multiply, and the compare beside the select's two float ops
    sig = {"x_ptr": "*fp32", "out_ptr": "*fp32", "iters": "i32"}

    def ptx(form: str) -> str:
        const = {"BLOCK": 1024, "UNROLL": 4, "FORM": K.ALU_FORMS.index(form)}
        return _compile(K.alu_forms, sig, const, num_warps=4).asm["ptx"]

    reg = r"%[rf]\d+"  # Triton 3.9 names float registers %r, earlier releases %f
    fmas = re.findall(rf"\bfma\.rn\.f32\s+{reg}, {reg}, {reg}, {reg};", ptx("fma_registers"))
    assert len(fmas) >= 128
    imm = "0f[0-9A-F]{8}"
    constants = re.findall(rf"\bfma\.rn\.f32\s+{reg}, {reg}, {imm}, {imm};", ptx("fma_constants"))
    assert len(constants) >= 128
    log = ptx("log_routine")
    assert "lg2.approx" not in log and "ex2.approx" not in log
    assert len(re.findall(r"\bfma\.rn", log)) >= 128 * 6
    lcg = ptx("integer_lcg")
    assert len(re.findall(r"\bshr\.s32", lcg)) >= 128 and len(re.findall(r"\bxor\.b32", lcg)) >= 128
    assert len(re.findall(r"\bsetp\.gt\.f32", ptx("select"))) >= 128


@pytest.mark.triton
def test_pointer_chase_bypasses_l1(K):
    sig = {"next_ptr": "*i64", "out_ptr": "*i64", "steps": "i32"}
    k = _compile(K.pointer_chase, sig, {}, num_warps=1)
    assert "ld.global.cg" in k.asm["ptx"]


@pytest.mark.triton
def test_narrow_tiles_issue_one_two_byte_load_per_element_with_an_unproven_stride(K):
    # an i32 stride without divisibility: a [32, 64] fp16 tile over 64 threads is 32 ld.global.b16 a thread
    sig = {"src_ptr": "*fp16", "out_ptr": "*fp32", "stride": "i32", "n_rows": "i32", "reps": "i32"}
    k = _compile(K.narrow_tiles, sig, {"R": 32, "C": 64}, num_warps=2)
    assert len(re.findall(r"ld\.global\.b16", k.asm["ptx"])) == 32


def test_run_without_a_gpu_exits_cleanly(tmp_path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    sys.path.insert(0, str(ROOT))
    from benchmarks.calibrate import measure, run

    assert run.main(["--out", str(tmp_path / "c.json")]) == 2
    assert measure.mma_family("wgmma.mma_async.sync") == "wgmma"
    assert measure.mma_family("mma.sync.aligned.m16n8k16") == "mma.sync"
    assert measure.mma_family("fma.rn.f32") == "none"


@pytest.mark.triton
def test_local_stream_spills_scalar_words_to_local_memory(K):
    # a 1 KiB frame with 8 lanes: 8 scalar ld.local / st.local per step, 128 B apart, none merged by ptxas
    sig = {"out_ptr": "*i32", "iters": "i32"}
    k = _compile(K.local_stream, sig, {"BLOCK": 128, "ASM": K.local_frame_asm(1024)}, num_warps=4)
    ptx = k.asm["ptx"]
    assert len(re.findall(r"ld\.local\.u32", ptx)) == 8 + 1 and "frame[1024]" in ptx
    with pytest.raises(ValueError, match="multiple of 4 x unroll"):
        K.local_frame_asm(100)


@pytest.mark.triton
def test_local_stream_reserves_the_shared_memory_it_is_asked_for(K, tmp_path):
    # the local_l2 probe's blocks each hold 48 KB of shared memory (ptxas allocates it: the block stores its
    # result there), which leaves L1 less of the SM's array; the frame's traffic is the same scalar LDL / STL
    triton = pytest.importorskip("triton")
    sig = {"out_ptr": "*i32", "iters": "i32"}
    asm = K.local_frame_asm(1024, 8, shared_pad_bytes=48 * 1024)
    k = _compile(K.local_stream, sig, {"BLOCK": 64, "ASM": asm}, num_warps=2)
    cuobjdump = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    cubin = tmp_path / "local_l2.cubin"
    cubin.write_bytes(k.asm["cubin"])
    usage = subprocess.run([str(cuobjdump), "-res-usage", str(cubin)], capture_output=True, text=True)
    shared = int(re.search(r"SHARED:(\d+)", usage.stdout).group(1))
    assert 48 * 1024 <= shared <= 49 * 1024 + 1024
    assert len(re.findall(r"ld\.local\.u32", k.asm["ptx"])) == 8 + 1
    no_pad = _compile(K.local_stream, sig, {"BLOCK": 64, "ASM": K.local_frame_asm(1024, 8)}, num_warps=2)
    assert "spad" not in no_pad.asm["ptx"]
    # the dependent variant: the next step's address waits for the run's words (masked by a value ptxas
    # cannot fold), and it still compiles to a cubin with the same loads
    dep = K.local_frame_asm(1024, 8, shared_pad_bytes=48 * 1024, dependent=True)
    k_dep = _compile(K.local_stream, sig, {"BLOCK": 64, "ASM": dep}, num_warps=2)
    assert "and.b32 dsum, dsum, zmask" in k_dep.asm["ptx"] and "shr.u32 zmask" in k_dep.asm["ptx"]
    assert len(re.findall(r"ld\.local\.u32", k_dep.asm["ptx"])) == 8 + 1 and k_dep.asm["cubin"]
    for bad in (48 * 1024 + 16, 100, -16):
        with pytest.raises(ValueError, match="shared_pad_bytes"):
            K.local_frame_asm(1024, 8, shared_pad_bytes=bad)


def test_stage_latency_probe_pipelines_its_loads_and_predicts():
    # the probe's loop is what it claims to time: async copies of A and B ahead of a warpgroup MMA at every
    # stage count, and one program per SM with --dram reads its own rows and never re-reads a K block
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from calibrate import stage_latency as S
    from tilesight.frontends.triton.binding import bind
    from tilesight.frontends.triton.compile import compile_ir

    from tilesight import TensorSpec
    from tilesight.hardware import load_profile

    hw = load_profile("h200")
    p = dict(block_m=128, block_k=64, n=128, warps=4, stages=3, per_sm=1)
    args, grid = S._args(p, lambda shape, dtype: TensorSpec(shape, dtype))
    ir = compile_ir(
        S.stage_latency_kernel, bind(S.stage_latency_kernel, (*args, S.ITERS), S._meta(p), hw), hw
    )
    assert ir.ttgir.count("async_copy_global_to_local") >= 2 and "warp_group_dot" in ir.ttgir
    assert S._shape({**p, "dram": True}) == (S.SMS, S.ITERS)
    assert S._shape(p) == (S.ROW_BLOCKS, S.K_TILES)
    assert 0 < S.predict_us(p) < 1e5
    # --lone: one program an SM on 16 or 132 SMs, A from DRAM, tiles of 4-32 KB at 128-byte rows and 16 KB at
    # 64- and 256-byte rows, two and three stages
    lone = S.points(lone=True)
    assert len(lone) == len(S.LONE_TILES) * len(S.LONE_SMS) * len(S.LONE_STAGES) == 24
    assert all(q["dram"] and q["per_sm"] == 1 and q["n"] == 16 for q in lone)
    assert sorted({q["block_m"] * q["block_k"] * 2 for q in lone if q["block_k"] == 64}) == [
        4096,
        8192,
        16384,
        32768,
    ]
    # --deep: 16 SMs, 2-5 stages of 8-32 KB tiles, N 16 and 128, 4 and 8 warps
    deep = S.points(lone=True, deep=True)
    assert len(deep) == 3 * 2 * 2 * 4 == 48
    assert {(q["sms"], q["per_sm"], q["dram"]) for q in deep} == {(16, 1, True)}
    assert {q["stages"] for q in deep} == {2, 3, 4, 5} and {q["n"] for q in deep} == {16, 128}
    assert max((q["stages"] - 1) * q["block_m"] * q["block_k"] * 2 for q in deep) == 4 * 32768
    q = next(q for q in lone if q["sms"] == 16 and q["stages"] == 2 and q["block_m"] == 64)
    (a, b, out), grid = S._args(q, lambda shape, dtype: TensorSpec(shape, dtype))
    assert grid == (16,) and a.shape == (16 * 64, S.ITERS * 64) and out.shape == (16 * 64, 16)
    assert 0 < S.predict_us(q) < 1e5


@pytest.mark.triton
def test_wrapped_probe_wraps_its_score_dot_where_the_replicated_probe_splits_it(K):
    """On 8 warps a 64-row tile: the wrapped probe's score dot (the attention loop without its softmax) feeds
    a second dot, so it takes the chained-dot layout [8, 1] (two copies of S), while the replicated probe's
    accumulator chain splits the columns [4, 2]; on 4 warps both are [4, 1]."""
    sig = {"q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "out_ptr": "*fp32", "iters": "i32"}
    const = {"BM": 64, "BN": 32, "D": 64, "MASK": False, "SOFTMAX": False}
    for warps, layouts in ((8, {"[8, 1]", "[4, 2]"}), (4, {"[4, 1]"})):
        k = _compile(K.softmax_dot_chain, sig, const, num_warps=warps)
        assert set(re.findall(r"warpsPerCTA = (\[\d, \d\]), instrShape", k.asm["ttgir"])) == layouts
    sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "out_ptr": "*fp32", "iters": "i32"}
    k = _compile(K.dot_chain, sig, {"BM": 64, "BN": 32, "BK": 64, "A_REGS": False}, num_warps=8)
    assert set(re.findall(r"warpsPerCTA = (\[\d, \d\]), instrShape", k.asm["ttgir"])) == {"[4, 2]"}


@pytest.mark.triton
def test_regs_a_probe_takes_a_from_registers_and_the_model_reads_it_so(K):
    """dot_chain with ``A_REGS``: A is a float16 cast of a float32 load, computed in registers before the
    loop, so every warpgroup MMA's A operand is a ``#ttg.dot_op`` tensor (its default reads a
    ``!ttg.memdesc``), and the frontend marks the dot ``mma_a_registers`` from that TTGIR."""
    from tilesight.frontends.triton.layouts import dot_a_registers

    for regs in (False, True):
        sig = {"a_ptr": "*fp32" if regs else "*fp16", "b_ptr": "*fp16", "out_ptr": "*fp32", "iters": "i32"}
        k = _compile(K.dot_chain, sig, {"BM": 64, "BN": 32, "BK": 64, "A_REGS": regs}, num_warps=4)
        assert set(dot_a_registers(k.asm["ttgir"]).values()) == {int(regs)}

"""Registers and spill frames from ptxas; when ``registers="auto"`` asks for them."""

import os
import re

import pytest

triton = pytest.importorskip("triton")
import triton_fe_kernels as K  # noqa: E402
from tilesight.frontends.triton import ptxas  # noqa: E402
from tilesight.frontends.triton.assemble import PTXAS_FAILED_NOTE  # noqa: E402

import tilesight  # noqa: E402
from tilesight import TensorSpec  # noqa: E402
from tilesight.errors import FrontendError  # noqa: E402

HW = "h200"

RES_USAGE = """
Resource usage:
 Common:
  GLOBAL:0
 Function helper:
  REG:12 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:0 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function matmul_kernel:
  REG:32 STACK:2280 SHARED:1024 LOCAL:0 CONSTANT[0]:592 TEXTURE:0 SURFACE:0 SAMPLER:0
"""


def test_res_usage_is_read_for_the_named_function():
    assert ptxas.parse_res_usage(RES_USAGE, "matmul_kernel") == ptxas.PtxasUsage(32, 2280)
    assert ptxas.parse_res_usage(RES_USAGE, "helper") == ptxas.PtxasUsage(12, 0)
    with pytest.raises(FrontendError, match="no function 'other'"):
        ptxas.parse_res_usage(RES_USAGE, "other")


def test_mode_comes_from_the_call_then_the_environment(monkeypatch):
    monkeypatch.delenv(ptxas.MODE_ENV, raising=False)
    assert ptxas.resolve_mode(None) == "auto"
    assert ptxas.resolve_mode("ptxas") == "ptxas"
    monkeypatch.setenv(ptxas.MODE_ENV, "estimate")
    assert ptxas.resolve_mode(None) == "estimate"
    with pytest.raises(ValueError, match=r"registers='fast': one of 'auto', 'estimate', 'ptxas'"):
        ptxas.resolve_mode("fast")
    monkeypatch.setenv(ptxas.MODE_ENV, "always")
    with pytest.raises(ValueError, match=r"\$TILESIGHT_REGISTERS='always'"):
        ptxas.resolve_mode(None)


def _gemm(bm, bn, bk, warps, registers, stages=3):
    m = n = k = 1024
    a, b, c = TensorSpec((m, k), "float16"), TensorSpec((k, n), "float16"), TensorSpec((m, n), "float16")
    grid = ((m // bm) * (n // bn),)
    return tilesight.estimate(
        K.gemm, grid, a, b, c, m, n, k, k, 1, n, 1, n, 1,
        hw=HW, BM=bm, BN=bn, BK=bk, GROUP_M=8, num_warps=warps, num_stages=stages, registers=registers,
    )  # fmt: skip


def _register_note(report):
    return next(n for n in report.notes if n.startswith("registers per thread"))


def test_a_gemm_far_under_the_limit_is_not_compiled_in_auto_mode():
    # 64x64 fp32 accumulator over 128 threads: 32 + 40 = 72 registers, under 0.75 x 255
    note = _register_note(_gemm(64, 64, 32, 4, "auto"))
    assert "ptxas not run" in note and "72 per thread" in note


def test_ptxas_counts_a_small_gemm_under_the_limit_without_spills():
    report = _gemm(64, 64, 32, 4, "ptxas")
    note = _register_note(report)
    assert note.startswith("registers per thread from ptxas") and "estimate 72" in note
    regs = int(note.split(": ")[1].split(" ")[0])
    assert 40 <= regs <= 255
    assert "local-memory frame" not in note and not any("register spills" in n for n in report.notes)


def test_a_gemm_over_the_register_file_spills_the_frame_ptxas_gives():
    # a 64x256 fp32 accumulator over 64 threads is 256 registers a thread: ptxas must spill, whatever
    # its version; "auto" asks it because the estimate is over the limit
    report = _gemm(64, 256, 16, 2, "auto", stages=1)
    note = _register_note(report)
    assert note.startswith("registers per thread from ptxas")
    frame = int(re.search(r"(\d+) bytes of local-memory frame", note).group(1))
    assert frame >= (256 - 255) * 4  # at least the accumulator's excess goes to the stack
    assert any(f"register spills: {frame} bytes per thread" in n for n in report.notes)
    estimated = _gemm(64, 256, 16, 2, "estimate", stages=1)
    assert "ptxas not run" in _register_note(estimated)


def test_a_failing_compile_falls_back_to_the_estimate_in_auto_and_raises_in_ptxas_mode(monkeypatch):
    def broken(*args, **kwargs):
        raise FrontendError("kernel 'gemm': compiling to a cubin for ptxas's register count failed: boom")

    monkeypatch.setattr(ptxas, "ptxas_usage", broken)
    report = _gemm(64, 256, 16, 2, "auto", stages=1)
    assert "ptxas not run" in _register_note(report)
    why = "kernel 'gemm': compiling to a cubin for ptxas's register count failed: boom"
    assert PTXAS_FAILED_NOTE.format(why=why) in report.notes
    with pytest.raises(FrontendError, match="boom"):
        _gemm(64, 256, 16, 2, "ptxas", stages=1)


def test_auto_asks_ptxas_where_the_estimate_decides_the_resident_blocks():
    from tilesight.frontends.triton.assemble import _estimate_decides

    from tilesight.hardware import load_profile

    hw = load_profile(HW)
    # 141 registers on 256 threads: 141 x 32 = 4512 -> 4608 a warp (256-register units) x 8 warps = 36,864
    # -> 1 block per SM by registers; three quarters (105: 3360 -> 3584 x 8 = 28,672) would fit 2, and 52 KB
    # of shared memory (+1 KB reserved) lets 4 in: the estimate decides residency
    assert _estimate_decides(141, 255, 256, 52 * 1024, 10_000, hw)
    # with 200 KB of shared memory one block fits whatever the registers: nothing to decide
    assert not _estimate_decides(141, 255, 256, 200 * 1024, 10_000, hw)
    # 72 registers on 128 threads: 2,304 -> 2,304 a warp x 4 = 9,216 -> 7 blocks; 54 would fit 9, but 24 KB
    # of shared memory (25 KB a block) lets 9 in too: registers decide (7 against 9)
    assert _estimate_decides(72, 255, 128, 24 * 1024, 10_000, hw)
    # ... unless the grid has too few programs to fill more than one block per SM
    assert not _estimate_decides(72, 255, 128, 24 * 1024, 132, hw)
    # near the per-thread limit (spill or not) always, whatever the residency
    assert _estimate_decides(192, 255, 128, 200 * 1024, 132, hw)
    assert not _estimate_decides(191, 255, 128, 200 * 1024, 132, hw)
    # a block that cannot launch is left to the engine's error
    assert not _estimate_decides(100, 255, 128, 300 * 1024, 10_000, hw)
    # the band reaches up as well: 128 registers on 256 threads (4,096 a warp: 16 warps, 2 blocks) with 80 KB
    # of shared memory (2 blocks); 96 (3,072: 21 warps) still holds 2, but 171 (5,472 -> 5,632: 11 warps)
    # holds 1, so a count above the estimate would halve the resident blocks
    assert _estimate_decides(128, 255, 256, 80 * 1024, 10_000, hw)
    # ... which 150 KB of shared memory holds to 1 block whatever the registers
    assert not _estimate_decides(128, 255, 256, 150 * 1024, 10_000, hw)


def test_a_cuobjdump_that_cannot_run_is_a_frontend_error(monkeypatch, tmp_path):
    from tilesight.frontends.triton.binding import bind

    from tilesight.hardware import load_profile

    hw = load_profile(HW)
    broken = tmp_path / "cuobjdump"
    broken.write_text("not an executable")  # exists, but cannot be run
    monkeypatch.setattr(ptxas, "_cuobjdump", lambda: str(broken))
    x = TensorSpec((4096,), "float32")
    b = bind(K.softmax, (x, x, 64, 64, 64), {"BLOCK": 64}, hw)
    monkeypatch.setattr(ptxas, "_CACHE", type(ptxas._CACHE)(ptxas.CACHE_ENTRIES))
    with pytest.raises(FrontendError, match="cuobjdump could not run for 'softmax'"):
        ptxas.ptxas_usage(K.softmax, b, hw)


def test_auto_leaves_ptxas_out_far_over_the_limit(monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("ptxas was asked")

    # a softmax row of 32,768 elements on one warp holds 1,024 values a thread: an estimate over four times
    # the 255-register limit, whose cubin compile takes minutes; "auto" keeps the estimate and says why, and
    # "ptxas" still asks for it
    monkeypatch.setattr(ptxas, "ptxas_usage", never)
    x = TensorSpec((100, 32768), "float32")
    report = tilesight.estimate(K.softmax, (100,), x, x, 32768, 32768, 32768, hw=HW, BLOCK=32768, num_warps=1)
    assert "ptxas not run" in _register_note(report)
    assert any(
        n.startswith("ptxas not run: the estimate") and "over 4 times the 255" in n for n in report.notes
    )
    with pytest.raises(AssertionError, match="ptxas was asked"):
        tilesight.estimate(
            K.softmax, (100,), x, x, 32768, 32768, 32768, hw=HW, BLOCK=32768, num_warps=1, registers="ptxas"
        )


def _softmax_binding():
    from tilesight.frontends.triton.binding import bind

    from tilesight.hardware import load_profile

    hw = load_profile(HW)
    x = TensorSpec((4096,), "float32")
    return hw, bind(K.softmax, (x, x, 64, 64, 64), {"BLOCK": 64}, hw)


def test_a_compile_over_the_budget_is_stopped_and_remembered(monkeypatch):
    import time

    def slow(*args, **kwargs):
        time.sleep(30)
        raise AssertionError("the budget did not stop the compile")

    hw, b = _softmax_binding()
    monkeypatch.setattr(ptxas, "_CACHE", type(ptxas._CACHE)(ptxas.CACHE_ENTRIES))
    monkeypatch.setattr(ptxas, "_compile_cubin", slow)
    start = time.monotonic()
    with pytest.raises(FrontendError, match=r"'softmax': .* took more than 0.5 s"):
        ptxas.ptxas_usage(K.softmax, b, hw, budget_s=0.5)
    assert time.monotonic() - start < 10  # stopped at the budget, not after the 30 s compile
    # within a budget the same specialisation is refused at once; without one it is compiled
    with pytest.raises(FrontendError, match="took more than"):
        ptxas.ptxas_usage(K.softmax, b, hw, budget_s=60)
    monkeypatch.setattr(ptxas, "_compile_cubin", lambda *a: (_ for _ in ()).throw(FrontendError("compiled")))
    with pytest.raises(FrontendError, match="^compiled$"):
        ptxas.ptxas_usage(K.softmax, b, hw)


def test_a_compile_that_dies_or_fails_within_its_budget_is_a_frontend_error(monkeypatch):
    import os

    hw, b = _softmax_binding()
    monkeypatch.setattr(ptxas, "_CACHE", type(ptxas._CACHE)(ptxas.CACHE_ENTRIES))
    monkeypatch.setattr(ptxas, "_compile_cubin", lambda *a: os._exit(3))  # LLVM crashing the process
    with pytest.raises(
        FrontendError, match=r"'softmax': the compile .* ended without a result \(exit code 3\)"
    ):
        ptxas.ptxas_usage(K.softmax, b, hw, budget_s=30)

    def fails(*args):
        raise RuntimeError("inside LLVM")

    monkeypatch.setattr(ptxas, "_compile_cubin", fails)
    with pytest.raises(FrontendError, match="'softmax': compiling to a cubin failed: RuntimeError"):
        ptxas.ptxas_usage(K.softmax, b, hw, budget_s=30)


def test_the_budgeted_compile_gives_what_the_compile_here_gives():
    hw, b = _softmax_binding()
    cubin, name = ptxas._compile_cubin_within(K.softmax, b, hw, 120)
    assert name == "softmax" and cubin == ptxas._compile_cubin(K.softmax, b, hw)[0]


def test_auto_keeps_the_estimate_when_the_compile_runs_over_its_budget(monkeypatch):
    import time

    def slow(*args, **kwargs):
        time.sleep(30)

    monkeypatch.setattr(ptxas, "_CACHE", type(ptxas._CACHE)(ptxas.CACHE_ENTRIES))
    monkeypatch.setattr(ptxas, "_compile_cubin", slow)
    monkeypatch.setenv(ptxas.BUDGET_ENV, "0.5")
    report = _gemm(64, 256, 16, 2, "auto", stages=1)
    assert "ptxas not run" in _register_note(report)
    assert any("took more than 0.5 s" in n and n.startswith("ptxas not used") for n in report.notes)


def test_the_compile_budget_comes_from_the_environment(monkeypatch):
    monkeypatch.delenv(ptxas.BUDGET_ENV, raising=False)
    assert ptxas.compile_budget_s() == ptxas.AUTO_COMPILE_BUDGET_S
    monkeypatch.setenv(ptxas.BUDGET_ENV, "12.5")
    assert ptxas.compile_budget_s() == 12.5
    for bad in ("soon", "0", "-3", "inf"):
        monkeypatch.setenv(ptxas.BUDGET_ENV, bad)
        with pytest.raises(ValueError, match=rf"\$TILESIGHT_PTXAS_BUDGET_S={bad!r}: a positive number"):
            ptxas.compile_budget_s()
    # typed, so the command line reports it in one line
    with pytest.raises(tilesight.TileSightError):
        ptxas.compile_budget_s()
    monkeypatch.setenv(ptxas.MODE_ENV, "always")
    with pytest.raises(tilesight.SettingError):
        ptxas.resolve_mode(None)


PTXAS_FAILURE = """Internal Triton PTX codegen error
`ptxas` stderr:
ptxas-blackwell fatal   : (C7602) Insufficient registers (128) to compile instruction at line 1258 in \
function gemm. Try to compile with register target of 154 or higher.
ptxas-blackwell fatal   : Ptx assembly aborted due to errors

Repro command: ptxas -lineinfo -v --gpu-name=sm_90a /tmp/k.ptx -o /tmp/k.ptx.o
"""


def test_a_ptxas_failure_is_summarised_by_its_fatal_line():
    summary = ptxas.compile_error_summary(RuntimeError(PTXAS_FAILURE))
    assert summary.startswith("Internal Triton PTX codegen error: ptxas-blackwell fatal")
    assert "Insufficient registers (128)" in summary and "Repro" not in summary
    assert ptxas.compile_error_summary(RuntimeError("out of resource: shared memory")) == (
        "out of resource: shared memory"
    )
    assert ptxas.compile_error_summary(RuntimeError("")) == ""


def test_a_failing_compile_prints_nothing_and_names_ptxas_s_reason(monkeypatch, capsys):
    def fails(*args, **kwargs):
        print("\n// the whole PTX, as Triton prints it\n.version 9.4\n")
        raise RuntimeError(PTXAS_FAILURE)

    hw, b = _softmax_binding()
    monkeypatch.setattr(triton, "compile", fails)
    with pytest.raises(FrontendError, match=r"'softmax': .*failed: RuntimeError: .*Insufficient registers"):
        ptxas._compile_cubin(K.softmax, b, hw)
    assert capsys.readouterr().out == ""


def test_a_spilled_gemm_s_k_loop_gets_the_reload_waits_of_its_sass():
    # the spilling GEMM above: its cubin's K loop (the innermost loop of matrix instructions) is read for the
    # times a warp waits for a reload, and the plan's K loop carries them
    report = _gemm(64, 256, 16, 2, "auto", stages=1)
    (note,) = [n for n in report.notes if n.startswith("register spills: the times a warp waits")]
    waits = note.split("also stores to: ")[1].split(";")[0]
    name, read_only, plus, stored = waits.split(" ")
    assert plus == "+" and int(read_only) + int(stored) >= 1


def test_a_dot_s_frame_pass_is_its_loop_s_distinct_frame_bytes_over_its_dots():
    from tilesight.frontends.triton.assemble import spill_pass_bytes

    from tilesight.plan import ActionKind, Loop, TileAction

    def dot(name):
        return TileAction(name, ActionKind.DOT, dtype="float16", shape=(64, 64, 64))

    # attention's loop runs two dots an iteration: 100 loaded + 41 stored bytes, 71 (rounded up) a dot
    body = (Loop("kv", 8, (dot("qk"), TileAction("e", ActionKind.ELEMENTWISE, flops=1), dot("pv"))),)
    assert spill_pass_bytes(body, ((100, 41),)) == 71
    assert spill_pass_bytes(body, ()) is None  # no SASS read
    assert spill_pass_bytes(body, ((1, 1), (2, 2))) is None  # the SASS's loops and the plan's differ


def test_a_spilled_gemm_s_frame_pass_comes_from_its_sass():
    report = _gemm(64, 256, 16, 2, "auto", stages=1)
    (note,) = [n for n in report.notes if n.startswith("register spills: ") and "go to local memory" in n]
    assert "each dot moves" in note and "as the machine code says" in note


def test_reload_waits_go_to_the_loops_with_dots_in_program_order():
    from tilesight.frontends.triton.assemble import RELOAD_MISMATCH_NOTE, with_reload_waits

    from tilesight.plan import ActionKind, Loop, TileAction

    def dot(name):
        return TileAction(name, ActionKind.DOT, dtype="float16", shape=(64, 64, 64))

    inner = Loop("k2", 8, (dot("d2"),))
    body = (
        Loop("k1", 8, (dot("d1"),)),
        Loop("tiles", 4, (TileAction("e", ActionKind.ELEMENTWISE, flops=1), inner)),
    )
    out, note = with_reload_waits(body, ((3, 1), (0, 5)))
    assert (out[0].reload_waits, out[0].stored_reload_waits) == (3, 1)
    assert (out[1].reload_waits, out[1].stored_reload_waits) == (0, 0)  # the loop over tiles holds no dot
    assert (out[1].body[1].reload_waits, out[1].body[1].stored_reload_waits) == (0, 5)
    assert "k1 3 + 1, k2 0 + 5" in note
    same, why = with_reload_waits(body, ((3, 1),))
    assert same == body and why == RELOAD_MISMATCH_NOTE.format(sass=1, plan=2)


def test_a_failing_disassembly_keeps_ptxas_s_registers_and_says_the_waits_are_not_charged(monkeypatch):
    from tilesight.frontends.triton.assemble import RELOAD_UNREAD_NOTE

    def broken(cubin_path, fn_name):
        raise FrontendError(f"cuobjdump -sass failed on {fn_name!r}: boom")

    monkeypatch.setattr(ptxas, "_spill_code", broken)
    monkeypatch.setattr(ptxas, "_CACHE", ptxas.SpecialisationCache(4))  # compile again, not the cached usage
    report = _gemm(64, 256, 16, 2, "ptxas", stages=1)
    assert _register_note(report).startswith("registers per thread from ptxas")
    why = "cuobjdump -sass failed on 'gemm': boom"
    assert RELOAD_UNREAD_NOTE.format(why=why) in report.notes
    assert not any(n.startswith("register spills: the times a warp waits") for n in report.notes)


def _logging_ptxas(tmp_path, real):
    """A ptxas that writes its arguments to a log, then runs ``real`` with them."""
    log = tmp_path / "ptxas.log"
    wrapper = tmp_path / "ptxas"
    wrapper.write_text(f'#!/bin/sh\necho "$@" >> "{log}"\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    return wrapper, log


def _bundled_ptxas():
    from triton import knobs

    return knobs.nvidia.ptxas.path  # the pre-Hopper ptxas Triton bundles: a release of its own


def test_the_ptxas_the_gpu_runs_assembles_the_register_count_where_set(monkeypatch, tmp_path):
    wrapper, log = _logging_ptxas(tmp_path, _bundled_ptxas())
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))  # Triton must assemble, not reuse
    monkeypatch.setenv(ptxas.PTXAS_ENV, str(wrapper))
    monkeypatch.setattr(ptxas, "_CACHE", type(ptxas._CACHE)(ptxas.CACHE_ENTRIES))
    saved = {key: os.environ.get(key) for key in ("TRITON_PTXAS_PATH", "TRITON_PTXAS_BLACKWELL_PATH")}
    note = _register_note(_gemm(64, 64, 32, 4, "ptxas"))
    release = ptxas.target_ptxas().release
    assert f"compiled on the CPU by the $TILESIGHT_PTXAS ptxas, release {release}):" in note
    # Triton ran the wrapper to assemble the kernel for the H200, not only for its version
    assert any("--gpu-name=sm_90a" in line for line in log.read_text().splitlines())
    # and Triton's own settings are as they were
    assert {key: os.environ.get(key) for key in saved} == saved


def _profile_naming(release):
    import dataclasses

    from tilesight.hardware import load_profile

    return dataclasses.replace(load_profile(HW), ptxas_release=release)


def test_the_installed_triton_s_ptxas_where_the_setting_says_triton_or_the_profile_names_none(monkeypatch):
    monkeypatch.setattr(ptxas, "_CACHE", type(ptxas._CACHE)(ptxas.CACHE_ENTRIES))
    monkeypatch.setenv(ptxas.PTXAS_ENV, ptxas.INSTALLED)
    assert ptxas.target_ptxas(_profile_naming("12.8")) is None
    assert "(compiled on the CPU):" in _register_note(_gemm(64, 64, 32, 4, "ptxas"))
    monkeypatch.delenv(ptxas.PTXAS_ENV)
    assert ptxas.target_ptxas(_profile_naming("")) is None
    # a profile that names the installed Triton's own release needs nothing else
    assert ptxas.target_ptxas(_profile_naming(ptxas.installed_release(_profile_naming("")))) is None


def test_the_profile_s_ptxas_release_is_found_among_this_machine_s_ptxas(monkeypatch, tmp_path):
    wrapper, log = _logging_ptxas(tmp_path, _bundled_ptxas())
    bundled_release = ptxas._release(_bundled_ptxas(), "bundled")
    monkeypatch.delenv(ptxas.PTXAS_ENV, raising=False)
    monkeypatch.setattr(ptxas, "_release_candidates", lambda: [str(tmp_path / "missing"), str(wrapper)])
    monkeypatch.setattr(ptxas, "installed_release", lambda hw: "99.9")  # the installed Triton's is another
    target = ptxas.target_ptxas(_profile_naming(bundled_release))
    assert target == ptxas.TargetPtxas(str(wrapper), bundled_release, "the h200 profile's")
    assert ptxas.toolchain_note(_profile_naming(bundled_release)) == ""
    # a release no candidate has: the installed Triton's, and a note that says so and how to get the other
    assert ptxas.target_ptxas(_profile_naming("11.0")) is None
    note = ptxas.toolchain_note(_profile_naming("11.0"))
    assert "builds Triton kernels with ptxas 11.0" in note and "installed Triton's ptxas 99.9" in note
    assert "nvidia-cuda-nvcc-cu12==11.0.*" in note and "$TILESIGHT_PTXAS" in note


def test_a_profile_without_its_ptxas_here_gets_the_note_in_the_report(monkeypatch):
    monkeypatch.delenv(ptxas.PTXAS_ENV, raising=False)
    monkeypatch.setattr(ptxas, "_CACHE", type(ptxas._CACHE)(ptxas.CACHE_ENTRIES))
    monkeypatch.setattr(ptxas, "_release_candidates", lambda: [])
    monkeypatch.setattr(ptxas, "installed_release", lambda hw: "99.9")
    m = n = k = 1024
    a, b, c = TensorSpec((m, k), "float16"), TensorSpec((k, n), "float16"), TensorSpec((m, n), "float16")
    report = tilesight.estimate(
        K.gemm, ((m // 64) * (n // 64),), a, b, c, m, n, k, k, 1, n, 1, n, 1,
        hw=_profile_naming("11.0"), BM=64, BN=64, BK=32, GROUP_M=8, num_warps=4, num_stages=3,
        registers="ptxas",
    )  # fmt: skip
    assert "(compiled on the CPU):" in _register_note(report)
    heading = "the h200 profile's GPU builds Triton kernels with ptxas 11.0"
    assert any(n.startswith(heading) for n in report.notes)


def test_a_ptxas_setting_that_names_no_ptxas_is_a_setting_error(monkeypatch, tmp_path):
    from tilesight.errors import SettingError

    monkeypatch.setattr(ptxas, "_CACHE", type(ptxas._CACHE)(ptxas.CACHE_ENTRIES))
    monkeypatch.setenv(ptxas.PTXAS_ENV, str(tmp_path / "missing"))
    with pytest.raises(SettingError, match=r"\$TILESIGHT_PTXAS=.*missing.*no executable file"):
        _gemm(64, 64, 32, 4, "auto")
    not_ptxas = tmp_path / "echo"
    not_ptxas.write_text("#!/bin/sh\necho hello\n")
    not_ptxas.chmod(0o755)
    monkeypatch.setenv(ptxas.PTXAS_ENV, str(not_ptxas))
    with pytest.raises(SettingError, match="does not name a ptxas release"):
        _gemm(64, 64, 32, 4, "ptxas")
    # the estimate compiles nothing, so the setting is not read
    assert "ptxas not run" in _register_note(_gemm(64, 64, 32, 4, "estimate"))


def test_results_are_kept_apart_by_the_ptxas_that_made_them(monkeypatch, tmp_path):
    wrapper, log = _logging_ptxas(tmp_path, _bundled_ptxas())
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(ptxas, "_CACHE", type(ptxas._CACHE)(ptxas.CACHE_ENTRIES))
    monkeypatch.delenv(ptxas.PTXAS_ENV, raising=False)
    _gemm(64, 64, 32, 4, "ptxas")  # the installed Triton's ptxas; kept under its own key
    monkeypatch.setenv(ptxas.PTXAS_ENV, str(wrapper))
    # Triton's own cache keys a build by the ptxas release, which may be the installed one's (3.6 bundles
    # one 12.8 for both): a fresh one, so that only this module's cache could hand back the first result
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache2"))
    note = _register_note(_gemm(64, 64, 32, 4, "ptxas"))
    assert "$TILESIGHT_PTXAS" in note and "--gpu-name=sm_90a" in log.read_text()

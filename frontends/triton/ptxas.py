"""Registers and local-memory frame from the compiler itself: ptxas, run on the CPU.

The register estimate (:mod:`.registers`) cannot tell, near the per-thread limit, whether ptxas will fit a
kernel by rematerialising addresses or spill it, nor how large a frame it will spill: on the 872 measured
Triton launches every spill of more than 8 words has an estimate of at least three quarters of the limit,
and inside that band the estimate is wrong both ways (an unaligned 32x64x64 GEMM estimated at 312 registers
compiles to 254 without a spill; a 16x128x64 one estimated at 304, a 510-byte frame, compiles to 32
registers and a 2,280-byte stack). Below the band its error still decides how many blocks fit on an SM
where registers are the limit (an unaligned 16x256x32 GEMM on 8 warps: 141 estimated, 80 compiled).
Triton compiles a kernel to a cubin without a GPU (its own ``ptxas``), and the cubin says what ptxas did:
``cuobjdump -res-usage`` prints ``REG`` (registers a thread) and ``STACK`` (the local-memory frame a
thread, where the spills go).

This costs a full compile (LLVM and ptxas: 0.5-25 s a config on a 2-core CPU, against ~0.1 s to TTGIR), so
``registers="auto"`` asks for it only where the estimate decides (:data:`AUTO_BAND`;
``assemble._estimate_decides``); Triton's on-disk cache makes a second run of the same specialisation
(another process, another shape) cheap.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import re
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from tilesight.errors import FrontendError, SettingError
from tilesight.hardware import HardwareProfile

from .sass import local_slots, mma_loop_bodies, reload_waits
from .speccache import SpecialisationCache

if TYPE_CHECKING:  # the mode helpers import without triton (the command line reads them)
    from .binding import Binding

# When ``registers="auto"`` asks ptxas: an estimate at or above this fraction of the per-thread limit (the
# estimate's error band; on the measured launches no spill above 8 words had an estimate below 0.75).
AUTO_BAND = 0.75
# ... and where it does not: an estimate over this many times the limit. Such a kernel spills most of what it
# holds whatever ptxas does, and its compile's LLVM and ptxas stages grow faster than the values a thread
# holds: a softmax row of 32,768 elements compiles to a cubin in 13.6 s on two warps (an estimate of 528
# registers a thread, 2.1 times the limit) and had not finished after 5 minutes on one (1,040, 4.1 times) on
# this 2-core CPU, where the frontend reads its TTGIR in 0.1 s. Beyond it the estimate's spill frame stands,
# and the report says why.
AUTO_CEILING = 4
# ... and how long it lets the compile run (LLVM and ptxas, seconds) before it keeps the estimate instead: the
# estimate's band does not bound the compile time. A bf16 softmax row of 16,384 elements on one warp (an
# estimate of about twice the limit) was still in LLVM after 20 minutes on this 2-core CPU, where most band
# configs take 0.5-25 s. ``$TILESIGHT_PTXAS_BUDGET_S`` sets another budget; "ptxas" mode has none.
AUTO_COMPILE_BUDGET_S = 90.0
BUDGET_ENV = "TILESIGHT_PTXAS_BUDGET_S"
MODES = ("auto", "estimate", "ptxas")
# The environment variable that sets the default mode (``registers=`` on a call wins).
MODE_ENV = "TILESIGHT_REGISTERS"
CACHE_ENTRIES = 512
# The environment variable naming the ptxas of the toolchain the GPU will build the kernel with, where it is
# not the installed Triton's own. Register allocation differs between ptxas releases: Triton 3.6 (the lent
# H200's) assembles Hopper kernels with its ptxas 12.8, Triton 3.9 with 13.x, and 12.8 builds some unaligned
# GEMMs that spill heavily at 32 registers and a 2.9 KB frame where 13.x gives 255 and 592 B (those run about
# 9x slower); ``TILESIGHT_PTXAS=<Triton 3.6>/backends/nvidia/bin/ptxas`` makes the register count the GPU's.
PTXAS_ENV = "TILESIGHT_PTXAS"
# ... whose value ``triton`` keeps the installed Triton's own ptxas whatever the profile names
INSTALLED = "triton"
# Triton's own settings for the ptxas it runs: the first before sm_90 (3.9) or sm_100 (3.6), the second after
_TRITON_PTXAS_ENVS = ("TRITON_PTXAS_PATH", "TRITON_PTXAS_BLACKWELL_PATH")
_RELEASE_RE = re.compile(r"release (\d+\.\d+)")

_CACHE = SpecialisationCache(CACHE_ENTRIES)
_FUNCTION_RE = re.compile(r"Function\s+(\S+?):\s*\n\s*REG:(\d+)\s+STACK:(\d+)")


@dataclass(frozen=True)
class PtxasUsage:
    """What ptxas gave one compiled kernel: registers a thread and the local-memory frame a thread; where it
    has a frame, ``reload_waits``: the times a warp waits for a reload of it in one iteration of each
    innermost loop holding matrix instructions, in address order, as (waits for slots the loop only reads,
    waits for slots it also stores to) (:func:`.sass.reload_waits`; empty without a frame, or with
    ``sass_error`` saying why they could not be read)."""

    registers: int
    stack_bytes: int
    reload_waits: tuple[tuple[int, int], ...] = ()
    # why the reload waits could not be read (the disassembly failed), where that happened; the registers
    # and frame stand
    sass_error: str = ""
    # the ptxas release that assembled it ("12.8") and who chose that ptxas (``TargetPtxas.chosen_by``); empty
    # for the installed Triton's own
    ptxas_release: str = ""
    ptxas_chosen_by: str = ""
    # the distinct frame bytes a thread loads and stores in one iteration of each loop of ``reload_waits``
    # (:func:`.sass.local_slots`)
    loop_slots: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class TargetPtxas:
    """The ptxas a register count is compiled with, where it is not the installed Triton's own: its path,
    its release ("12.8") and who chose it (``$TILESIGHT_PTXAS``, or the profile's ``ptxas_release``)."""

    path: str
    release: str
    chosen_by: str


def target_ptxas(hw: HardwareProfile | None = None) -> TargetPtxas | None:
    """Which ptxas compiles a kernel's register count for ``hw``: ``$TILESIGHT_PTXAS`` where set (a path, or
    ``triton`` for the installed Triton's own); else, where the profile names the release its GPU's Triton
    builds with (``ptxas_release``) and the installed Triton's is another, a ptxas of that release found here
    (:func:`_release_candidates`); else None, the installed Triton's own (:func:`toolchain_note` says when
    that is not the profile's). A :class:`SettingError` names the variable where its file is missing, not
    executable or not a ptxas (Triton would otherwise fall back to its own without a word)."""
    raw = os.environ.get(PTXAS_ENV)
    if raw == INSTALLED:
        return None
    if raw:
        path = os.path.abspath(os.path.expanduser(raw))
        if not os.path.isfile(path) or not os.access(path, os.X_OK):
            raise SettingError(
                f"${PTXAS_ENV}={raw!r}: no executable file there (a ptxas, or {INSTALLED!r} for the "
                "installed Triton's own)"
            )
        return TargetPtxas(path, _release(path, raw), f"the ${PTXAS_ENV}")
    if hw is None or not hw.ptxas_release or installed_release(hw) == hw.ptxas_release:
        return None
    for path in _release_candidates():
        try:
            release = _release(path, path)
        except SettingError:
            continue
        if release == hw.ptxas_release:
            return TargetPtxas(path, release, f"the {hw.name} profile's")
    return None


def toolchain_note(hw: HardwareProfile) -> str:
    """A report note where the profile names a ptxas release that neither ``$TILESIGHT_PTXAS`` nor this
    machine provides, so the installed Triton's (another release) compiled the register count; else ""."""
    if os.environ.get(PTXAS_ENV) or not hw.ptxas_release or target_ptxas(hw) is not None:
        return ""
    installed = installed_release(hw)
    if installed == hw.ptxas_release:
        return ""
    return (
        f"the {hw.name} profile's GPU builds Triton kernels with ptxas {hw.ptxas_release}, which is not "
        "installed here: the registers come from the installed Triton's ptxas "
        f"{installed or '(release unknown)'} (pip install 'nvidia-cuda-nvcc-cu12=={hw.ptxas_release}.*', or "
        f"${PTXAS_ENV})"
    )


def installed_release(hw: HardwareProfile) -> str:
    """The release of the ptxas the installed Triton runs for ``hw``'s architecture ("" where unknown)."""
    try:
        from triton.backends.nvidia.compiler import get_ptxas

        tool = get_ptxas(int(hw.triton_arch))
    except (ImportError, AttributeError, RuntimeError, TypeError, ValueError):
        return ""
    return str(getattr(tool, "version", "") or "")


def _release_candidates() -> list[str]:
    """ptxas binaries this machine has besides Triton's own: the ``nvidia-cuda-nvcc-cu12`` wheel's."""
    try:
        import nvidia.cuda_nvcc as nvcc  # type: ignore[import-not-found]
    except ImportError:
        return []
    roots = [*getattr(nvcc, "__path__", ()), os.path.dirname(getattr(nvcc, "__file__", None) or "")]
    found = [os.path.join(root, "bin", "ptxas") for root in roots if root]
    return [path for path in dict.fromkeys(found) if os.path.isfile(path) and os.access(path, os.X_OK)]


@functools.lru_cache(maxsize=8)
def _release(path: str, raw: str) -> str:
    try:
        done = subprocess.run([path, "--version"], capture_output=True, text=True, check=False, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SettingError(f"${PTXAS_ENV}={raw!r}: could not run it: {e}") from e
    m = _RELEASE_RE.search(done.stdout + done.stderr)
    if done.returncode != 0 or not m or "ptxas" not in (done.stdout + done.stderr).lower():
        raise SettingError(f"${PTXAS_ENV}={raw!r}: `--version` does not name a ptxas release")
    return m.group(1)


@contextlib.contextmanager
def _ptxas_for_compile(path: str | None) -> Iterator[None]:
    """Within the block, Triton's compile runs ``path`` as its ptxas for every architecture (and picks the
    PTX version that release reads); Triton's settings and its cached ptxas version are restored after."""
    if path is None:
        yield
        return
    from triton.backends.nvidia import compiler

    forget = getattr(compiler.get_ptxas_version, "cache_clear", lambda: None)
    saved = {key: os.environ.get(key) for key in _TRITON_PTXAS_ENVS}
    os.environ.update(dict.fromkeys(_TRITON_PTXAS_ENVS, path))
    forget()
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        forget()


def resolve_mode(mode: Any) -> str:
    """``mode`` checked, or the default: ``$TILESIGHT_REGISTERS``, else ``"auto"``."""
    if mode is None:
        mode = os.environ.get(MODE_ENV) or "auto"
        where = f"${MODE_ENV}="
    else:
        where = "registers="
    if mode not in MODES:
        raise SettingError(f"{where}{mode!r}: one of {', '.join(map(repr, MODES))}")
    return str(mode)


def parse_res_usage(text: str, kernel: str) -> PtxasUsage:
    """``kernel``'s registers and stack from ``cuobjdump -res-usage`` output."""
    for name, reg, stack in _FUNCTION_RE.findall(text):
        if name == kernel:
            return PtxasUsage(registers=int(reg), stack_bytes=int(stack))
    raise FrontendError(f"cuobjdump -res-usage lists no function {kernel!r}: {text.strip()[:300]!r}")


def _cuobjdump() -> str:
    try:
        from triton import knobs

        path = knobs.nvidia.cuobjdump.path
    except (ImportError, AttributeError, RuntimeError) as e:  # a Triton without the bundled tool's knob
        raise FrontendError(f"this Triton does not say where its cuobjdump is: {e}") from e
    if not path or not os.path.exists(path):
        raise FrontendError(f"Triton's cuobjdump is not installed (looked for {path!r})")
    return str(path)


class CompileOverBudget(FrontendError):
    """The compile for ptxas's register count ran past its budget (:func:`_compile_cubin_within`)."""


def compile_budget_s() -> float:
    """The "auto" mode's compile budget: ``$TILESIGHT_PTXAS_BUDGET_S`` (a positive number of seconds), else
    :data:`AUTO_COMPILE_BUDGET_S`."""
    raw = os.environ.get(BUDGET_ENV)
    if raw is None or raw == "":
        return AUTO_COMPILE_BUDGET_S
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise SettingError(f"${BUDGET_ENV}={raw!r}: a positive number of seconds")
    return value


def _compile_cubin(
    jit_fn: Any, binding: Binding, hw: HardwareProfile, ptxas_path: str | None = None
) -> tuple[bytes, str]:
    """``jit_fn`` compiled as ``binding`` specialises it, for ``hw``: its cubin and kernel name; assembled by
    ``ptxas_path`` where given (:data:`PTXAS_ENV`), else by the installed Triton's own ptxas."""
    import triton
    from triton.compiler.compiler import ASTSource

    from .binding import target_of

    src = ASTSource(jit_fn, binding.signature, binding.constexprs, binding.attrs)
    try:
        # Triton prints a failing ptxas run's whole PTX to stdout before raising: the error says enough
        with contextlib.redirect_stdout(io.StringIO()), _ptxas_for_compile(ptxas_path):
            kernel = triton.compile(src, target=target_of(hw), options=dict(binding.options.__dict__))
        return kernel.asm["cubin"], kernel.metadata.name
    except Exception as e:  # ptxas or LLVM failing is Triton's error, reported as this kernel's
        raise FrontendError(
            f"kernel {binding.fn_name!r}: compiling to a cubin for ptxas's register count failed: "
            f"{type(e).__name__}: {compile_error_summary(e)}"
        ) from e


def compile_error_summary(error: BaseException) -> str:
    """The lines of a compile error worth a note: its first, and ptxas's fatal line where the first is only
    a heading ("Internal Triton PTX codegen error", then ptxas's stderr and the PTX)."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    if not lines:
        return ""
    detail = next((line for line in lines[1:] if " fatal " in f" {line} "), None)
    text = f"{lines[0]}: {detail}" if detail else lines[0]
    return text[:300]


def _compile_cubin_within(
    jit_fn: Any, binding: Binding, hw: HardwareProfile, budget_s: float, ptxas_path: str | None = None
) -> tuple[bytes, str]:
    """:func:`_compile_cubin` in a forked child that gets ``budget_s`` seconds: a compile that runs longer
    (or dies) is stopped and raised as a :class:`FrontendError`, so the caller keeps its estimate. Where the
    platform cannot fork, the compile runs here, unbounded."""
    import multiprocessing
    import sys
    import warnings

    if "fork" not in multiprocessing.get_all_start_methods():
        return _compile_cubin(jit_fn, binding, hw, ptxas_path)
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)

    def child() -> None:
        try:
            send.send(("ok", *_compile_cubin(jit_fn, binding, hw, ptxas_path)))
        except FrontendError as e:
            send.send(("error", str(e)))
        except BaseException as e:  # anything else the compile raises, named as the kernel's
            send.send(
                ("error", f"kernel {binding.fn_name!r}: compiling to a cubin failed: {type(e).__name__}")
            )

    for stream in (sys.stdout, sys.stderr):  # the child must not print the parent's buffered output again
        stream.flush()
    with warnings.catch_warnings():  # Python 3.12+ warns of forking a process that holds threads
        warnings.simplefilter("ignore", DeprecationWarning)
        proc = ctx.Process(target=child, name="tilesight-ptxas")
        proc.start()
    send.close()
    try:
        result = receive.recv() if receive.poll(budget_s) else None
    except EOFError:  # the child ended without an answer (killed, or crashed inside LLVM or ptxas)
        result = ("died",)
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        receive.close()
    if result is None:
        raise CompileOverBudget(
            f"kernel {binding.fn_name!r}: compiling to a cubin for ptxas's register count took more than "
            f"{budget_s:g} s (${BUDGET_ENV} sets the budget; registers='ptxas' waits for it)"
        )
    if result[0] == "died":
        raise FrontendError(
            f"kernel {binding.fn_name!r}: the compile to a cubin ended without a result (exit code "
            f"{proc.exitcode})"
        )
    if result[0] == "error":
        raise FrontendError(result[1])
    return result[1], result[2]


def ptxas_usage(
    jit_fn: Any, binding: Binding, hw: HardwareProfile, budget_s: float | None = None
) -> PtxasUsage:
    """Compile ``jit_fn`` as ``binding`` specialises it to a cubin for ``hw`` (no GPU) and read what ptxas
    gave it; the ptxas is ``$TILESIGHT_PTXAS`` where set (:data:`PTXAS_ENV`), else the installed Triton's.
    Cached by the specialisation and that ptxas; raises :class:`FrontendError` naming the kernel when the
    compile fails, or, with ``budget_s``, when it runs longer than that (remembered: the next call with a
    budget for the same specialisation raises at once; one without a budget compiles)."""
    target = target_ptxas(hw)
    path = target.path if target else None
    key = f"{binding.key}|ptxas={path}" if path else binding.key
    cached = _CACHE.lookup(key)
    if isinstance(cached, CompileOverBudget):  # raised again within a budget
        if budget_s is not None:
            raise cached
        cached = None
    if cached is not None:
        return cached
    if budget_s is None:
        cubin, name = _compile_cubin(jit_fn, binding, hw, path)
    else:
        try:
            cubin, name = _compile_cubin_within(jit_fn, binding, hw, budget_s, path)
        except CompileOverBudget as e:
            _CACHE.keep(key, e)
            raise
    with tempfile.TemporaryDirectory(prefix="tilesight-ptxas-") as tmp:
        cubin_path = os.path.join(tmp, "kernel.cubin")
        with open(cubin_path, "wb") as f:
            f.write(cubin)
        usage = parse_res_usage(cuobjdump_output("-res-usage", cubin_path, binding.fn_name), name)
        if target:
            usage = replace(usage, ptxas_release=target.release, ptxas_chosen_by=target.chosen_by)
        if usage.stack_bytes:
            try:
                usage = replace(usage, **_spill_code(cubin_path, binding.fn_name))
            except FrontendError as e:
                usage = replace(usage, sass_error=str(e))
    return _CACHE.keep(key, usage)


def cuobjdump_output(flag: str, cubin_path: str, fn_name: str) -> str:
    """What Triton's ``cuobjdump`` prints with ``flag`` (``-res-usage``, ``-sass``) for the cubin at
    ``cubin_path``; a :class:`FrontendError` naming kernel ``fn_name`` where it cannot run or fails."""
    try:
        done = subprocess.run([_cuobjdump(), flag, cubin_path], capture_output=True, text=True, check=False)
    except OSError as e:  # present but not runnable here
        raise FrontendError(f"cuobjdump could not run for {fn_name!r}: {e}") from e
    if done.returncode != 0:
        why = done.stderr.strip()[:300]
        raise FrontendError(f"cuobjdump {flag} failed on {fn_name!r}: {why}")
    return done.stdout


def _spill_code(cubin_path: str, fn_name: str) -> dict[str, tuple[tuple[int, int], ...]]:
    """The reload waits and frame slots of an iteration of each matrix-instruction loop of the cubin
    (:mod:`.sass`), as :class:`PtxasUsage` fields."""
    bodies = mma_loop_bodies(cuobjdump_output("-sass", cubin_path, fn_name))
    return {
        "reload_waits": tuple(reload_waits(body) for body in bodies),
        "loop_slots": tuple(local_slots(body) for body in bodies),
    }

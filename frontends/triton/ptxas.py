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

import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tilesight.errors import FrontendError
from tilesight.hardware import HardwareProfile

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
MODES = ("auto", "estimate", "ptxas")
# The environment variable that sets the default mode (``registers=`` on a call wins).
MODE_ENV = "TILESIGHT_REGISTERS"
CACHE_ENTRIES = 512

_CACHE = SpecialisationCache(CACHE_ENTRIES)
_FUNCTION_RE = re.compile(r"Function\s+(\S+?):\s*\n\s*REG:(\d+)\s+STACK:(\d+)")


@dataclass(frozen=True)
class PtxasUsage:
    """What ptxas gave one compiled kernel: registers a thread and the local-memory frame a thread."""

    registers: int
    stack_bytes: int


def resolve_mode(mode: Any) -> str:
    """``mode`` checked, or the default: ``$TILESIGHT_REGISTERS``, else ``"auto"``."""
    if mode is None:
        mode = os.environ.get(MODE_ENV) or "auto"
        where = f"${MODE_ENV}"
    else:
        where = "registers="
    if mode not in MODES:
        raise ValueError(f"{where}{mode!r}: one of {', '.join(map(repr, MODES))}")
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


def ptxas_usage(jit_fn: Any, binding: Binding, hw: HardwareProfile) -> PtxasUsage:
    """Compile ``jit_fn`` as ``binding`` specialises it to a cubin for ``hw`` (no GPU) and read what ptxas
    gave it. Cached by the specialisation; raises :class:`FrontendError` naming the kernel when the
    compile fails."""
    cached = _CACHE.lookup(binding.key)
    if cached is not None:
        return cached
    import triton
    from triton.compiler.compiler import ASTSource

    from .binding import target_of

    src = ASTSource(jit_fn, binding.signature, binding.constexprs, binding.attrs)
    try:
        kernel = triton.compile(src, target=target_of(hw), options=dict(binding.options.__dict__))
        cubin = kernel.asm["cubin"]
        name = kernel.metadata.name
    except Exception as e:  # ptxas or LLVM failing is Triton's error, reported as this kernel's
        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
        raise FrontendError(
            f"kernel {binding.fn_name!r}: compiling to a cubin for ptxas's register count failed: "
            f"{type(e).__name__}: {first[:200]}"
        ) from e
    with tempfile.TemporaryDirectory(prefix="tilesight-ptxas-") as tmp:
        path = os.path.join(tmp, "kernel.cubin")
        with open(path, "wb") as f:
            f.write(cubin)
        try:
            done = subprocess.run(
                [_cuobjdump(), "-res-usage", path], capture_output=True, text=True, check=False
            )
        except OSError as e:  # present but not runnable here
            raise FrontendError(f"cuobjdump could not run for {binding.fn_name!r}: {e}") from e
    if done.returncode != 0:
        why = done.stderr.strip()[:300]
        raise FrontendError(f"cuobjdump -res-usage failed on {binding.fn_name!r}: {why}")
    return _CACHE.keep(binding.key, parse_res_usage(done.stdout, name))

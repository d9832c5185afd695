"""Compile a bound Triton kernel to TTIR and TTGIR for an explicit target, stopping before LLVM.

Triton's own backend stages run (``backend.add_stages``: "ttir" then "ttgir"); nothing is lowered to LLVM, PTX
or a cubin, so no GPU and no ptxas run is needed for the IR. Shared memory comes from Triton's own allocation
pass (``allocate_shared_memory_nv``) run on the TTGIR module, which sets the module attribute ``ttg.shared``.
Results are cached by the binding's specialisation key, so a new shape of a config already seen (same
specialisation) costs a dictionary lookup.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from typing import Any

from triton._C.libtriton import ir, nvidia, passes
from triton.compiler.compiler import ASTSource
from triton.compiler.errors import CompilationError

from tilesight.errors import FrontendError, KernelCompileError
from tilesight.hardware import HardwareProfile

from .binding import Binding, backend_for, target_of
from .speccache import SpecialisationCache

# How many compiled specialisations the in-process cache keeps (each holds two IR texts of a few tens of kB).
COMPILE_CACHE_ENTRIES = 256


_CACHE = SpecialisationCache(COMPILE_CACHE_ENTRIES)


@dataclass(frozen=True)
class CompiledIR:
    """The IR of one specialisation: TTIR (loop/load/dot structure before pipelining) and TTGIR (layouts)."""

    name: str
    ttir: str
    ttgir: str
    num_warps: int
    num_stages: int
    threads_per_warp: int
    smem_bytes: int
    mma_version: int | None  # 3 = wgmma, 2 = mma.sync, None = no tensor-core dot


_MMA_RE = re.compile(r"#ttg\.nvidia_mma<\{versionMajor = (\d+)")
_INT_ATTR_RE = r'"?{name}"?\s*=\s*(\d+)\s*:\s*i32'


def _module_int(text: str, name: str) -> int | None:
    m = re.search(_INT_ATTR_RE.format(name=re.escape(name)), text)
    return int(m.group(1)) if m else None


def _shared_bytes(module: Any, options: Any, arch: int) -> int:
    """Run Triton's shared-memory allocation pass on the TTGIR module and read ``ttg.shared``."""
    from triton.backends.nvidia.compiler import get_ptx_version_from_options

    pm = ir.pass_manager(module.context)
    if hasattr(passes.ttgpuir, "add_allocate_warp_groups"):
        try:
            passes.ttgpuir.add_allocate_warp_groups(pm)
        except TypeError:  # Triton 3.9 takes a sanitizer flag
            passes.ttgpuir.add_allocate_warp_groups(pm, False)
    passes.convert.add_scf_to_cf(pm)
    nvidia.passes.ttgpuir.add_allocate_shared_memory_nv(pm, arch, get_ptx_version_from_options(options, arch))
    try:
        pm.run(module, "tilesight_allocate_shared")  # Triton >= 3.7 names each pass-manager run
    except TypeError:
        pm.run(module)  # Triton 3.6
    shared = module.get_int_attr("ttg.shared")
    if shared is None:
        raise FrontendError(
            "Triton's shared-memory allocation did not set ttg.shared", construct="ttg.shared"
        )
    return int(shared)


def _innermost_reason(exc: BaseException) -> str:
    """What the innermost exception under ``exc`` says (an error in an inlined ``@triton.jit`` helper reaches
    the kernel as a bare ``CompilationError`` of the call, the helper's own message among its causes), else
    ``exc``'s class name."""
    reason = type(exc).__name__
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        said = getattr(cause, "error_message", None) or (
            str(cause) if not isinstance(cause, CompilationError) else ""
        )
        if said and said.strip():
            reason = said.strip().splitlines()[-1]
        cause = cause.__cause__ or cause.__context__
    return reason


def compile_error(exc: CompilationError, jit_fn: Any, kernel: str) -> KernelCompileError:
    """The typed error for a Triton :class:`CompilationError` raised while generating ``jit_fn``'s IR: the
    kernel, the failing statement's ``file:line`` (Triton counts lines from the ``def``; an error inside an
    inlined ``@triton.jit`` helper is reported at the kernel's call of it, its message naming the helper's
    line) and Triton's own words."""
    import triton

    node = getattr(exc, "node", None)
    lineno = getattr(node, "lineno", None)
    location = None
    fn = getattr(jit_fn, "fn", None)
    path = getattr(getattr(fn, "__code__", None), "co_filename", None)
    if path and isinstance(lineno, int):
        try:
            lines, first = inspect.getsourcelines(fn)
        except (OSError, TypeError):  # no source file (a kernel built from a string): Triton's line alone
            location = f"{path.rsplit('/', 1)[-1]}, line {lineno} of {kernel}"
        else:
            start = next((i for i, text in enumerate(lines) if text.lstrip().startswith("def ")), 0)
            location = f"{path.rsplit('/', 1)[-1]}:{first + start + lineno - 1}"
    message = getattr(exc, "error_message", None) or ""
    excerpt = str(exc)
    if message and excerpt.endswith(message):
        excerpt = excerpt[: -len(message)].rstrip("\n")
    # the excerpt's first line is Triton's own "at LINE:COL:" (lines from the def): the location says it
    excerpt = excerpt.split("\n", 1)[1] if excerpt.startswith("at ") and "\n" in excerpt else excerpt
    reason = message.strip().splitlines()[-1] if message.strip() else _innermost_reason(exc)
    return KernelCompileError(
        kernel,
        reason,
        compiler=f"Triton {triton.__version__}",
        compiler_error=type(exc).__name__,
        location=location,
        excerpt=excerpt,
    )


def triton_module(jit_fn: Any, binding: Binding, hw: HardwareProfile) -> tuple[dict[str, Any], Any]:
    """Triton's compile stages for ``hw``'s target (``stages["ttir"]``, ``["ttgir"]``, ``["llir"]``, ...: each
    takes the previous stage's module and a metadata dict) and ``jit_fn``'s module as its code generator
    makes it, specialised as ``binding`` says; a :class:`KernelCompileError` where the code generator refuses
    the kernel with these arguments."""
    target = target_of(hw)
    backend = backend_for(target.backend, target.arch, target.warp_size)
    options = binding.options
    src = ASTSource(jit_fn, binding.signature, binding.constexprs, binding.attrs)
    stages: dict[str, Any] = {}
    backend.add_stages(stages, options, src.language)
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    codegen = backend.get_codegen_implementation(options)
    module_map = backend.get_module_map() if hasattr(backend, "get_module_map") else {}
    try:
        return stages, src.make_ir(target, options, codegen, module_map, context)
    except CompilationError as e:  # Triton's code generator refused the kernel with these arguments
        raise compile_error(e, jit_fn, binding.fn_name) from e


def compile_ir(jit_fn: Any, binding: Binding, hw: HardwareProfile) -> CompiledIR:
    """TTIR and TTGIR of ``jit_fn`` specialised as ``binding`` says, for ``hw``'s target (cached)."""
    cached = _CACHE.lookup(binding.key)
    if cached is not None:
        return cached
    if hw.triton_backend != "cuda":
        raise FrontendError(
            f"the Triton frontend reads NVIDIA TTGIR; profile {hw.name!r} targets {hw.triton_backend}"
        )
    target = target_of(hw)
    options = binding.options
    stages, module = triton_module(jit_fn, binding, hw)
    metadata: dict[str, Any] = {}
    try:
        ttir_mod = stages["ttir"](module, metadata)
        ttir = str(ttir_mod)
        ttgir_mod = stages["ttgir"](ttir_mod, metadata)
        ttgir = str(ttgir_mod)
        smem = _shared_bytes(ttgir_mod, options, int(target.arch))
    except RuntimeError as e:  # an MLIR pass of Triton's own pipeline failed (its diagnostics went to stderr)
        import triton

        raise FrontendError(
            f"Triton {triton.__version__} could not compile kernel {binding.fn_name!r} for "
            f"{target.backend} sm_{target.arch} with this config ({e}); Triton's own compiler output above "
            "names the pass",
            construct="triton compile",
        ) from e
    mma = _MMA_RE.search(ttgir)
    compiled = CompiledIR(
        name=binding.fn_name,
        ttir=ttir,
        ttgir=ttgir,
        num_warps=_module_int(ttgir, "ttg.num-warps") or int(options.num_warps),
        num_stages=int(options.num_stages),
        threads_per_warp=_module_int(ttgir, "ttg.threads-per-warp") or int(target.warp_size),
        smem_bytes=smem,
        mma_version=int(mma.group(1)) if mma else None,
    )
    return _CACHE.keep(binding.key, compiled)

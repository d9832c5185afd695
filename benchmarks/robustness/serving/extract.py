"""Copy vLLM's and SGLang's Triton kernels out of their unpacked sources into standalone modules.

Importing ``vllm`` or ``sglang`` whole would pull in CUDA extensions and half of PyPI; the kernels themselves
only need triton, torch and a few module constants. For each module in ``MODULES`` this copies the named
``@triton.jit`` functions verbatim (decorators included, as ``ast`` source segments), every jit helper they
call and every module-level constant they read, following imports between the project's own files, and puts
them under a fixed header: the Triton and torch imports the kernels use, and a stand-in for vLLM's
``current_platform`` (CUDA on an H200: fp8 is ``float8_e4m3fn``, not ROCm's fnuz). Nothing inside a kernel
changes. The header is two comment lines and the imports, so a line number in a message (``v_decode.py:275``)
is the copied file's.

    python benchmarks/robustness/serving/extract.py --src /tmp/robustness_src/serving --out /tmp/kernels

``--src`` is what ``fetch.sh serving`` unpacked (its ``SOURCES`` file names the folders); the output goes to
a temporary or cache folder, never into this repository.
"""

from __future__ import annotations

import argparse
import ast
import sys
from dataclasses import dataclass
from pathlib import Path

PROJECTS = ("vllm", "sglang")

HEADER = """# Extracted by benchmarks/robustness/serving/extract.py from {origin}
# @triton.jit bodies are verbatim; non-Triton imports replaced.
import math
import torch
import triton
import triton.language as tl


class _Platform:  # stand-in for vllm.platforms.current_platform (CUDA, H200)
    def fp8_dtype(self):
        return torch.float8_e4m3fn

    def is_rocm(self):
        return False

    def is_cuda(self):
        return True

    def is_fp8_fnuz(self):
        return False


current_platform = _Platform()
"""


@dataclass(frozen=True)
class Module:
    """One extracted module: ``name`` (its import name), the source file in its project and the kernels."""

    name: str
    project: str
    path: str  # relative to the project's unpacked root
    kernels: tuple[str, ...]


MODULES = (
    Module(
        "v_decode",
        "vllm",
        "vllm/v1/attention/ops/triton_decode_attention.py",
        ("_fwd_kernel_stage1", "_fwd_grouped_kernel_stage1", "_fwd_kernel_stage2"),
    ),
    Module("v_prefix_prefill", "vllm", "vllm/v1/attention/ops/prefix_prefill.py", ("_fwd_kernel",)),
    Module(
        "v_unified",
        "vllm",
        "vllm/v1/attention/ops/triton_unified_attention.py",
        ("kernel_unified_attention", "reduce_segments"),
    ),
    Module(
        "v_chunked",
        "vllm",
        "vllm/v1/attention/ops/chunked_prefill_paged_decode.py",
        ("kernel_paged_attention_2d",),
    ),
    Module("v_fused_moe", "vllm", "vllm/model_executor/layers/fused_moe/fused_moe.py", ("fused_moe_kernel",)),
    Module(
        "v_fp8",
        "vllm",
        "vllm/model_executor/layers/quantization/utils/fp8_utils.py",
        ("_per_token_group_quant_fp8", "_w8a8_triton_block_scaled_mm"),
    ),
    Module("v_lora_shrink", "vllm", "vllm/lora/ops/triton_ops/lora_shrink_op.py", ("_lora_shrink_kernel",)),
    Module("v_lora_expand", "vllm", "vllm/lora/ops/triton_ops/lora_expand_op.py", ("_lora_expand_kernel",)),
    Module(
        "v_reshape_cache",
        "vllm",
        "vllm/v1/attention/ops/triton_reshape_and_cache_flash.py",
        ("reshape_and_cache_kernel_flash",),
    ),
    Module(
        "v_merge", "vllm", "vllm/v1/attention/ops/triton_merge_attn_states.py", ("merge_attn_states_kernel",)
    ),
    Module(
        "s_decode",
        "sglang",
        "sglang/kernels/ops/attention/decode_attention.py",
        ("_fwd_kernel_stage1", "_fwd_grouped_kernel_stage1", "_fwd_kernel_stage2"),
    ),
    Module("s_extend", "sglang", "sglang/kernels/ops/attention/extend_attention.py", ("_fwd_kernel",)),
    Module("s_prefill", "sglang", "sglang/kernels/ops/attention/prefill_attention.py", ("_fwd_kernel",)),
    Module(
        "s_fused_moe", "sglang", "sglang/kernels/ops/moe/fused_moe_triton_kernels.py", ("fused_moe_kernel",)
    ),
    Module(
        "s_fp8", "sglang", "sglang/kernels/ops/quantization/fp8_kernel.py", ("_per_token_group_quant_8bit",)
    ),
)


def _is_jit(fn: ast.FunctionDef) -> bool:
    return any(
        word in ast.unparse(d) for d in fn.decorator_list for word in ("jit", "autotune", "heuristics")
    )


def _names_in(node: ast.AST) -> set[str]:
    names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    return names | {
        n.value.id for n in ast.walk(node) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
    }


class _Source:
    """A parsed source file: its top-level functions and assignments, its imports from the project's files."""

    def __init__(self, path: Path, roots: dict[str, Path]) -> None:
        self.path = path
        self.text = path.read_text()
        tree = ast.parse(self.text)
        self.defs: dict[str, ast.FunctionDef] = {}
        self.assigns: dict[str, ast.Assign | ast.AnnAssign] = {}
        self.imports: dict[str, tuple[str, str]] = {}
        root = next(r for r in roots.values() if path.is_relative_to(r))
        parts = list(path.relative_to(root).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                self.defs[node.name] = node
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Name):
                        self.assigns[t.id] = node
            elif isinstance(node, ast.ImportFrom) and (node.module is not None or node.level):
                module = node.module or ""
                if node.level:
                    base = parts if is_package else parts[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    module = ".".join(base + ([module] if module else []))
                if module.split(".")[0] in roots and "triton_utils" not in module:
                    for alias in node.names:
                        self.imports[alias.asname or alias.name] = (module, alias.name)

    def segment(self, node: ast.AST) -> str:
        """The node's source, a function's with its decorators."""
        if isinstance(node, ast.FunctionDef) and node.decorator_list:
            lines = self.text.splitlines()[node.decorator_list[0].lineno - 1 : node.end_lineno]
            return "\n".join(lines)
        return ast.get_source_segment(self.text, node) or ""


class _Extractor:
    def __init__(self, roots: dict[str, Path]) -> None:
        self.roots = roots
        self.sources: dict[Path, _Source] = {}

    def source(self, path: Path) -> _Source:
        if path not in self.sources:
            self.sources[path] = _Source(path, self.roots)
        return self.sources[path]

    def module_file(self, module: str) -> Path:
        base = self.roots[module.split(".")[0]].joinpath(*module.split("."))
        return base.with_suffix(".py") if base.with_suffix(".py").exists() else base / "__init__.py"

    def collect(self, path: Path, names: list[str], chunks: list[str], seen: set[tuple[Path, str]]) -> None:
        """Append to ``chunks`` the definitions of ``names`` in ``path``, each after what it uses."""
        src = self.source(path)
        for name in names:
            if (path, name) in seen:
                continue
            seen.add((path, name))
            if name in src.defs and _is_jit(src.defs[name]):
                node = src.defs[name]
                self.collect(path, sorted(_names_in(node) - {name}), chunks, seen)
                chunks.append(src.segment(node))
            elif name in src.assigns:
                node = src.assigns[name]
                deps = _names_in(node.value) if node.value is not None else set()
                self.collect(path, sorted(deps - {name}), chunks, seen)
                chunks.append(src.segment(node))
            elif name in src.imports:
                module, original = src.imports[name]
                target = self.module_file(module)
                if target.exists():
                    self.collect(target, [original], chunks, seen)
                    if original != name:
                        chunks.append(f"{name} = {original}")
                else:
                    chunks.append(f"# UNRESOLVED import {name} from {module}")


def extract_module(module: Module, roots: dict[str, Path], out: Path) -> Path:
    """Write ``out/<module.name>.py``: the module's kernels with their helpers and constants."""
    extractor = _Extractor(roots)
    chunks: list[str] = []
    extractor.collect(roots[module.project] / module.path, list(module.kernels), chunks, set())
    origin = f"{roots[module.project].name}/{module.path}"
    target = out / f"{module.name}.py"
    target.write_text(HEADER.format(origin=origin) + "\n\n" + "\n\n\n".join(chunks) + "\n")
    return target


def extract_all(roots: dict[str, Path], out: Path) -> dict[str, str | None]:
    """Extract every module in ``MODULES`` into ``out``; module name -> None, or why it failed (the cases
    that need a module that failed end as harness failures)."""
    out.mkdir(parents=True, exist_ok=True)
    failures: dict[str, str | None] = {}
    for module in MODULES:
        try:
            extract_module(module, roots, out)
            failures[module.name] = None
        except Exception as e:  # one project file moved or failed to parse: its cases report it
            failures[module.name] = f"{type(e).__name__}: {e}"
    return failures


def read_sources(src: Path) -> list[dict[str, str]]:
    """The ``SOURCES`` file ``fetch.sh serving`` wrote: one archive a line, ``project version file sha256
    folder`` (the folder under ``src`` it was unpacked into)."""
    sources = []
    for line in (src / "SOURCES").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            project, version, file, sha256, folder = line.split()
            sources.append(
                {"project": project, "version": version, "file": file, "sha256": sha256, "folder": folder}
            )
    return sources


def project_roots(src: Path) -> dict[str, Path]:
    """Each project's unpacked root under ``src`` (the folder holding its ``vllm/`` or ``sglang/``)."""
    if not (src / "SOURCES").is_file():
        raise FileNotFoundError(
            f"{src} has no SOURCES file: unpack with benchmarks/robustness/fetch.sh serving"
        )
    roots = {s["project"]: (src / s["folder"]).resolve() for s in read_sources(src)}
    missing = [p for p in PROJECTS if p not in roots or not (roots[p] / p).is_dir()]
    if missing:
        raise FileNotFoundError(f"{src}: no unpacked {', '.join(missing)} (see its SOURCES file)")
    return roots


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", type=Path, required=True, help="what fetch.sh serving unpacked")
    ap.add_argument("--out", type=Path, required=True, help="folder for the extracted modules")
    args = ap.parse_args()
    failures = extract_all(project_roots(args.src), args.out)
    for name, why in failures.items():
        print(f"{name}: {why or 'ok'}")
    return 1 if any(failures.values()) else 0


if __name__ == "__main__":
    sys.exit(main())

"""Find the kernels in a Python file with libcst, without importing (or running) the file.

Finds every ``@triton.jit`` function (with its ``@triton.autotune`` configs and key, its
``@triton.heuristics`` names and ``@tilesight.predict`` arguments), every TileLang ``@T.prim_func`` and every
``@tilelang.jit`` factory. Decorators are matched by qualified name, so ``import triton.language as tl``,
``from triton import jit`` and ``import tilelang.language as T`` all resolve.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider, QualifiedNameProvider

from tilesight.errors import FrontendError

from .model import Autotune, AutotuneConfig, KernelKind, KernelSource, Param

_TRITON_JIT = frozenset({"triton.jit", "triton.runtime.jit.jit", "triton.runtime.jit"})
_TRITON_AUTOTUNE = frozenset(
    {"triton.autotune", "triton.runtime.autotune", "triton.runtime.autotuner.autotune"}
)
_TRITON_HEURISTICS = frozenset(
    {"triton.heuristics", "triton.runtime.heuristics", "triton.runtime.autotuner.heuristics"}
)
_TRITON_CONFIG = frozenset({"triton.Config", "triton.runtime.Config", "triton.runtime.autotuner.Config"})
_TILESIGHT_PREDICT = frozenset({"tilesight.predict", "tilesight.integrations.decorator.predict"})
_PRIM_FUNC = frozenset(
    {"tilelang.language.prim_func", "tvm.script.tir.prim_func", "tvm.script.prim_func", "T.prim_func"}
)
_TILELANG_JIT = frozenset({"tilelang.jit", "tilelang.jit.jit"})


class SourceError(FrontendError):
    """A source file cannot be read or parsed; the message names file, line and column."""


class KernelNotFoundError(FrontendError):
    """A kernel name not in the file; the message lists the kernels that are."""

    def __init__(self, name: str, file: str, found: list[str]) -> None:
        self.name = name
        self.found = found
        listed = ", ".join(found) if found else "none"
        super().__init__(f"{file}: no kernel named {name!r}; kernels found: {listed}")


def discover(path: str | Path) -> tuple[KernelSource, ...]:
    """Every kernel in ``path``, in source order. Raises SourceError for a missing or unparsable file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SourceError(f"{p}: cannot read: {exc}") from None
    return discover_source(text, str(p))


def discover_source(text: str, filename: str = "<string>") -> tuple[KernelSource, ...]:
    """Every kernel in the source text ``text`` (``filename`` is used in locations and errors)."""
    try:
        ast.parse(text, filename=filename)  # CPython's parser gives the exact line and column
    except SyntaxError as exc:
        col = exc.offset or 0
        raise SourceError(f"{filename}:{exc.lineno}:{col}: syntax error: {exc.msg}") from None
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        raise SourceError(
            f"{filename}:{exc.raw_line}:{exc.raw_column + 1}: syntax error: {exc.message}"
        ) from None
    wrapper = MetadataWrapper(module)
    visitor = _KernelVisitor(filename, wrapper.module)
    wrapper.visit(visitor)
    return tuple(visitor.found)


def find_kernel(kernels: tuple[KernelSource, ...], name: str, file: str) -> KernelSource:
    """The kernel called ``name`` (plain or ``factory.name``); KernelNotFoundError lists the others."""
    for k in kernels:
        if name in (k.qualname, k.name):
            matches = [x for x in kernels if name in (x.qualname, x.name)]
            if len(matches) > 1:
                raise SourceError(f"{file}: {name!r} is ambiguous: {', '.join(m.qualname for m in matches)}")
            return k
    raise KernelNotFoundError(name, file, [k.qualname for k in kernels])


class _KernelVisitor(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (QualifiedNameProvider, PositionProvider)

    def __init__(self, filename: str, module: cst.Module) -> None:
        super().__init__()
        self.filename = filename
        self.module = module
        self.found: list[KernelSource] = []
        self.stack: list[str] = []
        self.assignments: dict[str, cst.BaseExpression] = {}

    # module-level `configs = [...]` so that autotune(configs=configs) still reads statically
    def visit_Assign(self, node: cst.Assign) -> None:
        if not self.stack and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            self.assignments[node.targets[0].target.value] = node.value

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        kernel = self._kernel(node)
        if kernel is not None:
            self.found.append(kernel)
        self.stack.append(node.name.value)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.stack.pop()

    # -- helpers ------------------------------------------------------------------------------------------
    def _qualnames(self, expr: cst.BaseExpression) -> set[str]:
        target = expr.func if isinstance(expr, cst.Call) else expr
        names = {q.name for q in self.get_metadata(QualifiedNameProvider, target, set())}
        names.add(self.module.code_for_node(target))
        return names

    def _line(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    def _kernel(self, node: cst.FunctionDef) -> KernelSource | None:
        kind: KernelKind | None = None
        autotune: Autotune | None = None
        heuristics: list[str] = []
        predict: dict[str, str] = {}
        decorators = []
        for dec in node.decorators:
            expr = dec.decorator
            names = self._qualnames(expr)
            decorators.append(self.module.code_for_node(expr))
            if names & _TRITON_JIT:
                kind = KernelKind.TRITON
            elif names & _PRIM_FUNC:
                kind = KernelKind.TILELANG_PRIM_FUNC
            elif names & _TILELANG_JIT:
                kind = KernelKind.TILELANG_JIT
            elif names & _TRITON_AUTOTUNE and isinstance(expr, cst.Call):
                autotune = self._autotune(expr)
            elif names & _TRITON_HEURISTICS and isinstance(expr, cst.Call):
                heuristics.extend(self._heuristics(expr))
            elif names & _TILESIGHT_PREDICT:
                predict = self._call_kwargs(expr) if isinstance(expr, cst.Call) else {}
        if kind is None:
            return None
        pos = self.get_metadata(PositionProvider, node)
        first = self._line(node.decorators[0]) if node.decorators else self._line(node.name)
        return KernelSource(
            name=node.name.value,
            kind=kind,
            file=self.filename,
            line=self._line(node.name),
            end_line=pos.end.line,
            first_line=first,
            params=self._params(node.params),
            decorators=tuple(decorators),
            autotune=autotune,
            heuristics=tuple(heuristics),
            predict=predict,
            parent=".".join(self.stack) or None,
        )

    def _params(self, params: cst.Parameters) -> tuple[Param, ...]:
        out = []
        for p in (*params.posonly_params, *params.params, *params.kwonly_params):
            ann = self.module.code_for_node(p.annotation.annotation) if p.annotation else None
            constexpr = False
            if p.annotation is not None:
                quals = self._qualnames(p.annotation.annotation)
                constexpr = any(q.rsplit(".", 1)[-1] == "constexpr" for q in quals)
                if isinstance(p.annotation.annotation, cst.SimpleString):
                    constexpr = p.annotation.annotation.evaluated_value.rsplit(".", 1)[-1] == "constexpr"
            default = self.module.code_for_node(p.default) if p.default is not None else None
            out.append(Param(p.name.value, ann, default, constexpr))
        return tuple(out)

    def _call_kwargs(self, call: cst.Call) -> dict[str, str]:
        return {
            a.keyword.value: self.module.code_for_node(a.value) for a in call.args if a.keyword is not None
        }

    def _arg(self, call: cst.Call, keyword: str, position: int) -> cst.BaseExpression | None:
        positional = [a for a in call.args if a.keyword is None]
        for a in call.args:
            if a.keyword is not None and a.keyword.value == keyword:
                return a.value
        return positional[position].value if len(positional) > position else None

    def _literal(self, expr: cst.BaseExpression) -> Any:
        """The Python value of a literal expression; raises ValueError when it is not a literal."""
        return ast.literal_eval(self.module.code_for_node(expr).strip())

    def _resolve(self, expr: cst.BaseExpression | None) -> cst.BaseExpression | None:
        if isinstance(expr, cst.Name) and expr.value in self.assignments:
            return self.assignments[expr.value]
        return expr

    def _autotune(self, call: cst.Call) -> Autotune:
        raw = self._arg(call, "configs", 0)
        configs_expr = self._resolve(raw)
        key_expr = self._resolve(self._arg(call, "key", 1))
        key: tuple[str, ...] = ()
        if key_expr is not None:
            try:
                key = tuple(str(k) for k in self._literal(key_expr))
            except (ValueError, SyntaxError, TypeError):
                key = ()
        configs: list[AutotuneConfig] = []
        static = isinstance(configs_expr, cst.List | cst.Tuple)
        if static:
            assert isinstance(configs_expr, cst.List | cst.Tuple)
            for el in configs_expr.elements:
                cfg = self._config(el.value)
                if cfg is None:
                    static = False
                    configs = []
                    break
                configs.append(cfg)
        source = self.module.code_for_node(raw) if raw is not None else ""
        return Autotune(tuple(configs), key, self._line(call), static, "" if static else source)

    def _config(self, expr: cst.BaseExpression) -> AutotuneConfig | None:
        if not isinstance(expr, cst.Call) or not (self._qualnames(expr) & _TRITON_CONFIG):
            return None
        try:
            kw_expr = self._arg(expr, "kwargs", 0)
            kwargs = self._literal(kw_expr) if kw_expr is not None else {}
            warps = self._arg(expr, "num_warps", 1)
            stages = self._arg(expr, "num_stages", 2)
            num_warps = self._literal(warps) if warps is not None else None
            num_stages = self._literal(stages) if stages is not None else None
        except (ValueError, SyntaxError, TypeError):
            return None
        if not isinstance(kwargs, dict):
            return None
        return AutotuneConfig(kwargs, num_warps, num_stages, self._line(expr))

    def _heuristics(self, call: cst.Call) -> list[str]:
        values = self._resolve(self._arg(call, "values", 0))
        if not isinstance(values, cst.Dict):
            return []
        names = []
        for el in values.elements:
            if isinstance(el, cst.DictElement):
                try:
                    names.append(str(self._literal(el.key)))
                except (ValueError, SyntaxError):
                    names.append(self.module.code_for_node(el.key))
        return names

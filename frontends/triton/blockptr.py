"""Block pointers on a Triton that removed them: ``tl.make_block_ptr`` kernels rewritten to pointer tensors.

Triton 3.9 refuses ``tl.make_block_ptr`` ("Block pointers have been removed in favor of the tensor descriptor
API"), while 3.6 to 3.8 compile it, and older public kernels (the fused-attention tutorial before 3.3, many
GEMMs) use it. Triton 3.6 lowers a block pointer to what a kernel would write by hand (its
``RewriteTensorPointer`` pass): the pointer tensor ``base + sum_d (offset_d + arange(0, block_d)) * stride_d``
broadcast over the block, masked by ``0 <= offset_d + arange(0, block_d) < shape_d`` on each dimension of
``boundary_check``, the offsets carried through loops as scalars that ``tl.advance`` adds to. This module
does that rewrite on the kernel's Python source, so the installed Triton compiles what 3.6 would have
compiled from it, and :func:`compatible` hands the frontend the rewritten kernel.

The rewritten kernel keeps the launch's ``num_stages``: 3.6 software-pipelines a block pointer's loop
loads as it does hand-written ones where it can prove their alignment (a GEMM over block pointers at three
stages: the same ``async_copy`` loop, and the same prediction, as its rewrite compiled by 3.9).

Handled: block pointers held in local variables of the kernel (made, advanced, loaded from and stored to in
the kernel's own body, through loops and branches), of any rank, with ``boundary_check`` (literal dimensions,
or expressions of the kernel's constexprs, as FlagGems' generated element-wise code names the stride order:
the mask is then a conditional expression on them, which Triton resolves at compile time) and
``padding_option``, and a pointer's ``.type.element_ty`` (its base pointer's element type). Anything else (a
block pointer passed to another function, returned, or put in a tuple) is refused with
:class:`BlockPointerError` (a :class:`~tilesight.errors.FrontendError`) naming the kernel, file and line.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import itertools
import linecache
import textwrap
from dataclasses import dataclass, field
from typing import Any

from tilesight.errors import FrontendError


class BlockPointerError(FrontendError):
    """A use of block pointers the rewrite does not cover, on a Triton that compiles none itself."""


# The names a block pointer's parts get: ``{var}{SUFFIX}{part}{dim}``
SUFFIX = "__bp_"
_PARTS = ("base", "shape", "stride", "off")
_MAKE_ARGS = ("base", "shape", "strides", "offsets", "block_shape", "order")


def removed_here() -> bool:
    """Whether the installed Triton compiles no block pointers (3.9 removed them)."""
    import triton

    major, minor = (int(x) for x in triton.__version__.split(".")[:2])
    return (major, minor) >= (3, 9)


def uses_block_pointers(jit_fn: Any) -> bool:
    """Whether the kernel's source calls ``make_block_ptr``."""
    return "make_block_ptr" in (getattr(jit_fn, "src", "") or "")


@dataclass
class _Pointer:
    rank: int
    block: list[ast.expr]  # the block shape, one constexpr expression a dimension


@dataclass
class _Rewriter(ast.NodeTransformer):
    kernel: str
    filename: str
    first_line: int
    tl_names: frozenset[str] = frozenset({"tl"})
    pointers: dict[str, _Pointer] = field(default_factory=dict)
    namespace: dict[str, Any] = field(default_factory=dict)  # the function's globals (its callees)
    callees: dict[str, Any] = field(default_factory=dict)  # name -> rewritten callee the new source calls

    # -- helpers -------------------------------------------------------------------------------------------
    def refuse(self, node: ast.AST, what: str) -> BlockPointerError:
        line = self.first_line + getattr(node, "lineno", 1) - 1
        return BlockPointerError(
            f"kernel {self.kernel!r}: {what}; block pointers (tl.make_block_ptr, removed in Triton 3.9) are "
            "rewritten to pointer tensors only where they stay in the kernel's own local variables",
            construct="tl.make_block_ptr",
            location=f"{self.filename}:{line}",
        )

    def is_tl(self, node: ast.expr, name: str) -> bool:
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == name
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in self.tl_names
        )

    def part(self, var: str, part: str, dim: int) -> ast.Name:
        return ast.Name(id=_name(var, part, dim), ctx=ast.Load())

    def assign(self, var: str, part: str, dim: int, value: ast.expr, like: ast.AST) -> ast.Assign:
        target = ast.Name(id=_name(var, part, dim), ctx=ast.Store())
        return ast.copy_location(ast.Assign(targets=[target], value=value), like)

    def elements(self, node: ast.expr, what: str, rank: int | None, at: ast.AST) -> list[ast.expr]:
        """A block pointer's per-dimension values: a literal tuple or list of its rank, or, for a rank-1
        pointer (or a shape, which sets the rank), one expression (``tl.advance(p, (i * BLOCK))``)."""
        if isinstance(node, ast.Tuple | ast.List) and (rank is None or len(node.elts) == rank):
            return list(node.elts)
        if rank in (None, 1) and not isinstance(node, ast.Tuple | ast.List | ast.Starred):
            return [node]
        raise self.refuse(at, f"{what} of a block pointer is not a literal tuple of its rank")

    def make_args(self, call: ast.Call) -> dict[str, ast.expr]:
        args = dict(zip(_MAKE_ARGS, call.args, strict=False))
        for kw in call.keywords:
            if kw.arg is None:
                raise self.refuse(call, "tl.make_block_ptr(**kwargs)")
            args[kw.arg] = kw.value
        missing = [a for a in _MAKE_ARGS[:5] if a not in args]
        if missing:
            raise self.refuse(call, f"tl.make_block_ptr without {', '.join(missing)}")
        return args

    def pointer_of(self, node: ast.expr, at: ast.AST) -> tuple[str, _Pointer]:
        if isinstance(node, ast.Name) and node.id in self.pointers:
            return node.id, self.pointers[node.id]
        raise self.refuse(at, "a block pointer that is not one of the kernel's local variables")

    def index(self, name: str, p: _Pointer, dim: int) -> ast.expr:
        """``(off_d + tl.arange(0, block_d))`` broadcast to the block's rank along ``dim``."""
        language = ast.Name(id=min(self.tl_names), ctx=ast.Load())
        arange = ast.Attribute(value=language, attr="arange", ctx=ast.Load())
        rng = ast.Call(func=arange, args=[ast.Constant(0), p.block[dim]], keywords=[])
        idx: ast.expr = ast.BinOp(left=self.part(name, "off", dim), op=ast.Add(), right=rng)
        if p.rank > 1:
            slots = [ast.Constant(None)] * p.rank
            slots[dim] = ast.Slice()
            idx = ast.Subscript(value=idx, slice=ast.Tuple(elts=slots, ctx=ast.Load()), ctx=ast.Load())
        return idx

    def pointers_and_mask(
        self, name: str, p: _Pointer, checks: list[int | ast.expr], at: ast.AST
    ) -> tuple[ast.expr, ast.expr | None, list[tuple[ast.expr | None, bool]]]:
        """The pointer tensor, its mask (None: unmasked) and, where ``boundary_check`` names dimensions by
        constexpr expressions (FlagGems' ``boundary_check=(in0_stride_order0,)``), the cases the mask chooses
        between, ``(test, masked)`` each (the mask is then a conditional expression on those tests, which
        Triton resolves at compile time; the last case is its ``else``); no cases where every dimension is
        a literal."""
        ptr: ast.expr = self.part(name, "base", 0)
        for d in range(p.rank):
            step = ast.BinOp(left=self.index(name, p, d), op=ast.Mult(), right=self.part(name, "stride", d))
            ptr = ast.BinOp(left=ptr, op=ast.Add(), right=step)
        literal = [c for c in checks if isinstance(c, int)]
        named = [c for c in checks if not isinstance(c, int)]
        for d in literal:
            if not 0 <= d < p.rank:
                raise self.refuse(at, f"boundary_check names dimension {d} of a rank-{p.rank} block pointer")
        fixed = sorted(set(literal))
        open_dims = [d for d in range(p.rank) if d not in fixed] if named else []
        cases: list[tuple[ast.expr | None, bool]] = []
        masks: list[ast.expr | None] = []
        for chosen in itertools.product((True, False), repeat=len(open_dims)):
            dims = sorted(fixed + [d for d, on in zip(open_dims, chosen, strict=True) if on])
            masks.append(self.mask_of(name, p, dims))
            # dimension d is checked when one of the named entries equals d (a constexpr comparison)
            tests = []
            for d, on in zip(open_dims, chosen, strict=True):
                hit: ast.expr = ast.Compare(left=named[0], ops=[ast.Eq()], comparators=[ast.Constant(d)])
                for e in named[1:]:
                    more = ast.Compare(left=e, ops=[ast.Eq()], comparators=[ast.Constant(d)])
                    hit = ast.BinOp(left=hit, op=ast.BitOr(), right=more)
                tests.append(ast.Compare(left=hit, ops=[ast.Eq()], comparators=[ast.Constant(on)]))
            test = tests[0] if tests else None
            for t in tests[1:]:
                test = ast.BinOp(left=test, op=ast.BitAnd(), right=t)
            cases.append((test, masks[-1] is not None))
        if len(masks) == 1:
            return ptr, masks[0], []
        mask: ast.expr = masks[-1] if masks[-1] is not None else ast.Constant(None)
        for (test, _), m in zip(reversed(cases[:-1]), reversed(masks[:-1]), strict=True):
            mask = ast.IfExp(test=test, body=m if m is not None else ast.Constant(None), orelse=mask)
        return ptr, mask, cases

    def mask_of(self, name: str, p: _Pointer, dims: list[int]) -> ast.expr | None:
        """``0 <= off_d + arange(0, block_d) < shape_d`` over ``dims``, None for none."""
        mask: ast.expr | None = None
        for d in dims:
            idx, shape = self.index(name, p, d), self.part(name, "shape", d)
            lo = ast.Compare(left=idx, ops=[ast.GtE()], comparators=[ast.Constant(0)])
            hi = ast.Compare(left=idx, ops=[ast.Lt()], comparators=[shape])
            both = ast.BinOp(left=lo, op=ast.BitAnd(), right=hi)
            mask = both if mask is None else ast.BinOp(left=mask, op=ast.BitAnd(), right=both)
        return mask

    @staticmethod
    def chosen(cases: list[tuple[ast.expr | None, bool]], value: ast.expr) -> ast.expr:
        """``value`` in the cases that mask, None in the others, as the mask's own static choice."""
        out: ast.expr = value if cases[-1][1] else ast.Constant(None)
        for test, masked in reversed(cases[:-1]):
            out = ast.IfExp(test=test, body=value if masked else ast.Constant(None), orelse=out)
        return out

    def checks_of(self, call: ast.Call) -> tuple[list[int | ast.expr], ast.expr | None, list[ast.keyword]]:
        """(boundary_check dimensions, literal or constexpr expressions, padding value, the other keywords)
        of a load or store."""
        checks: list[int | ast.expr] = []
        padding: ast.expr | None = None
        rest = []
        for kw in call.keywords:
            if kw.arg == "boundary_check":
                value = kw.value
                entries = list(value.elts) if isinstance(value, ast.Tuple | ast.List) else [value]
                if any(isinstance(e, ast.Starred) for e in entries):
                    raise self.refuse(call, "a boundary_check that is not a tuple of dimensions")
                # literal dimensions, or expressions of the kernel's constexprs (a stride order parameter)
                checks = [_literal_int(e) if _literal_int(e) is not None else self.visit(e) for e in entries]
            elif kw.arg == "padding_option":
                if not isinstance(kw.value, ast.Constant) or kw.value.value not in ("", "zero", "nan"):
                    raise self.refuse(call, "a padding_option other than 'zero' or 'nan'")
                if kw.value.value == "nan":
                    padding = ast.Call(func=ast.Name(id="float", ctx=ast.Load()), args=[ast.Constant("nan")],
                                       keywords=[])  # fmt: skip
                elif kw.value.value == "zero":
                    padding = ast.Constant(0.0)
            else:
                rest.append(kw)
        return checks, padding, rest

    # -- statements ----------------------------------------------------------------------------------------
    def visit_Assign(self, node: ast.Assign) -> Any:
        value = node.value
        if self.is_tl(value, "make_block_ptr") or self.is_tl(value, "advance"):
            if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
                raise self.refuse(node, "a block pointer assigned to anything but one local variable")
            target = node.targets[0].id
            assert isinstance(value, ast.Call)
            if self.is_tl(value, "make_block_ptr"):
                args = self.make_args(value)
                shape = self.elements(args["shape"], "the shape", None, node)
                rank = len(shape)
                strides = self.elements(args["strides"], "the strides", rank, node)
                offsets = self.elements(args["offsets"], "the offsets", rank, node)
                block = self.elements(args["block_shape"], "the block shape", rank, node)
                self.pointers[target] = _Pointer(rank, [self.visit(b) for b in block])
                given = {"base": [args["base"]], "shape": shape, "stride": strides, "off": offsets}
                return [
                    self.assign(target, part, d, self.visit(given[part][d]), node) for part, d in _parts(rank)
                ]
            if len(value.args) != 2 or value.keywords:
                raise self.refuse(node, "tl.advance(ptr, offsets) called otherwise")
            source, p = self.pointer_of(value.args[0], node)
            steps = self.elements(value.args[1], "the advance", p.rank, node)
            out = []
            if target != source:
                if target in self.pointers and self.pointers[target].rank != p.rank:
                    raise self.refuse(node, "a variable holding block pointers of two ranks")
                self.pointers[target] = p
                for part, d in _parts(p.rank):
                    if part != "off":
                        out.append(self.assign(target, part, d, self.part(source, part, d), node))
            for d in range(p.rank):
                moved = ast.BinOp(left=self.part(source, "off", d), op=ast.Add(), right=self.visit(steps[d]))
                out.append(self.assign(target, "off", d, moved, node))
            return out
        if isinstance(value, ast.Name) and value.id in self.pointers:
            raise self.refuse(node, "a block pointer copied to another variable")
        return self.generic_visit(node)

    # -- expressions ---------------------------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> Any:
        if self.is_tl(node, "load") and node.args and self._is_pointer(node.args[0]):
            name, p = self.pointer_of(node.args[0], node)
            checks, padding, rest = self.checks_of(node)
            ptr, mask, cases = self.pointers_and_mask(name, p, checks, node)
            keywords = [self.visit(kw) for kw in rest]
            if mask is not None:
                keywords.append(ast.keyword(arg="mask", value=mask))
                if padding is not None:
                    other = self.chosen(cases, padding) if cases else padding
                    keywords.append(ast.keyword(arg="other", value=other))
            return ast.copy_location(ast.Call(func=node.func, args=[ptr], keywords=keywords), node)
        if self.is_tl(node, "store") and node.args and self._is_pointer(node.args[0]):
            name, p = self.pointer_of(node.args[0], node)
            if len(node.args) < 2:
                raise self.refuse(node, "tl.store(ptr) without a value")
            checks, _, rest = self.checks_of(node)
            ptr, mask, _ = self.pointers_and_mask(name, p, checks, node)
            keywords = [self.visit(kw) for kw in rest]
            if mask is not None:
                keywords.append(ast.keyword(arg="mask", value=mask))
            args = [ptr, self.visit(node.args[1]), *[self.visit(a) for a in node.args[2:]]]
            return ast.copy_location(ast.Call(func=node.func, args=args, keywords=keywords), node)
        if self.is_tl(node, "make_block_ptr") or self.is_tl(node, "advance"):
            raise self.refuse(node, f"tl.{node.func.attr} used inside an expression")  # type: ignore[attr-defined]
        handed = [*node.args, *(k.value for k in node.keywords)]
        if any(self._is_pointer(a) for a in handed):
            return self.pointer_call(node)
        return self.generic_visit(node)

    def pointer_call(self, node: ast.Call) -> ast.Call:
        """A call handing block pointers to another ``@triton.jit`` function: the callee rewritten to take
        each pointer's parts (and its block shape, as constexprs) in its place, called with them."""
        callee = self.namespace.get(node.func.id) if isinstance(node.func, ast.Name) else None
        if callee is None or not hasattr(callee, "params") or not hasattr(callee, "src"):
            raise self.refuse(node, "a block pointer handed to something other than a @triton.jit function")
        names = [p.name for p in callee.params]
        bound: dict[str, ast.expr] = dict(zip(names, node.args, strict=False))
        for kw in node.keywords:
            if kw.arg is None or kw.arg not in names:
                raise self.refuse(node, f"a call of {node.func.id} with arguments its parameters do not name")
            bound[kw.arg] = kw.value
        carried = tuple((n, self.pointers[v.id].rank) for n, v in bound.items() if self._is_pointer(v))
        rewritten = _rewrite_jit(callee, carried)
        alias = f"{node.func.id}{SUFFIX}{'_'.join(f'{n}{r}' for n, r in carried)}"
        self.callees[alias] = rewritten
        keywords: list[ast.keyword] = []
        for name, value in bound.items():
            if not self._is_pointer(value):
                keywords.append(ast.keyword(arg=name, value=self.visit(value)))
                continue
            var, p = self.pointer_of(value, node)
            for part, d in _parts(p.rank):
                keywords.append(ast.keyword(arg=_name(name, part, d), value=self.part(var, part, d)))
            for d in range(p.rank):
                keywords.append(ast.keyword(arg=_name(name, "block", d), value=p.block[d]))
        func = ast.copy_location(ast.Name(id=alias, ctx=ast.Load()), node.func)
        return ast.copy_location(ast.Call(func=func, args=[], keywords=keywords), node)

    def visit_Attribute(self, node: ast.Attribute) -> Any:
        # ``p.type.element_ty``: the block's element type, the base pointer's (FlagGems casts each value it
        # stores to it)
        inner = node.value
        if (
            node.attr == "element_ty"
            and isinstance(inner, ast.Attribute)
            and inner.attr == "type"
            and self._is_pointer(inner.value)
        ):
            base = self.part(inner.value.id, "base", 0)  # type: ignore[attr-defined]
            typ = ast.Attribute(value=base, attr="type", ctx=ast.Load())
            return ast.copy_location(ast.Attribute(value=typ, attr="element_ty", ctx=node.ctx), node)
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> Any:
        if isinstance(node.ctx, ast.Load) and node.id in self.pointers:
            raise self.refuse(node, f"{node.id!r} used other than by tl.load, tl.store, tl.advance")
        return node

    def _is_pointer(self, node: ast.expr) -> bool:
        return isinstance(node, ast.Name) and node.id in self.pointers


def rewrite_source(
    src: str,
    kernel: str,
    filename: str = "<kernel>",
    first_line: int = 1,
    tl_names: frozenset[str] = frozenset({"tl"}),
) -> str:
    """The kernel's source (a ``def``, decorators stripped) with its block pointers as pointer tensors (the
    source itself where it makes none); ``tl_names``: the names ``triton.language`` goes by in the kernel's
    module. Raises :class:`BlockPointerError` for a use the rewrite does not cover."""
    out, _ = _rewrite(src, kernel, filename, first_line, tl_names, {}, ())
    return out


def _rewrite(
    src: str,
    kernel: str,
    filename: str,
    first_line: int,
    tl_names: frozenset[str],
    namespace: dict[str, Any],
    carried: tuple[tuple[str, int], ...],
) -> tuple[str, dict[str, Any]]:
    """:func:`rewrite_source` of a function whose parameters ``carried`` (name, rank) are block pointers its
    caller hands it: each becomes the pointer's parts and, as constexprs, its block shape. Returns the source
    and the rewritten callees it calls (name -> JITFunction)."""
    tree = ast.parse(textwrap.dedent(src))
    fn = tree.body[0]
    if not isinstance(fn, ast.FunctionDef):
        raise BlockPointerError(f"kernel {kernel!r}: the source is no function definition", construct="def")
    fn.decorator_list = []
    rewriter = _Rewriter(
        kernel=kernel, filename=filename, first_line=first_line, tl_names=tl_names, namespace=namespace
    )
    language = ast.Name(id=min(tl_names), ctx=ast.Load())
    constexpr = ast.Attribute(value=language, attr="constexpr", ctx=ast.Load())
    for name, rank in carried:
        at = next((i for i, a in enumerate(fn.args.args) if a.arg == name), None)
        if at is None:
            raise BlockPointerError(f"{kernel!r} has no parameter {name!r}", construct="tl.make_block_ptr")
        params = [ast.arg(arg=_name(name, part, d)) for part, d in _parts(rank)]
        params += [ast.arg(arg=_name(name, "block", d), annotation=constexpr) for d in range(rank)]
        fn.args.args[at : at + 1] = params
        block = [ast.Name(id=_name(name, "block", d), ctx=ast.Load()) for d in range(rank)]
        rewriter.pointers[name] = _Pointer(rank, block)
    # a statement may become several (a block pointer's parts); NodeTransformer splices the lists of nested
    # blocks itself
    fn.body = [s for stmt in fn.body for s in _as_list(rewriter.visit(stmt))]
    if not rewriter.pointers:
        return src, {}
    ast.fix_missing_locations(tree)
    return ast.unparse(tree) + "\n", rewriter.callees


def _literal_int(node: ast.expr) -> int | None:
    """The integer a literal stands for; None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return int(node.value)
    return None


def _name(var: str, part: str, dim: int) -> str:
    """The variable holding part ``part`` (``base``, ``shape``, ``stride``, ``off``, ``block``) of block
    pointer ``var`` along ``dim``."""
    return f"{var}{SUFFIX}{part}{dim}"


def _parts(rank: int) -> list[tuple[str, int]]:
    """A rank-``rank`` block pointer's parts, ``(part, dim)``, in the order a rewritten callee takes them."""
    return [("base", 0), *((part, d) for d in range(rank) for part in ("shape", "stride", "off"))]


def _as_list(x: Any) -> list:
    if x is None:
        return []
    return x if isinstance(x, list) else [x]


@functools.lru_cache(maxsize=64)
def _rewrite_jit(jit_fn: Any, carried: tuple[tuple[str, int], ...] = ()) -> Any:
    """``jit_fn`` rewritten (:func:`_rewrite`) as a new ``@triton.jit`` function in its module's namespace
    (with the rewritten callees it calls), or None where it makes and receives no block pointer."""
    import triton
    import triton.language as language

    fn = jit_fn.fn
    code = fn.__code__
    aliases = frozenset(name for name, v in fn.__globals__.items() if v is language) or frozenset({"tl"})
    src, callees = _rewrite(
        jit_fn.src, fn.__name__, code.co_filename, code.co_firstlineno, aliases, fn.__globals__, carried
    )
    if src == jit_fn.src and not carried:
        return None
    digest = hashlib.sha1(src.encode()).hexdigest()[:12]
    filename = f"<tilesight-blockptr-{fn.__name__}-{digest}>"
    # inspect.getsource (which triton.jit calls) reads the source through linecache
    linecache.cache[filename] = (len(src), None, src.splitlines(keepends=True), filename)
    namespace = {**fn.__globals__, **callees}
    scope: dict[str, Any] = {}
    exec(compile(src, filename, "exec"), namespace, scope)  # noqa: S102 - the kernel's own code
    new = scope[fn.__name__]  # its globals are the namespace above; tl.constexpr annotations kept
    new.__module__ = fn.__module__
    new.__qualname__ = fn.__qualname__
    # the decorator's options (do_not_specialize, noinline, ...) as the kernel was given them
    options = {
        name: getattr(jit_fn, name)
        for name in ("do_not_specialize", "do_not_specialize_on_alignment", "debug", "noinline")
        if getattr(jit_fn, name, None)
    }
    return triton.jit(new, **options)


def _rewritten(jit_fn: Any) -> Any:
    """The kernel rewritten, or None where it makes no block pointer."""
    return _rewrite_jit(jit_fn, ())


def compatible(jit_fn: Any) -> tuple[Any, str | None]:
    """``jit_fn`` as the installed Triton can compile it: rewritten (:func:`rewrite_source`) where it makes
    block pointers and this Triton removed them, with a note saying so; itself and None otherwise."""
    if not uses_block_pointers(jit_fn) or not removed_here():
        return jit_fn, None
    rewritten = _rewritten(jit_fn)
    if rewritten is None:  # the name appears, but no block pointer is made (a comment, another helper's)
        return jit_fn, None
    note = (
        "block pointers (tl.make_block_ptr, removed in Triton 3.9) rewritten to the pointer tensors and "
        "masks Triton 3.6 lowers them to"
    )
    return rewritten, note

"""Parse Triton's printed TTIR into a small op tree (text, so one parser serves Triton 3.6 to 3.9).

Each :class:`Op` keeps its name, result and operand SSA names, its result type text, its nested regions and
its source location resolved to ``file:line`` through the module's ``#loc`` aliases.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

_LOC_DEF = re.compile(r"^(#loc\d*) = loc\((.*)\)\s*$")
_TRAILING_LOC = re.compile(r"\s+loc\((.*)\)\s*$")
_RESULTS = re.compile(r"^((?:%[\w.$-]+(?::\d+)?)(?:, %[\w.$-]+)*) = (.*)$")
_OPNAME = re.compile(r'^"?([a-z_][\w.]*)"?(.*)$')
_SSA = re.compile(r"%[\w.$-]+(?:#\d+)?")
_TENSOR = re.compile(r"tensor<((?:\d+x)*)((?:!tt\.ptr<[^>]+>)|[a-zA-Z][\w]*)")
_AXIS = re.compile(r"axis = (\d+)")
_FUNC_ARG = re.compile(r"(%[\w.$-]+): ((?:!tt\.[a-z]+<(?:[^<>]|<[^<>]*(?:<[^<>]*>)?[^<>]*>)*>)|[\w]+)")


# Op.name of the pseudo-op marking the start of a block (``^bb1:``) inside a region; its text is the label.
BLOCK_LABEL = "^block"


@dataclass
class Op:
    name: str
    results: list[str]
    operands: list[str]
    text: str  # the op's line without its result names and location
    rtype: str  # result type text ("" when the op yields nothing)
    loc: str | None = None
    regions: list[list[Op]] = field(default_factory=list)
    block_args: list[list[str]] = field(default_factory=list)
    where: str | None = None  # "file:line:col": tells apart two ops of one source line
    # the tables' line key: ``loc``, or for an op of an inlined helper "helper.py:line@kernel.py:line"
    # (``loc`` is its call site, shared by all the helper's ops); ``where`` chains the same way, with columns
    line: str | None = None
    # an op with regions: the attribute dictionary printed after them (``{tt.num_stages = 4 : i32}``)
    attrs: str = ""

    @property
    def keys(self) -> frozenset[str]:
        """The keys tables of per-location facts store this op's facts under: ``where`` and ``line``."""
        return frozenset({self.where, self.line} - {None})


@dataclass
class Function:
    name: str
    args: list[tuple[str, str]]  # (ssa name, type)
    body: list[Op]


def walk_ops(ops: list[Op]) -> Iterator[Op]:
    """Every op of ``ops`` and of their regions, depth first in program order."""
    for op in ops:
        yield op
        for region in op.regions:
            yield from walk_ops(region)


@functools.lru_cache(maxsize=4096)
def tensor_type(t: str) -> tuple[tuple[int, ...], str] | None:
    """(shape, element type) of ``tensor<128x64xf16>``; None for a scalar type."""
    m = _TENSOR.search(t)
    if not m:
        return None
    dims = tuple(int(d) for d in m.group(1).split("x") if d)
    return dims, m.group(2)


def op_axis(text: str) -> int | None:
    """The ``axis = N`` attribute in an op's text (``tt.reduce``, ``tt.expand_dims``, ``tt.gather``); None
    where it has none."""
    m = _AXIS.search(text)
    return int(m.group(1)) if m else None


def _split_results(s: str) -> list[str]:
    out: list[str] = []
    for part in s.split(", "):
        if ":" in part:
            base, n = part.split(":")
            out.extend(f"{base}#{i}" for i in range(int(n)))
        else:
            out.append(part)
    return out


def _result_type(name: str, rest: str) -> str:
    if " -> " in rest:
        return rest.rsplit(" -> ", 1)[1].rstrip(" {").strip()
    if name in (
        "arith.truncf",
        "arith.extf",
        "arith.extsi",
        "arith.extui",
        "arith.trunci",
        "arith.sitofp",
        "arith.fptosi",
        "arith.uitofp",
        "arith.fptoui",
        "arith.index_cast",
        "arith.bitcast",
        "tt.fp_to_fp",
    ):
        if " to " in rest:
            return rest.rsplit(" to ", 1)[1].strip()
    if " : " in rest:
        return rest.rsplit(" : ", 1)[1].strip()
    return ""


class _LocTable:
    def __init__(self, defs: dict[str, str]) -> None:
        self.defs = defs

    def resolve(
        self, text: str | None, depth: int = 0, column: bool = False, chain: bool = False
    ) -> str | None:
        """``file:line`` of a location (``file:line:col`` with ``column``). An op of an inlined
        ``@triton.jit`` helper stands at its call site in the kernel; with ``chain`` its place in the helper
        comes first, ``helper.py:12@kernel.py:97``, so that a helper's ops (and one helper line at two call
        sites) keep apart in the tables keyed by it."""
        if text is None or depth > 32:
            return None
        text = text.strip()
        if text.startswith("#loc"):
            return self.resolve(self.defs.get(text), depth + 1, column, chain)
        m = re.match(r'^"([^"]+)":(\d+):(\d+)', text)
        if m:
            where = f"{m.group(1).rsplit('/', 1)[-1]}:{m.group(2)}"
            return f"{where}:{m.group(3)}" if column else where
        m = re.match(r"^callsite\((\S+) at (\S+)\)", text)
        if m:
            caller = self.resolve(m.group(2), depth + 1, column, chain)
            callee = self.resolve(m.group(1), depth + 1, column, chain) if chain else None
            return f"{callee}@{caller}" if callee and caller else caller
        m = re.match(r'^"[^"]*"\((.*)\)$', text)
        if m:
            return self.resolve(m.group(1), depth + 1, column, chain)
        m = re.match(r"^fused(?:<[^>]*>)?\[([^,\]]+)", text)
        if m:
            return self.resolve(m.group(1), depth + 1, column, chain)
        return None


def _place(op: Op, locs: _LocTable, loc_text: str | None) -> None:
    """Set ``op``'s three location fields from its ``loc(...)`` text: ``loc`` (the kernel's ``file:line``,
    what errors name), and the table keys ``where`` and ``line`` (chained through inlined helpers)."""
    op.loc = locs.resolve(loc_text)
    op.where = locs.resolve(loc_text, column=True, chain=True)
    op.line = locs.resolve(loc_text, chain=True)


def depends_on(
    value: str, targets: frozenset[str], defs: Mapping[str, Op], seen: set[str] | None = None
) -> bool:
    """Whether SSA ``value`` is computed from any of ``targets``, walking operands through ``defs`` (result
    name -> defining op). ``seen`` may be shared between calls that ask about the same targets."""
    seen = set() if seen is None else seen
    stack = [value]
    while stack:
        v = stack.pop()
        if v in targets:
            return True
        if v in seen:
            continue
        seen.add(v)
        op = defs.get(v)
        if op is not None:
            stack.extend(op.operands)
    return False


def at_op(table: Mapping[str, int], op: Op) -> int | None:
    """``table``'s entry for ``op``: by "file:line:col" where the table has it, else by "file:line" (both
    chained through the call sites of inlined helpers: :attr:`Op.keys`)."""
    if op.where is not None and op.where in table:
        return table[op.where]
    return table.get(op.line) if op.line is not None else None


def located(op: Op, locs: frozenset[str]) -> bool:
    """Whether ``op`` stands at one of ``locs``, keyed as :func:`at_op` reads a table ("file:line:col" or
    "file:line")."""
    return (op.where is not None and op.where in locs) or (op.line is not None and op.line in locs)


@functools.lru_cache(maxsize=256)
def parse_module(text: str) -> Function:
    """The public ``tt.func`` of a printed TTIR module (cached by text; callers must not mutate it)."""
    lines = text.splitlines()
    defs: dict[str, str] = {}
    for line in lines:
        m = _LOC_DEF.match(line.strip())
        if m:
            defs[m.group(1)] = m.group(2)
    locs = _LocTable(defs)
    func: Function | None = None
    stack: list[tuple[Op | None, list[Op]]] = []
    last: Op | None = None
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#") or line.startswith("module"):
            continue
        if line.startswith("^bb"):  # a block label of unstructured control flow (cf.cond_br's targets)
            if func is not None and stack:
                stack[-1][1].append(Op(BLOCK_LABEL, [], [], line.split(":", 1)[0], ""))
            continue
        loc_text = None
        m = _TRAILING_LOC.search(line)
        if m:
            loc_text = m.group(1)
            line = line[: m.start()]
        if line.startswith("tt.func"):
            name = re.search(r"@([\w$.]+)", line)
            args = [(a, t) for a, t in _FUNC_ARG.findall(line.split("(", 1)[1])] if "(" in line else []
            func = Function(name.group(1) if name else "?", args, [])
            stack = [(None, func.body)]
            continue
        if line.startswith("}"):
            if len(stack) <= 1:
                continue
            owner, _ = stack.pop()
            if owner is not None:
                if loc_text and owner.loc is None:  # an op with regions has its location after them
                    _place(owner, locs, loc_text)
                tail = line.lstrip("})").strip()
                if tail.startswith("{") and tail.endswith("}"):
                    owner.attrs = tail
                if tail.startswith(":") and not owner.rtype:
                    owner.rtype = _result_type(owner.name, tail)
                    owner.text += " " + tail
                if line.rstrip().endswith("{"):
                    region: list[Op] = []
                    owner.regions.append(region)
                    owner.block_args.append([])
                    stack.append((owner, region))
            continue
        if func is None:
            continue
        m = _RESULTS.match(line)
        results, rest = (_split_results(m.group(1)), m.group(2)) if m else ([], line)
        m2 = _OPNAME.match(rest)
        if not m2:
            continue
        name, tail = m2.group(1), m2.group(2)
        opens = tail.rstrip().endswith("{")
        head = tail.split(" iter_args(")[0] if name == "scf.for" else tail
        operands = _SSA.findall(head.split(" : ")[0] if not opens else head)
        rtype = "" if tail.rstrip().endswith("({") else _result_type(name, tail.rstrip(" {"))
        op = Op(name, results, operands, tail, rtype)
        _place(op, locs, loc_text)
        if name == "scf.for":
            _parse_for(op, tail)
        stack[-1][1].append(op)
        last = op
        if opens:
            region = []
            op.regions.append(region)
            if name != "scf.for":
                op.block_args.append([])
            stack.append((op, region))
    del last
    if func is None:
        raise ValueError("no tt.func in the module")
    return func


def _parse_for(op: Op, tail: str) -> None:
    m = re.match(r"\s*(%[\w.$-]+) = (%[\w.$-]+) to (%[\w.$-]+) step (%[\w.$-]+)", tail)
    if not m:
        raise ValueError(f"cannot read scf.for bounds from {tail[:80]!r}")
    iv, lb, ub, step = m.groups()
    inits: list[str] = []
    args = [iv]
    it = re.search(r"iter_args\((.*?)\) ->", tail)
    if it:
        for pair in it.group(1).split(", "):
            a, v = pair.split(" = ")
            args.append(a.strip())
            inits.append(v.strip())
    op.operands = [lb, ub, step, *inits]
    op.block_args.append(args)
    m2 = re.search(r"\) -> \((.*)\)\s*:", tail) or re.search(r"\) -> ([^:]*?)\s*:", tail)
    op.rtype = m2.group(1) if m2 else ""


# ``scf.while`` conditions of a counted loop: the counter below (or, unsigned, below) a bound
_COUNTED_PREDICATES = frozenset({"slt", "ult"})


def counted_while(op: Op) -> tuple[Op, str] | None:
    """An ``scf.while`` that is a counted loop written with ``while``: ``off = 0; while off < n: ...; off +=
    step`` with ``n`` and ``step`` defined before the loop. Returns the ``scf.for`` it is (the counter as its
    induction variable from its initial value to the bound by the step, the other carried values as its
    iter_args, the body without the counter's update yielded) and the name of the while's result the
    counter leaves, or None for any other ``while`` (a data-dependent one, a spin lock)."""
    if len(op.regions) != 2 or len(op.operands) % 2 or not op.operands:
        return None
    args, inits = op.operands[0::2], op.operands[1::2]
    before, after = op.regions
    if len(before) != 2 or before[0].name != "arith.cmpi" or before[1].name != "scf.condition":
        return None
    cmp, cond = before
    predicate = cmp.text.split()[0].rstrip(",") if cmp.text.split() else ""  # " slt, %a, %b : i32"
    if (
        predicate not in _COUNTED_PREDICATES
        or len(cmp.operands) != 2
        or cond.operands[:1] != cmp.results
        or cond.operands[1:] != args
        or cmp.operands[0] not in args
        or cmp.operands[1] in args
        or len(op.results) != len(args)
    ):
        return None
    k = args.index(cmp.operands[0])
    ops = [o for o in after if o.name != BLOCK_LABEL]
    if not ops or ops[-1].name != "scf.yield" or len(ops[-1].operands) != len(args):
        return None
    inside = {r for o in walk_ops(after) for r in o.results} | set(args)
    update = next((o for o in ops if ops[-1].operands[k] in o.results), None)
    if update is None or update.name != "arith.addi" or args[k] not in update.operands:
        return None
    step = next((v for v in update.operands if v != args[k]), args[k])
    if step in inside:
        return None
    others = [i for i in range(len(args)) if i != k]
    yield_op = Op(
        name="scf.yield",
        results=[],
        operands=[ops[-1].operands[i] for i in others],
        text=ops[-1].text,
        rtype="",
        loc=ops[-1].loc,
        where=ops[-1].where,
        line=ops[-1].line,
    )
    loop = Op(
        name="scf.for",
        results=[op.results[i] for i in others],
        operands=[inits[k], cmp.operands[1], step, *(inits[i] for i in others)],
        text=op.text,
        rtype=op.rtype,
        loc=op.loc,
        regions=[[*ops[:-1], yield_op]],
        block_args=[[args[k], *(args[i] for i in others)]],
        where=op.where,
        line=op.line,
    )
    return loop, op.results[k]

"""Reading printed TTIR / TTGIR: op locations, including those of inlined helper functions."""

from tilesight.frontends.triton.ir import at_op, located, parse_module

MODULE = """#loc1 = loc("/src/kernel.py":10:4)
#loc2 = loc("/src/helper.py":46:13)
#loc3 = loc("/src/helper.py":58:15)
#loc4 = loc("/src/kernel.py":97:29)
#loc5 = loc(callsite(#loc2 at #loc4))
#loc6 = loc(callsite(#loc3 at #loc4))
module {
  tt.func public @k() {
    %a = arith.constant 1 : i32 loc(#loc1)
    %b = arith.addi %a, %a : i32 loc(#loc5)
    %c = arith.muli %b, %b : i32 loc(#loc6)
    %d = "tt.reduce"(%c) <{axis = 0 : i32}> ({
    ^bb0(%x: i32 loc(#loc1), %y: i32 loc(#loc1)):
      %s = arith.addi %x, %y : i32 loc(#loc5)
      tt.reduce.return %s : i32 loc(#loc5)
    }) : (tensor<4xi32>) -> i32 loc(#loc6)
    tt.return loc(#loc1)
  } loc(#loc1)
} loc(#loc1)
"""


def test_an_inlined_helpers_ops_stand_at_the_call_site_and_keep_apart():
    a, b, c, d, _ = parse_module(MODULE).body
    assert (a.loc, a.where, a.line) == ("kernel.py:10", "kernel.py:10:4", "kernel.py:10")
    # both helper ops are at the kernel's line 97 (what an error names), but each has its own keys
    assert b.loc == c.loc == "kernel.py:97"
    assert b.where == "helper.py:46:13@kernel.py:97:29" and b.line == "helper.py:46@kernel.py:97"
    assert c.line == "helper.py:58@kernel.py:97" and b.keys.isdisjoint(c.keys)
    # a table of facts about the first helper op says nothing of the second (no fallback to line 97)
    table = {k: 2 for k in b.keys}
    assert at_op(table, b) == 2 and at_op(table, c) is None
    assert located(b, frozenset({"helper.py:46@kernel.py:97"})) and not located(c, frozenset(table))


def test_an_op_with_a_region_takes_the_location_after_it():
    d = parse_module(MODULE).body[3]
    assert d.name == "tt.reduce" and d.loc == "kernel.py:97"
    assert d.where == "helper.py:58:15@kernel.py:97:29" and d.line == "helper.py:58@kernel.py:97"


MMA = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA"
# a 64-row tile on 8 warps: the P V dot's layout splits the columns (#mma), the score dot's wraps the
# rows (#mma1)
SPLIT_AND_WRAPPED = (
    f"#mma = {MMA} = [4, 2], instrShape = [16, 32, 16]}}>\n"
    f"#mma1 = {MMA} = [8, 1], instrShape = [16, 32, 16]}}>\n"
)


def _ttgir(layouts: str, locs: tuple[str, ...], ops: str) -> str:
    """A TTGIR module: ``layouts``, then ``#loc1``, ``#loc2`` ... at the "line:col" of ``locs`` in
    /src/k.py, then one function of ``ops`` (one op a line, each with its ``loc(#locN)``)."""
    loc_lines = "".join(f'#loc{i} = loc("/src/k.py":{at})\n' for i, at in enumerate(locs, 1))
    body = "".join(f"    {op.strip()}\n" for op in ops.strip().splitlines())
    return (
        f"{layouts}{loc_lines}module {{\n  tt.func public @k() {{\n{body}    tt.return loc(#loc1)\n"
        "  } loc(#loc1)\n} loc(#loc1)\n"
    )


def test_element_replication_reads_a_wrapped_mma_layout():
    from tilesight.frontends.triton.layouts import element_replication

    layout = f"#mma = {MMA} = [8, 1], instrShape = [16, 64, 16]}}>\n"
    ops = """
    %a = arith.mulf %s, %s : tensor<64x64xf32, #mma> loc(#loc1)
    %b = arith.mulf %t, %t : tensor<128x64xf32, #mma> loc(#loc2)
    %c = arith.mulf %r, %r : tensor<64x1xf32, #mma> loc(#loc3)
    """
    ttgir = _ttgir(layout, ("10:4", "11:4", "12:4"), ops)
    # 8 warps x 16 rows = 128 rows over a 64-row tile: two copies; a 128-row tile has one; a broadcast column
    # vector is not counted (copies of one value)
    table = element_replication(ttgir)
    assert table["k.py:10"] == 2 and "k.py:11" not in table and "k.py:12" not in table


def test_element_replication_keeps_an_unwrapped_op_on_a_wrapped_line():
    """attention's ``acc = acc * rescale[:, None] + tl.dot(p.to(v.dtype), v)`` on 64 rows and 8 warps: the
    cast of ``p`` lies in the score tile's wrapped layout (two copies), the rescale of ``acc`` in the P V
    dot's layout, which splits the columns and does not wrap (one copy), on the same line."""
    from tilesight.frontends.triton.layouts import element_replication

    ops = """
    %a = arith.mulf %acc, %r : tensor<64x64xf32, #mma> loc(#loc1)
    %p = arith.truncf %s : tensor<64x64xf32, #mma1> to tensor<64x64xf16, #mma1> loc(#loc2)
    %b = arith.mulf %acc, %acc : tensor<64x64xf32, #mma> loc(#loc3)
    %c = arith.addi %o, %o : tensor<64x64xi32, #blocked> loc(#loc4)
    """
    ttgir = _ttgir(SPLIT_AND_WRAPPED, ("83:15", "83:47", "84:4", "83:60"), ops)
    table = element_replication(ttgir)
    # 8 x 16 rows over 64: the cast is computed twice; 4 x 16 rows and 2 x 32 columns cover 64 x 64 once
    assert table["k.py:83:47"] == 2 and table["k.py:83"] == 2
    assert table["k.py:83:15"] == 1
    # so does a blocked-layout tile's op on that line (an offset computed once)
    assert table["k.py:83:60"] == 1
    # a line with no wrapped op keeps no line entry (nothing to fall back to), only its op's own
    assert "k.py:84" not in table and table["k.py:84:4"] == 1


def test_dot_replication_keeps_an_unwrapped_dot_on_a_wrapped_line():
    """``acc = tl.dot(tl.dot(q, k).to(tl.float16), v, acc)`` on 64 rows and 8 warps: the score dot's result
    lies in the chained-dot layout [8, 1], which wraps it (two copies); the outer dot's splits the columns
    [4, 2] and is computed once, on the same line."""
    from tilesight.frontends.triton.layouts import dot_replication

    ops = """
    %s = ttng.warp_group_dot %q, %k, %z : !m * !m -> tensor<64x32xf32, #mma1> loc(#loc1)
    %o = ttng.warp_group_dot %p, %v, %a : !m * !m -> tensor<64x64xf32, #mma> loc(#loc2)
    """
    ttgir = _ttgir(SPLIT_AND_WRAPPED, ("20:23", "20:14"), ops)
    table = dot_replication(ttgir)
    assert table["k.py:20:23"] == 2 and table["k.py:20"] == 2
    assert table["k.py:20:14"] == 1


def test_dot_a_registers_reads_the_warpgroup_mmas_a_operand_type():
    """``acc = tl.dot(p, v, acc)`` after ``s = tl.dot(q, k)``: the score dot reads Q from shared memory (a
    ``!ttg.memdesc`` A), the value dot takes P from registers (a ``#ttg.dot_op`` tensor A); the attribute
    dictionary's own ``: i32`` does not confuse the operand types."""
    from tilesight.frontends.triton.layouts import dot_a_registers

    layout = f"#mma = {MMA} = [4, 1], instrShape = [16, 64, 16]}}>\n"
    attrs = "{inputPrecision = 0 : i32, isAsync = true}"
    smem = "!ttg.memdesc<64x64xf16, #shared, #smem>"
    regs = "tensor<64x64xf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>"
    ops = f"""
    %s = ttng.warp_group_dot %q, %k, %z {attrs} : {smem} * {smem} -> tensor<64x64xf32, #mma> loc(#loc1)
    %o = ttng.warp_group_dot %p, %v, %a {attrs} : {regs} * {smem} -> tensor<64x64xf32, #mma> loc(#loc2)
    """
    ttgir = _ttgir(layout, ("30:16", "33:22"), ops)
    table = dot_a_registers(ttgir)
    assert table["k.py:30:16"] == table["k.py:30"] == 0
    assert table["k.py:33:22"] == table["k.py:33"] == 1

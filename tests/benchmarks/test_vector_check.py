"""benchmarks/vector_check.py: access widths read from Triton's LLVM IR by hand, and the check on kernels."""

from __future__ import annotations

import pytest

# Two inline-asm accesses as Triton's NVIDIA lowering writes them: a 16-byte load at line 20 of the kernel,
# and a 2-byte store inlined from a helper (line 7 of helper.py) whose call is at line 21
LLIR = """\
  %22 = tail call { i32, i32, i32, i32 } asm sideeffect "mov.u32 $0, 0x0;\\0A\\09@$5 ld.global.v4.b32 \
{ $0, $1, $2, $3 }, [ $4 + 0 ];", "=r,=r,=r,=r,l,b"(ptr addrspace(1) %14, i1 %2) #2, !dbg !18
  tail call void asm sideeffect "@$2 st.global.b16 [ $1 + 0 ], { $0 };", "c,l,b"(i16 %7, \
ptr addrspace(1) %9, i1 %2) #2, !dbg !30
!1 = !DIFile(filename: "k.py", directory: "/src")
!4 = distinct !DISubprogram(name: "kernel", linkageName: "kernel", scope: !1, file: !1, line: 13)
!18 = !DILocation(line: 20, column: 13, scope: !4)
!25 = !DIFile(filename: "helper.py", directory: "/src")
!26 = distinct !DISubprogram(name: "helper", linkageName: "helper", scope: !25, file: !25, line: 5)
!27 = !DILocation(line: 21, column: 5, scope: !4)
!30 = !DILocation(line: 7, column: 9, scope: !26, inlinedAt: !27)
"""


@pytest.fixture(scope="module")
def vector_check(load_script):
    return load_script("benchmarks/vector_check.py", on_path=False)


def test_widths_are_read_per_source_line_at_the_kernels_call_of_an_inlined_helper(vector_check):
    assert vector_check.llir_widths(LLIR) == {("k.py", 20): {16}, ("k.py", 21): {2}}


def test_the_frontends_widths_match_the_llvm_ir_of_masked_rows(vector_check):
    # a row masked by one scalar test (16 bytes), a flat remainder index (16 bytes at an aligned length, 2 at
    # an odd one): the frontend's widths are the lowering's
    pytest.importorskip("triton")
    import sys
    from pathlib import Path
    from types import SimpleNamespace

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "frontends" / "triton"))
    import triton_fe_kernels as k

    from tilesight import TensorSpec, load_profile

    check = vector_check.check
    hw = load_profile("h200")
    x = TensorSpec((8192, 1024), "float16")
    rows = SimpleNamespace(
        name="rows", fn=k.rows_masked_by_row, grid=(512,), args=(x, x, 8192), kw=dict(ROWS=16, N=1024)
    )
    compared, bad = check(rows, hw)
    assert (compared, bad) == (2, [])
    for n_cols in (4096, 4095):
        flat, bias = TensorSpec((1 << 20,), "float16"), TensorSpec((n_cols,), "float16")
        case = SimpleNamespace(
            name="flat", fn=k.flat_bias_add, grid=(1024,), args=(flat, bias, flat, 1 << 20, n_cols),
            kw=dict(BLOCK=1024),
        )  # fmt: skip
        compared, bad = check(case, hw)
        assert (compared, bad) == (3, [])

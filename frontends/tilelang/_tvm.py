"""TileLang's bundled TVM: importing tilelang first puts its ``tvm`` package on the import path."""

import tilelang  # noqa: F401
from tvm import arith, tirx
from tvm import ir as tvm_ir
from tvm.ir import structural_equal
from tvm.tirx import stmt_functor

__all__ = ["arith", "stmt_functor", "structural_equal", "tirx", "tvm_ir"]

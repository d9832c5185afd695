"""TileLang's bundled TVM: importing tilelang first puts its ``tvm`` package on the import path."""

import tilelang  # noqa: F401
from tvm import tirx
from tvm.tirx import stmt_functor

__all__ = ["stmt_functor", "tirx"]

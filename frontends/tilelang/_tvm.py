"""TileLang's bundled TVM: importing tilelang first puts its ``tvm`` package on the import path."""

import tilelang  # noqa: F401
from tvm import tirx

__all__ = ["tirx"]

"""Frontends: Triton (TTIR/TTGIR), TileLang (TIR) and Python source (libcst).

Installed as tilesight.frontends.
"""

from .base import Frontend, find_frontend, frontends, register, register_lazy

__all__ = ["Frontend", "find_frontend", "frontends", "register", "register_lazy"]


def _tilelang_frontend() -> Frontend:
    from .tilelang import TileLangFrontend  # light: imports tilelang/tvm only when a plan is asked for

    return TileLangFrontend()


register_lazy("tilelang", _tilelang_frontend)


def _triton_frontend() -> Frontend:
    from .triton.frontend import TritonFrontend  # imports triton only when a plan is asked for

    return TritonFrontend()


register_lazy("triton", _triton_frontend)

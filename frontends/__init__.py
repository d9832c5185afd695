"""Frontends: Triton (TTIR/TTGIR), TileLang (TIR) and Python source (libcst). Installed as tilesight.frontends."""

from .base import Frontend, find_frontend, frontends, register, register_lazy

__all__ = ["Frontend", "find_frontend", "frontends", "register", "register_lazy"]

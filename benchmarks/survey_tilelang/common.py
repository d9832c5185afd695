"""Shared helpers: a Case record and a registry of case builders."""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

REGISTRY: dict[str, tuple[str, Callable]] = {}

PEAKS = {"tc16": 989e12, "tc8": 1979e12, "fp32": 67e12}
DRAM_BW = 4.8e12

_NB = {"f16": 2, "bf16": 2, "f8": 1, "i8": 1, "i32": 4, "f32": 4, "u8": 1}
# the same sizes by TileLang dtype name (the GPU machine runs the cases without tilesight installed)
_NAMES = {
    "float16": "f16",
    "bfloat16": "bf16",
    "float8_e4m3": "f8",
    "int8": "i8",
    "int32": "i32",
    "float32": "f32",
}


def nbytes(tag: str) -> int:
    """Bytes of an element, by short tag ("f16") or TileLang dtype name ("float16")."""
    return _NB[_NAMES.get(tag, tag)]


@dataclass
class Case:
    func: Any  # prim_func or jit builder handed to tilesight.estimate
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    bytes: float = 0.0  # unique DRAM bytes a perfect kernel moves
    flops: float = 0.0
    peak: str = "tc16"  # which compute peak the flops run at
    lower_func: Any = None  # prim_func to hand TileLang's lower() (default: func)
    note: str = ""

    def roofline_s(self) -> float:
        return max(self.bytes / DRAM_BW, self.flops / PEAKS[self.peak])


def case(name: str, constructs: str):
    def deco(fn):
        if name in REGISTRY:
            raise ValueError(f"duplicate case {name}")
        REGISTRY[name] = (constructs, fn)
        return fn

    return deco

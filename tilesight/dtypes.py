"""Element types by name, with their sizes in bytes. One table, used by every layer."""

from __future__ import annotations

from .errors import PlanError

# bits per element; sub-byte types are packed
_BITS: dict[str, int] = {
    "float64": 64,
    "float32": 32,
    "tfloat32": 32,
    "float16": 16,
    "bfloat16": 16,
    "float8_e4m3fn": 8,
    "float8_e5m2": 8,
    "float8_e4m3fnuz": 8,
    "float8_e5m2fnuz": 8,
    "float8_e8m0fnu": 8,  # MX block scales (exponent only)
    "float4_e2m1fn": 4,  # MXFP4 / NVFP4 elements, packed two a byte
    "int64": 64,
    "int32": 32,
    "int16": 16,
    "int8": 8,
    "uint8": 8,
    "uint16": 16,
    "uint32": 32,
    "uint64": 64,
    "int4": 4,
    "uint4": 4,
    "bool": 8,
}

_ALIASES: dict[str, str] = {
    "fp64": "float64",
    "f64": "float64",
    "fp32": "float32",
    "f32": "float32",
    "tf32": "tfloat32",
    "custom[tfloat32]": "tfloat32",  # TVM's name for TileLang's T.tfloat32
    "fp16": "float16",
    "f16": "float16",
    "half": "float16",
    "bf16": "bfloat16",
    "fp8e4nv": "float8_e4m3fn",
    "fp8e4m3": "float8_e4m3fn",
    "f8e4m3fn": "float8_e4m3fn",
    "fp8_e4m3": "float8_e4m3fn",
    "float8_e4m3": "float8_e4m3fn",  # TileLang's T.float8_e4m3: the same finite-only E4M3 (no infinities)
    "float8e4m3fn": "float8_e4m3fn",
    "fp8e5": "float8_e5m2",
    "fp8e5m2": "float8_e5m2",
    "f8e5m2": "float8_e5m2",
    "float8e5m2": "float8_e5m2",
    "i64": "int64",
    "i32": "int32",
    "i16": "int16",
    "i8": "int8",
    "u8": "uint8",
    "i1": "bool",
    "int1": "bool",
}


def canonical_dtype(name: str) -> str:
    """Return the canonical name of a dtype (``"fp16"`` -> ``"float16"``); raise PlanError if unknown."""
    key = str(name).lower().removeprefix("torch.")
    key = _ALIASES.get(key, key)
    if key not in _BITS:
        raise PlanError("dtype", name, f"unknown element type; known: {', '.join(sorted(_BITS))}")
    return key


def dtype_bits(name: str) -> int:
    return _BITS[canonical_dtype(name)]


def dtype_bytes(name: str) -> float:
    """Bytes per element (0.5 for 4-bit types)."""
    return dtype_bits(name) / 8


def is_float(name: str) -> bool:
    return canonical_dtype(name).startswith(("float", "bfloat", "tfloat"))

"""Hand-written tile plans for common kernels (GEMM, ...), built without any frontend."""

from __future__ import annotations

from .gemm import gemm_plan

__all__ = ["gemm_plan"]

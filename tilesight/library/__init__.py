"""Hand-written tile plans for common kernels (GEMM, ...), built without any frontend."""

from __future__ import annotations

from .attention import attention_forward_plan
from .gemm import gemm_plan
from .mla_decode import mla_decode_plan
from .softmax import softmax_plan

__all__ = ["attention_forward_plan", "gemm_plan", "mla_decode_plan", "softmax_plan"]

"""Argument checks shared by the hand-written plan builders."""

from __future__ import annotations

from ..errors import PlanError


def positive_int(fieldname: str, value: object) -> int:
    """``value`` if it is an integer >= 1, else PlanError naming ``fieldname`` (e.g. ``"gemm.block_m"``)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise PlanError(fieldname, value, "must be an integer >= 1")
    return value

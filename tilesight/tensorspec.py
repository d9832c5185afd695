"""``TensorSpec``: a tensor argument described by shape, dtype and strides, without data.

Anywhere TileSight takes a kernel's tensor argument it takes a TensorSpec, a torch tensor (any device,
including ``"meta"``) or a numpy array; :func:`as_tensor_spec` turns each into a TensorSpec. This module
imports neither torch nor numpy-only helpers beyond numpy itself: torch tensors are recognised by duck typing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from .dtypes import canonical_dtype
from .errors import PlanError


def contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major element strides of ``shape`` (the last dimension is contiguous)."""
    strides: list[int] = []
    step = 1
    for extent in reversed(shape):
        strides.append(step)
        step *= max(int(extent), 1)
    return tuple(reversed(strides))


@dataclass(frozen=True)
class TensorSpec:
    """A tensor argument without data: ``shape``, ``dtype`` (a name such as ``"float16"``) and element
    ``strides`` (row-major contiguous when None).

    ``values``: the contents of a small integer (or boolean) tensor whose elements decide the kernel's
    control flow (a variable-length batch's sequence lengths or offsets, a block-sparse mask), which a
    frontend reads where the kernel loads them as scalars; a numpy array or a CPU torch tensor passed as the
    argument brings its own. None for data."""

    shape: tuple[int, ...]
    dtype: str
    strides: tuple[int, ...] | None = None
    values: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        try:
            shape = tuple(int(s) for s in self.shape)
        except (TypeError, ValueError):
            raise PlanError("TensorSpec.shape", self.shape, "must be a sequence of integers") from None
        if any(s < 0 for s in shape):
            raise PlanError("TensorSpec.shape", shape, "extents must be >= 0")
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "dtype", canonical_dtype(self.dtype))
        if self.strides is None:
            object.__setattr__(self, "strides", contiguous_strides(shape))
        else:
            strides = tuple(int(s) for s in self.strides)
            if len(strides) != len(shape):
                raise PlanError("TensorSpec.strides", strides, f"needs one stride per dimension of {shape}")
            object.__setattr__(self, "strides", strides)
        if self.values is not None:
            import numpy as np

            values = np.asarray(self.values)
            if values.size != math.prod(shape) or values.dtype.kind not in "iub":
                raise PlanError(
                    "TensorSpec.values",
                    f"{values.dtype}{list(values.shape)}",
                    f"must be {shape} integers or booleans",
                )
            object.__setattr__(self, "values", values.reshape(shape))

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    def stride(self, dim: int | None = None) -> Any:
        """Element strides, like ``torch.Tensor.stride()``."""
        assert self.strides is not None
        return self.strides if dim is None else self.strides[dim]

    def size(self, dim: int | None = None) -> Any:
        return self.shape if dim is None else self.shape[dim]

    @property
    def ndim(self) -> int:
        return len(self.shape)


def is_tensor_like(obj: Any) -> bool:
    """True for a TensorSpec, a torch tensor or a numpy array."""
    if isinstance(obj, TensorSpec):
        return True
    if type(obj).__module__ == "numpy" and hasattr(obj, "dtype") and hasattr(obj, "shape"):
        return True
    return (
        hasattr(obj, "data_ptr")
        and hasattr(obj, "dtype")
        and hasattr(obj, "shape")
        and hasattr(obj, "stride")
    )


def as_tensor_spec(obj: Any) -> TensorSpec:
    """The TensorSpec of a TensorSpec, torch tensor or numpy array; PlanError for anything else."""
    if isinstance(obj, TensorSpec):
        return obj
    if type(obj).__module__ == "numpy" and hasattr(obj, "strides") and hasattr(obj, "itemsize"):
        strides = tuple(int(s) // int(obj.itemsize) for s in obj.strides)
        values = obj if obj.dtype.kind in "iub" else None  # an integer (or boolean) array brings its values
        return TensorSpec(tuple(obj.shape), str(obj.dtype), strides, values=values)
    if is_tensor_like(obj):
        values = None
        if str(getattr(obj, "device", "")) == "cpu" and not obj.is_floating_point() and not obj.is_complex():
            values = obj.numpy()  # a CPU integer tensor brings its values (a meta tensor has none)
        return TensorSpec(tuple(obj.shape), str(obj.dtype), tuple(obj.stride()), values=values)
    raise PlanError(
        "tensor", type(obj).__qualname__, "expected a TensorSpec, a torch tensor or a numpy array"
    )

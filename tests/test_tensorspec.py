"""tilesight.tensorspec: tensor arguments without data, and the values of small index tensors."""

import numpy as np
import pytest

from tilesight import TensorSpec
from tilesight.errors import PlanError
from tilesight.tensorspec import as_tensor_spec


def test_contiguous_strides_by_default():
    assert TensorSpec((4, 3, 2), "float16").strides == (6, 2, 1)


def test_an_integer_numpy_array_brings_its_values_a_float_one_does_not():
    lens = np.array([3, 5, 7], dtype=np.int32)
    spec = as_tensor_spec(lens)
    assert (spec.shape, spec.dtype, spec.strides) == ((3,), "int32", (1,))
    assert spec.values.tolist() == [3, 5, 7]
    assert as_tensor_spec(np.zeros((2, 2), dtype=np.float32)).values is None
    # values take no part in equality (two launches of one kernel compile the same)
    assert spec == TensorSpec((3,), "int32")


def test_torch_cpu_integer_tensors_bring_values_meta_and_float_ones_do_not():
    torch = pytest.importorskip("torch")
    assert as_tensor_spec(torch.tensor([1, 2, 3])).values.tolist() == [1, 2, 3]
    assert as_tensor_spec(torch.zeros(3)).values is None
    assert as_tensor_spec(torch.empty(3, dtype=torch.int32, device="meta")).values is None


@pytest.mark.parametrize("values", [np.arange(4), np.zeros(3, dtype=np.float32)])
def test_values_must_fill_the_shape_with_integers(values):
    with pytest.raises(PlanError, match="TensorSpec.values"):
        TensorSpec((3,), "int32", values=values)

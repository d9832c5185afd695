"""kernels/triton/vector_add.py, interpreted on CPU, matches torch (see interpreted.py)."""

import pytest

pytestmark = pytest.mark.triton


def test_vector_add_matches_torch(run_interpreted):
    run_interpreted("vector_add")

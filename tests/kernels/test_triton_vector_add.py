"""kernels/triton/vector_add.py under the Triton interpreter matches torch (see interpreted.check_vector_add)."""

import pytest

pytestmark = pytest.mark.triton


def test_vector_add_matches_torch(run_interpreted):
    run_interpreted("vector_add")

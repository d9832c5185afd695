"""kernels/triton/rmsnorm.py, interpreted on CPU, matches torch (see interpreted.py)."""

import pytest

pytestmark = pytest.mark.triton


def test_rmsnorm_matches_torch(run_interpreted):
    run_interpreted("rmsnorm")

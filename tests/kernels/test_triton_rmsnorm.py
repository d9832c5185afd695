"""kernels/triton/rmsnorm.py under the Triton interpreter matches torch (see interpreted.check_rmsnorm)."""

import pytest

pytestmark = pytest.mark.triton


def test_rmsnorm_matches_torch(run_interpreted):
    run_interpreted("rmsnorm")

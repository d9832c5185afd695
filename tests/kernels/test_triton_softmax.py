"""kernels/triton/softmax.py under the Triton interpreter matches torch (see interpreted.check_softmax)."""

import pytest

pytestmark = pytest.mark.triton


def test_softmax_matches_torch(run_interpreted):
    run_interpreted("softmax")

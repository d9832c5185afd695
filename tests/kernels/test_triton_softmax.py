"""kernels/triton/softmax.py, interpreted on CPU, matches torch (see interpreted.py)."""

import pytest

pytestmark = pytest.mark.triton


def test_softmax_matches_torch(run_interpreted):
    run_interpreted("softmax")

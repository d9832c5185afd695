"""kernels/triton/attention.py under the Triton interpreter matches torch (see interpreted.check_attention)."""

import pytest

pytestmark = pytest.mark.triton


def test_attention_matches_torch(run_interpreted):
    run_interpreted("attention")

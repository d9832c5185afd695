"""kernels/triton/layernorm.py under the Triton interpreter matches torch (see interpreted.check_layernorm)."""

import pytest

pytestmark = pytest.mark.triton


def test_layernorm_matches_torch(run_interpreted):
    run_interpreted("layernorm")

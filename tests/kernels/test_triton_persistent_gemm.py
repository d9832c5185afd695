"""kernels/triton/persistent_gemm.py under the Triton interpreter matches torch (see interpreted.check_persistent_gemm)."""

import pytest

pytestmark = pytest.mark.triton


def test_persistent_gemm_matches_torch(run_interpreted):
    run_interpreted("persistent_gemm")

"""kernels/triton/gemm.py under the Triton interpreter matches torch (see interpreted.check_gemm)."""

import pytest

pytestmark = pytest.mark.triton


def test_gemm_matches_torch(run_interpreted):
    run_interpreted("gemm")

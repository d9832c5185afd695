"""kernels/triton/tma_gemm.py under the Triton interpreter matches torch (see interpreted.check_tma_gemm)."""

import pytest

pytestmark = pytest.mark.triton


def test_tma_gemm_matches_torch(run_interpreted):
    run_interpreted("tma_gemm")

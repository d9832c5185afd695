"""kernels/triton/tma_gemm.py, interpreted on CPU, matches torch (see interpreted.py)."""

import pytest

pytestmark = pytest.mark.triton


def test_tma_gemm_matches_torch(run_interpreted):
    run_interpreted("tma_gemm")

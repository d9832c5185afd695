"""kernels/triton/gather_rows.py under the Triton interpreter matches torch (see interpreted.check_gather_rows)."""

import pytest

pytestmark = pytest.mark.triton


def test_gather_rows_matches_torch(run_interpreted):
    run_interpreted("gather_rows")

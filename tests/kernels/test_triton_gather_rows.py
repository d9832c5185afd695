"""kernels/triton/gather_rows.py, interpreted on CPU, matches torch (see interpreted.py)."""

import pytest

pytestmark = pytest.mark.triton


def test_gather_rows_matches_torch(run_interpreted):
    run_interpreted("gather_rows")

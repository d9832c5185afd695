"""Shared fixture of the CLI tests: the small autotuned Triton kernel written to a temporary file."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_kernels import SCALE_KERNEL


@pytest.fixture
def scale_file(tmp_path: Path) -> Path:
    pytest.importorskip("triton")
    path = tmp_path / "scale.py"
    path.write_text(SCALE_KERNEL)
    return path

"""Helpers for the reference-kernel tests: each kernel runs interpreted in its own subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
INTERPRETED_TIMEOUT_S = 300  # a generous bound for a tiny interpreted run on a loaded 2-core CI machine


@pytest.fixture
def run_interpreted(check_interpreted):
    """Call with a kernel name from interpreted.CHECKS; on failure shows the subprocess's output."""
    pytest.importorskip("triton")
    pytest.importorskip("torch")

    def run(name: str) -> None:
        env = {**os.environ, "TRITON_INTERPRET": "1"}
        proc = subprocess.run(
            [sys.executable, str(HERE / "interpreted.py"), name],
            env=env,
            capture_output=True,
            text=True,
            timeout=INTERPRETED_TIMEOUT_S,
        )
        check_interpreted(proc, name)

    return run

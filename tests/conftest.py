"""Fixtures shared by every test folder."""

from __future__ import annotations

import subprocess

import _scripts
import pytest

# Triton before 3.9 turns a one-element tensor into a Python int with ``int(array)`` in its CPU interpreter
# (``triton/runtime/interpreter.py``, a loop bound such as ``range(tl.cdiv(K, BLOCK_K))``), which numpy 2.4
# refuses for arrays of one dimension; Triton 3.9 squeezes the array first. TileSight's frontend does not run
# the interpreter: only the tests that check kernels numerically on the CPU do.
_INTERPRETER_NUMPY_ERROR = "only 0-dimensional arrays can be converted to Python scalars"


@pytest.fixture
def check_interpreted():
    """Call with a finished ``subprocess.run`` of a ``TRITON_INTERPRET=1`` script: fails the test, with the
    script's output, where the run failed, except that it skips where the installed Triton's interpreter
    cannot run under the installed numpy (the incompatibility above)."""

    def check(proc: subprocess.CompletedProcess, what: str, ok: bool | None = None) -> None:
        """``ok``: whether the run did what the test wanted (default: it exited 0)."""
        if proc.returncode == 0 if ok is None else ok:
            return
        if _INTERPRETER_NUMPY_ERROR in proc.stdout + proc.stderr:
            import numpy
            import triton

            pytest.skip(
                f"triton {triton.__version__}'s CPU interpreter cannot run under numpy {numpy.__version__} "
                f"({_INTERPRETER_NUMPY_ERROR!r}; fixed in triton 3.9)"
            )
        raise AssertionError(f"{what} failed under TRITON_INTERPRET=1:\n{proc.stdout}\n{proc.stderr[-4000:]}")

    return check


@pytest.fixture(scope="session")
def load_script():
    """Call with a script's path under the repository (``"benchmarks/ncu_diag/kmajor.py"``) to import it by
    path (the scripts are not a package): ``_scripts.load_script``, the one loader, which module-level code
    imports itself."""
    return _scripts.load_script

"""Fixtures shared by the tests of ``benchmarks/``'s scripts."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def load_script():
    """Call with a script's path under the repository (``"benchmarks/ncu_diag/kmajor.py"``) to import it
    as a module of its own name, by path (the scripts are not a package); ``on_path`` also puts its folder
    on ``sys.path`` for the sibling modules it imports when it runs."""

    def load(relative: str, on_path: bool = True) -> ModuleType:
        path = ROOT / relative
        if on_path:
            sys.path.insert(0, str(path.parent))
        spec = importlib.util.spec_from_file_location(path.stem, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load

"""The tests' one loader of the repository's scripts (``benchmarks/``), which are not a package: each is
imported by its path. Module-level code imports ``load_script`` from here; tests take the ``load_script``
fixture of ``tests/conftest.py``, which is this function."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def load_script(relative: str, on_path: bool = True, *, name: str | None = None) -> ModuleType:
    """Import the script at ``relative`` (to the repository: ``"benchmarks/ncu_diag/kmajor.py"``) as a module
    of its own; ``on_path`` also puts its folder on ``sys.path`` for the sibling modules it imports when it
    runs. ``name``: the module's name, under which it is also put in ``sys.modules`` before it runs
    (dataclasses look their module up there while the class is built); by default the file's stem, and not
    put there."""
    path = ROOT / relative
    if on_path:
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(name or path.stem, path)
    module = importlib.util.module_from_spec(spec)
    if name is not None:
        sys.modules[name] = module
    spec.loader.exec_module(module)
    return module

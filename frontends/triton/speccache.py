"""An in-process cache of per-specialisation results (the compiled IR, ptxas's register count); imports no
Triton, so the command line can read the modules that use it without loading Triton."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any


class SpecialisationCache(OrderedDict):
    """Values by a binding's specialisation key (``Binding.key``), in use order: the least recently used
    is dropped beyond ``entries``."""

    def __init__(self, entries: int) -> None:
        super().__init__()
        self.entries = entries

    def lookup(self, key: str) -> Any:
        """The value kept for ``key`` (now the most recently used), or None."""
        value = self.get(key)
        if value is not None:
            self.move_to_end(key)
        return value

    def keep(self, key: str, value: Any) -> Any:
        """Keep ``value`` for ``key``; returns it."""
        self[key] = value
        while len(self) > self.entries:
            self.popitem(last=False)
        return value

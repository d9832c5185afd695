"""Counts of SASS instruction forms in a kernel Triton compiled (cuobjdump of its cubin, either machine)."""

from __future__ import annotations

import collections
import os
import re
import subprocess
import tempfile
from pathlib import Path


def sass_counts(compiled, ops: re.Pattern[str]) -> dict[str, int]:
    """How many times each instruction form ``ops`` matches appears in the SASS of ``compiled`` (a Triton
    ``CompiledKernel``), disassembled with the ``cuobjdump`` Triton's NVIDIA backend carries."""
    import triton

    cuobjdump = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as fh:
        fh.write(compiled.asm["cubin"])
    try:
        sass = subprocess.run([str(cuobjdump), "-sass", fh.name], capture_output=True, text=True).stdout
    finally:
        os.unlink(fh.name)
    return dict(collections.Counter(ops.findall(sass)))

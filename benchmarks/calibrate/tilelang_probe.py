"""What the TileLang probes (``tilelang_wait``, ``smem_transform``, ``smem_feed``) share: the GPU check and
the JSON document they write (``schema``, ``meta`` with the command and versions, ``measurements``)."""

from __future__ import annotations

import json
import platform
import sys
import time
from pathlib import Path
from typing import Any


def gpu_ready() -> bool:
    """Whether torch sees a GPU (the probes print "no GPU" and exit 2 otherwise)."""
    import torch

    if torch.cuda.is_available():
        return True
    print("no GPU", file=sys.stderr)
    return False


def write(out: Path, measurements: dict[str, Any]) -> None:
    """Write ``measurements`` under the run's meta (command, GPU, versions, date) to ``out``."""
    import tilelang
    import torch
    import triton

    doc = {
        "schema": 1,
        "meta": {
            "command": " ".join(["python3", *sys.argv]),
            "gpu": torch.cuda.get_device_name(0),
            "sm_count": torch.cuda.get_device_properties(0).multi_processor_count,
            "torch": torch.__version__,
            "triton": triton.__version__,
            "tilelang": getattr(tilelang, "__version__", "?"),
            "python": platform.python_version(),
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        },
        "measurements": measurements,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1))
    print(f"wrote {out}")

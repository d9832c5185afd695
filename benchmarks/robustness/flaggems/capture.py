"""Import FlagGems on a machine without a GPU and capture its Triton launches instead of running them.

``install`` makes torch.cuda describe one H200 (name, capability 9.0, 132 SMs), turns every
``kernel[grid](...)`` into a recorded ``Launch`` and imports ``flag_gems`` from an extracted source tree. An
op called on torch *meta* tensors then computes its grid, arguments and constexprs exactly as on the GPU,
and nothing runs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

H200_SMS = 132  # the SM count FlagGems' heuristics read from the device properties


@dataclass(frozen=True)
class Launch:
    """One ``kernel[grid](*args, **kwargs)`` a FlagGems op made."""

    kernel: Any
    grid: Any
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


_launches: list[Launch] = []


class _NoDevice:
    """Stands in for ``torch.cuda.device(...)``: a context manager that switches nothing."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __enter__(self) -> _NoDevice:
        return self

    def __exit__(self, *exc: Any) -> bool:
        return False


class _H200Properties:
    name = "NVIDIA H200"
    major = 9
    minor = 0
    multi_processor_count = H200_SMS
    total_memory = 141 * 2**30
    L2_cache_size = 50 * 2**20


def _fake_h200() -> None:
    import torch

    cuda = torch.cuda
    cuda.get_device_name = lambda *a, **k: _H200Properties.name
    cuda.device_count = lambda: 1
    cuda.is_available = lambda: True
    cuda.get_device_capability = lambda *a, **k: (_H200Properties.major, _H200Properties.minor)
    cuda.current_device = lambda: 0
    cuda.get_device_properties = lambda *a, **k: _H200Properties()
    cuda.device = _NoDevice
    cuda._exchange_device = lambda device: -1
    cuda.set_device = lambda *a: None


def _record_launches() -> None:
    from triton.runtime.jit import KernelInterface

    def getitem(kernel: Any, grid: Any) -> Callable[..., None]:
        def launch(*args: Any, **kwargs: Any) -> None:
            _launches.append(Launch(kernel, grid, args, kwargs))

        return launch

    KernelInterface.__getitem__ = getitem


def _fixed_philox_seed(gems: ModuleType) -> None:
    """Random ops ask the CUDA generator for a Philox seed and offset; give them a fixed pair."""

    def seed_offset(increment: int, generator: Any = None) -> tuple[int, int]:
        return 1234, 0

    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith(gems.__name__) and hasattr(
            module, "philox_backend_seed_offset"
        ):
            module.philox_backend_seed_offset = seed_offset


def _without_block_pointers() -> None:
    """Make pointwise_dynamic generate pointer-tensor code instead of block pointers (tl.make_block_ptr)."""
    pointwise = sys.modules[
        "flag_gems.utils.pointwise_dynamic"
    ]  # the package re-exports a function by that name
    instantiate = pointwise.PointwiseDynamicFunction.instantiate

    def without(self: Any, ndim: int) -> Any:
        self.config.prefer_block_pointer = False
        return instantiate(self, ndim)

    pointwise.PointwiseDynamicFunction.instantiate = without


def package_dir(src: Path) -> Path:
    """The folder holding the ``flag_gems`` package: ``src/src`` for a FlagGems tree, else ``src`` itself."""
    for folder in (src / "src", src):
        if (folder / "flag_gems" / "__init__.py").is_file():
            return folder
    raise FileNotFoundError(
        f"no flag_gems package under {src} (extract one with benchmarks/robustness/fetch.sh)"
    )


def install(src: Path, *, block_pointers: bool = True) -> ModuleType:
    """Fake the GPU, capture launches, import flag_gems from the FlagGems tree ``src`` and return it."""
    os.environ.setdefault("GEMS_VENDOR", "nvidia")
    os.environ.setdefault("FLAGGEMS_ENABLE_DISK_CACHE", "0")
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # Triton 3.9's default; set, it stops a warning
    _fake_h200()
    _record_launches()
    sys.path.insert(0, str(package_dir(src)))
    import flag_gems

    _fixed_philox_seed(flag_gems)
    if not block_pointers:
        _without_block_pointers()
    return flag_gems


def capture(call: Callable[[], Any]) -> tuple[list[Launch], Exception | None]:
    """The launches ``call`` makes, and the exception it ended with, if any (an op's post-processing on meta
    tensors may fail after its launches were made: they are kept)."""
    _launches.clear()
    try:
        call()
    except Exception as e:  # returned to the caller, who records it if nothing was launched
        return list(_launches), e
    return list(_launches), None

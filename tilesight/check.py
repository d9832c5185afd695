"""The pre-commit performance check: which kernels to watch, the committed baseline, and the comparison.

The watch list lives in ``tilesight.toml`` (or under ``[tool.tilesight]`` in ``pyproject.toml``)::

    baseline = "tilesight-baseline.json"   # relative to the config file
    threshold = 0.05                        # fail when a prediction is more than 5% slower
    hw = ["h200"]                           # GPUs to predict on (an entry may override)

    [[kernel]]
    name = "gemm-4096"
    target = "kernels/triton/gemm.py::matmul_kernel"
    args = "a_ptr=f16[M,K] b_ptr=f16[K,N] c_ptr=f16[M,N] M=4096 N=4096 K=4096 ..."
    grid = "cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)"
    config = "BLOCK_M=128 BLOCK_N=128 BLOCK_K=64 GROUP_M=8 num_warps=8 num_stages=3"

An entry is keyed ``name@hw``; its config is part of what is watched, so a worse config in the watch list or
a slower kernel body both show up as a regression of the same key. Predictions are deterministic, so the
threshold only has to absorb intended model changes, not noise. This module is pure data and comparison:
predicting the entries is the CLI's job.
"""

from __future__ import annotations

import json
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from .errors import TileSightError

CONFIG_FILE = "tilesight.toml"
PYPROJECT_FILE = "pyproject.toml"
DEFAULT_BASELINE = "tilesight-baseline.json"
DEFAULT_THRESHOLD = 0.05  # fractional slowdown that fails the check; predictions carry no run-to-run noise
DEFAULT_HW = ("h200",)
BASELINE_FORMAT = 1
_ENTRY_KEYS = frozenset({"name", "target", "args", "grid", "config", "hw"})
_TOP_KEYS = frozenset({"baseline", "threshold", "hw", "kernel"})


class CheckConfigError(TileSightError, ValueError):
    """tilesight.toml (or [tool.tilesight]) is missing or malformed; names the file and the field."""


class BaselineError(TileSightError, ValueError):
    """The baseline file is missing or malformed."""


@dataclass(frozen=True)
class WatchEntry:
    name: str
    target: str
    args: str
    grid: str | None
    config: str
    hw: str

    @property
    def key(self) -> str:
        return f"{self.name}@{self.hw}"


@dataclass(frozen=True)
class CheckConfig:
    path: Path
    root: Path  # the folder targets and the baseline are relative to
    baseline: Path
    threshold: float
    entries: tuple[WatchEntry, ...]


@dataclass(frozen=True)
class Measure:
    """What the baseline keeps per entry: the predicted latency and, to explain a change, the bottleneck."""

    latency_s: float
    bottleneck: str
    l2_hit_rate: float | None = None
    target: str = ""
    config: str = ""

    def __post_init__(self) -> None:
        if not (
            isinstance(self.latency_s, int | float) and math.isfinite(self.latency_s) and self.latency_s > 0
        ):
            raise BaselineError(f"latency_s={self.latency_s!r} must be a positive number")

    def to_dict(self) -> dict[str, Any]:
        return {
            "latency_s": self.latency_s,
            "bottleneck": self.bottleneck,
            "l2_hit_rate": self.l2_hit_rate,
            "target": self.target,
            "config": self.config,
        }


def find_config(start: Path) -> Path:
    """``tilesight.toml`` in ``start`` or a parent, else a ``pyproject.toml`` with ``[tool.tilesight]``."""
    for folder in (start.resolve(), *start.resolve().parents):
        candidate = folder / CONFIG_FILE
        if candidate.is_file():
            return candidate
        pyproject = folder / PYPROJECT_FILE
        if pyproject.is_file() and "tilesight" in _read_toml(pyproject).get("tool", {}):
            return pyproject
        if (folder / ".git").exists():
            break
    raise CheckConfigError(
        f"no {CONFIG_FILE} (or [tool.tilesight] in {PYPROJECT_FILE}) in {start} or its parents"
    )


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CheckConfigError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise CheckConfigError(f"{path}: not valid TOML: {exc}") from None


def _hw_list(value: Any, where: str) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(h, str) and h for h in items):
        raise CheckConfigError(f"{where}: hw must be a GPU profile name or a non-empty list of them")
    return tuple(items)


def load_config(path: Path) -> CheckConfig:
    """Parse the watch list; every problem raises CheckConfigError naming the file and field."""
    doc = _read_toml(path)
    if path.name == PYPROJECT_FILE:
        doc = doc.get("tool", {}).get("tilesight")
        if not isinstance(doc, dict):
            raise CheckConfigError(f"{path}: no [tool.tilesight] table")
    unknown = set(doc) - _TOP_KEYS
    if unknown:
        raise CheckConfigError(f"{path}: unknown keys {sorted(unknown)}; known: {sorted(_TOP_KEYS)}")
    root = path.parent
    threshold = doc.get("threshold", DEFAULT_THRESHOLD)
    if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0 <= threshold < 10:
        raise CheckConfigError(f"{path}: threshold={threshold!r} must be a fraction such as 0.05")
    baseline = doc.get("baseline", DEFAULT_BASELINE)
    if not isinstance(baseline, str) or not baseline:
        raise CheckConfigError(f"{path}: baseline={baseline!r} must be a file name")
    default_hw = _hw_list(doc.get("hw", list(DEFAULT_HW)), f"{path}: hw")
    kernels = doc.get("kernel", [])
    if not isinstance(kernels, list) or not kernels:
        raise CheckConfigError(f"{path}: list the kernels to watch in [[kernel]] tables")
    entries: list[WatchEntry] = []
    for i, k in enumerate(kernels):
        where = f"{path}: kernel[{i}]"
        if not isinstance(k, dict):
            raise CheckConfigError(f"{where}: must be a table")
        bad = set(k) - _ENTRY_KEYS
        if bad:
            raise CheckConfigError(f"{where}: unknown keys {sorted(bad)}; known: {sorted(_ENTRY_KEYS)}")
        for field_name in ("name", "target"):
            if not isinstance(k.get(field_name), str) or not k[field_name]:
                raise CheckConfigError(f"{where}: {field_name} must be a non-empty string")
        for field_name in ("args", "config", "grid"):
            if field_name in k and not isinstance(k[field_name], str):
                raise CheckConfigError(f"{where}: {field_name} must be a string (the --{field_name} syntax)")
        for hw in _hw_list(k.get("hw", list(default_hw)), where):
            entries.append(
                WatchEntry(k["name"], k["target"], k.get("args", ""), k.get("grid"), k.get("config", ""), hw)
            )
    keys = [e.key for e in entries]
    dup = sorted({key for key in keys if keys.count(key) > 1})
    if dup:
        raise CheckConfigError(f"{path}: duplicate kernel names {dup}")
    return CheckConfig(path, root, root / baseline, float(threshold), tuple(entries))


def load_baseline(path: Path) -> dict[str, Measure]:
    if not path.is_file():
        raise BaselineError(f"{path}: no baseline file; create it with `tilesight check --update`")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise BaselineError(f"{path}: not a readable JSON baseline: {exc}") from None
    if (
        not isinstance(doc, dict)
        or doc.get("format") != BASELINE_FORMAT
        or not isinstance(doc.get("entries"), dict)
    ):
        raise BaselineError(
            f"{path}: not a tilesight baseline (format {BASELINE_FORMAT}); rewrite it with --update"
        )
    out = {}
    for key, value in doc["entries"].items():
        try:
            out[key] = Measure(**value)
        except (TypeError, BaselineError) as exc:
            raise BaselineError(f"{path}: entry {key!r}: {exc}") from None
    return out


def baseline_text(measures: Mapping[str, Measure]) -> str:
    """The baseline file's text: sorted, indented, one trailing newline (stable diffs)."""
    doc = {"format": BASELINE_FORMAT, "entries": {k: measures[k].to_dict() for k in sorted(measures)}}
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"


def save_baseline(path: Path, measures: Mapping[str, Measure]) -> None:
    path.write_text(baseline_text(measures), encoding="utf-8")


class Status(StrEnum):
    OK = "ok"
    REGRESSED = "regressed"
    IMPROVED = "improved"
    NEW = "new"  # watched but not in the baseline: fails until --update records it
    STALE = "stale"  # in the baseline but no longer watched: reported, does not fail


FAILING = frozenset({Status.REGRESSED, Status.NEW})


@dataclass(frozen=True)
class Row:
    key: str
    status: Status
    baseline: Measure | None
    current: Measure | None

    @property
    def ratio(self) -> float | None:
        """Current over baseline latency (1.10 = 10% slower)."""
        if self.baseline is None or self.current is None:
            return None
        return self.current.latency_s / self.baseline.latency_s

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "status": self.status.value,
            "ratio": self.ratio,
            "baseline": self.baseline.to_dict() if self.baseline else None,
            "current": self.current.to_dict() if self.current else None,
        }


@dataclass(frozen=True)
class CheckResult:
    rows: tuple[Row, ...]
    threshold: float

    @property
    def failed(self) -> bool:
        return any(r.status in FAILING for r in self.rows)

    def to_dict(self) -> dict[str, Any]:
        return {"failed": self.failed, "threshold": self.threshold, "rows": [r.to_dict() for r in self.rows]}


def compare(baseline: Mapping[str, Measure], current: Mapping[str, Measure], threshold: float) -> CheckResult:
    """Classify every key: slower than ``baseline * (1 + threshold)`` regresses, faster than
    ``baseline / (1 + threshold)`` improves."""
    rows = []
    for key in sorted(set(baseline) | set(current)):
        old, new = baseline.get(key), current.get(key)
        if old is None:
            status = Status.NEW
        elif new is None:
            status = Status.STALE
        elif new.latency_s > old.latency_s * (1 + threshold):
            status = Status.REGRESSED
        elif new.latency_s * (1 + threshold) < old.latency_s:
            status = Status.IMPROVED
        else:
            status = Status.OK
        rows.append(Row(key, status, old, new))
    return CheckResult(tuple(rows), threshold)

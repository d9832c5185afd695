#!/usr/bin/env python3
"""Write a calibration run's measured values into a hardware profile.

    python3 benchmarks/apply_calibration.py --data benchmarks/data/calibration_h200.json \
        --profile hw_profiles/h200.toml

Rewrites, in place, only the value and source of each field listed in the JSON's ``profile_fields`` (and only
fields the profile already has: a run never invents fields), then replaces or appends the ``[calibration]``
table (date, command, gpu, versions). Everything else in the file (comments, order, other fields) is kept
byte for byte. The result is parsed with tilesight's validator before it is written; any problem raises
ProfileError naming the file and field, and the file is left untouched.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from tilesight.errors import ProfileError
from tilesight.hardware import HardwareProfile, parse_profile

# Changes by more than this factor from the current value are printed as warnings (not refused: the old value
# may be a placeholder), so a unit slip is seen before the profile is committed.
SUSPICIOUS_CHANGE_FACTOR = 2.0
_INT_FIELDS = {n for n, f in HardwareProfile.__dataclass_fields__.items() if f.type in ("int", int)}


def _fmt(table: str, name: str, value: float) -> str:
    if table == "fields" and name in _INT_FIELDS:
        return str(int(round(value)))
    return f"{value:.4e}"


def _table_spans(text: str) -> dict[str, tuple[int, int]]:
    """[table] name -> (start, end) character span of its body."""
    heads = [(m.group(1), m.start(), m.end()) for m in re.finditer(r"^\[([^\]]+)\]\s*$", text, flags=re.M)]
    spans = {}
    for i, (name, _start, body) in enumerate(heads):
        spans[name] = (body, heads[i + 1][1] if i + 1 < len(heads) else len(text))
    return spans


def _toml_str(s: str) -> str:
    return json.dumps(s)  # a JSON string is a valid TOML basic string


def apply(text: str, doc: dict, data_path: str, origin: str = "<profile>") -> tuple[str, list[str]]:
    """Return the new profile text and a list of human-readable change lines."""
    meta = doc.get("meta", {})
    for key in ("date", "command", "gpu"):
        if not meta.get(key):
            raise ProfileError(f"{data_path}: meta.{key} is missing")
    fields = doc.get("profile_fields", {})
    if not fields:
        raise ProfileError(f"{data_path}: profile_fields is empty (every measurement failed?)")
    old = parse_profile(text, origin=origin)
    changes = []
    for key, entry in sorted(fields.items()):
        table, name = key.split(".", 1) if "." in key else ("fields", key)
        value = entry["value"]
        note = entry.get("note", "")
        source = f"calibrated {meta['date']} by `{meta['command']}` on {meta['gpu']}"
        source += f" ({note})" if note else ""
        source += f"; data: {data_path}"
        span = _table_spans(text).get(table)
        pattern = re.compile(rf'^{re.escape(name)} = \{{ value = [^,]+, source = "(?:[^"\\]|\\.)*" \}}', re.M)
        m = pattern.search(text, *span) if span else None
        if m is None:
            changes.append(f"skip {key}: not in {origin} [{table}]")
            continue
        new_value = _fmt(table, name, value)
        new_line = f"{name} = {{ value = {new_value}, source = {_toml_str(source)} }}"
        text = text[: m.start()] + new_line + text[m.end() :]
        prev = getattr(old, name, None) if table == "fields" else _tc(old, table).get(name)
        warn = ""
        if prev and not (1 / SUSPICIOUS_CHANGE_FACTOR <= value / prev <= SUSPICIOUS_CHANGE_FACTOR):
            warn = f"  WARNING: changed by x{value / prev:.2f}"
        changes.append(f"{key}: {prev} -> {value:.4g}{warn}")
    text = _set_calibration_table(text, meta, data_path)
    parse_profile(text, origin=origin)  # validate before anyone writes it
    return text, changes


def _tc(p: HardwareProfile, table: str) -> dict:
    return dict(p.tc_flops_per_s if table == "tensor_core" else p.tc_legacy_flops_per_s)


def _set_calibration_table(text: str, meta: dict, data_path: str) -> str:
    keys = ("date", "datetime_utc", "command", "gpu", "torch", "triton", "cuda", "python")
    lines = ["[calibration]"]
    for key in keys:
        if meta.get(key):
            lines.append(f"{key} = {_toml_str(str(meta[key]))}")
    clocks = meta.get("nvidia_smi_end") or {}
    if isinstance(clocks, dict) and clocks.get("clocks.max.sm"):
        lines.append(f"sm_clock_max = {_toml_str(clocks['clocks.max.sm'])}")
    lines.append(f"data = {_toml_str(data_path)}")
    block = "\n".join(lines) + "\n"
    span = _table_spans(text).get("calibration")
    if span:
        start = text.rfind("[calibration]", 0, span[0])
        return text[:start] + block + text[span[1] :].lstrip("\n")
    return text.rstrip("\n") + "\n\n" + block


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--profile", required=True, type=Path)
    ap.add_argument("--dry-run", action="store_true", help="print the changes, write nothing")
    args = ap.parse_args(argv)
    try:
        doc = json.loads(args.data.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ProfileError(f"{args.data}: cannot read calibration data: {exc}") from None
    text, changes = apply(args.profile.read_text(), doc, str(args.data), origin=str(args.profile))
    print("\n".join(changes))
    failed = [k for k, v in doc.get("measurements", {}).items() if isinstance(v, dict) and "error" in v]
    if failed:
        print(f"measurements that failed (their fields keep the old values): {failed}")
    if not args.dry_run:
        args.profile.write_text(text)
        print(f"wrote {args.profile}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

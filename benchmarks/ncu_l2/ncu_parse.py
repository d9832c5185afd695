"""Turn ncu's ``--csv`` output (mixed with the driver's stdout) plus ``ncu_l2_cases.json`` into one table.

ncu prints one row per (kernel launch, metric) with columns ``"ID","Process ID",...,"Kernel Name",...,
"Block Size","Grid Size",...,"Metric Name","Metric Unit","Metric Value"``. Profiled launches are numbered by
``ID`` in launch order; the driver launches exactly one matmul kernel per case, in the order of
``ncu_l2_cases.json``, so the i-th profiled launch is case i. The grid and block sizes are checked against the
case to catch any misalignment. Pure standard library: runs on the GPU machine and on CPU.

Output: ``ncu_l2_<gpu>.json`` (meta + one record per case: its parameters, compile info and metrics) and a
flat ``.csv`` with the same rows.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import sys
from pathlib import Path

METRICS = (
    "gpu__time_duration.sum",
    "lts__t_sector_hit_rate.pct",
    "lts__t_sector_op_read_hit_rate.pct",
    "lts__t_sector_op_write_hit_rate.pct",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
)
# Units ncu may print, to canonical (bytes, seconds, percent).
_UNIT_SCALE = {
    "byte": 1.0,
    "Kbyte": 1e3,
    "Mbyte": 1e6,
    "Gbyte": 1e9,
    "KB": 1e3,
    "MB": 1e6,
    "GB": 1e9,
    "nsecond": 1e-9,
    "usecond": 1e-6,
    "msecond": 1e-3,
    "second": 1.0,
    "ns": 1e-9,
    "us": 1e-6,
    "ms": 1e-3,
    "%": 1.0,
    "sector": 1.0,
    "": 1.0,
}
_CANONICAL = {
    "gpu__time_duration.sum": "time_s",
    "lts__t_sector_hit_rate.pct": "l2_hit_pct",
    "lts__t_sector_op_read_hit_rate.pct": "l2_read_hit_pct",
    "lts__t_sector_op_write_hit_rate.pct": "l2_write_hit_pct",
    "dram__bytes_read.sum": "dram_read_bytes",
    "dram__bytes_write.sum": "dram_write_bytes",
}


class NcuParseError(ValueError):
    """The ncu output does not match the cases (names the line or case)."""


def _number(text: str) -> float:
    return float(text.replace(",", "")) if text.strip() not in ("", "n/a") else float("nan")


def parse_ncu_csv(text: str, extra: frozenset[str] = frozenset()) -> dict[int, dict]:
    """{launch ID: {"kernel": name, "grid": str, "block": str, metric: canonical value}} from ncu's output.
    Metrics named in ``extra`` (beyond :data:`METRICS`) are kept under their ncu name."""
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith('"ID","Process ID"')), None)
    if start is None:
        raise NcuParseError('no ncu CSV header ("ID","Process ID",...) in the output')
    body = [ln for ln in lines[start:] if ln.startswith('"')]
    reader = csv.DictReader(io.StringIO("\n".join(body)))
    out: dict[int, dict] = {}
    for n, row in enumerate(reader, start=start + 2):
        if row.get("ID") is None or not row["ID"].strip().isdigit():
            continue  # a repeated header or a stray quoted line
        name = row.get("Metric Name", "")
        if name not in _CANONICAL and name not in extra:
            continue
        unit = row.get("Metric Unit", "")
        if unit not in _UNIT_SCALE:
            raise NcuParseError(f"line {n}: unknown unit {unit!r} for {name}")
        launch = {"kernel": row.get("Kernel Name", ""), "grid": row.get("Grid Size", "")}
        launch["block"] = row.get("Block Size", "")
        rec = out.setdefault(int(row["ID"]), launch)
        rec[_CANONICAL.get(name, name)] = _number(row["Metric Value"]) * _UNIT_SCALE[unit]
    return out


def markers(text: str) -> list[str]:
    """Case ids in the order the driver launched them (its ``NCU_L2_CASE <i> <id>`` lines)."""
    return [m.group(2) for m in re.finditer(r"^NCU_L2_CASE (\d+) (\S+)", text, flags=re.M)]


def _dims(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text))


def join(cases_doc: dict, ncu: dict[int, dict], launched: list[str] | None = None) -> list[dict]:
    """One record per case: parameters + metrics; checks count, order, grid and block sizes."""
    cases = cases_doc["cases"]
    if launched is not None and launched != [c["case_id"] for c in cases]:
        raise NcuParseError("driver markers and ncu_l2_cases.json disagree on the launch order")
    ids = sorted(ncu)
    if len(ids) != len(cases):
        raise NcuParseError(f"ncu profiled {len(ids)} launches but the driver launched {len(cases)} cases")
    rows = []
    for c, lid in zip(cases, ids, strict=True):
        m = ncu[lid]
        grid, block = _dims(m["grid"]), _dims(m["block"])
        if grid and grid[0] != c["grid"][0]:
            raise NcuParseError(f"case {c['case_id']}: ncu grid {m['grid']} != launched {c['grid']}")
        if block and block[0] != c["threads"]:
            raise NcuParseError(f"case {c['case_id']}: ncu block {m['block']} != {c['threads']} threads")
        rec = dict(c)
        rec.update({k: v for k, v in m.items() if k not in ("grid", "block")})
        rec["ncu_id"] = lid
        rows.append(rec)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--raw", type=Path, required=True, help="ncu --csv output (driver's stdout)")
    ap.add_argument("--cases", type=Path, required=True, help="ncu_l2_cases.json written by the driver")
    ap.add_argument("--out", type=Path, required=True, help="output JSON path (a .csv is written beside it)")
    ap.add_argument("--command", default="", help="the ncu command line, recorded in the output")
    ap.add_argument("--extra", default="", help="further metrics collected (comma-separated)")
    args = ap.parse_args(argv)
    text = args.raw.read_text(errors="replace")
    doc = json.loads(args.cases.read_text())
    extra = tuple(m for m in args.extra.split(",") if m)
    rows = join(doc, parse_ncu_csv(text, frozenset(extra)), markers(text) or None)
    meta = dict(doc["meta"], ncu_command=args.command, metrics=[*METRICS, *extra])
    args.out.write_text(json.dumps({"meta": meta, "cases": rows}, indent=1))
    keys = list(dict.fromkeys(k for r in rows for k in r if not isinstance(r[k], list | dict)))
    with args.out.with_suffix(".csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    print(f"{len(rows)} cases -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""``tilesight profiles``: the hardware profiles shipped in hw_profiles/."""

from __future__ import annotations

import argparse

from rich.table import Table

from tilesight.hardware import load_profile, profiles

from .common import Output, add_json

BYTES_PER_TB = 1e12
BYTES_PER_MIB = 2**20
FLOPS_PER_TFLOP = 1e12


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("profiles", help="list the GPU profiles")
    add_json(p)
    p.set_defaults(run=run)


def run(ns: argparse.Namespace, out: Output) -> int:
    rows = []
    for name in profiles():
        hw = load_profile(name)
        fp16 = hw.tc_flops_per_s.get("float16")
        rows.append(
            {
                "name": hw.name,
                "display_name": hw.display_name,
                "arch": hw.arch,
                "sm_count": hw.sm_count,
                "ddr_bw_bytes_per_s": hw.ddr_bw_bytes_per_s,
                "l2_bytes": hw.l2_bytes,
                "tc_float16_flops_per_s": fp16,
            }
        )
    if out.json_mode:
        out.json({"profiles": rows})
        return 0
    table = Table(title="GPU profiles (tilesight --hw NAME)")
    for col in ("name", "GPU", "arch", "SMs", "DDR TB/s", "L2 MiB", "TC fp16 TFLOP/s"):
        table.add_column(col)
    for r in rows:
        fp16 = r["tc_float16_flops_per_s"]
        table.add_row(
            r["name"],
            r["display_name"],
            r["arch"],
            str(r["sm_count"]),
            f"{r['ddr_bw_bytes_per_s'] / BYTES_PER_TB:.2f}",
            f"{r['l2_bytes'] / BYTES_PER_MIB:.0f}",
            f"{fp16 / FLOPS_PER_TFLOP:.0f}" if fp16 else "-",
        )
    out.out.print(table)
    return 0

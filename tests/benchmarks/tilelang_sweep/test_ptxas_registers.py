"""benchmarks/tilelang_sweep/ptxas_registers.py: ptxas's report parsed by hand, and the TileLang frontend's
spill estimate held to the committed compiler facts (benchmarks/data/ptxas_tilelang.json)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "benchmarks" / "data" / "ptxas_tilelang.json"

REPORT = """
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'main_kernel' for 'sm_90a'
ptxas info    : Function properties for main_kernel
    144 bytes stack frame, 232 bytes spill stores, 232 bytes spill loads
ptxas info    : Used 240 registers, used 1 barriers, 144 bytes cumulative stack size, 1024 bytes smem
ptxas info    : Compiling entry function 'combine' for 'sm_90a'
ptxas info    : Function properties for combine
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 40 registers
"""


@pytest.fixture(scope="module")
def ptxas_registers():
    pytest.importorskip("tilelang")
    sys.path.insert(0, str(ROOT / "benchmarks" / "tilelang_sweep"))
    import ptxas_registers as mod

    return mod


def test_report_is_read_per_entry_function(ptxas_registers):
    got = ptxas_registers.ptxas_report(REPORT)
    assert got == {
        "main_kernel": {"frame": 144, "spill_stores": 232, "spill_loads": 232, "registers": 240},
        "combine": {"frame": 0, "spill_stores": 0, "spill_loads": 0, "registers": 40},
    }


# every fp8 configuration of the committed report (three spill under ptxas), the main and validation sets'
# FlashAttention tiles and the MLA decode tiles (none spill): the estimate must say spill where ptxas spilled
# and nowhere else
CHECKED = ("fp8-gemm-", "flash_attention-0", "val-flash_attention-", "mla_decode-", "val4-mla_decode-")


def test_the_spill_estimate_agrees_with_ptxas(ptxas_registers):
    import cases as case_list
    from tilesight.frontends.tilelang import TileLangFrontend

    from tilesight.hardware import load_profile

    hw = load_profile("h200")
    rows = [r for r in json.loads(DATA.read_text())["rows"] if r["id"].startswith(CHECKED) and "entries" in r]
    assert sum(r["id"].startswith("fp8-") for r in rows) == 8 and len(rows) > 10
    spills = 0
    for row in rows:
        plan = TileLangFrontend().plan(case_list.build(row), case_list.launch_args(row), {}, hw)
        (entry,) = row["entries"].values()
        spilled = entry["spill_stores"] > 0
        spills += spilled
        assert (plan.resources.spill_bytes_per_thread > 0) == spilled, row["id"]
    assert spills == 3

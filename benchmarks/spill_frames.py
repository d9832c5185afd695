"""Where the Triton frontend's spill constants come from (CPU only; compiler figures, not timings).

    python benchmarks/spill_frames.py ratio [--data benchmarks/data]
    python benchmarks/spill_frames.py sass ID [ID ...] [--data benchmarks/data]
    python benchmarks/spill_frames.py band [--data benchmarks/data]
    python benchmarks/spill_frames.py agree [--data benchmarks/data]

``ratio``: for every distinct GEMM config of the committed sweep whose register estimate says it spills, the
ptxas frame recorded on the GPU (``n_spills`` x 4 bytes: Triton reports the local frame in 4-byte words)
over the estimated register excess, per split, with the median beside ``SPILL_FRAME_PER_EXCESS``
(``frontends/triton/registers.py``). A config is a kernel variant, dtype, tile config and alignment (its
shapes compile to the same code); it counts in each split that has a launch of it.

``sass``: compiles the named sweep cases to a cubin with the ptxas Triton ships (no GPU needed), and prints
the local frame and the bytes the main loop (the longest backward branch) loads and stores per thread with
``LDL`` / ``STL``: the per-iteration spill traffic behind ``SPILLABLE_STATE_BYTES``
(``tilesight/model/resources.py``). Lowering to PTX takes 1-25 s per config on this CPU.

``band``: over the measured GEMM, attention and memory-bound launches (main and first validation sets),
how many spilled on the GPU (frames over 8 words) at each ratio of the register estimate to the per-thread
limit: where ``registers="auto"`` draws its line (``frontends/triton/ptxas.py`` ``AUTO_BAND``). ``agree``:
for the launches in that band, ptxas here (this machine's Triton, on the CPU) against the GPU's recorded
registers and frame: how many get the same verdict on a frame over 32 bytes (the rest listed), and the
launches whose register counts differ by more than 32 (a different allocation, such as a 32-register
build with a large frame on one side).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import accuracy  # noqa: E402

# SASS instruction line of cuobjdump: /*0abc*/  [@P0] OPCODE operands ;
_SASS = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", re.M)
_BRANCH = re.compile(r"\bBRA\b.*?0x([0-9a-f]+)")
_LOCAL = re.compile(r"\b(LDL|STL)(?:\.(LU))?(?:\.(64|128))?\b")
_FRAME = re.compile(r"(\d+) bytes stack frame")


def loop_local_bytes(sass: str) -> tuple[int, int]:
    """Bytes per thread that the longest loop of ``sass`` (cuobjdump -sass text) loads and stores from local
    memory per iteration: ``LDL``/``STL`` of 4 bytes, ``.64`` of 8 and ``.128`` of 16, between a backward
    branch's target and the branch. (0, 0) without a loop."""
    ins = [(int(a, 16), text) for a, text in _SASS.findall(sass)]
    index = {addr: i for i, (addr, _) in enumerate(ins)}
    loops = []
    for i, (addr, text) in enumerate(ins):
        m = _BRANCH.search(text)
        if m and int(m.group(1), 16) < addr and int(m.group(1), 16) in index:
            loops.append((index[int(m.group(1), 16)], i))
    if not loops:
        return 0, 0
    lo, hi = max(loops, key=lambda span: span[1] - span[0])
    loaded = stored = 0
    for _, text in ins[lo : hi + 1]:
        m = _LOCAL.search(text)
        if m:
            size = {"64": 8, "128": 16}.get(m.group(3) or "", 4)
            if m.group(1) == "LDL":
                loaded += size
            else:
                stored += size
    return loaded, stored


def _records(data: Path) -> list[tuple[dict, str]]:
    out = []
    path = data / "triton_gemm.jsonl"
    for n, line in enumerate(path.read_text().splitlines(), 1):
        r = json.loads(line)
        if r["status"] == "ok":
            out.append((r, f"{path}:{n}"))
    return out


def _config_key(record: dict) -> str:
    """Kernel variant, dtype, tile config and alignment of a GEMM sweep case (its id without the shape)."""
    parts = record["id"].split("/")
    alignment = "unaligned" if "unaligned" in record["id"] else "aligned"
    return f"{parts[1]}/{parts[2]}/{parts[-1]}/{alignment}"


def ratios(data: Path) -> dict[str, list[float]]:
    """Split -> ptxas frame / estimated excess, one value per distinct config estimated to spill."""
    from tilesight.frontends import find_frontend
    from tilesight.frontends.triton.registers import REGISTER_BYTES, SPILL_FRAME_PER_EXCESS

    from tilesight.hardware import load_profile

    hw = load_profile("h200")
    seen: dict[tuple[str, str], float] = {}
    for record, where in _records(data):
        launch = accuracy.rebuild(record, where)
        options = dict(launch.options, registers="estimate")  # the estimate's frame, not ptxas's
        plan = find_frontend(launch.fn).plan(launch.fn, (launch.grid, *launch.args), options, hw)
        frame = plan.resources.spill_bytes_per_thread
        if frame <= 0:
            continue
        excess = frame / SPILL_FRAME_PER_EXCESS / REGISTER_BYTES  # registers over the limit
        seen[record["split"], _config_key(record)] = record["n_spills"] * 4 / (excess * REGISTER_BYTES)
    out: dict[str, list[float]] = {"main": [], "holdout": []}
    for (split, _), value in seen.items():
        out[split].append(value)
    return out


# the register note of an estimate-mode plan (frontends/triton/assemble.py REGISTER_NOTE)
_ESTIMATE = re.compile(r"ptxas not run\): (\d+) per thread")
BAND_FILES = (
    "triton_gemm.jsonl",
    "triton_attention.jsonl",
    "triton_memory.jsonl",
    "validation/triton_gemm.jsonl",
    "validation/triton_attention.jsonl",
)


def band_records(data: Path) -> list[tuple[dict, str, int, int]]:
    """(record, where, estimated registers, per-thread limit) of every measured launch with ptxas's figures
    recorded on the GPU (``n_regs``, ``n_spills``)."""
    from tilesight.frontends import find_frontend
    from tilesight.frontends.triton.assemble import REGISTER_GRANULE

    from tilesight.hardware import load_profile

    hw = load_profile("h200")
    out = []
    for name in BAND_FILES:
        path = data / name
        for n, line in enumerate(path.read_text().splitlines(), 1):
            r = json.loads(line)
            if r.get("status") != "ok" or r.get("n_regs") is None:
                continue
            where = f"{path}:{n}"
            launch = accuracy.rebuild(r, where)
            options = dict(launch.options, registers="estimate")
            plan = find_frontend(launch.fn).plan(launch.fn, (launch.grid, *launch.args), options, hw)
            m = next(filter(None, (_ESTIMATE.search(note) for note in plan.notes)))
            threads = plan.resources.threads
            per_thread = hw.regs_per_sm // threads // REGISTER_GRANULE * REGISTER_GRANULE
            limit = min(hw.regs_per_thread_max, per_thread)
            out.append((r, where, int(m.group(1)), limit))
    return out


def band(data: Path) -> None:
    from tilesight.frontends.triton.ptxas import AUTO_BAND

    edges = (0.0, 0.5, 0.6, 0.7, AUTO_BAND, 0.8, 0.9, 1.0, 1.1, 1.2, 1.5, float("inf"))
    rows = band_records(data)
    for lo, hi in zip(edges, edges[1:], strict=False):
        sel = [r for r, _, est, limit in rows if lo <= est / limit < hi]
        spilled = [r for r in sel if r["n_spills"] > 8]
        what = f"{len(sel):4d} launches, {len(spilled):3d} spilled over 8 words"
        print(f"estimate / limit {lo:.2f}-{hi:.2f}: {what}")


def agree(data: Path) -> None:
    from tilesight.frontends.triton.binding import bind
    from tilesight.frontends.triton.ptxas import AUTO_BAND, ptxas_usage

    from tilesight.hardware import load_profile

    hw = load_profile("h200")
    same, differ, allocation = 0, [], []
    for r, where, est, limit in band_records(data):
        if est < AUTO_BAND * limit:
            continue
        launch = accuracy.rebuild(r, where)
        usage = ptxas_usage(launch.fn, bind(launch.fn, launch.args, dict(launch.options), hw), hw)
        gpu_frame = 4 * r["n_spills"]
        if abs(usage.registers - r["n_regs"]) > 32:
            allocation.append((r["id"], r["n_regs"], gpu_frame, usage.registers, usage.stack_bytes))
        if (gpu_frame > 32) == (usage.stack_bytes > 32):
            same += 1
        else:
            differ.append((r["id"], r["n_regs"], gpu_frame, usage.registers, usage.stack_bytes))
    print(f"{same} of {same + len(differ)} launches in the band: the same verdict on a frame over 32 bytes")
    for case, regs, frame, here_regs, here_frame in differ:
        print(f"  {case}: GPU {regs} registers, {frame} B; here {here_regs} registers, {here_frame} B")
    print(f"{len(allocation)} launches whose register counts differ by more than 32:")
    for case, regs, frame, here_regs, here_frame in allocation:
        print(f"  {case}: GPU {regs} registers, {frame} B; here {here_regs} registers, {here_frame} B")


def sass(record: dict, where: str) -> tuple[int, int, int]:
    """(ptxas frame bytes, loop LDL bytes, loop STL bytes) per thread of one sweep case, compiled on CPU."""
    import os

    from tilesight.frontends.triton.binding import backend_for, bind, target_of
    from triton._C.libtriton import ir
    from triton.backends.nvidia.compiler import get_ptxas
    from triton.compiler.compiler import ASTSource

    from tilesight.hardware import load_profile

    launch = accuracy.rebuild(record, where)
    hw = load_profile("h200")
    b = bind(launch.fn, launch.args, dict(launch.options), hw)
    target = target_of(hw)
    backend = backend_for(target.backend, target.arch, target.warp_size)
    src = ASTSource(launch.fn, b.signature, b.constexprs, b.attrs)
    stages: dict = {}
    backend.add_stages(stages, b.options, src.language)
    ctx = ir.context()
    ir.load_dialects(ctx)
    backend.load_dialects(ctx)
    codegen = backend.get_codegen_implementation(b.options)
    module = src.make_ir(target, b.options, codegen, backend.get_module_map(), ctx)
    metadata: dict = {}
    for stage in ("ttir", "ttgir", "llir", "ptx"):
        module = stages[stage](module, metadata)
    ptxas = get_ptxas(int(target.arch)).path
    with tempfile.TemporaryDirectory() as tmp:
        ptx, cubin = Path(tmp) / "k.ptx", Path(tmp) / "k.cubin"
        ptx.write_text(module)
        out = subprocess.run(
            [ptxas, "-v", f"--gpu-name=sm_{target.arch}a", str(ptx), "-o", str(cubin)],
            capture_output=True,
            text=True,
            check=True,
        )
        cuobjdump = os.path.join(os.path.dirname(ptxas), "cuobjdump")
        text = subprocess.run(
            [cuobjdump, "-sass", str(cubin)], capture_output=True, text=True, check=True
        ).stdout
    frame = _FRAME.search(out.stderr)
    loaded, stored = loop_local_bytes(text)
    return (int(frame.group(1)) if frame else 0), loaded, stored


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("ratio", "sass", "band", "agree"))
    ap.add_argument("ids", nargs="*", help="sweep case ids (sass)")
    ap.add_argument("--data", type=Path, default=HERE / "data")
    args = ap.parse_args(argv)
    if args.what == "ratio":
        for split, values in ratios(args.data).items():
            if values:
                print(
                    f"{split}: {len(values)} configs, median frame / excess {statistics.median(values):.2f}"
                )
        return 0
    if args.what in ("band", "agree"):
        (band if args.what == "band" else agree)(args.data)
        return 0
    by_id = {r["id"]: (r, w) for r, w in _records(args.data)}
    for case in args.ids:
        if case not in by_id:
            print(f"{case}: not in {args.data / 'triton_gemm.jsonl'}", file=sys.stderr)
            return 2
        frame, loaded, stored = sass(*by_id[case])
        print(f"{case}: frame {frame} B, loop LDL {loaded} B, STL {stored} B per thread")
    return 0


if __name__ == "__main__":
    sys.exit(main())

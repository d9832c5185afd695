"""Where the Triton frontend's spill constants come from (CPU only; compiler figures, not timings).

    python benchmarks/spill_frames.py ratio [--data benchmarks/data]
    python benchmarks/spill_frames.py sass ID [ID ...] [--data benchmarks/data]
    python benchmarks/spill_frames.py band [--data benchmarks/data]
    python benchmarks/spill_frames.py agree [--data benchmarks/data]
    python benchmarks/spill_frames.py rates --collect OUT DIR ... | --report FILE
    python benchmarks/spill_frames.py recipes --collect OUT --ptxas PATH | --report FILE

``ratio``: for every distinct GEMM config of the committed sweep whose register estimate says it spills, the
ptxas frame recorded on the GPU (``n_spills`` x 4 bytes: Triton reports the local frame in 4-byte words)
over the estimated register excess, per split, with the median beside ``SPILL_FRAME_PER_EXCESS``
(``frontends/triton/registers.py``). A config is a kernel variant, dtype, tile config and alignment (its
shapes compile to the same code); it counts in each split that has a launch of it.

``sass``: compiles the named sweep cases to a cubin with the ptxas Triton ships (no GPU needed), and prints
the local frame and the bytes the main loop (the longest backward branch) loads and stores per thread with
``LDL`` / ``STL``: the per-iteration spill traffic behind ``SPILLABLE_STATE_BYTES``
(``tilesight/model/resources.py``); and the K loop's ``LDG`` count and stops (:func:`loop_load_stops`).
Lowering to PTX takes 1-25 s per config on this CPU.

``band``: over the measured GEMM, attention and memory-bound launches (main and first validation sets),
how many spilled on the GPU (frames over 8 words) at each ratio of the register estimate to the per-thread
limit: where ``registers="auto"`` draws its line (``frontends/triton/ptxas.py`` ``AUTO_BAND``). ``agree``:
for the launches in that band, ptxas here (this machine's Triton, on the CPU) against the GPU's recorded
registers and frame: how many get the same verdict on a frame over 32 bytes (the rest listed), and the
launches whose register counts differ by more than 32 (a different allocation, such as a 32-register
build with a large frame on one side).

``rates``: what a byte of spill traffic costs the measured GEMMs that spilled (stop 59). ``--collect OUT
DIR ...`` compiles every such launch of the given data directories (``triton_gemm.jsonl``, frames over 8
words on the GPU) to a cubin on the CPU with Triton's own compile (its disk cache makes a second run quick),
reads the local bytes a thread loads and stores in one iteration of the innermost loop holding matrix
instructions (the K loop), predicts the launch with the committed model (``registers="ptxas"``) and writes a
row per launch; ``--report FILE`` groups them: the effective rate is those bytes x threads x tiles x K
iterations over the measured time and the SMs (as if the spill traffic took all of it), beside the model's
frame pass (the frame reloaded and its non-invariant part stored back, ``resources.frame_pass``). Since stop
60 the rows also carry the K loop's reload waits (``frontends/triton/sass.py``: stops for slots the loop only
reads and for slots it also stores to), which the report shows beside the measured time an iteration a stop.

``recipes`` (stop 60): ``--collect OUT --ptxas PATH [--every N]`` compiles every n-th measured GEMM launch
with this machine's Triton and runs the same PTX through another ptxas (Triton 3.6's 12.8, the GPU's) as
Triton 3.6 runs it; ``--report FILE`` counts the launches each gives the GPU's registers and frame exactly.
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
from tilesight.frontends.triton.sass import (  # noqa: E402
    global_load_waits,
    instructions,
    local_bytes,
    loops,
    mma_loop_bodies,
    reload_waits,
)

_LOCAL = re.compile(r"\b(LDL|STL)(?:\.(LU))?(?:\.(64|128))?\b")


def _loop_body(sass: str, innermost_mma: bool = False) -> list[str]:
    """The instructions of the longest loop of ``sass`` (cuobjdump -sass text): from a backward branch's
    target to the branch; ``innermost_mma``: of the shortest loop holding a matrix instruction instead
    (``sass.mma_loop_bodies``: a persistent kernel's K loop, not its loop over tiles).
    Empty without such a loop."""
    if innermost_mma:  # the shortest loop holding one is one of the innermost such loops
        return min(mma_loop_bodies(sass), key=len, default=[])
    ins = instructions(sass)
    spans = loops(sass)
    if not spans:
        return []
    lo, hi = max(spans, key=lambda span: span[1] - span[0])
    return [text for _, text in ins[lo : hi + 1]]


def loop_local_bytes(sass: str, innermost_mma: bool = False) -> tuple[int, int]:
    """Bytes per thread that the longest loop of ``sass`` (cuobjdump -sass text) loads and stores from local
    memory per iteration (:func:`tilesight.frontends.triton.sass.local_bytes`), between a backward branch's
    target and the branch. (0, 0) without a loop. ``innermost_mma``: the shortest loop holding a matrix
    instruction instead (a persistent kernel's K loop, not its loop over tiles)."""
    return local_bytes(_loop_body(sass, innermost_mma))


def loop_load_stops(sass: str) -> tuple[int, int, int]:
    """(``LDG`` instructions, stops for an ``LDG`` result, stops for a local reload) in one iteration of the
    innermost loop holding matrix instructions (the K loop): ``sass.global_load_waits`` and the sum of
    ``sass.reload_waits``. A K loop that loads a tile into registers (strides no multiple of 16 bytes) and
    stores each load as it arrives stops once a load (docs/known-gaps.md, stop 73)."""
    body = _loop_body(sass, innermost_mma=True)
    loads, waits = global_load_waits(body)
    return loads, waits, sum(reload_waits(body))


def loop_reload_runs(sass: str) -> list[int]:
    """Lengths of the runs of consecutive ``LDL`` instructions (nothing else between them) in one iteration of
    the innermost loop holding matrix instructions: how many spill reloads a warp has in flight before an
    instruction that may use them."""
    runs, current = [], 0
    for text in _loop_body(sass, innermost_mma=True):
        m = _LOCAL.search(text)
        if m and m.group(1) == "LDL":
            current += 1
        elif current:
            runs.append(current)
            current = 0
    if current:
        runs.append(current)
    return runs


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


def sass(record: dict, where: str) -> tuple[int, int, int, tuple[int, int, int]]:
    """(ptxas frame bytes, loop LDL bytes, loop STL bytes, :func:`loop_load_stops`) per thread of one sweep
    case, compiled on CPU by Triton's own compile (:func:`_cubin_sass`: its ptxas with its flags, or
    ``$TILESIGHT_PTXAS``; Triton 3.9 passes ``--regAllocOptLevel=2``, which a hand-run ptxas without it does
    not, and gets other frames)."""
    from tilesight.hardware import load_profile

    text, frame = _cubin_sass(accuracy.rebuild(record, where), load_profile("h200"))
    loaded, stored = loop_local_bytes(text)
    return frame, loaded, stored, loop_load_stops(text)


def _cubin_sass(launch, hw) -> tuple[str, int]:
    """(cuobjdump -sass text, ptxas frame bytes) of ``launch`` compiled for ``hw`` by the frontend's own
    compile for ptxas (Triton's ``triton.compile``, whose disk cache keeps it)."""
    from tilesight.frontends.triton.binding import bind
    from tilesight.frontends.triton.ptxas import (
        _compile_cubin,
        cuobjdump_output,
        parse_res_usage,
        target_ptxas,
    )

    b = bind(launch.fn, launch.args, dict(launch.options), hw)
    target = target_ptxas(hw)  # $TILESIGHT_PTXAS or the profile's release: the GPU's ptxas, where set
    cubin, name = _compile_cubin(launch.fn, b, hw, target.path if target else None)
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "k.cubin")
        Path(path).write_bytes(cubin)
        text = cuobjdump_output("-sass", path, b.fn_name)
        usage = cuobjdump_output("-res-usage", path, b.fn_name)
    return text, parse_res_usage(usage, name).stack_bytes


def collect_rates(dirs: list[Path], out: Path) -> int:
    """One row per measured GEMM launch of ``dirs`` that spilled more than 8 words on the GPU (``rates``)."""
    import math

    import tilesight
    from tilesight.hardware import load_profile

    hw = load_profile("h200")
    rows = 0
    with out.open("w") as fh:
        for data in dirs:
            path = data / "triton_gemm.jsonl"
            if not path.exists():
                continue
            for n, line in enumerate(path.read_text().splitlines(), 1):
                r = json.loads(line)
                if r.get("status") != "ok" or (r.get("n_spills") or 0) <= 8 or not r.get("measured_us"):
                    continue
                where = f"{path}:{n}"
                launch = accuracy.rebuild(r, where)
                sass_text, frame = _cubin_sass(launch, hw)
                loaded, stored = loop_local_bytes(sass_text, innermost_mma=True)
                runs = loop_reload_runs(sass_text)
                waits = [reload_waits(body) for body in mma_loop_bodies(sass_text)]
                report = tilesight.estimate(
                    launch.fn, launch.grid, *launch.args, hw=hw, registers="ptxas", **launch.options
                )
                p, c = r["problem"], r["constexprs"]
                tiles = math.ceil(p["M"] / c["BLOCK_M"]) * math.ceil(p["N"] / c["BLOCK_N"])
                row = {
                    "id": r["id"], "where": where, "measured_us": r["measured_us"]["p50"],
                    "predicted_us": report.latency_s * 1e6, "num_warps": r["num_warps"],
                    "blocks_per_sm": report.occupancy.resident_blocks, "frame_bytes": frame,
                    "gpu_frame_bytes": 4 * r["n_spills"], "gpu_regs": r["n_regs"],
                    "loop_ldl_bytes": loaded, "loop_stl_bytes": stored, "reload_runs": len(runs),
                    "reload_run_mean": sum(runs) / len(runs) if runs else 0.0,
                    "reload_waits": sum(w[0] for w in waits), "stored_reload_waits": sum(w[1] for w in waits),
                    "tiles": tiles,
                    "k_iterations": math.ceil(p["K"] / c["BLOCK_K"]),
                    "aligned": p["K"] % 8 == 0 and p["N"] % 8 == 0, "shared_bytes": r.get("shared_bytes"),
                }  # fmt: skip
                fh.write(json.dumps(row) + "\n")
                rows += 1
    print(f"wrote {rows} launches to {out}")
    return 0


def rate_gb_s(row: dict, sm_count: int = 132) -> float:
    """Spill traffic (the K loop's local bytes a thread x threads x tiles x iterations) over the measured
    time and the SMs, GB/s an SM: what the launch's spills moved, as if they took all of its time."""
    moved = (row["loop_ldl_bytes"] + row["loop_stl_bytes"]) * 32 * row["num_warps"]
    return moved * row["tiles"] * row["k_iterations"] / (row["measured_us"] * 1e-6) / sm_count / 1e9


def _stops(row: dict) -> float:
    """Reload waits an iteration of the K loop (read-only and stored slots: ``sass.reload_waits``); NaN for a
    row collected before they were recorded."""
    if "reload_waits" not in row:
        return float("nan")
    return row["reload_waits"] + row["stored_reload_waits"]


def _ns_a_stop(row: dict, sm_count: int = 132) -> float:
    """The measured time of one block's K-loop iteration (the launch over its rounds of resident blocks and
    its K iterations) over the iteration's reload waits: what a stop would cost were the stops all of it."""
    stops = _stops(row)
    if not stops or stops != stops:
        return float("nan")
    rounds = -(-row["tiles"] // (sm_count * row["blocks_per_sm"]))
    return row["measured_us"] * 1e3 / (rounds * row["k_iterations"]) / stops


def report_rates(path: Path) -> int:
    """Group ``collect_rates`` rows by alignment, warps, blocks an SM and frame band (``rates``)."""
    from tilesight.model.resources import SPILLABLE_STATE_BYTES

    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    rows = [r for r in rows if r["gpu_regs"] >= 250 and r["loop_ldl_bytes"] + r["loop_stl_bytes"] > 0]
    bands = ((0, 256), (256, 768), (768, 1536), (1536, 1 << 30))
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        band = next(f"{lo}-{hi if hi < 1 << 30 else ''}" for lo, hi in bands if lo <= r["frame_bytes"] < hi)
        key = ("aligned" if r["aligned"] else "unaligned", r["num_warps"], r["blocks_per_sm"], band)
        groups.setdefault(key, []).append(r)
    print(
        f"{len(rows)} spilling GEMM launches (ptxas here, 250+ registers on the GPU); per group, medians: "
        "measured / predicted, the K loop's local bytes over the model's frame pass, GB/s an SM, LDL a run, "
        "reload waits an iteration, measured ns an iteration a wait"
    )
    for key in sorted(groups, key=str):
        g = groups[key]
        ratio = statistics.median(r["measured_us"] / r["predicted_us"] for r in g)
        passes = statistics.median(
            (r["loop_ldl_bytes"] + r["loop_stl_bytes"])
            / (r["frame_bytes"] + max(r["frame_bytes"] - SPILLABLE_STATE_BYTES, 0))
            for r in g
        )
        rate = statistics.median(rate_gb_s(r) for r in g)
        run = statistics.median(r.get("reload_run_mean", float("nan")) for r in g)
        stops = statistics.median(_stops(r) for r in g)
        per_stop = statistics.median(_ns_a_stop(r) for r in g)
        what = f"{key[0]:9s} {key[1]} warps, {key[2]} block(s) an SM, frame {key[3]:>9s} B"
        figures = f"measured/predicted {ratio:.2f}  bytes/pass {passes:.2f}  {rate:5.1f}  run {run:4.1f}"
        figures += f"  stops {stops:5.1f}  ns a stop {per_stop:6.0f}"
        print(f"  {what}: n {len(g):3d}  {figures}")
    return 0


def _ptxas_usage_of(ptxas: str, ptx: str, arch: str) -> tuple[int, int]:
    """(registers, stack frame bytes) ptxas ``ptxas`` gives ``ptx`` for ``arch`` run as Triton 3.6 runs it
    (``-lineinfo -v --gpu-name``, no ``--regAllocOptLevel``), the PTX's ``.version`` lowered to 8.7, which
    ptxas 12.8 reads."""
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "k.ptx", Path(tmp) / "k.cubin"
        src.write_text(re.sub(r"\.version \d+\.\d+", ".version 8.7", ptx))
        done = subprocess.run(
            [ptxas, "-lineinfo", "-v", f"--gpu-name={arch}", str(src), "-o", str(out)],
            capture_output=True, text=True, timeout=600,
        )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"{ptxas} failed: {done.stderr.strip()[:300]}")
    regs = re.search(r"Used (\d+) registers", done.stderr)
    frame = re.search(r"(\d+) bytes stack frame", done.stderr)
    return int(regs.group(1)) if regs else 0, int(frame.group(1)) if frame else 0


def collect_recipes(data: Path, out: Path, ptxas: str, every: int) -> int:
    """One row for every ``every``-th measured GEMM launch of ``data`` (``recipes``): the registers and frame
    the GPU's compile gave it (recorded with the timing), this machine's Triton compile gave it (its own ptxas
    and flags), and ``ptxas`` gave the PTX of that compile run as Triton 3.6 runs it."""
    import triton
    from tilesight.frontends.triton.binding import bind, target_of
    from tilesight.frontends.triton.ptxas import cuobjdump_output, parse_res_usage
    from triton.compiler.compiler import ASTSource

    from tilesight.hardware import load_profile

    hw = load_profile("h200")
    arch = f"sm_{target_of(hw).arch}a"
    rows = 0
    with out.open("w") as fh:
        for n, (r, where) in enumerate(_records(data), 1):
            if n % every or r.get("n_regs") is None:
                continue
            launch = accuracy.rebuild(r, where)
            b = bind(launch.fn, launch.args, dict(launch.options), hw)
            kernel = triton.compile(
                ASTSource(launch.fn, b.signature, b.constexprs, b.attrs),
                target=target_of(hw), options=dict(b.options.__dict__),
            )  # fmt: skip
            with tempfile.TemporaryDirectory() as tmp:
                path = str(Path(tmp) / "k.cubin")
                Path(path).write_bytes(kernel.asm["cubin"])
                usage = cuobjdump_output("-res-usage", path, b.fn_name)
            here = parse_res_usage(usage, kernel.metadata.name)
            other = _ptxas_usage_of(ptxas, kernel.asm["ptx"], arch)
            row = {
                "id": r["id"], "where": where, "gpu": [r["n_regs"], 4 * (r.get("n_spills") or 0)],
                "here": [here.registers, here.stack_bytes], "ptxas": list(other),
                "triton": triton.__version__,
            }  # fmt: skip
            fh.write(json.dumps(row) + "\n")
            rows += 1
    print(f"wrote {rows} launches to {out}")
    return 0


def report_recipes(path: Path) -> int:
    """How many of ``collect_recipes``' launches each compile gives the GPU's registers and frame exactly."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    here = sum(r["here"] == r["gpu"] for r in rows)
    other = sum(r["ptxas"] == r["gpu"] for r in rows)
    print(
        f"{len(rows)} GEMM launches: the GPU's registers and frame exactly from this Triton's compile "
        f"{here}, from the PTX through the other ptxas as Triton 3.6 runs it {other}"
    )
    for r in rows:
        if r["ptxas"] == r["gpu"] != r["here"]:
            print(f"  {r['id']}: GPU {r['gpu']}, here {r['here']}, other ptxas {r['ptxas']}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("ratio", "sass", "band", "agree", "rates", "recipes"))
    ap.add_argument("ids", nargs="*", help="sweep case ids (sass); data directories (rates --collect)")
    ap.add_argument("--data", type=Path, default=HERE / "data")
    ap.add_argument("--collect", type=Path, help="rates: write the rows here")
    ap.add_argument("--report", type=Path, help="rates, recipes: group the rows of this file")
    ap.add_argument("--ptxas", help="recipes --collect: the other ptxas (Triton 3.6's 12.8)")
    ap.add_argument("--every", type=int, default=4, help="recipes --collect: every n-th GEMM launch")
    args = ap.parse_intermixed_args(argv)
    if args.what == "recipes":
        if args.collect and args.ptxas:
            return collect_recipes(args.data, args.collect, args.ptxas, args.every)
        if args.report:
            return report_recipes(args.report)
        print("recipes: --collect OUT --ptxas PATH [--every N] or --report FILE", file=sys.stderr)
        return 2
    if args.what == "rates":
        if args.collect:
            return collect_rates([Path(d) for d in args.ids] or [args.data], args.collect)
        if args.report:
            return report_rates(args.report)
        print("rates: --collect OUT [DIR ...] or --report FILE", file=sys.stderr)
        return 2
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
        frame, loaded, stored, (ldg, ldg_stops, reload_stops) = sass(*by_id[case])
        print(f"{case}: frame {frame} B, loop LDL {loaded} B, STL {stored} B per thread; K loop {ldg} LDG, "
              f"{ldg_stops} stops for one, {reload_stops} for a reload")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

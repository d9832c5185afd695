"""More work never predicts faster: random launches of the reference kernels beside a bigger twin (CPU).

    python benchmarks/monotonic_audit.py [--seed 1] [--count 200] [--kind gemm|softmax|attention] [--tol 0.02]
    python benchmarks/monotonic_audit.py --measured benchmarks/data/h100_validation91 --recorded-file F [...]

Each draw is a launch of one of the reference Triton kernels and its twin with more of the work that does not
change how the kernel is compiled: more GEMM rows ``M`` (the tutorial GEMM, ``kernels.triton.gemm``; the
strides, which carry ``K`` and ``N``, stay as they are), more softmax rows (``kernels.triton.softmax``), more
attention heads (``kernels.triton.attention``, the same sequence length and strides per head). The twin does
everything the launch does and more, so its predicted latency should not be lower; a twin predicted faster
than ``(1 - tol)`` of the launch is a **violation**, printed with both latencies and bottlenecks, and the exit
status is 1 if there was any. Nothing is measured; the draw is reproducible from the seed.

What this found (stop 88): the GEMM's second tile row sharing the first's B tiles predicted faster than the
first row alone (docs/known-gaps.md). What it does not flag: jumps that come with the twin's extra work (a
new tile row past a multiple of ``BLOCK_M``, a second wave), however large, nor a change of compiled code
(a stride losing Triton's divisibility by 16), which the twins here never make. The crash-and-nonsense
fuzzer is ``fuzz_frontends.py``.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
for _folder in (HERE.parent, HERE, HERE / "triton_sweep"):  # the kernels, accuracy.py, sweep_cases.py
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))

KINDS = ("gemm", "softmax", "attention")
TOLERANCE = 0.02  # a twin may come out this much faster before it counts (the model's fixed points' noise)


@dataclass(frozen=True)
class Draw:
    """One launch and its bigger twin: the same kernel and config, ``base`` and ``bigger`` the sizes."""

    kind: str
    config: tuple
    base: tuple[int, ...]
    bigger: tuple[int, ...]

    def label(self) -> str:
        return f"{self.kind} {self.config} {self.base} -> {self.bigger}"


def violation(base_us: float, bigger_us: float, tol: float = TOLERANCE) -> bool:
    """Whether the twin with more work is predicted faster than ``(1 - tol)`` of the launch."""
    if tol < 0 or tol >= 1:
        raise ValueError(f"tol={tol} must be in [0, 1)")
    return bigger_us < (1.0 - tol) * base_us


def draw(kind: str, rng: random.Random) -> Draw:
    """A random launch of ``kind`` and its twin with more rows (GEMM, softmax) or heads (attention)."""
    if kind == "gemm":
        m = rng.choice([rng.randint(1, 16384), 16, 32, 64, 128, 1024, 4096])
        n, k = 16 * rng.randint(4, 1024), 16 * rng.randint(4, 1024)
        cfg = (
            rng.choice([64, 128]),
            rng.choice([64, 128, 256]),
            rng.choice([32, 64]),
            rng.choice([4, 8]),
            rng.choice([3, 4]),
            rng.choice([1, 8]),
        )
        return Draw(kind, cfg, (m, n, k), (m + rng.choice([1, cfg[0] // 2, cfg[0]]), n, k))
    if kind == "softmax":
        rows, cols = rng.choice([rng.randint(1, 65536), 4096, 8192]), 16 * rng.randint(1, 1024)
        cfg = (rng.choice([1, 2, 4, 8, 16]), rng.choice(["float16", "bfloat16", "float32"]))
        return Draw(kind, cfg, (rows, cols), (rows + rng.choice([1, 132, rows]), cols))
    if kind == "attention":
        heads, n = rng.choice([8, 16, 32]), rng.choice([rng.randint(128, 8192), 1024, 2048, 4096])
        cfg = (
            rng.choice([64, 128]),
            rng.choice([(64, 64), (128, 64), (64, 32), (128, 128)]),
            rng.choice([4, 8]),
            rng.choice([2, 3]),
            rng.choice([True, False]),
        )
        return Draw(kind, cfg, (heads, n), (heads + rng.choice([1, 8, heads]), n))
    raise ValueError(f"unknown kind {kind!r}; expected one of {', '.join(KINDS)}")


def predictor(hw: str = "h200") -> Callable[[str, tuple, tuple[int, ...]], float]:
    """The function that predicts one launch of a draw, ``(kind, config, sizes)`` to its latency in us: the
    launch built by the sweeps' own case builders (``sweep_cases.gemm_case``, ``row_case``,
    ``attention_case``), predicted as ``accuracy.py`` predicts a measured case, so a draw is a case the
    sweeps can time as it is."""
    import accuracy
    import sweep_cases

    def predict(kind: str, cfg: tuple, sizes: tuple[int, ...]) -> float:
        if kind == "gemm":
            m, n, k = sizes
            shape = ("audit", m, n, k)
            case = sweep_cases.gemm_case("grouped", shape, "float16", sweep_cases.GemmConfig(*cfg))
        elif kind == "softmax":
            rows, cols = sizes
            warps, dtype = cfg
            case = sweep_cases.row_case("softmax", rows, cols, dtype, warps)
        else:
            heads, n = sizes
            dim, (bm, bn), warps, stages, causal = cfg
            case = sweep_cases.attention_case(1, heads, n, dim, causal, (bm, bn, warps, stages))
        return accuracy.predict_us(case.to_json(), case.id, hw)

    return predict


def audit(draws: list[Draw], predict, tol: float = TOLERANCE) -> tuple[int, list[tuple[Draw, float, float]]]:
    """Predict every draw's launch and twin; returns the number of pairs predicted and the violations
    ``(draw, base us, bigger us)``. A draw either launch of which the model refuses with a typed error
    (:class:`tilesight.errors.TileSightError`: over the shared-memory limit) is skipped."""
    from tilesight.errors import TileSightError

    done, bad = 0, []
    for d in draws:
        try:
            base = predict(d.kind, d.config, d.base)
            bigger = predict(d.kind, d.config, d.bigger)
        except TileSightError:
            continue
        done += 1
        if violation(base, bigger, tol):
            bad.append((d, base, bigger))
    return done, bad


def measured_twins(
    rows: list[dict], predictions: dict[str, dict[str, float]], tol: float = TOLERANCE
) -> tuple[list[str], dict[str, int]]:
    """The audit's GEMM case against a timed set (validation 91: each (N, K, config) at several M): a line
    per (N, K, config) with the measured and each prediction file's latencies in order of M, and how many
    of them have a later M faster than the first beyond ``tol``, measured (key ``"measured"``) and per
    prediction file. ``rows`` are the set's GEMM records, ``predictions`` file name -> case id -> us."""
    groups: dict[tuple, list[tuple[int, str, float]]] = {}
    for r in rows:
        p = r["problem"]
        key = (p["N"], p["K"], r["id"].rsplit("/", 1)[-1])
        groups.setdefault(key, []).append((int(p["M"]), r["id"], float(r["measured_us"]["p50"])))
    lines, faster = [], {"measured": 0, **{name: 0 for name in predictions}}
    for key, cases in sorted(groups.items()):
        cases.sort()
        series = {"measured": [us for _, _, us in cases]}
        for name, pred in predictions.items():
            missing = [cid for _, cid, _ in cases if cid not in pred]
            if missing:
                raise ValueError(f"{name}: no prediction for {missing[0]!r}")
            series[name] = [pred[cid] for _, cid, _ in cases]
        for name, us in series.items():
            faster[name] += any(violation(us[0], later, tol) for later in us[1:])
        m = "/".join(str(mm) for mm, _, _ in cases)
        cols = " | ".join(f"{name} " + " ".join(f"{u:7.1f}" for u in us) for name, us in series.items())
        lines.append(f"N={key[0]} K={key[1]} {key[2]} M={m}: {cols}")
    return lines, faster


def _measured_main(folder: Path, files: list[str], tol: float) -> int:
    """The timed set's measured GEMM records and recorded predictions, read as ``accuracy.py`` reads them
    (a missing or unmeasured file is its :class:`accuracy.DataError`)."""
    import accuracy

    rows = [rec for rec, _ in accuracy.load(folder, "gemm/")]
    predictions = {f: accuracy.recorded_predictions(folder, f) for f in files}
    lines, faster = measured_twins(rows, predictions, tol)
    print("\n".join(lines))
    print(", ".join(f"{name}: {n} of {len(lines)} with a bigger twin faster" for name, n in faster.items()))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=200, help="draws per kind")
    ap.add_argument("--kind", choices=KINDS, action="append", help="kinds to draw (default: all)")
    ap.add_argument("--tol", type=float, default=TOLERANCE, help="how much faster a twin may come out")
    ap.add_argument("--hw", default="h200")
    ap.add_argument(
        "--measured",
        type=Path,
        help="a timed twin set (validation 91's folder): its twins, measured and predicted",
    )
    ap.add_argument(
        "--recorded-file", action="append", default=None,
        help="with --measured: prediction files in the folder (default: predicted_before_measuring.json)",
    )  # fmt: skip
    args = ap.parse_args(argv)
    if args.measured is not None:
        from accuracy import DataError

        try:
            return _measured_main(
                args.measured, args.recorded_file or ["predicted_before_measuring.json"], args.tol
            )
        except DataError as e:
            ap.error(f"--measured: {e}")
    if args.count < 1:
        ap.error(f"--count must be >= 1, got {args.count}")
    if not 0 <= args.tol < 1:
        ap.error(f"--tol must be in [0, 1), got {args.tol}")
    import warnings

    warnings.filterwarnings("ignore", module="triton")
    rng = random.Random(args.seed)
    predict = predictor(args.hw)
    status = 0
    for kind in args.kind or KINDS:
        draws = [draw(kind, rng) for _ in range(args.count)]
        done, bad = audit(draws, predict, args.tol)
        print(f"{kind}: {done} pairs predicted, {len(bad)} with the bigger twin faster")
        for d, base, bigger in bad:
            print(f"    {d.label()}: {base:.1f} -> {bigger:.1f} us ({bigger / base - 1:+.1%})")
        status |= bool(bad)
    return int(status)


if __name__ == "__main__":
    sys.exit(main())

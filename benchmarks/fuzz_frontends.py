"""Random launches of the reference kernels through ``tilesight.estimate`` (CPU): crashes and nonsense.

    python benchmarks/fuzz_frontends.py [--seed 1] [--count 300] [--frontend triton|tilelang] [--jobs 2]

Draws ``--count`` launches from the reference kernels' parameter spaces (Triton: GEMMs of every kernel kind
and dtype at sizes from 1 to 14336, odd ones among them, any tile, K step, warps 1-16 and stages 1-6;
attention at any length; the row kernels, element-wise kinds, gathers, transposes, split-K, RoPE; TileLang:
GEMM, fp8 GEMM, FlashAttention, MLA decode, dequantising GEMM) and predicts each. A launch the model refuses
with a typed error (:class:`tilesight.errors.TileSightError`: over the shared-memory limit, a config Triton
cannot compile) is fine; anything else raised, or a latency that is not a positive finite number, is a bug,
printed with its traceback's last line; the exit status is 1 if there was any. Nothing is measured; the draw
is reproducible from the seed. Stop 46's first run found the cache model indexing an empty stream for a loop
that no program enters (a causal kernel's off-band loop at one query block).
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import math
import random
import sys
import traceback
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "triton_sweep"))
sys.path.insert(0, str(HERE / "tilelang_sweep"))
sys.path.insert(0, str(HERE))


def triton_cases(seed: int, count: int) -> list:
    import sweep_cases as S
    from sweep_cases import GemmConfig

    rng = random.Random(seed)
    out = []
    while len(out) < count:
        kind = rng.choice(["gemm", "gemm", "attention", "attention", "row", "other"])
        try:
            if kind == "gemm":
                m = rng.choice([1, 7, 16, 33, 100, 256, 1000, 1024, 3000, 4096, 5000, 8192])
                n = rng.choice([8, 16, 64, 100, 512, 1000, 4096, 6000, 11008, 14336])
                k = rng.choice([16, 32, 48, 100, 128, 1000, 4096, 5120, 8192])
                dtype = rng.choice(["float16", "bfloat16", "float16", "float32", "float8_e4m3fn"])
                cfg = GemmConfig(
                    rng.choice([16, 32, 64, 128, 256]),
                    rng.choice([16, 32, 64, 128, 256]),
                    rng.choice([16, 32, 64, 128]),
                    rng.choice([1, 2, 4, 8, 16]),
                    rng.choice([1, 2, 3, 4, 5, 6]),
                    rng.choice([1, 4, 8, 16]),
                )
                variant = rng.choice(
                    ["grouped", "grouped", "persistent", "tma", "tma_persistent", "block_ptr"]
                )
                elem = S.DTYPE_BYTES[dtype]
                if dtype == "float8_e4m3fn" or (
                    variant.startswith("tma") and (n * elem % 16 or k * elem % 16)
                ):
                    variant = "grouped"
                out.append(
                    S.gemm_case(
                        variant,
                        ("f", m, n, k),
                        dtype,
                        cfg,
                        num_sms=S.H200_SM_COUNT,
                        k_major_b=rng.random() < 0.2,
                    )
                )
            elif kind == "attention":
                cfg = (
                    rng.choice([32, 64, 128]),
                    rng.choice([16, 32, 64, 128]),
                    rng.choice([2, 4, 8]),
                    rng.choice([1, 2, 3, 4]),
                )
                variant = rng.choice(["one-loop", "staged", "tma", "block_ptr"])
                case = S.attention_case(
                    rng.choice([1, 2, 4]),
                    rng.choice([1, 8, 16, 32]),
                    rng.choice([64, 128, 500, 1024, 4096]),
                    rng.choice([64, 128]),
                    rng.random() < 0.5,
                    cfg,
                    staged=variant == "staged",
                    tma=variant == "tma",
                    block_ptr=variant == "block_ptr",
                    dtype=rng.choice(["float16", "bfloat16"]),
                )
                if S.kernel_precondition(case.to_json()) is None:
                    out.append(case)
            elif kind == "row":
                out.append(
                    S.random_row_case(
                        rng,
                        [1, 3, 100, 1024, 32768],
                        [1, 7, 100, 768, 1000, 5000, 16384, 32000],
                        ["float16", "float32", "bfloat16"],
                        [1, 2, 4, 8, 16, 32],
                        [128, 256, 1024, 4096],
                        [132, 264, 1056],
                    )
                )
            else:
                out.append(_other_triton_case(S, rng))
        except (TypeError, ValueError) as e:  # a draw a case builder rejects (not the model's concern)
            print(f"draw skipped: {e}", file=sys.stderr)
    return out


def _coin(rng: random.Random) -> bool:
    return rng.random() < 0.5


_SIZES_1D = [1, 1000, 1 << 20, 1 << 26]


def _scan_draw(rng: random.Random) -> tuple[int, int, int, int, int, str, int]:
    """A scan launch's (batch, length, line block, dim, lines, dtype, warps): lengths of 1-4096, a whole
    line a program (its power-of-two block), 1-256 lines a program within 32768 elements a tile (as a real
    kernel keeps its tile in registers), 1-16 warps."""
    length = rng.choice([1, 7, 64, 100, 512, 1024, 4096])
    line_block = 1 << max(length - 1, 0).bit_length()
    lines = rng.choice([b for b in (1, 4, 16, 32, 64, 256) if b * line_block <= 32768])
    dtype = rng.choice(["float16", "bfloat16", "float32"])
    batch, dim, warps = rng.choice([1, 3, 64]), rng.choice([1, 30, 512, 2048]), rng.choice([1, 2, 4, 8, 16])
    return batch, length, line_block, dim, lines, dtype, warps


def _fuzz_scan_case(kind: str, draw: tuple[int, int, int, int, int, str, int]):
    import sweep_cases as S

    batch, length, line_block, dim, lines, dtype, warps = draw
    block = (lines, line_block) if kind == "rows" else (line_block, lines)
    return S.scan_case(kind, batch, length, dim, block, dtype, warps)


# The other Triton kinds: the case builder of sweep_cases and what each of its arguments is drawn from, in
# order (a list: one of its items; a function: its draw; anything else: as it stands).
_OTHER_TRITON = {
    "add": ("add_case", (_SIZES_1D, ["float16", "float32"], [64, 1024, 4096], [1, 4, 8])),
    "gather": (
        "gather_case",
        ([1, 7, 8192], [100, 128256], [64, 100, 4096], [1, 4, 16], [64, 1024], [1, 4, 8]),
    ),
    "transpose": (
        "transpose_case",
        ([1, 100, 4096, 5000], [1, 64, 1000, 4096], [16, 64, 128], [16, 64, 128], [1, 4, 8]),
    ),
    "gated": (
        "gated_case",
        ([1, 100, 16384], [64, 1000, 14336], ["float16", "bfloat16", "float32"], [256, 4096], [1, 4, 16]),
    ),
    "splitk": (
        "splitk_case",
        (
            [16, 100, 1024],
            [1000, 4096],
            [1024, 5000],
            [16, 64, 128],
            [32, 128, 256],
            [32, 64, 128],
            [1, 4, 16],
            [2, 4, 8],
            [1, 2, 3, 4],
        ),
    ),
    "rope": (
        "rope_case",
        ([1, 4096], [1, 32, 40], [64, 128], 16384, ["float16", "bfloat16"], [1, 4, 32], [1, 4, 8]),
    ),
    "add_rmsnorm": (
        "add_rmsnorm_case",
        ([1, 100, 16384], [64, 1000, 16384], ["float16", "bfloat16"], [1, 4, 16]),
    ),
    "dropout": ("dropout_case", (_SIZES_1D, ["float16", "float32"], [0.0, 0.5], [256, 4096], [1, 4, 8])),
    "gelu": ("gelu_case", (_SIZES_1D, ["float16", "bfloat16"], _coin, [256, 4096], [1, 4, 8])),
    "quant": ("quant_case", ([1, 100, 16384], [64, 1000, 8192], ["float16", "bfloat16"], [1, 4, 16])),
    "scan": ("_fuzz_scan_case", (["rows", "seq", "recurrence"], _scan_draw)),
}


def _other_triton_case(S, rng: random.Random):
    builder, spaces = _OTHER_TRITON[rng.choice(list(_OTHER_TRITON))]
    args = [rng.choice(x) if isinstance(x, list) else x(rng) if callable(x) else x for x in spaces]
    return (globals()[builder] if builder.startswith("_") else getattr(S, builder))(*args)


def tilelang_cases(seed: int, count: int) -> list[dict]:
    import cases as C

    rng = random.Random(seed)
    out = []
    for i in range(count):
        family = rng.choice(["gemm", "gemm", "fa", "fa", "mla", "dequant", "fp8"])
        if family == "gemm":
            shape = (rng.choice([64, 100, 1000, 4096, 6000]), rng.choice([64, 1000, 4096, 11008]))
            shape += (rng.choice([32, 1000, 4096]),)
            config = (
                rng.choice([32, 64, 128, 256]),
                rng.choice([32, 64, 128, 256]),
                rng.choice([32, 64, 128]),
                rng.choice([0, 1, 2, 3, 4]),
                rng.choice([128, 256]),
                rng.random() < 0.5,
                rng.choice(["float16", "bfloat16"]),
            )
            case = C.gemm_case(shape, config)
        elif family == "fa":
            shape = (rng.choice([1, 4]), rng.choice([1, 16]), rng.choice([64, 256, 1000, 4096]))
            shape += (rng.choice([64, 128]),)
            causal = rng.random() < 0.5
            config = (
                rng.choice([64, 128]),
                rng.choice([32, 64, 128]),
                rng.choice([1, 2, 3]),
                rng.choice([128, 256]),
            )
            case = C.fa_case(shape, causal, config)
        elif family == "mla":
            shape = (rng.choice([1, 64, 132]), rng.choice([16, 128]), rng.choice([64, 1000, 8192]))
            config = (rng.choice([16, 64]), rng.choice([32, 64]), rng.choice([1, 2]), rng.choice([128, 256]))
            case = C.mla_case(shape, config)
        elif family == "dequant":
            shape = (rng.choice([16, 1024, 4096]), rng.choice([1024, 11008]), rng.choice([1024, 4096]))
            config = (
                rng.choice([16, 64, 128]),
                rng.choice([64, 128, 256]),
                rng.choice([32, 64, 128]),
                rng.choice([1, 2, 3]),
                rng.choice([128, 256]),
            )
            case = C.dequant_case(shape, config, rng.choice(["int4", "uint4"]))
        else:
            shape = (rng.choice([128, 1000, 4096]), rng.choice([128, 8192]), rng.choice([128, 4096]))
            config = (
                rng.choice([64, 128]),
                rng.choice([64, 128, 256]),
                rng.choice([64, 128]),
                rng.choice([2, 3, 4]),
                rng.choice([128, 256]),
                rng.choice([0, 1, 4]),
            )
            case = C.fp8_case(shape, config)
        case["id"] = f"tilelang/{family}/{i}"
        out.append(case)
    return out


def _verdict(latency_us: float) -> str:
    return "ok" if math.isfinite(latency_us) and latency_us > 0 else "bad latency"


def _attempt(case_id: str, predict, refusals: tuple[type[Exception], ...]) -> tuple[str, str, str]:
    """(id, verdict, why) of one prediction: ``predict()`` returns microseconds; one of ``refusals`` raised
    is a typed refusal, anything else a crash (what this script exists to find)."""
    try:
        return case_id, _verdict(predict()), ""
    except refusals as e:
        return case_id, "refused", f"{type(e).__name__}: {str(e).split('failed: ')[-1][:120]}"
    except Exception as e:  # noqa: BLE001
        return case_id, "crash", "".join(traceback.format_exception(e)).strip().splitlines()[-1][:300]


def run_triton(case) -> tuple[str, str, str]:
    import accuracy

    from tilesight.errors import TileSightError

    return _attempt(
        case.id,
        lambda: accuracy.predict_us(case.to_json(), case.id, "h200"),
        (TileSightError, accuracy.DataError),
    )


def run_tilelang(case: dict) -> tuple[str, str, str]:
    import cases as C

    import tilesight
    from tilesight.errors import TileSightError

    try:
        func = C.build(case)
    except Exception as e:  # noqa: BLE001 - a draw TileLang itself rejects is not the model's concern
        return case["id"], "refused", f"TileLang: {type(e).__name__}: {str(e)[:100]}"
    case_id = f"{case['id']} {json.dumps(case['params'])}"
    return _attempt(
        case_id,
        lambda: tilesight.estimate(func, *C.launch_args(case), hw="h200").latency_us,
        (TileSightError,),
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--frontend", choices=("triton", "tilelang"), default="triton")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes")
    args = ap.parse_args(argv)
    if args.frontend == "triton":
        cases, job = triton_cases(args.seed, args.count), run_triton
    else:
        cases, job = tilelang_cases(args.seed, args.count), run_tilelang
    with cf.ProcessPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(job, cases, chunksize=2))
    counts = Counter(verdict for _, verdict, _ in results)
    print(f"{len(results)} launches: " + ", ".join(f"{n} {v}" for v, n in counts.most_common()))
    reasons = Counter(why for _, verdict, why in results if verdict == "refused")
    for why, n in reasons.most_common(8):
        print(f"  refused x{n}: {why}")
    bugs = [(cid, verdict, why) for cid, verdict, why in results if verdict not in ("ok", "refused")]
    for cid, verdict, why in bugs:
        print(f"{verdict.upper()}: {cid}: {why}")
    return 1 if bugs else 0


if __name__ == "__main__":
    sys.exit(main())

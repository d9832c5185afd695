"""Cases of the Triton survey set: one kernel, its launch grid and arguments, and a crude roofline.

The kernels (``k_gemm``, ``k_mem``, ``k_attn``, ``k_variants``) were written for this project by a survey of
constructs real Triton kernels use (vLLM- and Liger-style decode, MoE, cross-entropy, norms, attention
variants), not for the model: they are a blind set of "other kernels of the same kinds". The modules import
without TileSight (the GPU machine has only torch and triton): ``T`` is TileSight's ``TensorSpec`` where it
imports, else a stand-in with the same fields.
"""

from __future__ import annotations

import dataclasses
import os

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

try:
    from tilesight import TensorSpec as T
except ImportError:  # the GPU machine

    @dataclasses.dataclass
    class T:  # type: ignore[no-redef]
        shape: tuple
        dtype: str
        strides: tuple | None = None
        values: object = None


DT_SIZE = {"float16": 2, "bfloat16": 2, "float32": 4, "int32": 4, "int64": 8, "int8": 1, "uint8": 1,
           "float8_e4m3fn": 1, "float8_e5m2": 1, "int16": 2}  # fmt: skip


@dataclasses.dataclass
class Case:
    name: str
    constructs: str
    fn: object
    grid: object
    args: tuple
    kw: dict
    bytes: float  # compulsory DRAM bytes
    flops: float = 0.0
    peak: float = 989e12  # 989e12 for fp16/bf16 tensor-core work, 67e12 for fp32 CUDA cores, 1979e12 fp8/int8
    note: str = ""  # why a roofline flag is plausible

    def roofline_us(self) -> float:
        return max(self.bytes / 4.8e12, self.flops / self.peak) * 1e6

    def predict(self, hw: str = "h200") -> dict:
        """TileSight on this case for profile ``hw`` (CPU): ``roofline_us`` and either ``predicted_us`` and
        ``bottleneck`` or, where it refuses the kernel, ``refused`` (the error's class and message)."""
        import tilesight
        from tilesight.errors import TileSightError

        row: dict = {"roofline_us": self.roofline_us()}
        try:
            report = tilesight.estimate(self.fn, self.grid, *self.args, hw=hw, **self.kw)
        except TileSightError as e:
            row["refused"] = f"{type(e).__name__}: {e}"
        else:
            row.update(predicted_us=float(report.latency_us), bottleneck=str(report.bottleneck))
        return row


def nbytes(shape, dtype) -> int:
    n = 1
    for s in shape:
        n *= s
    return n * DT_SIZE[dtype]


def all_cases() -> list[Case]:
    import k_attn
    import k_gemm
    import k_mem
    import k_variants

    return [*k_gemm.cases(), *k_mem.cases(), *k_attn.cases(), *k_variants.cases()]


def recheck_cases() -> list[Case]:
    """New shapes of the kernels the stop-20 fixes were read from (k_recheck)."""
    import k_recheck

    return k_recheck.recheck_cases()


def staged_cases() -> list[Case]:
    """GEMMs whose B operand the threads store into shared memory themselves (k_staged)."""
    import k_staged

    return k_staged.staged_cases()


def lock_cases() -> list[Case]:
    """Kernels whose programs take a spin lock (k_lock)."""
    import k_lock

    return k_lock.lock_cases()


def lock2_cases() -> list[Case]:
    """A second lock set, after the lock rule's constants were set (k_lock)."""
    import k_lock

    return k_lock.lock2_cases()


def moe_cases() -> list[Case]:
    """Fused mixture-of-experts GEMMs whose B block an index tensor chooses (k_moe)."""
    import k_moe

    return k_moe.moe_cases()


# Case sets by name: (cases, prefix of the set's files in benchmarks/data/survey_triton). The survey's own
# files have none: predicted_before_measuring.json and survey_triton_h200.jsonl.
def gathers_cases() -> list[Case]:
    """In-tile gathers and histograms, after their pricing was added (k_gathers)."""
    import k_gathers

    return k_gathers.gathers_cases()


def intdiv_cases() -> list[Case]:
    """Element-wise kernels indexing through integer division and remainder (k_intdiv)."""
    import k_intdiv

    return k_intdiv.intdiv_cases()


def dequant_cases() -> list[Case]:
    """Weight-only quantised GEMMs at new shapes: the conversion rule blind (k_staged)."""
    import k_staged

    return k_staged.dequant_cases()


def reread_cases() -> list[Case]:
    """Loads that come back within their loops: re-loaded tiles and round-robin panels (k_reread)."""
    import k_reread

    return k_reread.reread_cases()


def other_cases() -> list[Case]:
    """A second blind survey: new kernels and the FlashAttention forward at new shapes (k_other)."""
    import k_other

    return k_other.other_cases()


def robust_cases() -> list[Case]:
    """A robustness survey (stop 79): losses, norms, quantisation, KV-cache writes, split-K, fp8 block-scaled
    GEMM, sliding-window attention and the survey's defect reproducers (k_robust)."""
    import k_robust

    return k_robust.robust_cases()


SETS = {
    "survey": (all_cases, ""),
    "recheck": (recheck_cases, "recheck_"),
    "staged": (staged_cases, "staged_"),
    "lock": (lock_cases, "lock_"),
    "lock2": (lock2_cases, "lock2_"),
    "gathers": (gathers_cases, "gathers_"),
    "dequant": (dequant_cases, "dequant_"),
    "intdiv": (intdiv_cases, "intdiv_"),
    "moe": (moe_cases, "moe_"),
    "reread": (reread_cases, "reread_"),
    "other": (other_cases, "other_"),
    "robust": (robust_cases, "robust_"),
}


def cases_of(name: str) -> list[Case]:
    return SETS[name][0]()


def measured_file(name: str, hw: str = "h200") -> str:
    prefix = SETS[name][1]
    return f"{prefix}{hw}.jsonl" if prefix else f"survey_triton_{hw}.jsonl"


def predicted_file(name: str, hw: str = "h200") -> str:
    """The set's predictions recorded before it was timed: for the H200 (the survey's GPU) without a suffix,
    for another GPU's profile with its name (``robust_predicted_before_measuring_h100.json``)."""
    suffix = "" if hw == "h200" else f"_{hw}"
    return f"{SETS[name][1]}predicted_before_measuring{suffix}.json"

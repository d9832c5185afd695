"""The GEMM cases profiled for L2 hit rates, and the fixed calibration / held-out split.

Pure Python (no torch, triton or tilesight): the GPU driver, the CSV parser and the CPU scorer all import it.
Cases span square, non-square, LLM-like and ragged shapes from 1k to 16k, tiles 64..256 x 64..256 with BLOCK_K
32 / 64, GROUP_M 1 / 4 / 8, several num_stages / num_warps, and a persistent GEMM with several program counts.
Matrices stay small enough (at most a few hundred MB, about 1 TFLOP) that one NCU pass over every case takes a
few minutes.
"""

from __future__ import annotations

import hashlib
import itertools

DTYPE = "float16"
ELEMENT_BYTES = 2
# H200 per-block shared-memory limit (opt-in), bytes; configs whose pipelined operand buffers exceed it are
# dropped (Triton would refuse them at launch). Mirrors hw_profiles/h200.toml's smem_per_block_max_bytes.
SMEM_PER_BLOCK_MAX_BYTES = 232448
HELD_OUT_MODULUS = 3  # one case in three (by hash of its id) is held out of any calibration

# (M, N, K)
SHAPES = [
    (1024, 1024, 1024),
    (2048, 2048, 2048),
    (4096, 4096, 4096),
    (8192, 8192, 2048),
    (8192, 8192, 8192),
    (16384, 4096, 1024),
    (4096, 16384, 1024),
    (16384, 16384, 512),
    (4096, 11008, 4096),  # LLaMA-7B MLP up-projection, 4k tokens
    (4096, 4096, 11008),  # ... and the down-projection
    (2048, 14336, 4096),  # Mistral / LLaMA-3-8B MLP, 2k tokens
    (16384, 1024, 4096),  # tall-skinny
    (1024, 16384, 8192),  # wide, long K
    (6144, 6144, 6144),
    (3000, 5000, 2000),  # ragged: masked edge tiles
    (12288, 12288, 1024),
]

# (BLOCK_M, BLOCK_N, BLOCK_K, num_stages, num_warps); 256-wide tiles use 8 warps to keep the accumulator in
# registers (256 x 128 fp32 / 256 threads = 128 registers).
CONFIGS = [
    (128, 128, 64, 3, 4),
    (128, 256, 64, 3, 8),
    (64, 64, 32, 4, 4),
    (256, 128, 32, 4, 8),
    (128, 128, 32, 4, 8),
    (64, 128, 64, 3, 4),
    (128, 64, 32, 3, 4),
    (256, 64, 64, 3, 8),
]
GROUP_MS = (1, 4, 8)
CONFIGS_PER_SHAPE = 4

# Persistent GEMM: (shape, config, GROUP_M) with program counts one, two and a half SM count.
PERSISTENT_SHAPES = [(8192, 8192, 2048), (4096, 11008, 4096), (16384, 4096, 1024), (6144, 6144, 6144)]
PERSISTENT_CONFIGS = [(128, 128, 64, 3, 4), (128, 256, 64, 3, 8)]
PERSISTENT_PROGRAMS = (132, 264, 66)
PERSISTENT_GROUP_MS = (1, 8)

# The "narrow" study (``--set narrow``): the 16- and 32-row tiles of the timing sweep (decode-style tiles,
# warp-level ``mma``, many waves) on LLM projection shapes, where the timing sweep's GROUP_M=1 launches ran
# 20-30% slower than predicted and no case of the main study had such tiles. Split into thirds by the same
# hash (:func:`is_held_out`): its calibration third entered the execution-skew sweep; its held-out one never.
NARROW_SHAPES = [
    (4096, 14336, 4096),  # the timing sweep's llm_up
    (4096, 4096, 14336),  # ... llm_down
    (4096, 4096, 4096),
]
NARROW_CONFIGS = [
    (16, 128, 64, 4, 4),
    (16, 256, 32, 3, 8),
    (16, 64, 128, 5, 4),
    (16, 256, 128, 2, 4),
    (32, 64, 32, 4, 8),
    (32, 128, 64, 3, 4),
]
NARROW_GROUP_MS = (1, 8)

# The "blind36" set (``--set blind36``, stop 36): shapes and shape x config pairs neither study has,
# predicted with the committed cache model (benchmarks/ncu_l2/blind.py --predict) before they were measured,
# to check the merge window and the skew ramp that stop 36 set on the two studies' calibration thirds. Every
# case is scored.
BLIND_SHAPES = [
    (3072, 3072, 3072),
    (2048, 8192, 2048),
    (8192, 2048, 4096),
    (5120, 5120, 2560),
    (1536, 12288, 4096),
    (10240, 4096, 2048),
]
BLIND_CONFIGS_PER_SHAPE = 3
BLIND_PERSISTENT_SHAPES = [(5120, 5120, 2560), (3072, 12288, 2048)]
BLIND_PERSISTENT_PROGRAMS = (132, 264)
# The "blind56" set (``--set blind56``, stop 56): grouped GEMMs at GROUP_M 1, 4 and 8 on four more shapes
# none of the sets has (long K loops, LLM-like and square), each over a window of :data:`CONFIGS` that holds
# small tiles of several blocks an SM, predicted before they were measured, to check the per-block execution
# skew that stop 56 set on the two studies' calibration thirds. Every case is scored.
BLIND56_SHAPES = [
    (3584, 9728, 4096),
    (5632, 5632, 5632),
    (2560, 12800, 3072),
    (4608, 4608, 9216),
]
BLIND56_CONFIGS_PER_SHAPE = 3
# The "crowded" set (``--set crowded``, stop 62): the timing sweep's narrow GEMM tiles that an SM holds 7-14
# of at once (16 x 64 x 32 on 2 and 4 warps, 16 x 128 x 32 on 2, 64 x 32 x 32 on 4) on the LLM shapes, where
# the GROUP_M=1 launches run 1.2-1.6x faster than the model predicts: the per-block execution skew
# (``EXECUTION_SKEW_PER_BLOCK``) was set on studies of at most six blocks an SM and is held there. Predicted
# before it was measured (``blind.py --set crowded --predict``); every case is scored.
CROWDED_SHAPES = [(4096, 14336, 4096), (4096, 4096, 14336)]
CROWDED_CONFIGS = [(16, 64, 32, 2, 2), (16, 64, 32, 2, 4), (16, 128, 32, 4, 2), (64, 32, 32, 5, 4)]
CROWDED_GROUP_MS = (1, 8)
# The "crowded62" set (``--set crowded62``, stop 62): a blind test of the latency-paced rule that the
# crowded set prompted (``tilesight.cache.model.LATENCY_PACED_STAGES``), on shapes and tiles neither set has:
# two-stage tiles the rule calls latency-paced (16 x 64 x 64, 32 x 64 x 32, 32 x 128 x 32, 64 x 64 x 32)
# beside three-stage twins, which it leaves to the pacing rule, at GROUP_M 1 (and 8 for two of them).
# Predicted before it was measured; every case is scored.
CROWDED62_SHAPES = [(3584, 9728, 4096), (2560, 12800, 5120)]
CROWDED62_CONFIGS = [
    (16, 64, 64, 2, 4),
    (32, 64, 32, 2, 4),
    (32, 128, 32, 2, 4),
    (64, 64, 32, 2, 4),
    (32, 64, 32, 3, 4),
    (64, 64, 32, 3, 4),
]
# The "onewave" set (``--set onewave``, stop 83): grids of at most one wave (every tile resident at once),
# where the main study's GROUP_M 4 launches read 8-16 pp below their GROUP_M 1 and 8 twins in NCU (1024^3 and
# 2048^3: 61.6 against 73.5 / 74.3% at 128 x 128 x 64) and the model has the three within 3 pp: the same
# tiles at three shapes neither study has, at GROUP_M 1, 2, 4 and 8, with the coalescer and fabric counters,
# so the hit rate splits into merges, fabric lookups and DRAM reads. Predicted before it was measured; every
# case is scored.
ONEWAVE_SHAPES = [(1536, 1536, 3072), (1024, 3072, 2048), (3072, 1024, 1536)]
ONEWAVE_CONFIGS = [(128, 128, 64, 3, 4), (64, 64, 32, 4, 4), (256, 128, 32, 4, 8)]
ONEWAVE_GROUP_MS = (1, 2, 4, 8)
SETS = ("main", "narrow", "blind36", "blind56", "crowded", "crowded62", "onewave")


def smem_bytes(block_m: int, block_n: int, block_k: int, num_stages: int) -> int:
    return num_stages * (block_m * block_k + block_k * block_n) * ELEMENT_BYTES


def case_id(c: dict) -> str:
    cid = (
        f"{c['kernel']}_M{c['M']}_N{c['N']}_K{c['K']}_b{c['block_m']}x{c['block_n']}x{c['block_k']}"
        f"_g{c['group_m']}_s{c['num_stages']}_w{c['num_warps']}"
    )
    return cid + (f"_p{c['programs']}" if c["programs"] else "")


def _case(kernel, shape, cfg, group_m, programs=None) -> dict:
    (m, n, k), (bm, bn, bk, stages, warps) = shape, cfg
    c = dict(
        kernel=kernel, M=m, N=n, K=k, block_m=bm, block_n=bn, block_k=bk, group_m=group_m,
        num_stages=stages, num_warps=warps, programs=programs, dtype=DTYPE,
    )  # fmt: skip
    c["case_id"] = case_id(c)
    return c


def _grouped_cases(shapes: list, step: int, first: int, per_shape: int) -> list[dict]:
    """Grouped GEMMs at every GROUP_M of :data:`GROUP_MS` over a rotating window of :data:`CONFIGS`: shape
    ``i`` takes ``per_shape`` configs from ``step x i + first`` on, so each shape sees different tiles and
    every config appears on many shapes; configs whose operand buffers exceed a block's shared memory are
    dropped."""
    cases = []
    for i, shape in enumerate(shapes):
        configs = [CONFIGS[(step * i + first + j) % len(CONFIGS)] for j in range(per_shape)]
        for cfg, g in itertools.product(configs, GROUP_MS):
            if smem_bytes(*cfg[:4]) <= SMEM_PER_BLOCK_MAX_BYTES:
                cases.append(_case("grouped", shape, cfg, g))
    return cases


def _persistent_cases(shapes: list, programs: tuple[int, ...]) -> list[dict]:
    """Persistent GEMMs of :data:`PERSISTENT_CONFIGS` at each GROUP_M and program count."""
    grid = list(itertools.product(PERSISTENT_CONFIGS, PERSISTENT_GROUP_MS, programs))
    return [_case("persistent", shape, cfg, g, p) for shape in shapes for cfg, g, p in grid]


def build_cases() -> list[dict]:
    """Every case, in a fixed order grouped by shape (so the driver reuses its input matrices)."""
    cases = _grouped_cases(SHAPES, 1, 0, CONFIGS_PER_SHAPE)
    cases += _persistent_cases(PERSISTENT_SHAPES, PERSISTENT_PROGRAMS)
    ids = [c["case_id"] for c in cases]
    assert len(set(ids)) == len(ids), "case ids must be unique"
    return cases


def _shape_grid(shapes: list, configs: list, group_ms: tuple[int, ...]) -> list[dict]:
    """Grouped GEMMs of every config at every GROUP_M on each shape, grouped by shape."""
    return [
        _case("grouped", shape, cfg, g) for shape in shapes for cfg, g in itertools.product(configs, group_ms)
    ]


def build_narrow_cases() -> list[dict]:
    """The ``narrow`` validation set (see :data:`NARROW_SHAPES`), grouped by shape."""
    return _shape_grid(NARROW_SHAPES, NARROW_CONFIGS, NARROW_GROUP_MS)


def build_blind_cases() -> list[dict]:
    """The ``blind36`` set (see :data:`BLIND_SHAPES`): grouped GEMMs at GROUP_M 1, 4 and 8 over a rotating
    window of :data:`CONFIGS` that starts where the main study's does not, and persistent GEMMs."""
    cases = _grouped_cases(BLIND_SHAPES, 2, 1, BLIND_CONFIGS_PER_SHAPE)
    return cases + _persistent_cases(BLIND_PERSISTENT_SHAPES, BLIND_PERSISTENT_PROGRAMS)


def build_blind56_cases() -> list[dict]:
    """The ``blind56`` set (see :data:`BLIND56_SHAPES`): grouped GEMMs at GROUP_M 1, 4 and 8, shape ``i`` over
    :data:`CONFIGS` from ``2 i + 2`` on (64 x 64 x 32, 64 x 128 x 64 and 128 x 64 x 32 among them)."""
    return _grouped_cases(BLIND56_SHAPES, 2, 2, BLIND56_CONFIGS_PER_SHAPE)


def build_crowded_cases() -> list[dict]:
    """The ``crowded`` set (see :data:`CROWDED_SHAPES`), grouped by shape."""
    return _shape_grid(CROWDED_SHAPES, CROWDED_CONFIGS, CROWDED_GROUP_MS)


def build_crowded62_cases() -> list[dict]:
    """The ``crowded62`` set (see :data:`CROWDED62_SHAPES`): every config at GROUP_M 1, and the first two at 8
    too, grouped by shape."""
    return [
        _case("grouped", shape, cfg, g)
        for shape in CROWDED62_SHAPES
        for i, cfg in enumerate(CROWDED62_CONFIGS)
        for g in ((1, 8) if i < 2 else (1,))
    ]


def build_onewave_cases() -> list[dict]:
    """The ``onewave`` set (see :data:`ONEWAVE_SHAPES`), grouped by shape."""
    return _shape_grid(ONEWAVE_SHAPES, ONEWAVE_CONFIGS, ONEWAVE_GROUP_MS)


def cases_of(name: str) -> list[dict]:
    """The cases of a named set: ``main`` (the calibration study), ``narrow``, ``blind36``, ``blind56``,
    ``crowded``, ``crowded62`` or ``onewave``."""
    if name not in SETS:
        raise ValueError(f"unknown NCU case set {name!r}: one of {SETS}")
    builders = {
        "main": build_cases,
        "narrow": build_narrow_cases,
        "blind36": build_blind_cases,
        "blind56": build_blind56_cases,
        "crowded": build_crowded_cases,
        "crowded62": build_crowded62_cases,
        "onewave": build_onewave_cases,
    }
    return builders[name]()


def is_held_out(cid: str) -> bool:
    """Fixed, deterministic split: a third of the cases (by a hash of the id) never enter calibration."""
    return int(hashlib.sha256(cid.encode()).hexdigest(), 16) % HELD_OUT_MODULUS == 0

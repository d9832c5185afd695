#!/usr/bin/env bash
# Time a real triton.autotune over the full GEMM config list against TileSight's pruned list, on this GPU, and
# TileSight's own cold ranking of the full list on this host (fresh interpreter, empty Triton cache, forked
# workers = min(cpus - 2, 14)), which the end-to-end speedup adds to the pruned autotune.
# Needs only torch + triton + numpy (tilesight is imported from this checkout, laid out as the installed package
# in a temporary folder; scipy, rich and libcst are not needed). The pruned lists the autotunes use were
# computed on CPU by make_pruned.py (benchmarks/autotune/pruned_configs.json); the host's ranking is checked
# against them and a mismatch is printed and recorded (rank_host_pruned_match), so regenerate that file with
# the code you carry. NO_RANK=1 skips the host ranking.
# Usage: OUT=/some/folder [SHAPES=sq4096,decode16] bash benchmarks/autotune/run.sh
# Writes $OUT/autotune_timing.jsonl and $OUT/autotune_meta.json; copy them to benchmarks/data/.
# Each (shape, list) runs in a fresh process with an empty TRITON_CACHE_DIR (a cold first call); the full list
# of one shape takes a few minutes, so run two shapes per call (10-minute limit) and call again for others
# (shapes in pruned_configs.json: sq4096, llm_up, decode16, wide_k1024).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
OUT="${OUT:?OUT must be set}"
mkdir -p "$OUT"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, torch.cuda.get_device_name(0))"
timeout 570 python3 benchmarks/autotune/time_autotune.py --out "$OUT" --shapes "${SHAPES:-sq4096,decode16}" \
  --budget-s "${BUDGET_S:-500}" ${NO_RANK:+--no-rank}

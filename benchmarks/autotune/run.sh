#!/usr/bin/env bash
# Time a real triton.autotune over the full GEMM config list against TileSight's pruned list, on this GPU.
# Needs only torch + triton (no tilesight): the pruned lists were computed on CPU by make_pruned.py and are
# committed in benchmarks/autotune/pruned_configs.json.
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
  --budget-s "${BUDGET_S:-500}"

#!/usr/bin/env bash
# Measure the Triton reference kernels on this machine's GPU (torch + triton only; no tilesight needed).
# Usage: OUT=/some/folder bash benchmarks/triton_sweep/run.sh [--only SUBSTRING] [--budget-s SECONDS]
# Writes $OUT/triton_{gemm,memory,attention}.jsonl and $OUT/triton_meta.json; copy them to benchmarks/data/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
OUT="${OUT:-$ROOT/benchmarks/data}"
export PYTHONPATH="$ROOT:$ROOT/benchmarks/triton_sweep${PYTHONPATH:+:$PYTHONPATH}"
# a private cache: every config is compiled by this run's workers, never served stale from another triton
export TRITON_CACHE_DIR="${TRITON_CACHE_DIR:-$(mktemp -d /tmp/tilesight_triton_cache.XXXXXX)}"
# the budget (450 s) bounds compiling + timing; timeout is the hard stop below the 10 minute limit
timeout 560 python3 benchmarks/triton_sweep/run.py --out "$OUT" "$@"

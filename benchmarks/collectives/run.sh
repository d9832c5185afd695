#!/usr/bin/env bash
# Collectives + fused compute-communication measurement on $NGPU GPUs of one node (2, 4 or 8).
# (torchrun is invoked as `python3 -m torch.distributed.run`, which works where the console script is not on PATH.)
#
#   OUT=/some/dir NGPU=2 bash benchmarks/collectives/run.sh
#   OUT=/some/dir NGPU=4 MEASURE_ARGS="--inner 10 --tag _inner10 --skip-fused" bash benchmarks/collectives/run.sh
#     (extra measure.py arguments for the timed sweep only; --inner times back-to-back calls, nccl-tests style)
#
# 1. the timed sweep (NCCL as the machine configures it; NVLS variables left alone);
# 2. a one-iteration pass with NCCL_DEBUG_SUBSYS=TUNING that logs the algorithm and protocol NCCL picks per
#    call (kept apart so that logging never slows the timed calls).
# Writes $OUT/collectives_h200x$NGPU.json, $OUT/nccl_tuning/*.log and $OUT/measure.log.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here"
OUT=${OUT:?OUT must be set}
NGPU=${NGPU:-$(nvidia-smi -L | wc -l)}
mkdir -p "$OUT/nccl_tuning"
export PYTHONUNBUFFERED=1
python3 -m torch.distributed.run --standalone --nproc_per_node="$NGPU" benchmarks/collectives/measure.py --out "$OUT" ${MEASURE_ARGS:-} 2>&1 | tee "$OUT/measure.log"
NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING NCCL_DEBUG_FILE="$OUT/nccl_tuning/nccl.%h.%p.log" \
  python3 -m torch.distributed.run --standalone --nproc_per_node="$NGPU" benchmarks/collectives/measure.py --out "$OUT/nccl_tuning" \
  --iters 1 --warmup 0 --skip-fused --tag _tuning > "$OUT/nccl_tuning/run.log" 2>&1 || echo "tuning pass failed (see nccl_tuning/run.log)"
ls -la "$OUT"

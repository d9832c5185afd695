#!/usr/bin/env bash
# NCU L2 study on the measurement GPU: compile every GEMM case (outside ncu), profile one launch of each
# under ncu with a cold L2 (--cache-control all), then join ncu's CSV with the cases.
#
#   OUT=/some/dir bash benchmarks/ncu_l2/run.sh            # writes $OUT/ncu_l2_h200.json (+ .csv, raw files)
#   NCU_L2_LIMIT=5 OUT=/tmp/x bash benchmarks/ncu_l2/run.sh  # smoke test on the first 5 cases
#   NCU_L2_SET=narrow OUT=/tmp/x bash benchmarks/ncu_l2/run.sh  # the narrow-tile validation set (ncu_cases.py)
#   NCU_L2_EXTRA=lts__t_sectors_srcunit_ltcfabric.sum,... OUT=... bash benchmarks/ncu_l2/run.sh  # more metrics
#
# Needs python3 with torch + triton, and ncu (NCU env var, else `ncu` on PATH, else /usr/local/cuda/bin/ncu).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cd "$repo"
out=${OUT:?OUT must name the output folder}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
ncu_bin=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
limit=()
if [[ -n "${NCU_L2_LIMIT:-}" ]]; then limit=(--limit "$NCU_L2_LIMIT"); fi
metrics=gpu__time_duration.sum,lts__t_sector_hit_rate.pct,lts__t_sector_op_read_hit_rate.pct,lts__t_sector_op_write_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum
extra=${NCU_L2_EXTRA:-}
if [[ -n "$extra" ]]; then metrics="$metrics,$extra"; fi

start=$(date +%s)
python3 "$here/driver.py" --compile-only --out "$out" ${limit[@]+"${limit[@]}"}
echo "[ncu_l2] compiled in $(( $(date +%s) - start )) s"

cmd=("$ncu_bin" --clock-control none --cache-control all -k regex:matmul --metrics "$metrics" --csv
     python3 "$here/driver.py" --out "$out" ${limit[@]+"${limit[@]}"})
export NCU_L2_COMMAND="${cmd[*]}"
"${cmd[@]}" > "$out/ncu_l2_raw.csv" 2> "$out/ncu_l2_stderr.txt" || {
  echo "[ncu_l2] ncu failed; tail of its stderr:"; tail -n 30 "$out/ncu_l2_stderr.txt"; exit 1; }
echo "[ncu_l2] profiled in $(( $(date +%s) - start )) s"

python3 "$here/ncu_parse.py" --raw "$out/ncu_l2_raw.csv" --cases "$out/ncu_l2_cases.json" \
  --out "$out/ncu_l2_h200.json" --command "$NCU_L2_COMMAND" --extra "$extra"
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv > "$out/ncu_l2_gpu.txt" 2>&1 || true
echo "[ncu_l2] done in $(( $(date +%s) - start )) s"

#!/usr/bin/env bash
# The copy-width pass (stop 78): the warps probe's small set (warp-level mma tiles whose operand copies are
# 8-byte cp.async.ca or 16-byte cp.async.cg, warps.py WARPS_SET=small) under ncu with the L1 data stage's
# per-operation counters, to say what one 8-byte asynchronous copy costs the stage (the profile's
# lsu_async_narrow_wavefronts) directly rather than by solving the stage's total over instruction counts.
#
#   OUT=/some/dir bash benchmarks/ncu_diag/run_copy_width.sh   # writes $OUT/copy_width_ncu.csv, the names used
# The counters are picked from this ncu's own list (`--query-metrics`): every L1 / shared-memory counter whose
# name says LDGSTS or LDSM, and the shared data stage's wavefronts and bank conflicts by operation.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:?OUT must name the output folder}
mkdir -p "$out"
ncu_bin=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
all_names=$(mktemp)  # ncu's whole list (about 1 MB): only the names kept below are written out
"$ncu_bin" --query-metrics --chip gh100 > "$all_names" 2>&1 || true
awk '{print $1}' "$all_names" \
  | grep -E '^(l1tex|smsp|sm)__' \
  | grep -E 'ldgsts|ldsm|data_pipe_lsu_wavefronts_mem_shared|data_bank_conflicts_pipe_lsu_mem_shared' \
  | sort -u > "$out/copy_width_metric_names.txt"
rm -f "$all_names"
metrics=gpu__time_duration.sum,sm__cycles_active.avg
while read -r name; do metrics+=",$name.sum"; done < "$out/copy_width_metric_names.txt"
echo "$metrics" | tr ',' '\n' > "$out/copy_width_metrics_used.txt"
cmd=("$ncu_bin" --clock-control none --cache-control all -k regex:matmul_kernel --metrics "$metrics" --csv
     python3 "$here/warps.py")
echo "WARPS_SET=small ${cmd[*]}" > "$out/copy_width_command.txt"
if ! WARPS_SET=small "${cmd[@]}" > "$out/copy_width_ncu.csv" 2> "$out/copy_width_stderr.txt"; then
  # a counter this ncu lists but will not collect fails the pass: again with the instruction and wavefront
  # counters only
  tail -n 3 "$out/copy_width_stderr.txt"
  metrics=gpu__time_duration.sum,sm__cycles_active.avg
  while read -r name; do metrics+=",$name.sum"; done < <(grep -E 'inst_executed|wavefronts' \
    "$out/copy_width_metric_names.txt")
  echo "$metrics" | tr ',' '\n' > "$out/copy_width_metrics_used.txt"
  cmd=("$ncu_bin" --clock-control none --cache-control all -k regex:matmul_kernel --metrics "$metrics" --csv
       python3 "$here/warps.py")
  echo "WARPS_SET=small ${cmd[*]}" > "$out/copy_width_command.txt"
  WARPS_SET=small "${cmd[@]}" > "$out/copy_width_ncu.csv" 2> "$out/copy_width_stderr.txt" \
    || { tail -n 5 "$out/copy_width_stderr.txt"; exit 1; }
fi
echo "[copy_width] done: $(wc -l < "$out/copy_width_ncu.csv") lines, $(wc -l < "$out/copy_width_metric_names.txt") counters"

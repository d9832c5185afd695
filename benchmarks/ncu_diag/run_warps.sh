#!/usr/bin/env bash
# The warps probe (warps.py): do_bench timings, then one ncu pass with the tensor pipe, L2 and stall metrics.
#
#   OUT=/some/dir bash benchmarks/ncu_diag/run_warps.sh   # writes $OUT/warps_timing.jsonl, $OUT/warps_ncu.csv
# A metric this ncu does not know fails the whole pass, so the pass is retried with fewer metrics (the stall
# breakdown first, then the tensor-pipe counters); warps_command.txt holds the command that worked.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:?OUT must name the output folder}
mkdir -p "$out"
ncu_bin=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
python3 "$here/warps.py" --time > "$out/warps_timing.jsonl"
WARPS_SIZE=8192 python3 "$here/warps.py" --time >> "$out/warps_timing.jsonl"
"$ncu_bin" --query-metrics --chip gh100 2>/dev/null | grep -E "gmma|issue_stalled_barrier|tensor_op" \
  > "$out/warps_metric_names.txt" || true
minimal=gpu__time_duration.sum,sm__cycles_active.avg,lts__t_sector_hit_rate.pct
minimal+=,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum
minimal+=,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,sm__warps_active.avg.pct_of_peak_sustained_active
# shellcheck source=ncu_metrics.sh
source "$here/ncu_metrics.sh"
tensor=$minimal,$NCU_TENSOR_METRICS
full=$tensor,$NCU_STALL_METRICS
for metrics in "$full" "$tensor" "$minimal"; do
  cmd=("$ncu_bin" --clock-control none --cache-control all -k regex:matmul_kernel --metrics "$metrics"
       --csv python3 "$here/warps.py")
  echo "${cmd[*]}" > "$out/warps_command.txt"
  if "${cmd[@]}" > "$out/warps_ncu.csv" 2> "$out/warps_stderr.txt"; then
    echo "[warps] done: $(wc -l < "$out/warps_ncu.csv") lines"
    exit 0
  fi
  echo "[warps] ncu failed with $(tr ',' '\n' <<< "$metrics" | wc -l) metrics:"; tail -n 3 "$out/warps_stderr.txt"
done
exit 1

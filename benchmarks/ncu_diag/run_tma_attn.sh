#!/usr/bin/env bash
# The descriptor-attention probe (tma_attn.py): do_bench timings of the descriptor kernel and its pointer twin,
# then one ncu pass (tensor pipe, issue slots, L2, stalls), retried with fewer metrics where this ncu does not
# know one; tma_attn_command.txt holds the command that worked.
#
#   OUT=/some/dir bash benchmarks/ncu_diag/run_tma_attn.sh   # writes $OUT/tma_attn_timing.jsonl, tma_attn_ncu.csv
#   python3 benchmarks/ncu_diag/tma_attn.py --report $OUT     # on CPU, pair by pair
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:?OUT must name the output folder}
mkdir -p "$out"
ncu_bin=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
python3 "$here/tma_attn.py" --time > "$out/tma_attn_timing.jsonl"
minimal=gpu__time_duration.sum,sm__cycles_active.avg,smsp__issue_active.avg.pct_of_peak_sustained_active
minimal+=,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum
# shellcheck source=ncu_metrics.sh
source "$here/ncu_metrics.sh"
tensor=$minimal,$NCU_TENSOR_METRICS
full=$tensor,$NCU_STALL_METRICS
for metrics in "$full" "$tensor" "$minimal"; do
  cmd=("$ncu_bin" --clock-control none -k regex:attention --metrics "$metrics" --csv python3 "$here/tma_attn.py")
  echo "${cmd[*]}" > "$out/tma_attn_command.txt"
  if "${cmd[@]}" > "$out/tma_attn_ncu.csv" 2> "$out/tma_attn_stderr.txt"; then
    echo "[tma_attn] done: $(wc -l < "$out/tma_attn_ncu.csv") lines"
    exit 0
  fi
  echo "[tma_attn] ncu failed with $(tr ',' '\n' <<< "$metrics" | wc -l) metrics:"; tail -n 3 "$out/tma_attn_stderr.txt"
done
exit 1

#!/usr/bin/env bash
# The attention issue probe (attn_issue.py): do_bench timings, then one ncu pass with the issue slots, the
# FMA / ALU / XU pipes, the tensor pipe's instructions, the SM clock and the stall reasons.
#
#   OUT=/some/dir bash benchmarks/ncu_diag/run_attn_issue.sh   # writes $OUT/attn_issue_timing.jsonl, .csv
# A metric this ncu does not know fails the whole pass, so the pass is retried with fewer metrics;
# attn_issue_command.txt holds the command that worked.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:?OUT must name the output folder}
mkdir -p "$out"
ncu_bin=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
python3 "$here/attn_issue.py" --time > "$out/attn_issue_timing.jsonl"
minimal=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_active.avg,sm__inst_executed.sum
minimal+=,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active
minimal+=,sm__inst_executed_pipe_tensor_op_gmma.sum,smsp__inst_executed_pipe_xu.sum
pipes=$minimal,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
pipes+=,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active
pipes+=,sm__pipe_xu_cycles_active.avg.pct_of_peak_sustained_active
pipes+=,sm__inst_executed_pipe_fma.sum,sm__inst_executed_pipe_alu.sum
full=$pipes
for s in barrier long_scoreboard wait math_pipe_throttle short_scoreboard mio_throttle lg_throttle dispatch_stall \
         no_instruction sleeping misc selected not_selected branch_resolving; do
  full+=,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
for metrics in "$full" "$pipes" "$minimal"; do
  cmd=("$ncu_bin" --clock-control none -k regex:attention --metrics "$metrics" --csv python3 "$here/attn_issue.py")
  echo "${cmd[*]}" > "$out/attn_issue_command.txt"
  if "${cmd[@]}" > "$out/attn_issue_ncu.csv" 2> "$out/attn_issue_stderr.txt"; then
    echo "[attn_issue] done: $(wc -l < "$out/attn_issue_ncu.csv") lines"
    exit 0
  fi
  echo "[attn_issue] ncu failed with $(tr ',' '\n' <<< "$metrics" | wc -l) metrics:"; tail -n 3 "$out/attn_issue_stderr.txt"
done
exit 1

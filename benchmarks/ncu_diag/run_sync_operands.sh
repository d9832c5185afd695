#!/usr/bin/env bash
# The sync-operand probe (sync_operands.py): do_bench timings, then one ncu pass with the load/store-path
# counters and the stall reasons.
#
#   OUT=/some/dir bash benchmarks/ncu_diag/run_sync_operands.sh  # writes $OUT/sync_timing.jsonl, sync_ncu.csv
# A metric this ncu does not know fails the whole pass, so the pass is retried with fewer metrics (the stall
# breakdown first); sync_command.txt holds the command that worked.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:?OUT must name the output folder}
mkdir -p "$out"
ncu_bin=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
python3 "$here/sync_operands.py" --time > "$out/sync_timing.jsonl"
minimal=gpu__time_duration.sum,sm__cycles_active.avg,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum
minimal+=,smsp__inst_executed_op_global_ld.sum,smsp__inst_executed_op_shared_st.sum,smsp__inst_executed_op_shared_ld.sum
minimal+=,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
minimal+=,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum
minimal+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
minimal+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts.sum
minimal+=,l1tex__throughput.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active
minimal+=,smsp__inst_executed.sum,l1tex__lsu_writeback_active.avg.pct_of_peak_sustained_active
full=$minimal
for s in barrier long_scoreboard wait math_pipe_throttle short_scoreboard mio_throttle lg_throttle dispatch_stall \
         no_instruction sleeping membar misc selected not_selected drain branch_resolving imc_miss tex_throttle; do
  full+=,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
for metrics in "$full" "$minimal"; do
  cmd=("$ncu_bin" --clock-control none --cache-control all -k regex:matmul_kernel --metrics "$metrics"
       --csv python3 "$here/sync_operands.py")
  echo "${cmd[*]}" > "$out/sync_command.txt"
  if "${cmd[@]}" > "$out/sync_ncu.csv" 2> "$out/sync_stderr.txt"; then
    echo "[sync] done: $(wc -l < "$out/sync_ncu.csv") lines"
    exit 0
  fi
  echo "[sync] ncu failed with $(tr ',' '\n' <<< "$metrics" | wc -l) metrics:"; tail -n 3 "$out/sync_stderr.txt"
done
exit 1

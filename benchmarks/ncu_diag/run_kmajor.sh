#!/usr/bin/env bash
# The K-major B probe (kmajor.py): do_bench timings, then one ncu pass (clock, DRAM, L2, shared memory, tensor
# pipe, stalls), retried with fewer metrics where this ncu does not know one.
#
#   OUT=/some/dir bash benchmarks/ncu_diag/run_kmajor.sh   # writes $OUT/kmajor_timing.jsonl, $OUT/kmajor_ncu.csv
#   KMAJOR_SET=where OUT=... bash benchmarks/ncu_diag/run_kmajor.sh   # the second set (kmajor.py's docstring)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:?OUT must name the output folder}
mkdir -p "$out"
ncu_bin=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
python3 "$here/kmajor.py" --time > "$out/kmajor_timing.jsonl"
minimal=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_active.avg,lts__t_sector_hit_rate.pct
minimal+=,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,lts__t_sectors.avg.pct_of_peak_sustained_elapsed
minimal+=,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
minimal+=,lts__t_requests_srcunit_tex_op_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
tensor=$minimal,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active
full=$tensor
for s in barrier long_scoreboard wait math_pipe_throttle short_scoreboard mio_throttle lg_throttle dispatch_stall \
         no_instruction membar selected not_selected; do
  full+=,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
for metrics in "$full" "$tensor" "$minimal"; do
  cmd=("$ncu_bin" --clock-control none --cache-control all -k regex:matmul_kernel --metrics "$metrics"
       --csv python3 "$here/kmajor.py")
  echo "${cmd[*]}" > "$out/kmajor_command.txt"
  if "${cmd[@]}" > "$out/kmajor_ncu.csv" 2> "$out/kmajor_stderr.txt"; then
    echo "[kmajor] done: $(wc -l < "$out/kmajor_ncu.csv") lines"
    exit 0
  fi
  echo "[kmajor] ncu failed with $(tr ',' '\n' <<< "$metrics" | wc -l) metrics:"; tail -n 3 "$out/kmajor_stderr.txt"
done
exit 1

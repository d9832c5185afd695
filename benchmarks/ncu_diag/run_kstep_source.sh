#!/usr/bin/env bash
# Where the warps of the stages probe's GEMM tiles wait, instruction by instruction (stop 42).
#
#   OUT=/some/dir bash benchmarks/ncu_diag/run_kstep_source.sh
#
# The stages probe (warps.py, WARPS_SET=stages) found the 128x128 tile with block_K 64 ~15% slower per K than
# with block_K 32 at the same bytes in flight, whatever its stages or blocks per SM, while the pure dot chains
# run at the same rate. Two ncu passes over its cases:
#   1. shared-memory traffic: wavefronts and bank conflicts of the HGMMA operand reads and of all shared
#      accesses, plus the MemoryWorkloadAnalysis tables (their LDGSTS rows) -> kstep_smem.csv, kstep_tables.csv;
#   2. warp-state sampling per SASS instruction (SourceCounters) on three cases (block_K 64 at 3 stages on 4
#      and 8 warps, block_K 32 at 4 stages on 4 warps) -> kstep_source.csv: which instruction the warps stall
#      at (the data wait DEPBAR, the warpgroup wait on the tensor cores, the barriers, the copies' issue).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:?OUT must name the output folder}
mkdir -p "$out"
ncu_bin=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
export WARPS_SET=stages
"$ncu_bin" --query-metrics --chip gh100 2>/dev/null | grep -iE "ldgsts|op_gmma|bank_conflict" > "$out/kstep_metric_names.txt" || true
smem=gpu__time_duration.sum,sm__cycles_active.avg
smem+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum
smem+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
smem+=,l1tex__lsu_writeback_active_mem_shared_op_gmma.sum,l1tex__lsuin_requests_op_gmma.sum
extended=$smem
for m in $(awk '{print $1}' "$out/kstep_metric_names.txt" | grep -iE "ldgsts" | grep -vE "^(SM_|TPC)" | head -12); do
  extended+=,$m.sum
done
for metrics in "$extended" "$smem"; do  # a metric this ncu does not know fails the pass: retry without
  echo "$ncu_bin --clock-control none -k regex:matmul_kernel --metrics $metrics --csv python3 $here/warps.py" \
    > "$out/kstep_command.txt"
  if "$ncu_bin" --clock-control none -k regex:matmul_kernel --metrics "$metrics" --csv python3 "$here/warps.py" \
    > "$out/kstep_smem.csv" 2> "$out/kstep_stderr.txt"; then break; fi
  echo "[kstep] smem pass failed:"; tail -n 3 "$out/kstep_stderr.txt"
done
"$ncu_bin" --clock-control none -k regex:matmul_kernel --section MemoryWorkloadAnalysis_Tables --csv --page details \
  python3 "$here/warps.py" > "$out/kstep_tables.csv" 2>> "$out/kstep_stderr.txt" || echo "[kstep] tables pass failed"
export WARPS_ONLY=m128n128k64w4s3g8,m128n128k32w4s4g8,m128n128k64w8s3g8
"$ncu_bin" --clock-control none -k regex:matmul_kernel --section SourceCounters --section WarpStateStats \
  --import-source no -f -o /tmp/kstep_src python3 "$here/warps.py" >> "$out/kstep_stderr.txt" 2>&1 \
  || { echo "[kstep] source pass failed"; tail -n 5 "$out/kstep_stderr.txt"; exit 1; }
echo "$ncu_bin -i /tmp/kstep_src.ncu-rep --page source --csv --print-source sass" >> "$out/kstep_command.txt"
"$ncu_bin" -i /tmp/kstep_src.ncu-rep --page source --csv --print-source sass > "$out/kstep_source.csv" 2>> "$out/kstep_stderr.txt" \
  || "$ncu_bin" -i /tmp/kstep_src.ncu-rep --page source --csv > "$out/kstep_source.csv" 2>> "$out/kstep_stderr.txt" || true
"$ncu_bin" -i /tmp/kstep_src.ncu-rep --page details --csv > "$out/kstep_source_details.csv" 2>> "$out/kstep_stderr.txt" || true
ls -la "$out"; wc -l "$out"/*.csv

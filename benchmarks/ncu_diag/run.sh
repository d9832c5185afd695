#!/usr/bin/env bash
# ncu section profile of the cases in cases.py (second launch of each: --launch-skip-before-match style
# filtering is by kernel name, so every launch is profiled and the parser keeps the second of each case).
#
#   OUT=/some/dir bash benchmarks/ncu_diag/run.sh     # writes $OUT/ncu_diag_raw.csv and the command used
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:?OUT must name the output folder}
mkdir -p "$out"
ncu_bin=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
sections=(--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis
          --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats
          --section InstructionStats)
cmd=("$ncu_bin" --clock-control none -k regex:'attention_fwd_kernel|matmul_kernel' "${sections[@]}"
     --csv --page details python3 "$here/cases.py")
echo "${cmd[*]}" > "$out/ncu_diag_command.txt"
"${cmd[@]}" > "$out/ncu_diag_raw.csv" 2> "$out/ncu_diag_stderr.txt" || {
  echo "[ncu_diag] ncu failed"; tail -n 30 "$out/ncu_diag_stderr.txt"; exit 1; }
echo "[ncu_diag] done: $(wc -l < "$out/ncu_diag_raw.csv") lines"

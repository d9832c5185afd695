#!/usr/bin/env bash
# Stop 61: where a lone persistent program's K-loop iteration goes, for the 64x64 tile the model prices up to
# 1.44x slow and the 128x128 tile it prices right (persistent_tiles.py --waits: 132 programs, 1 and 8 tiles
# each, K 4096). One ncu pass: time, cycles, tensor-pipe activity, L2 hit rate and DRAM bytes, and the warp
# stall breakdown (a DRAM wait shows as the copies' wait, a tensor-core bound loop as math throttle).
#
#   OUT=/some/dir bash benchmarks/ncu_diag/run_persistent_waits.sh   # writes $OUT/persistent_waits_ncu.csv
#   WAITS_SET=--copies OUT=... bash ...   # the copies-a-thread series instead (persistent_tiles.py --copies)
# A metric this ncu does not know fails the whole pass, so it is retried with fewer (as run_warps.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:?OUT must name the output folder}
mkdir -p "$out"
ncu_bin=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
minimal=gpu__time_duration.sum,sm__cycles_active.avg,lts__t_sector_hit_rate.pct,dram__bytes_read.sum
minimal+=,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum
minimal+=,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active
# shellcheck source=ncu_metrics.sh
source "$here/ncu_metrics.sh"
tensor=$minimal,$NCU_TENSOR_METRICS
full=$tensor,$NCU_STALL_METRICS
for metrics in "$full" "$tensor" "$minimal"; do
  cmd=("$ncu_bin" --clock-control none --cache-control all -k regex:matmul --metrics "$metrics"
       --csv python3 "$here/persistent_tiles.py" "${WAITS_SET:---waits}")
  echo "${cmd[*]}" > "$out/persistent_waits_command.txt"
  if "${cmd[@]}" > "$out/persistent_waits_ncu.csv" 2> "$out/persistent_waits_stderr.txt"; then
    echo "[persistent_waits] done: $(wc -l < "$out/persistent_waits_ncu.csv") lines"
    exit 0
  fi
  echo "[persistent_waits] ncu failed with $(tr ',' '\n' <<< "$metrics" | wc -l) metrics:"
  tail -n 3 "$out/persistent_waits_stderr.txt"
done
exit 1

#!/usr/bin/env bash
# The coalescer-pairs probe (lrc_pairs.py, stop 69): two SMs at a time read one cold buffer together, under ncu
# with the L2 request coalescer's counters (about 1.5 minutes). lrc_pairs_command.txt holds the command.
#
#   OUT=/some/dir bash benchmarks/ncu_diag/run_lrc_pairs.sh    # writes $OUT/lrc_pairs_ncu.csv
#   python3 benchmarks/ncu_diag/lrc_pairs.py --report $OUT      # on CPU: merged share per pair and per kind
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:?OUT must name the output folder}
mkdir -p "$out"
ncu_bin=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
metrics=$(python3 -c "import sys; sys.path.insert(0, '$here'); import lrc_pairs; print(','.join(lrc_pairs.METRICS))")
cmd=("$ncu_bin" --cache-control all --clock-control none -k regex:pair_read --metrics "$metrics" --csv
     python3 "$here/lrc_pairs.py")
echo "${cmd[*]}" > "$out/lrc_pairs_command.txt"
if "${cmd[@]}" > "$out/lrc_pairs_ncu.csv" 2> "$out/lrc_pairs_stderr.txt"; then
  echo "[lrc_pairs] done: $(wc -l < "$out/lrc_pairs_ncu.csv") lines"
else
  echo "[lrc_pairs] ncu failed:"; tail -n 5 "$out/lrc_pairs_stderr.txt"; exit 1
fi

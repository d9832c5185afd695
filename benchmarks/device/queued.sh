#!/usr/bin/env bash
# The measurements queued for the next lent GPU (stops 62-65), in one device call of about 8 minutes or two:
#
#   OUT=... bash benchmarks/device/queued.sh        # the device tool sets OUT
#   OUT=... bash benchmarks/device/queued.sh 1      # steps 1-2 (about 5 minutes), then in a second call:
#   OUT=... bash benchmarks/device/queued.sh 2      # steps 3-5 (a call may run at most 10 minutes)
#
# 1. the NCU L2 set `crowded62` (the latency-paced rule's blind test), with the four coalescer / fabric counters
#    of the blind56 row, as run 1;
# 2. validation 74 (the same 16 launches timed) and validation 75 (lone K loops against their dots);
# 3. validation 76 (a fourteenth random sample, stop 65);
# 4. the `crowded62` set again, as run 2;
# 5. the `stage_latency --lone` probe (stop 64: a lone block's two- and three-stage DRAM step over tile bytes,
#    which separates the latency from the rate of ddr_stream_per_sm_bytes_per_s).
# Everything lands in $OUT/queued.tgz; unpack it and copy as benchmarks/data/README.md's rows for
# ncu_l2_crowded62_h200{,_run2}.json, validation74/, validation75/ and validation76/ say, then score with the commands there;
# lone/calibration_lone_step.json goes to benchmarks/data/ (read by `python benchmarks/probe_report.py lone_step`).
set -u
cd "$(dirname "$0")/../.."
out=${OUT:?OUT must be set (the device tool sets it)}
extra=lrc__request_sectors_op_read_coalescable.sum,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum,lts__t_sectors_srcunit_ltcfabric_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum
status=0
part=${1:-all}
if [[ $part == all || $part == 1 ]]; then
  NCU_L2_SET=crowded62 NCU_L2_EXTRA=$extra OUT=$out/c62 timeout 170 bash benchmarks/ncu_l2/run.sh || status=$?
  OUT=$out/validation74 bash benchmarks/triton_sweep/run.sh --validation74 --budget-s 150 || status=$?
  OUT=$out/validation75 bash benchmarks/triton_sweep/run.sh --validation75 --budget-s 150 || status=$?
fi
if [[ $part == all || $part == 2 ]]; then
  OUT=$out/validation76 bash benchmarks/triton_sweep/run.sh --validation76 --budget-s 150 || status=$?
  NCU_L2_SET=crowded62 NCU_L2_EXTRA=$extra OUT=$out/c62_run2 timeout 120 bash benchmarks/ncu_l2/run.sh || status=$?
  mkdir -p "$out/lone"
  timeout 150 python3 benchmarks/calibrate/stage_latency.py --lone --out "$out/lone/calibration_lone_step.json" \
      || status=$?
fi
(cd "$out" && tar czf queued.tgz $(ls -d c62 c62_run2 validation74 validation75 validation76 lone 2>/dev/null)) \
    || status=$?
exit "$status"

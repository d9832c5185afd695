#!/usr/bin/env bash
# Run several measurement jobs on the lent GPU machine at once, one GPU each, and pack each job's output into
# one archive under $OUT (the device tool returns at most 8 files).
#
#   bash benchmarks/device/run_jobs.sh JOB=GPU [JOB=GPU ...]
#
# JOB names a harness: calibrate | triton_sweep | ncu_l2 | tilelang_sweep | collectives2 | collectives4
# (collectives jobs take the GPUs listed after '=', comma-separated, e.g. collectives2=0,1).
# TileLang's wheels do not fit in one call: install them first with install_wheels.sh (two calls, .whl then .whl2).
# Each job runs with CUDA_VISIBLE_DEVICES set, its own OUT folder, and its log kept beside its data.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here"
export PYTHONUNBUFFERED=1
top_out=${OUT:?OUT must be set (the device tool sets it)}
nvidia-smi --query-gpu=index,name,clocks.max.sm,driver_version --format=csv > "$top_out/gpus.csv" 2>&1 || true
nvidia-smi topo -m >> "$top_out/gpus.csv" 2>&1 || true
pids=()
names=()
for spec in "$@"; do
  job=${spec%%=*}
  gpus=${spec#*=}
  dir=$(mktemp -d "/tmp/job_${job}_XXXX")
  case $job in
    calibrate) cmd="python3 benchmarks/calibrate/run.py --out $dir/calibration_h200.json" ;;
    triton_sweep) cmd="bash benchmarks/triton_sweep/run.sh" ;;
    ncu_l2) cmd="bash benchmarks/ncu_l2/run.sh" ;;
    tilelang_sweep) cmd="PYTHONPATH=/tmp/tilelang_site bash benchmarks/tilelang_sweep/run.sh" ;;
    collectives*) cmd="bash benchmarks/collectives/run.sh" ;;
    *) echo "unknown job $job"; exit 2 ;;
  esac
  echo "[run_jobs] $job on GPU(s) $gpus: $cmd"
  ( export CUDA_VISIBLE_DEVICES=$gpus OUT=$dir NGPU=$(echo "$gpus" | tr ',' '\n' | wc -l)
    start=$(date +%s)
    bash -c "$cmd" > "$dir/log.txt" 2>&1
    rc=$?
    echo "[run_jobs] $job exit $rc after $(( $(date +%s) - start )) s" >> "$dir/log.txt"; tail -n 25 "$dir/log.txt"
    tar -czf "$top_out/$job.tar.gz" -C "$dir" . ) &
  pids+=($!)
  names+=("$job")
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}"
  echo "[run_jobs] ${names[$i]} done"
done
ls -la "$top_out"

#!/usr/bin/env bash
# TileLang sweep on the measurement GPU (H200). Run from anywhere; writes under $OUT:
#   tilelang_h200.jsonl (one line per case), tilelang_h200_meta.json, versions.txt
#
#   OUT=/some/dir bash benchmarks/tilelang_sweep/run.sh            # or through benchmarks/device/run_jobs.sh
#
# TileLang is installed from the wheels carried in the repository (.whl/ and benchmarks/device/) when the
# machine's python cannot import it: tilelang 0.1.15, torch-c-dlpack-ext 0.1.5, apache-tvm-ffi 0.1.12,
# z3-solver 4.15.4.0 (Python 3.12 manylinux x86_64). Must finish in under 7 minutes.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here"
out=${OUT:?OUT must be set}
export PYTHONUNBUFFERED=1
if ! python3 -c "import tilelang" > /dev/null 2>&1; then
  site=/tmp/tilelang_site
  shopt -s nullglob
  wheels=()
  seen=" "
  for w in .whl/*.whl benchmarks/device/*.whl; do  # one wheel per package, .whl/ first
    name=$(basename "$w" | cut -d- -f1 | tr '_' '-' | tr 'A-Z' 'a-z')
    case $seen in *" $name "*) continue ;; esac
    seen="$seen$name "
    wheels+=("$w")
  done
  shopt -u nullglob
  if [ ${#wheels[@]} -eq 0 ]; then echo "no TileLang wheels in .whl/ or benchmarks/device/" >&2; exit 2; fi
  python3 -m pip install --quiet --no-index --no-deps --target "$site" "${wheels[@]}"
  export PYTHONPATH=$site${PYTHONPATH:+:$PYTHONPATH}
fi
if [ -d /usr/local/cuda/bin ]; then export PATH=/usr/local/cuda/bin:$PATH; fi  # nvcc for tilelang.compile
export TILELANG_CACHE_DIR=${TILELANG_CACHE_DIR:-/tmp/tilelang_cache}
python3 -c "import tilelang, torch, triton; print('tilelang', tilelang.__version__, 'torch', torch.__version__, 'triton', triton.__version__)" | tee "$out/versions.txt"
nvidia-smi --query-gpu=name,clocks.max.sm,driver_version --format=csv >> "$out/versions.txt" 2>&1 || true
# A case whose kernel never finishes is recorded as hung and ends sweep.py with status 3; the sweep then
# resumes past it (compiled kernels load from TileLang's cache) until the 410 s are spent.
start=$SECONDS
resume=()
while :; do
  left=$((410 - (SECONDS - start)))
  rc=0
  timeout "$left" python3 benchmarks/tilelang_sweep/sweep.py --out "$out/tilelang_h200.jsonl" \
    --workers "${WORKERS:-14}" --budget-s "$((${BUDGET_S:-360} - (SECONDS - start)))" "${resume[@]}" "$@" || rc=$?
  if [ "$rc" -ne 3 ] || [ $((410 - (SECONDS - start))) -lt 60 ]; then exit "$rc"; fi
  resume=(--resume)
done

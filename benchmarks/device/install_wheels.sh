#!/usr/bin/env bash
# Install the carried TileLang wheels (tilelang, torch-c-dlpack-ext | apache-tvm-ffi, z3-solver) into
# /tmp/tilelang_site on the GPU machine. The device tool carries at most 64 MiB a call, so this runs twice while
# the machine is warm: once with .whl carried, once with .whl2.
set -euo pipefail
cd "$(dirname "$0")/../.."
shopt -s nullglob
wheels=(.whl/*.whl .whl2/*.whl)
[ ${#wheels[@]} -gt 0 ] || { echo "no wheels carried"; exit 0; }
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/tilelang_site "${wheels[@]}"
ls /tmp/tilelang_site

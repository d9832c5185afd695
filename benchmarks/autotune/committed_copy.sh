#!/usr/bin/env bash
# Lay out the committed tree (git HEAD, or the commit given as $2) as the installed package, so that a CPU script
# ranks and scores with committed code only, whatever others have uncommitted in the checkout.
# Usage: eval "$(bash benchmarks/autotune/committed_copy.sh /tmp/tilesight_head)"   # exports PYTHONPATH, ROOT_COPY
# then e.g.: python "$ROOT_COPY/benchmarks/score_autotune.py" --json benchmarks/data/autotune_score_h200.json
# The copy: $DIR/repo (git archive of the commit) and $DIR/pkg/tilesight (tilesight/ with frontends/, kernels/ and
# hw_profiles/ linked in, as pyproject's package-dir maps them).
set -euo pipefail
DIR="${1:?usage: committed_copy.sh DIR [COMMIT]}"
COMMIT="${2:-HEAD}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rm -rf "$DIR"
mkdir -p "$DIR/repo" "$DIR/pkg"
git -C "$ROOT" archive "$COMMIT" | tar -x -C "$DIR/repo"
cp -r "$DIR/repo/tilesight" "$DIR/pkg/tilesight"
for sub in frontends kernels hw_profiles; do
  ln -s "$DIR/repo/$sub" "$DIR/pkg/tilesight/$sub"
done
echo "export PYTHONPATH=$DIR/pkg ROOT_COPY=$DIR/repo TILESIGHT_COMMIT=$(git -C "$ROOT" rev-parse "$COMMIT")"

#!/usr/bin/env bash
# Extract the source tree a robustness sweep runs against, at the commit its committed results used.
#
#   bash benchmarks/robustness/fetch.sh flaggems DEST [GIT_DIR]   # FlagGems' src/flag_gems into DEST
#   bash benchmarks/robustness/fetch.sh tilelang DEST [GIT_DIR]   # TileLang's examples/ into DEST
#
# GIT_DIR: a clone (or bare mirror) that holds the commit; without it the one commit is fetched from GitHub
# into a temporary bare repository. DEST also gets a COMMIT file, which the sweep records in its results.
# Nothing extracted here belongs in this repository: pass DEST to the sweep's --src.
set -euo pipefail

# github.com/FlagOpen/FlagGems master, 2025-11-21 ("[kunlunxin] add rmsnorm supported (#1085)")
FLAGGEMS_COMMIT=532ff438c70343d7aec9becdabb76a71225a0553
# github.com/tile-ai/tilelang main, 2026-08-21 ("[Layout][Config] Add environment override for layout cost model (#3061)")
TILELANG_COMMIT=a35008a42531c62b976ae4cec3855d4383db0f3c

usage="usage: $0 flaggems|tilelang DEST [GIT_DIR]"
case "${1:-}" in
  flaggems) url=https://github.com/FlagOpen/FlagGems.git; commit=$FLAGGEMS_COMMIT; tree=src/flag_gems ;;
  tilelang) url=https://github.com/tile-ai/tilelang.git; commit=$TILELANG_COMMIT; tree=examples ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
dest=${2:?$usage}
git_dir=${3:-}

if [[ -z $git_dir ]]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  git init --quiet --bare "$tmp/repo.git"
  git --git-dir="$tmp/repo.git" fetch --quiet --depth 1 "$url" "$commit"
  git_dir=$tmp/repo.git
elif [[ -d $git_dir/.git ]]; then
  git_dir=$git_dir/.git
fi

if [[ -e $dest/$tree ]]; then
  echo "$dest/$tree exists; remove it first" >&2
  exit 1
fi
mkdir -p "$dest"
git --git-dir="$git_dir" archive "$commit" "$tree" | tar -x -C "$dest"
echo "$commit" >"$dest/COMMIT"
echo "extracted $tree of $url at $commit into $dest"

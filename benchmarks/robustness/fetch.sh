#!/usr/bin/env bash
# Extract the source tree a robustness sweep runs against, at the commit its committed results used.
#
#   bash benchmarks/robustness/fetch.sh flaggems DEST [GIT_DIR]   # FlagGems' src/flag_gems into DEST
#   bash benchmarks/robustness/fetch.sh tilelang DEST [GIT_DIR]   # TileLang's examples/ into DEST
#   bash benchmarks/robustness/fetch.sh serving DEST [ARCHIVE_DIR] # vLLM's sdist and SGLang's wheel, unpacked
#
# GIT_DIR: a clone (or bare mirror) that holds the commit; without it the one commit is fetched from GitHub
# into a temporary bare repository. DEST also gets a COMMIT file, which the sweep records in its results.
# Nothing extracted here belongs in this repository: pass DEST to the sweep's --src.
#
# serving: the pinned vLLM source distribution and SGLang wheel, from ARCHIVE_DIR (a folder or pip download
# cache holding vllm-0.34.0.tar.gz and sglang-0.5.23-*.whl) or else from PyPI with `pip download --no-deps`.
# Each file's sha256 is checked against the pin below (SERVING_ALLOW_OTHER_FILES=1 accepts another, e.g.
# SGLang's wheel for another platform: its Python sources are the same). The sdist is unpacked to
# DEST/vllm-0.34.0, the wheel to DEST/sglang-0.5.23, and DEST/SOURCES lists project, version, file, sha256
# and folder, which the sweep records in its results.
set -euo pipefail

# github.com/FlagOpen/FlagGems master, 2025-11-21 ("[kunlunxin] add rmsnorm supported (#1085)")
FLAGGEMS_COMMIT=532ff438c70343d7aec9becdabb76a71225a0553
# github.com/tile-ai/tilelang main, 2026-08-21 ("[Layout][Config] Add environment override for layout cost model (#3061)")
TILELANG_COMMIT=a35008a42531c62b976ae4cec3855d4383db0f3c
# PyPI vllm 0.34.0 (sdist) and sglang 0.5.23 (the cp311 manylinux_2_34 x86_64 wheel)
VLLM_VERSION=0.34.0
VLLM_FILE=vllm-$VLLM_VERSION.tar.gz
VLLM_SHA256=fcad848b246a9d8652b47e6425af92334dc02492f9802720f54e27b823cf0113
SGLANG_VERSION=0.5.23
SGLANG_FILE=sglang-$SGLANG_VERSION-cp311-cp311-manylinux_2_34_x86_64.whl
SGLANG_SHA256=00b3cd5b265ac76c64185fbb6b95424f324ddd9f428d0306b77bc9db9d859937

# serving DEST [ARCHIVE_DIR]: the archives, checked, unpacked, listed in DEST/SOURCES
fetch_serving() {
  local dest=$1 archives=${2:-} vllm sglang
  tmp=$(mktemp -d)  # global: the EXIT trap reads it
  trap 'rm -rf "$tmp"' EXIT
  if [[ -e $dest/SOURCES ]]; then
    echo "$dest/SOURCES exists; remove $dest first" >&2
    exit 1
  fi
  if [[ -n $archives ]]; then
    vllm=$(find "$archives" -name "$VLLM_FILE" -print -quit)
    sglang=$(find "$archives" -name "$SGLANG_FILE" -print -quit)
    [[ -n $sglang ]] || sglang=$(find "$archives" -name "sglang-$SGLANG_VERSION-*.whl" -print -quit)
    if [[ -z $vllm || -z $sglang ]]; then
      echo "$archives holds no $VLLM_FILE or no sglang-$SGLANG_VERSION-*.whl" >&2
      exit 1
    fi
  else
    # pip reads an sdist's metadata before saving it: for vLLM that installs its build requirements
    # (torch ==2.14.0 among them); where they cannot be had, download the sdist otherwise and pass ARCHIVE_DIR
    if ! pip download --quiet --no-deps --no-binary :all: -d "$tmp/dl" "vllm==$VLLM_VERSION"; then
      echo "pip could not download $VLLM_FILE (it installs vLLM's build requirements to read the sdist's" \
        "metadata); fetch it otherwise (sha256 $VLLM_SHA256) and pass its folder as ARCHIVE_DIR" >&2
      exit 1
    fi
    pip download --quiet --no-deps -d "$tmp/dl" "sglang==$SGLANG_VERSION"
    vllm=$tmp/dl/$VLLM_FILE
    sglang=$(find "$tmp/dl" -name "sglang-$SGLANG_VERSION-*.whl" -print -quit)
  fi
  local file pin sum
  for file in "$vllm" "$sglang"; do
    pin=$VLLM_SHA256
    [[ $file == "$vllm" ]] || pin=$SGLANG_SHA256
    sum=$(sha256sum "$file" | cut -d' ' -f1)
    if [[ $sum != "$pin" ]]; then
      echo "$(basename "$file"): sha256 $sum is not the pinned $pin" >&2
      [[ ${SERVING_ALLOW_OTHER_FILES:-0} == 1 ]] || exit 1
    fi
  done
  mkdir -p "$dest/sglang-$SGLANG_VERSION"
  tar -xzf "$vllm" -C "$dest"
  python3 -m zipfile -e "$sglang" "$dest/sglang-$SGLANG_VERSION"
  {
    echo "# project version file sha256 folder (written by benchmarks/robustness/fetch.sh serving)"
    echo "vllm $VLLM_VERSION $(basename "$vllm") $(sha256sum "$vllm" | cut -d' ' -f1) vllm-$VLLM_VERSION"
    echo "sglang $SGLANG_VERSION $(basename "$sglang") $(sha256sum "$sglang" | cut -d' ' -f1) sglang-$SGLANG_VERSION"
  } >"$dest/SOURCES"
  echo "unpacked $(basename "$vllm") and $(basename "$sglang") into $dest"
}

usage="usage: $0 flaggems|tilelang DEST [GIT_DIR] | $0 serving DEST [ARCHIVE_DIR]"
case "${1:-}" in
  flaggems) url=https://github.com/FlagOpen/FlagGems.git; commit=$FLAGGEMS_COMMIT; tree=src/flag_gems ;;
  tilelang) url=https://github.com/tile-ai/tilelang.git; commit=$TILELANG_COMMIT; tree=examples ;;
  serving) fetch_serving "${2:?$usage}" "${3:-}"; exit 0 ;;
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

#!/usr/bin/env bash
# Installs the pinned CometBFT (scripts/cometbft-version, the one place the version lives) into
# the repo-local .cache/bin with the machine's Go toolchain, unless the binary there already
# reports that version. The Go build cache (~/.cache/go-build) and module cache keep a re-install
# cheap; CI keeps .cache/ between runs where the machine is reused.
# Usage: scripts/install-cometbft.sh   (prints the binary's path on its last line)
set -euo pipefail
cd "$(dirname "$0")/.."
version="$(tr -d '[:space:]' < scripts/cometbft-version)"
bin_dir="$PWD/.cache/bin"
binary="$bin_dir/cometbft"

# `cometbft version` prints the version without the leading "v" (e.g. 0.38.26).
if [ -x "$binary" ] && [ "$("$binary" version 2>/dev/null | head -n 1)" = "${version#v}" ]; then
  echo "$binary"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  echo "install-cometbft: the Go toolchain (go) is required to build CometBFT $version" >&2
  exit 1
fi

mkdir -p "$bin_dir"
echo "install-cometbft: building github.com/cometbft/cometbft/cmd/cometbft@$version (takes minutes)" >&2
GOBIN="$bin_dir" GOFLAGS="${GOFLAGS:-} -buildvcs=false" go install "github.com/cometbft/cometbft/cmd/cometbft@$version"
reported="$("$binary" version 2>/dev/null | head -n 1)"
if [ "$reported" != "${version#v}" ]; then
  echo "install-cometbft: $binary reports '$reported', expected ${version#v}" >&2
  exit 1
fi
echo "$binary"

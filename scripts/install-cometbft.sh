#!/usr/bin/env bash
# Installs the pinned CometBFT (scripts/cometbft-version, the one place the version lives) as
# .cache/bin/cometbft, unless the binary there already reports that version. It is built from the
# Go module proxy with the machine's Go toolchain (`go install`). A copy is kept per version in
# the user's cache folder, so a fresh clone on the same machine (CI) does not build it again;
# Go's own build and module caches make a rebuild quicker too.
# Usage: scripts/install-cometbft.sh   (prints the binary's path on its last line)
set -euo pipefail
cd "$(dirname "$0")/.."
version="$(tr -d '[:space:]' < scripts/cometbft-version)"
bin_dir="$PWD/.cache/bin"
binary="$bin_dir/cometbft"
shared_dir="${XDG_CACHE_HOME:-$HOME/.cache}/ledgerd/cometbft-$version"

# `cometbft version` prints the version without the leading "v" (e.g. 0.38.26).
reports_version() {
  [ -x "$1" ] && [ "$("$1" version 2>/dev/null | head -n 1)" = "${version#v}" ]
}

if reports_version "$binary"; then
  echo "$binary"
  exit 0
fi
mkdir -p "$bin_dir"
if reports_version "$shared_dir/cometbft"; then
  cp "$shared_dir/cometbft" "$binary"
  echo "$binary"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  echo "install-cometbft: the Go toolchain (go) is required to build CometBFT $version" >&2
  exit 1
fi
echo "install-cometbft: building github.com/cometbft/cometbft/cmd/cometbft@$version (takes minutes)" >&2
GOBIN="$bin_dir" GOFLAGS="${GOFLAGS:-} -buildvcs=false" go install "github.com/cometbft/cometbft/cmd/cometbft@$version"
if ! reports_version "$binary"; then
  echo "install-cometbft: $binary reports '$("$binary" version 2>&1 | head -n 1)', expected ${version#v}" >&2
  exit 1
fi
mkdir -p "$shared_dir" && cp "$binary" "$shared_dir/cometbft.tmp" && mv "$shared_dir/cometbft.tmp" "$shared_dir/cometbft" || true
echo "$binary"

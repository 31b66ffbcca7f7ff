#!/usr/bin/env bash
# Installs the pinned CometBFT (scripts/cometbft-version, the one place the version lives) as
# .cache/bin/cometbft, built from the Go module proxy with the machine's Go toolchain, kept per
# version in the user's cache (scripts/go-tool.sh).
# Usage: scripts/install-cometbft.sh   (prints the binary's path on its last line)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/go-tool.sh
version="$(tr -d '[:space:]' < scripts/cometbft-version)"

# `cometbft version` prints the version without the leading "v" (e.g. 0.38.26).
reports_version() {
  [ -x "$1" ] && [ "$("$1" version 2>/dev/null | head -n 1)" = "${version#v}" ]
}
build() {
  GOBIN="$1" GOFLAGS="${GOFLAGS:-} -buildvcs=false" go install "github.com/cometbft/cometbft/cmd/cometbft@$version"
}
install_go_tool cometbft "$version" install-cometbft reports_version build

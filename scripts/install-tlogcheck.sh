#!/usr/bin/env bash
# Builds test/interop/tlogcheck, the interoperability check that reads a node's checkpoints,
# proofs and tiles with other people's Go code (docs/transparency.md), as .cache/bin/tlogcheck;
# its version is a hash of its sources (main.go, go.mod, go.sum, which pin every module), so it is
# built again only when they change, and kept as scripts/go-tool.sh says. The first build fetches
# the modules from the Go module proxy.
# Usage: scripts/install-tlogcheck.sh   (prints the binary's path on its last line)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/go-tool.sh
source_dir=test/interop/tlogcheck
version="$(cat "$source_dir/main.go" "$source_dir/go.mod" "$source_dir/go.sum" | sha256sum | cut -c1-16)"

reports_version() {
  [ -x "$1" ] && [ "$("$1" -version 2>/dev/null)" = "tlogcheck $version" ]
}
build() {
  (cd "$source_dir" && GOFLAGS="${GOFLAGS:-} -buildvcs=false -mod=readonly" \
    go build -ldflags "-X main.version=$version" -o "$1/tlogcheck" .)
}
install_go_tool tlogcheck "$version" install-tlogcheck reports_version build

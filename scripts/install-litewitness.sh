#!/usr/bin/env bash
# Builds filippo.io/torchwood v0.6.1's litewitness (a C2SP tlog-witness) and witnessctl (which
# registers a log with it), for test/e2e/litewitnessInterop.test.ts (docs/transparency.md), as
# .cache/bin/litewitness and .cache/bin/witnessctl. test/interop/litewitness/go.mod pins torchwood
# and go.sum every module; its version is a hash of that folder's files, stamped in the binaries
# (read back with `go version -m`), so they are built again only when it changes, and kept as
# scripts/go-tool.sh says. The first build fetches the modules from the Go module proxy
# (measured: 57 s on a busy 2-core machine with an empty build cache, a few milliseconds after).
# Usage: scripts/install-litewitness.sh   (prints the two binaries' paths on its last two lines)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/go-tool.sh
source_dir=test/interop/litewitness
version="$(cd "$source_dir" && find . -type f \( -name '*.go' -o -name 'go.mod' -o -name 'go.sum' \) | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-16)"

reports_version() {
  [ -x "$1" ] && go version -m "$1" 2>/dev/null | grep -qF "main.ledgerdBuild=$version"
}
build_command() {
  (cd "$source_dir" && GOFLAGS="${GOFLAGS:-} -buildvcs=false -mod=readonly" \
    go build -ldflags "-X main.ledgerdBuild=$version" -o "$2/$1" "filippo.io/torchwood/cmd/$1")
}
build_litewitness() { build_command litewitness "$1"; }
build_witnessctl() { build_command witnessctl "$1"; }
install_go_tool litewitness "$version" install-litewitness reports_version build_litewitness
install_go_tool witnessctl "$version" install-litewitness reports_version build_witnessctl

#!/usr/bin/env bash
# Installs the pinned Toxiproxy server (scripts/toxiproxy-version, the one place the version
# lives) as .cache/bin/toxiproxy-server, which `npm run chaos` uses to cut and slow the links
# between a testnet's CometBFT peers; built and kept as scripts/go-tool.sh says.
# Usage: scripts/install-toxiproxy.sh   (prints the binary's path on its last line)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/go-tool.sh
version="$(tr -d '[:space:]' < scripts/toxiproxy-version)"

# `toxiproxy-server --version` prints e.g. "toxiproxy-server version 2.12.0".
reports_version() {
  [ -x "$1" ] && "$1" --version 2>/dev/null | grep -qF "${version#v}"
}
# The version is stamped by the module's release build (-X ...Version): set it the same way.
build() {
  GOBIN="$1" GOFLAGS="${GOFLAGS:-} -buildvcs=false" \
    go install -ldflags "-X github.com/Shopify/toxiproxy/v2.Version=${version#v}" \
    "github.com/Shopify/toxiproxy/v2/cmd/server@$version"
  mv "$1/server" "$1/toxiproxy-server"
}
install_go_tool toxiproxy-server "$version" install-toxiproxy reports_version build

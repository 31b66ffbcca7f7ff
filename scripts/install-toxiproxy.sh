#!/usr/bin/env bash
# Installs the pinned Toxiproxy server (scripts/toxiproxy-version, the one place the version
# lives) as .cache/bin/toxiproxy-server, which `npm run chaos` uses to cut and slow the links
# between a testnet's CometBFT peers. Built from the Go module proxy with `go install`, as
# scripts/install-cometbft.sh builds CometBFT; a copy is kept per version in the user's cache.
# Usage: scripts/install-toxiproxy.sh   (prints the binary's path on its last line)
set -euo pipefail
cd "$(dirname "$0")/.."
version="$(tr -d '[:space:]' < scripts/toxiproxy-version)"
bin_dir="$PWD/.cache/bin"
binary="$bin_dir/toxiproxy-server"
shared_dir="${XDG_CACHE_HOME:-$HOME/.cache}/ledgerd/toxiproxy-$version"

# `toxiproxy-server --version` prints e.g. "toxiproxy-server version 2.12.0".
reports_version() {
  [ -x "$1" ] && "$1" --version 2>/dev/null | grep -qF "${version#v}"
}

if reports_version "$binary"; then echo "$binary"; exit 0; fi
mkdir -p "$bin_dir"
if reports_version "$shared_dir/toxiproxy-server"; then
  cp "$shared_dir/toxiproxy-server" "$binary"
  echo "$binary"
  exit 0
fi
if ! command -v go >/dev/null 2>&1; then
  echo "install-toxiproxy: the Go toolchain (go) is required to build Toxiproxy $version" >&2
  exit 1
fi
echo "install-toxiproxy: building github.com/Shopify/toxiproxy/v2/cmd/server@$version" >&2
# The version is stamped by the module's release build (-X main.Version): set it the same way.
GOBIN="$bin_dir" GOFLAGS="${GOFLAGS:-} -buildvcs=false" \
  go install -ldflags "-X github.com/Shopify/toxiproxy/v2.Version=${version#v}" \
  "github.com/Shopify/toxiproxy/v2/cmd/server@$version"
mv "$bin_dir/server" "$binary"
if ! reports_version "$binary"; then
  echo "install-toxiproxy: $binary reports '$("$binary" --version 2>&1 | head -n 1)', expected ${version#v}" >&2
  exit 1
fi
mkdir -p "$shared_dir" && cp "$binary" "$shared_dir/toxiproxy-server.tmp" \
  && mv "$shared_dir/toxiproxy-server.tmp" "$shared_dir/toxiproxy-server" || true
echo "$binary"

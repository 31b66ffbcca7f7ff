#!/usr/bin/env bash
# Installs promtool (Prometheus' rule checker) as .cache/bin/promtool, for the alert rules' tests
# (`promtool check rules`, `promtool test rules` on deploy/prometheus, docs/operations.md), at
# the version in scripts/promtool-version, unless the binary there already reports it. promtool
# is a Go program; building it from the Go module proxy compiles Prometheus' whole service
# discovery (Kubernetes, AWS, Azure, GCP clients): many minutes on a 2-core machine. Debian ships
# it built in its `prometheus` package (bookworm: 2.42.0), so where apt-get is, the package is
# downloaded (no root needed, nothing installed or started) and only promtool is taken out of it
# (measured: about 3 s); elsewhere it is built with `go install` (the module v0.X.Y is Prometheus
# 2.X.Y). A copy is kept per version in the user's cache folder, as scripts/go-tool.sh does.
# Usage: scripts/install-promtool.sh   (prints the binary's path on its last line)
set -euo pipefail
cd "$(dirname "$0")/.."
version="$(cat scripts/promtool-version)"
bin_dir="$PWD/.cache/bin"
binary="$bin_dir/promtool"
shared="${XDG_CACHE_HOME:-$HOME/.cache}/ledgerd/promtool-$version/promtool"

reports_version() {
  [ -x "$1" ] && "$1" --version 2>/dev/null | head -1 | grep -q "^promtool, version $version[+ ]"
}
from_debian() {
  local work status=0
  work="$(mktemp -d)"
  # apt's sandbox user could not write into a private temporary folder: download as oneself.
  (cd "$work" && apt-get download -qq -o APT::Sandbox::User="$(id -un)" prometheus >/dev/null) \
    && dpkg-deb --fsys-tarfile "$work"/prometheus_*.deb | tar -xO ./usr/bin/promtool > "$binary.tmp" \
    && chmod +x "$binary.tmp" && mv "$binary.tmp" "$binary" || status=$?
  rm -rf "$work" "$binary.tmp"
  return "$status"
}
from_go() {
  command -v go >/dev/null 2>&1 || { echo "install-promtool: needs apt-get (Debian) or Go to get promtool $version" >&2; return 1; }
  echo "install-promtool: building promtool $version with go install (takes many minutes)" >&2
  GOBIN="$bin_dir" GOFLAGS="${GOFLAGS:-} -buildvcs=false" go install \
    -ldflags "-X github.com/prometheus/common/version.Version=$version" \
    "github.com/prometheus/prometheus/cmd/promtool@v0.${version#2.}"
}

if reports_version "$binary"; then echo "$binary"; exit 0; fi
mkdir -p "$bin_dir"
if reports_version "$shared"; then cp "$shared" "$binary"; echo "$binary"; exit 0; fi
if command -v apt-get >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1; then from_debian || true; fi
reports_version "$binary" || from_go
if ! reports_version "$binary"; then
  echo "install-promtool: $binary does not report version $version" >&2
  exit 1
fi
mkdir -p "$(dirname "$shared")" && cp "$binary" "$shared.tmp" && mv "$shared.tmp" "$shared" || true
echo "$binary"

#!/usr/bin/env bash
# Installs promtool (Prometheus' rule checker) as .cache/bin/promtool, for the alert rules' tests
# (`promtool check rules`, `promtool test rules` on deploy/prometheus, docs/operations.md), at
# the version in scripts/promtool-version, unless the binary there already reports it; a copy
# is kept as scripts/go-tool.sh says. promtool is a Go program, but building it from the Go
# module proxy compiles Prometheus' whole service discovery (Kubernetes, AWS, Azure, GCP
# clients): `go install …/cmd/promtool@v0.316.0` took 18 min 45 s on a busy 2-core machine
# (400 s of CPU, 3.3 GB of memory, a 123 MB binary), and `…@v0.42.0` (Prometheus 2.42) is
# refused for its go.mod's replace directives. Debian ships it built in its `prometheus` package
# (bookworm: 2.42.0), so the package is downloaded (no root needed, nothing installed or
# started) and only promtool is taken out of it (measured: 3.5 to 6.3 s on a busy 2-core
# machine; 0.1 s once there). Elsewhere a promtool of that version on PATH is copied.
# Usage: scripts/install-promtool.sh   (prints the binary's path on its last line)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/go-tool.sh
version="$(cat scripts/promtool-version)"

reports_version() {
  [ -x "$1" ] && "$1" --version 2>/dev/null | head -1 | grep -q "^promtool, version $version[+ ]"
}
from_debian() {
  local work status=0
  work="$(mktemp -d)"
  # apt's sandbox user could not write into a private temporary folder: download as oneself.
  (cd "$work" && apt-get download -qq -o APT::Sandbox::User="$(id -un)" prometheus >/dev/null) \
    && dpkg-deb --fsys-tarfile "$work"/prometheus_*.deb | tar -xO ./usr/bin/promtool > "$1/promtool.tmp" \
    && chmod +x "$1/promtool.tmp" && mv "$1/promtool.tmp" "$1/promtool" || status=$?
  rm -rf "$work" "$1/promtool.tmp"
  return "$status"
}
from_path() {
  local found
  found="$(command -v promtool)" && reports_version "$found" && cp "$found" "$1/promtool"
}
build() {
  if command -v apt-get >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1 && from_debian "$1" && reports_version "$1/promtool"; then
    return 0
  fi
  from_path "$1" && return 0
  echo "install-promtool: needs apt-get and dpkg-deb (Debian), or promtool $version on PATH" >&2
  return 1
}
install_go_tool promtool "$version" install-promtool reports_version build maybe

#!/usr/bin/env bash
# Writes deploy/cometbft-metrics.txt: the Prometheus metrics of the pinned CometBFT
# (scripts/cometbft-version), `TYPE name` a line, read from its sources' metrics.gen.go files
# in Go's module cache (scripts/install-cometbft.sh put them there), with the default
# namespace "cometbft". The dashboard's and alert rules' test checks their CometBFT names
# against it, and a real CometBFT's scrape against it. Run it again when the pin moves.
# Usage: scripts/cometbft-metric-names.sh
set -euo pipefail
cd "$(dirname "$0")/.."
version="$(cat scripts/cometbft-version)"
source_dir="$(go env GOMODCACHE)/github.com/cometbft/cometbft@${version}"
[ -d "$source_dir" ] || (cd /tmp && go mod download "github.com/cometbft/cometbft@${version}")
{
  echo "# CometBFT ${version}'s metrics (scripts/cometbft-metric-names.sh writes this file)"
  for package in abci blocksync consensus mempool p2p proxy state statesync; do
    [ -f "$source_dir/$package/metrics.gen.go" ] || continue
    subsystem="$(sed -n 's/.*MetricsSubsystem = "\(.*\)"/\1/p' "$source_dir/$package/metrics.go")"
    grep -A4 'prometheus.New' "$source_dir/$package/metrics.gen.go" \
      | grep -o 'prometheus.New[A-Za-z]*From\|Name: *"[^"]*"' | paste - - \
      | sed "s/prometheus.New\([A-Za-z]*\)From\tName: *\"\(.*\)\"/\1 cometbft_${subsystem}_\2/" \
      | tr '[:upper:]' '[:lower:]'
  done | sort -k2
} > deploy/cometbft-metrics.txt

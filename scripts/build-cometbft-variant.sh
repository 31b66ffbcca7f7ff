#!/usr/bin/env bash
# Builds the pinned CometBFT (scripts/cometbft-version) with one change to its ABCI socket client,
# for the measured reproduction in docs/cometbft-abci-flush.md. An experiment only: ledgerd runs
# CometBFT unmodified, and nothing else uses these binaries.
#   flush-20ms       the flush timer waits 20 ms, as its constant's name says (not 20 ns)
#   flush-when-idle  no timer: the client sends a Flush whenever its queue of requests runs empty
# Usage: scripts/build-cometbft-variant.sh flush-20ms|flush-when-idle   (prints the binary's path)
# Then: LEDGERD_BENCH_COMETBFT_BINARY=<that path> npm run bench cometbft
set -euo pipefail
cd "$(dirname "$0")/.."
variant="${1:-}"
case "$variant" in
  flush-20ms | flush-when-idle) ;;
  *) echo "usage: $0 flush-20ms|flush-when-idle" >&2; exit 2 ;;
esac
version="$(tr -d '[:space:]' < scripts/cometbft-version)"
work="$PWD/.cache/cometbft-variants/$version/$variant"
# Named cometbft, as the stock binary: the bench tells CometBFT's processes by the binary's name.
binary="$work/cometbft"

GOFLAGS="${GOFLAGS:-} -buildvcs=false" go mod download "github.com/cometbft/cometbft@$version"
rm -rf "$work/src"
mkdir -p "$work"
cp -r "$(go env GOMODCACHE)/github.com/cometbft/cometbft@$version" "$work/src"
chmod -R u+w "$work/src"
client="$work/src/abci/client/socket_client.go"

case "$variant" in
  flush-20ms)
    # NewThrottleTimer takes a time.Duration: the bare 20 is 20 nanoseconds.
    sed -i 's/flushThrottleMS = 20 /flushThrottleMS = 20 * time.Millisecond /' "$client"
    grep -q 'flushThrottleMS = 20 \* time.Millisecond' "$client"
    ;;
  flush-when-idle)
    # The send routine writes a Flush after the last request waiting, and no request arms the timer.
    perl -0pi -e 's{if _, ok := reqres\.Request\.Value\.\(\*types\.Request_Flush\); ok \{}{_, isFlush := reqres.Request.Value.(*types.Request_Flush)
			if !isFlush && len(cli.reqQueue) == 0 {
				// ledgerd variant: nothing else waits, so ask the server for its answers now.
				flush := NewReqRes(types.ToRequestFlush())
				cli.trackRequest(flush)
				if err = types.WriteMessage(flush.Request, w); err != nil {
					cli.stopForError(fmt.Errorf("write to buffer: %w", err))
					return
				}
				isFlush = true
			}
			if isFlush \{}' "$client"
    perl -0pi -e 's{\n\tswitch req\.Value\.\(type\) \{\n\tcase \*types\.Request_Flush:\n\t\tcli\.flushTimer\.Unset\(\)\n\tdefault:\n\t\tcli\.flushTimer\.Set\(\)\n\t\}\n}{\n}' "$client"
    grep -q 'ledgerd variant' "$client"
    # (`! grep` would not stop the script under set -e: a negated command never does.)
    if grep -q 'cli.flushTimer.Set()' "$client"; then
      echo "build-cometbft-variant: the timer is still armed in $client" >&2
      exit 1
    fi
    ;;
esac

echo "build-cometbft-variant: building $variant of CometBFT $version (takes a minute or more)" >&2
(cd "$work/src" && GOFLAGS="${GOFLAGS:-} -buildvcs=false" go build -o "$binary" ./cmd/cometbft)
echo "$binary"

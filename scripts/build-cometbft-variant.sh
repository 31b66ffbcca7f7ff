#!/usr/bin/env bash
# Builds the pinned CometBFT (scripts/cometbft-version) with one change, for experiments and tests
# only: ledgerd runs CometBFT unmodified, and nothing else uses these binaries.
#   flush-20ms       the flush timer waits 20 ms, as its constant's name says (not 20 ns)
#   flush-when-idle  no timer: the client sends a Flush whenever its queue of requests runs empty
#                    (both for the measured reproduction in docs/cometbft-abci-flush.md)
#   clock-offset     the process's wall clock runs CMT_CLOCK_OFFSET (a Go duration: "-90s", "3m")
#                    off the machine's, for the clock-skew test (test/e2e/cometbft/clockSkew.test.ts).
#                    Go reads the clock through the vDSO, out of libfaketime's reach, so Go's own
#                    time.Now is patched (a build overlay of the toolchain's time package): every
#                    wall-clock read in the binary moves, CometBFT's and its libraries'; the
#                    monotonic clock (timeouts, timers) does not, as on a machine whose clock is off.
# Usage: scripts/build-cometbft-variant.sh flush-20ms|flush-when-idle|clock-offset   (prints the binary's path)
# A binary built by this script's same text with the same Go is kept in .cache (and a copy in the
# user's cache folder, as scripts/install-cometbft.sh keeps its own) and not built again.
# Then: LEDGERD_BENCH_COMETBFT_BINARY=<that path> npm run bench cometbft
set -euo pipefail
cd "$(dirname "$0")/.."
variant="${1:-}"
case "$variant" in
  flush-20ms | flush-when-idle | clock-offset) ;;
  *) echo "usage: $0 flush-20ms|flush-when-idle|clock-offset" >&2; exit 2 ;;
esac
version="$(tr -d '[:space:]' < scripts/cometbft-version)"
work="$PWD/.cache/cometbft-variants/$version/$variant"
# Named cometbft, as the stock binary: the bench tells CometBFT's processes by the binary's name.
binary="$work/cometbft"
stamp="$(sha256sum < "$0" | cut -c1-16) $(go version)"
shared="${XDG_CACHE_HOME:-$HOME/.cache}/ledgerd/cometbft-$version-$variant"
built_by_stamp() {
  [ -x "$1/cometbft" ] && [ "$(cat "$1/built-by" 2>/dev/null)" = "$stamp" ]
}
if built_by_stamp "$work"; then
  echo "$binary"
  exit 0
fi
if built_by_stamp "$shared"; then
  mkdir -p "$work" && cp "$shared/cometbft" "$binary" && cp "$shared/built-by" "$work/built-by"
  echo "$binary"
  exit 0
fi

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
  clock-offset)
    # Go's time.Now adds CMT_CLOCK_OFFSET, read once at start, to the wall reading only.
    goroot_time="$(go env GOROOT)/src/time"
    mkdir -p "$work/overlay"
    perl -0pe 's{(\tsec, nsec, mono := runtimeNow\(\)\n)}{$1\tsec, nsec = offsetWall(sec, nsec) // ledgerd clock-offset variant\n}' \
      "$goroot_time/time.go" > "$work/overlay/time.go"
    grep -q 'ledgerd clock-offset variant' "$work/overlay/time.go"
    cat > "$work/overlay/clock_offset.go" <<'GO'
package time

import "syscall"

// ledgerd clock-offset variant: the wall clock's offset from the machine's, in nanoseconds.
var wallOffset = loadWallOffset()

func loadWallOffset() int64 {
	text, ok := syscall.Getenv("CMT_CLOCK_OFFSET")
	if !ok || text == "" {
		return 0
	}
	d, err := ParseDuration(text)
	if err != nil {
		panic("CMT_CLOCK_OFFSET: " + err.Error())
	}
	return int64(d)
}

func offsetWall(sec int64, nsec int32) (int64, int32) {
	if wallOffset == 0 {
		return sec, nsec
	}
	sec += wallOffset / 1e9
	nsec += int32(wallOffset % 1e9)
	if nsec < 0 {
		nsec += 1e9
		sec--
	} else if nsec >= 1e9 {
		nsec -= 1e9
		sec++
	}
	return sec, nsec
}
GO
    printf '{"Replace":{"%s/time.go":"%s","%s/clock_offset.go":"%s"}}' \
      "$goroot_time" "$work/overlay/time.go" "$goroot_time" "$work/overlay/clock_offset.go" > "$work/overlay.json"
    overlay="-overlay=$work/overlay.json"
    ;;
esac

echo "build-cometbft-variant: building $variant of CometBFT $version (takes a minute or more)" >&2
(cd "$work/src" && GOFLAGS="${GOFLAGS:-} -buildvcs=false" go build ${overlay:-} -o "$binary" ./cmd/cometbft)
echo "$stamp" > "$work/built-by"
mkdir -p "$shared" && cp "$binary" "$shared/cometbft.tmp" && mv "$shared/cometbft.tmp" "$shared/cometbft" && cp "$work/built-by" "$shared/built-by" || true
echo "$binary"

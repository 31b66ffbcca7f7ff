# Sourced by scripts/install-cometbft.sh and scripts/install-toxiproxy.sh: installs a Go tool at a
# pinned version as .cache/bin/NAME, unless the binary there already reports that version. A copy
# is kept per version in the user's cache folder, so a fresh clone on the same machine (CI) does
# not build it again; Go's own build and module caches make a rebuild quicker too.
#   install_go_tool NAME VERSION TAG REPORTS BUILD [GO]
#     NAME     the binary's name in .cache/bin
#     TAG      the word the messages start with (the calling script's name)
#     REPORTS  a function: REPORTS PATH succeeds when the binary at PATH is this VERSION
#     BUILD    a function: BUILD BIN_DIR builds it into BIN_DIR/NAME with `go install`
#     GO       "maybe": BUILD may get the binary without Go (it says what it needs)
# Prints the binary's path on its last line.
install_go_tool() {
  local name="$1" version="$2" tag="$3" reports="$4" build="$5" go="${6:-}"
  local bin_dir="$PWD/.cache/bin"
  local binary="$bin_dir/$name"
  local shared_dir="${XDG_CACHE_HOME:-$HOME/.cache}/ledgerd/$name-$version"
  if "$reports" "$binary"; then echo "$binary"; return 0; fi
  mkdir -p "$bin_dir"
  if "$reports" "$shared_dir/$name"; then
    cp "$shared_dir/$name" "$binary"
    echo "$binary"
    return 0
  fi
  if [ "$go" != maybe ]; then
    if ! command -v go >/dev/null 2>&1; then
      echo "$tag: the Go toolchain (go) is required to build $name $version" >&2
      return 1
    fi
    echo "$tag: building $name $version with go install (takes minutes)" >&2
  fi
  "$build" "$bin_dir"
  if ! "$reports" "$binary"; then
    echo "$tag: $binary does not report version $version" >&2
    return 1
  fi
  mkdir -p "$shared_dir" && cp "$binary" "$shared_dir/$name.tmp" && mv "$shared_dir/$name.tmp" "$shared_dir/$name" || true
  echo "$binary"
}

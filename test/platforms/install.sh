#!/usr/bin/env bash
# Installs the package both ways users do, with pnpm 11 as `dsh plugin add` does (no scripts run),
# and loads it on each Linux variant here:
#   1. the full tarball (`npm pack` of the root after `npm run build:targets`): pnpm adds the
#      file; the loader takes the addon inside it;
#   2. the registry's packages (`npm run pack:all` → dist/registry) from a loopback registry: for
#      each of the seven os/cpu/libc triples pnpm must fetch exactly that platform's package,
#      and on the four Linux variants the smoke must load the addon from it, and the
#      installed `dsh-memento mcp` must answer initialize and tools/list (mcp-smoke.mjs).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
. .ci/harness.sh >/dev/null # Node 24 and pnpm 11, as dsh uses them

log() { printf '[install] %s\n' "$*" >&2; }
scripts/pack.sh >/dev/null
version=$(node -p "require('./package.json').version")
work=$(mktemp -d)
registry_pid=
cleanup() {
  [ -z "$registry_pid" ] || kill "$registry_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
export npm_config_store_dir="$work/store"

# The smokes of an installed package under a platform's runner (host, musl, qemu): the provider's
# (the addon must load from `$3`, the package itself or its platform package) and the MCP
# server's (the package's own `dsh-memento mcp`, with the SDK pnpm installed beside it).
smoke_on() {
  local platform=$1 package=$2 from=$3
  export MEMENTO_SMOKE_PACKAGE=$package
  case "$platform" in
    linux-x64-gnu) MEMENTO_SMOKE_EXPECT="memento.$platform.node" node test/platforms/smoke.mjs && node test/platforms/mcp-smoke.mjs ;;
    linux-x64-musl) test/platforms/musl.sh --smoke ;;
    linux-arm64-gnu) test/platforms/qemu.sh gnu ;;
    linux-arm64-musl) test/platforms/qemu.sh musl ;;
  esac >"$work/smoke.log" 2>&1 || { cat "$work/smoke.log" >&2; log "FAIL: smoke of $package on $platform"; exit 1; }
  grep -q "^loaded: $(realpath "$from")/memento.$platform.node$" "$work/smoke.log" \
    || { cat "$work/smoke.log" >&2; log "FAIL: $platform did not load the addon from $from"; exit 1; }
  log "$platform: $(tail -n 1 "$work/smoke.log") (loaded from ${from#"$work/"})"
}

# 1. The full tarball.
mkdir -p "$work/full"
(cd "$work/full" && echo '{"name":"full","private":true}' >package.json \
  && pnpm add --reporter=silent "$ROOT/dist/dsh-memento-$version.tgz")
full="$work/full/node_modules/dsh-memento"
[ "$(ls "$full"/memento.*.node | wc -l)" = 7 ] || { log "FAIL: the full package does not carry seven addons"; exit 1; }
for p in linux-x64-gnu linux-x64-musl linux-arm64-gnu linux-arm64-musl; do smoke_on "$p" "$full" "$full"; done

# 2. The registry route.
node test/platforms/registry.mjs dist/registry >"$work/registry.log" &
registry_pid=$!
for _ in $(seq 50); do grep -q listening "$work/registry.log" && break; sleep 0.1; done
port=$(sed -n 's/^registry listening on //p' "$work/registry.log")
[ -n "$port" ] || { log "FAIL: the registry did not start"; exit 1; }
while read -r platform os cpu libc; do
  dir="$work/registry-$platform"
  mkdir -p "$dir"
  echo '{"name":"registry","private":true}' >"$dir/package.json"
  {
    echo "registry: http://127.0.0.1:$port/"
    echo "supportedArchitectures: { os: [$os], cpu: [$cpu]$([ "$libc" = - ] || echo ", libc: [$libc]") }"
  } >"$dir/pnpm-workspace.yaml"
  (cd "$dir" && pnpm add --reporter=silent "dsh-memento@$version")
  installed=$(cd "$dir/node_modules/.pnpm" && ls -d dsh-memento-* | sed 's/@.*//' | tr '\n' ' ')
  [ "$installed" = "dsh-memento-$platform " ] \
    || { log "FAIL: $os/$cpu/$libc installed [$installed], not dsh-memento-$platform"; exit 1; }
  ! ls "$dir/node_modules/dsh-memento/"memento.*.node >/dev/null 2>&1 \
    || { log "FAIL: the registry root carries an addon"; exit 1; }
  log "$platform: pnpm fetched dsh-memento-$platform only"
  case "$platform" in
    linux-*) smoke_on "$platform" "$dir/node_modules/dsh-memento" "$dir/node_modules/.pnpm/dsh-memento-$platform@$version/node_modules/dsh-memento-$platform" ;;
  esac
done <<'EOF'
linux-x64-gnu    linux  x64    glibc
linux-x64-musl   linux  x64    musl
linux-arm64-gnu  linux  arm64  glibc
linux-arm64-musl linux  arm64  musl
darwin-x64       darwin x64    -
darwin-arm64     darwin arm64  -
win32-x64-msvc   win32  x64    -
EOF
log "ok: the full tarball and the registry packages install with pnpm $(pnpm --version) and load on four Linux variants"

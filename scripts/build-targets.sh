#!/usr/bin/env bash
# Builds the release addon for every platform dsh runs on:
#   npm/<platform>/memento.<platform>.node   (the per-platform packages)
#   ./memento.<platform>.node                (the same files in the root: the "fat" package)
#
#   npm run build:targets                    # all seven
#   npm run build:targets -- darwin-arm64    # some of them
#
# Installs what it needs, idempotently: the rustup targets; zig and cargo-zigbuild from PyPI in a
# venv under $DSH_MEMENTO_TOOLS (default ~/.cache/dsh-memento-tools); Debian's mingw-w64 gcc.
# zig links the Linux builds against glibc 2.17 (or musl) and the macOS builds without an SDK;
# Windows is the mingw build, shipped under the name the official node.exe loads (win32-x64-msvc).
set -euo pipefail
# shellcheck source=tools.sh
source "$(dirname "${BASH_SOURCE[0]}")/tools.sh"
cd "$REPO"

ZIGBUILD_VERSION=0.24.1
ZIG_VERSION=0.17.1

# platform | rust target (zig's glibc suffix included) | how it builds
PLATFORMS="
linux-x64-gnu     x86_64-unknown-linux-gnu.2.17   zig
linux-x64-musl    x86_64-unknown-linux-musl       zig
linux-arm64-gnu   aarch64-unknown-linux-gnu.2.17  zig
linux-arm64-musl  aarch64-unknown-linux-musl      zig
darwin-x64        x86_64-apple-darwin             zig
darwin-arm64      aarch64-apple-darwin            zig
win32-x64-msvc    x86_64-pc-windows-gnu           mingw
"

want=("$@")
selected() {
  [ ${#want[@]} -eq 0 ] && return 0
  local w
  for w in "${want[@]}"; do [ "$w" = "$1" ] && return 0; done
  return 1
}

install_tools() {
  local triples=() platform target how
  while read -r platform target how; do
    [ -n "$platform" ] && selected "$platform" && triples+=("${target%.2.17}")
  done <<<"$PLATFORMS"
  rustup_ensure "${triples[@]}"
  if [ ! -x "$TOOLS/venv/bin/cargo-zigbuild" ] \
    || ! "$TOOLS/venv/bin/cargo-zigbuild" --version | grep -q "$ZIGBUILD_VERSION"; then
    say "cargo-zigbuild $ZIGBUILD_VERSION and zig $ZIG_VERSION (PyPI) into $TOOLS/venv"
    python3 -m venv "$TOOLS/venv"
    "$TOOLS/venv/bin/pip" install --quiet --disable-pip-version-check \
      "cargo-zigbuild==$ZIGBUILD_VERSION" "ziglang==$ZIG_VERSION"
  fi
  if selected win32-x64-msvc; then apt_ensure gcc-mingw-w64-x86-64; fi
}

# The cdylib cargo writes for a target.
artifact() {
  local dir="target/${1%.2.17}/release"
  case "$1" in
    *-apple-darwin) echo "$dir/libdsh_memento.dylib" ;;
    *-windows-*) echo "$dir/dsh_memento.dll" ;;
    *) echo "$dir/libdsh_memento.so" ;;
  esac
}

build() {
  local platform=$1 target=$2 how=$3 start=$SECONDS
  say "$platform ($target)"
  case "$how" in
    zig)
      # The venv's python3 runs `python3 -m ziglang` for cargo-zigbuild; musl addons must link
      # the C runtime dynamically (node loads them with dlopen).
      PATH="$TOOLS/venv/bin:$PATH" \
        CARGO_TARGET_X86_64_UNKNOWN_LINUX_MUSL_RUSTFLAGS="-C target-feature=-crt-static" \
        CARGO_TARGET_AARCH64_UNKNOWN_LINUX_MUSL_RUSTFLAGS="-C target-feature=-crt-static" \
        MACOSX_DEPLOYMENT_TARGET=$([ "$target" = aarch64-apple-darwin ] && echo 11.0 || echo 10.13) \
        cargo zigbuild --release --locked --lib --target "$target"
      ;;
    mingw)
      # napi-build links `-lnode` for windows-gnu and insists on a libnode.dll, but napi's
      # dyn-symbols resolve every napi_* from the loading node.exe: an empty DLL satisfies the
      # link, and nothing of it is imported.
      if [ ! -f "$TOOLS/libnode/libnode.dll" ]; then
        mkdir -p "$TOOLS/libnode"
        echo 'void dsh_memento_libnode_stub(void) {}' | x86_64-w64-mingw32-gcc -shared -x c - -o "$TOOLS/libnode/libnode.dll"
      fi
      LIBNODE_PATH="$TOOLS/libnode" CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc \
        cargo build --release --locked --lib --target "$target"
      ;;
  esac
  mkdir -p "npm/$platform"
  cp "$(artifact "$target")" "npm/$platform/memento.$platform.node"
  cp "npm/$platform/memento.$platform.node" "memento.$platform.node"
  say "$platform: $(du -h "memento.$platform.node" | cut -f1) in $((SECONDS - start)) s"
}

install_tools
built=0
while read -r platform target how; do
  [ -n "$platform" ] && selected "$platform" || continue
  build "$platform" "$target" "$how"
  built=$((built + 1))
done <<<"$PLATFORMS"
[ "$built" -gt 0 ] || die "no such platform: ${want[*]}"
say "built $built platform(s) in $SECONDS s"

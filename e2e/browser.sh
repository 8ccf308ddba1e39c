#!/usr/bin/env bash
# The browser of the panel tests: Debian's chromium (driven by the npm devDependency
# playwright-core, which downloads no browser), with CJK and emoji fonts so screenshots show
# what a user sees. Idempotent; needs root (or sudo) the first time.
set -euo pipefail
pkgs=(chromium fonts-noto-cjk fonts-noto-color-emoji)
missing=()
for p in "${pkgs[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p"); done
[ ${#missing[@]} -eq 0 ] && [ -x /usr/bin/chromium ] && exit 0
echo "[browser] apt-get install ${missing[*]}" >&2
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
/usr/bin/chromium --version >&2

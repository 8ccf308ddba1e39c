#!/usr/bin/env bash
# The browser of the panel tests: Debian's chromium (driven by the npm devDependency
# playwright-core, which downloads no browser), with CJK and emoji fonts so screenshots show
# what a user sees. Idempotent.
set -euo pipefail
. "$(dirname "$0")/../scripts/tools.sh"
apt_ensure chromium fonts-noto-cjk fonts-noto-color-emoji
[[ -x /usr/bin/chromium ]] || die "apt installed chromium, but /usr/bin/chromium is missing"

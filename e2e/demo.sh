#!/usr/bin/env bash
# `npm run demo`: from a fresh clone, build the addon if needed, install the pinned harness
# (cached under $DSH_HARNESS_DIR, default /tmp/dsh-harness) and run the scripted session.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d node_modules/@napi-rs/cli ] || npm ci --no-audit --no-fund
node -e "require('./native.cjs')" 2>/dev/null || npm run build
. .ci/harness.sh
exec node e2e/demo.mjs "$@"

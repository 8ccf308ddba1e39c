#!/usr/bin/env bash
# Real-harness end-to-end tests: installs the pinned harness (cached), then runs e2e.test.mjs
# under its Node (>= 22). Extra arguments go to `node --test`.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/harness.sh
exec node --test --test-concurrency=1 --test-timeout=600000 "$@" e2e/e2e.test.mjs

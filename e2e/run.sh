#!/usr/bin/env bash
# Real-harness end-to-end tests: installs the pinned harness (cached) and the browser of the
# panel tests (Debian chromium), then runs e2e.test.mjs, panel.test.mjs and desktop.test.mjs under the harness's
# Node (>= 22). Extra arguments go to `node --test`. Panel screenshots: e2e/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/harness.sh
e2e/browser.sh
exec node --test --test-concurrency=1 --test-timeout=600000 "$@" e2e/e2e.test.mjs e2e/panel.test.mjs e2e/desktop.test.mjs

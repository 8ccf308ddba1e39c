#!/usr/bin/env bash
# `npm run check`: the fast loop on this machine's platform. Formatting and lint for the host
# (scripts/lint.sh --host), the Rust tests of the core, the release build of the addon, and the
# node suite over it. `npm test` stays the whole pipeline (every target, conformance, the bench,
# the emulated platforms, the end-to-end run). Prints how long each step took.
set -euo pipefail
# shellcheck source=tools.sh
source "$(dirname "${BASH_SOURCE[0]}")/tools.sh"
cd "$REPO"
started=$SECONDS
step() {
  local t=$SECONDS
  say "== $*"
  "$@"
  say "ok ($((SECONDS - t)) s): $*"
}
step scripts/lint.sh --host
step cargo test --no-default-features --quiet
step npm run build --silent
step scripts/test-tools.sh
# Two test files at a time: most of the suite waits on the child processes and stores it drives.
step node --test --test-concurrency=2 test/*.test.mjs
say "check passed in $((SECONDS - started)) s"

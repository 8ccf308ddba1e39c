#!/usr/bin/env bash
# `npm run lint`: formatting (cargo fmt, Prettier over the JS), ESLint over every JS file
# (eslint.config.mjs), the hand-written types, clippy with and without the napi binding, the core's
# rustdoc (no broken link), and clippy of the core for Windows (the store must compile there without std::os::unix).
#   scripts/lint.sh          everything
#   scripts/lint.sh --host   all but the Windows check of the core (`npm run check`)
set -euo pipefail
# shellcheck source=tools.sh
source "$(dirname "${BASH_SOURCE[0]}")/tools.sh"
cd "$REPO"
host_only=0
[[ ${1:-} == --host ]] && host_only=1
cargo fmt --check
npx prettier --check .
npx eslint .
npx tsc --noEmit -p .
cargo clippy --all-targets -- -D warnings
cargo clippy --all-targets --no-default-features -- -D warnings
RUSTDOCFLAGS='-D warnings' cargo doc --no-deps --no-default-features --quiet
if ((!host_only)); then
  # Checking the core for Windows compiles the bundled SQLite with the mingw C compiler.
  rustup_ensure x86_64-pc-windows-gnu
  apt_ensure gcc-mingw-w64-x86-64
  cargo clippy --lib --no-default-features --target x86_64-pc-windows-gnu -- -D warnings
fi

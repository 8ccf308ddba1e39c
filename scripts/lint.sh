#!/usr/bin/env bash
# `npm run lint`: formatting, clippy with and without the napi binding, clippy of the core for
# Windows (the store must compile there without std::os::unix), the hand-written types, and
# ESLint over every JS file (eslint.config.mjs).
set -euo pipefail
# shellcheck source=tools.sh
source "$(dirname "${BASH_SOURCE[0]}")/tools.sh"
cd "$REPO"
cargo fmt --check
cargo clippy --all-targets -- -D warnings
cargo clippy --all-targets --no-default-features -- -D warnings
# Checking the core for Windows compiles the bundled SQLite with the mingw C compiler.
rustup_ensure x86_64-pc-windows-gnu
apt_ensure gcc-mingw-w64-x86-64
cargo clippy --lib --no-default-features --target x86_64-pc-windows-gnu -- -D warnings
npx tsc --noEmit -p .
npx eslint .

#!/usr/bin/env bash
# `npm run lint`: formatting, clippy with and without the napi binding, clippy of the core for
# Windows (the store must compile there without std::os::unix), and the hand-written types.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --check
cargo clippy --all-targets -- -D warnings
cargo clippy --all-targets --no-default-features -- -D warnings
rustup target list --installed | grep -qx x86_64-pc-windows-gnu || rustup target add x86_64-pc-windows-gnu
cargo clippy --lib --no-default-features --target x86_64-pc-windows-gnu -- -D warnings
npx tsc --noEmit -p .

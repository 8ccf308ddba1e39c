#!/usr/bin/env bash
# What the node suite (test/*.test.mjs) needs on this machine besides Node and the addon, each
# installed only when missing: the sqlite3 shell and zstd (apt), script(1) for a terminal
# (util-linux), Debian's chromium (e2e/browser.sh) and the MCP Python SDK's venv
# (scripts/mcp-python.sh). A test that finds one of them missing fails; only a platform that
# cannot run the tool at all (Windows under Wine) skips.
set -euo pipefail
# shellcheck source=tools.sh
source "$(dirname "${BASH_SOURCE[0]}")/tools.sh"
cd "$REPO"
apt_ensure sqlite3 zstd util-linux
e2e/browser.sh
scripts/mcp-python.sh >/dev/null

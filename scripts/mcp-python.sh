#!/usr/bin/env bash
# The official MCP Python SDK (PyPI `mcp`, pinned) in a venv under the tools cache, for
# test/mcp-python.test.mjs: a real MCP client that is not ours. Prints the venv's python.
#   MEMENTO_PYTHON   the interpreter to build the venv with (default: the newest python3.x >= 3.10 on PATH)
set -euo pipefail
# shellcheck source=scripts/tools.sh
source "$(dirname "$0")/tools.sh"

MCP_PY_SDK=mcp==2.3.0
VENV=$TOOLS/mcp-python

pick_python() {
  local p
  for p in ${MEMENTO_PYTHON:-} python3.13 python3.12 python3.11 python3.10 python3; do
    command -v "$p" >/dev/null || continue
    "$p" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null && { command -v "$p"; return; }
  done
  die "the MCP Python SDK needs Python >= 3.10; none on PATH (set MEMENTO_PYTHON)"
}

PY=$(pick_python)
KEY="$MCP_PY_SDK $("$PY" -c 'import sys; print(sys.version.split()[0])')"
if ! stamp_ok "$VENV" "$KEY"; then
  say "creating $VENV ($KEY)"
  rm -rf "$VENV"
  "$PY" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "$MCP_PY_SDK"
  stamp_write "$VENV" "$KEY"
fi
echo "$VENV/bin/python"

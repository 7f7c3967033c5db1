#!/usr/bin/env bash
# Install the official Python MCP SDK (`mcp` on PyPI) into target/mcp-venv/ (GOS_MCP_VENV
# overrides; never inside the source tree), for
# the test that drives `gos mcp` with a real MCP client (gos-cli/tests/it/mcp_client.rs).
# Idempotent: an existing venv that already imports `mcp` is kept. Exits non-zero when pip cannot
# reach its registry; the test then skips with a message.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${GOS_MCP_VENV:-${CARGO_TARGET_DIR:-$root/target}/mcp-venv}"
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import mcp" 2>/dev/null; then
    exit 0
fi
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "mcp>=1.9,<3"
"$venv/bin/python" -c "import mcp, importlib.metadata as m; print('mcp', m.version('mcp'))"

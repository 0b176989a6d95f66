#!/usr/bin/env bash
# Installs the peer MCP clients that make bench compares run-mcp with, at
# pinned versions, into a private prefix (never the repository's shared
# node_modules). Prints the prefix. Re-running is a no-op once installed.
set -euo pipefail
prefix="${1:-$(dirname "$0")/out/peers}"
pins=(
  "@modelcontextprotocol/inspector@2.12.0" # the MCP Inspector; its CLI is mcpdo
  "mcporter@0.12.3"
  "@apify/mcpc@0.2.6"
)
mkdir -p "$prefix"
stamp="$prefix/.installed"
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "${pins[*]}" ]]; then
  echo '{"private":true}' >"$prefix/package.json"
  npm install --prefix "$prefix" --no-audit --no-fund --no-save --loglevel=error "${pins[@]}" >&2
  echo "${pins[*]}" >"$stamp"
fi
cd "$prefix" && pwd

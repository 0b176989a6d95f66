#!/usr/bin/env bash
# Installs GoReleaser at the pinned version with `go install` (from the Go
# module proxy; no prebuilt download), into a per-user tool directory that
# outlives a clone, and prints nothing else on stdout:
#
#   bash scripts/install-goreleaser.sh               install if missing
#   bash scripts/install-goreleaser.sh --print-path  print the binary's path
#
# The first install compiles GoReleaser and its dependencies: about 9 minutes
# on 2 cores with an empty module cache, seconds once the binary is there.
set -euo pipefail

VERSION=v2.15.1
BIN_DIR="${RUN_MCP_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/run-mcp/tools}/goreleaser-$VERSION"
BIN="$BIN_DIR/goreleaser"

if [[ "${1:-}" == "--print-path" ]]; then
	echo "$BIN"
	exit 0
fi

if [[ -x "$BIN" ]] && "$BIN" --version 2>/dev/null | grep -qE "GitVersion: +$VERSION\b"; then
	echo "goreleaser $VERSION already at $BIN" >&2
	exit 0
fi

mkdir -p "$BIN_DIR"
echo "installing goreleaser $VERSION into $BIN_DIR (go install; the first time takes minutes)" >&2
start=$(date +%s)
# GOFLAGS from the environment (e.g. -mod=vendor) must not reach a module
# outside this repository.
GOFLAGS= GOBIN="$BIN_DIR" go install "github.com/goreleaser/goreleaser/v2@$VERSION"
echo "goreleaser $VERSION installed in $(( $(date +%s) - start ))s" >&2

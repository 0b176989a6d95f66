package demoserver

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// exits records the codes a replaced Exit was called with.
type exits struct {
	mu    sync.Mutex
	codes []int
}

func (e *exits) exit(code int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.codes = append(e.codes, code)
}

func (e *exits) got() []int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]int(nil), e.codes...)
}

func TestCrashToolExitsWithoutAnswering(t *testing.T) {
	e := &exits{}
	s := connect(t, Options{Exit: e.exit}, legacy())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	answered := make(chan error, 1)
	go func() {
		var req mcp.CallToolRequest
		req.Params.Name = "crash"
		req.Params.Arguments = map[string]any{"code": 7}
		_, err := s.c.CallTool(ctx, req)
		answered <- err
	}()
	eventually(t, "the exit", func() bool { return len(e.got()) == 1 })
	if got := e.got(); got[0] != 7 {
		t.Errorf("exit codes %v", got)
	}
	if err := s.srv.wait(t); err == nil || !strings.Contains(err.Error(), "exited with code 7") {
		t.Errorf("Serve returned %v", err)
	}
	// Serve closed stdout without answering: the call fails, it never succeeds.
	if err := <-answered; err == nil {
		t.Error("the crash call got an answer")
	}
	stderr := s.srv.stderr.String()
	if !strings.Contains(stderr, "demo-server: crashing on purpose in a call (exit 7)\n    at ") {
		t.Errorf("stderr = %q", stderr)
	}
}

func TestCrashAtStart(t *testing.T) {
	e := &exits{}
	s := serve(t, Options{CrashAtStart: "no config", Exit: e.exit})
	if err := s.wait(t); err == nil {
		t.Error("Serve returned no error")
	}
	if got := e.got(); len(got) != 1 || got[0] != 1 {
		t.Errorf("exit codes %v", got)
	}
	if got := s.stderr.String(); got != "demo-server: fatal: no config\n    at startup (demoserver/serve.go)\n" {
		t.Errorf("stderr = %q", got)
	}
	if out := s.stdout.String(); out != "" {
		t.Errorf("stdout = %q", out)
	}
}

func TestStdoutNoiseComesFirst(t *testing.T) {
	s := connect(t, Options{StdoutNoise: "console.log says hi"}, legacy())
	wantText(t, s.call(t, "echo", map[string]any{"message": "still fine"}), "echo: still fine")
	if lines := s.srv.stdoutLines(); len(lines) == 0 || lines[0] != "console.log says hi" {
		t.Errorf("stdout starts %q", lines)
	}
}

func TestStderrFloodBeforeServing(t *testing.T) {
	s := connect(t, Options{StderrFlood: 5000}, legacy())
	wantText(t, s.call(t, "echo", map[string]any{"message": "x"}), "echo: x")
	stderr := s.srv.stderr.String()
	if !strings.HasPrefix(stderr, "flood line 1\nflood line 2\n") || !strings.Contains(stderr, "\nflood line 5000\n") {
		t.Errorf("stderr starts %q", stderr[:min(len(stderr), 80)])
	}
}

func TestSilentHandshakeNeverAnswers(t *testing.T) {
	s := serve(t, Options{SilentHandshake: true})
	frame := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\n"
	if _, err := io.WriteString(s.toServer, frame); err != nil {
		t.Fatal(err)
	}
	_ = s.toServer.Close()
	if err := s.wait(t); err != nil {
		t.Errorf("Serve returned %v", err)
	}
	if out := s.stdout.String(); out != "" {
		t.Errorf("answered %q", out)
	}
	if !strings.Contains(s.stderr.String(), "waiting for a database that never comes") {
		t.Errorf("stderr = %q", s.stderr.String())
	}
}

func TestIgnoreStdinEOFWaitsForTheContext(t *testing.T) {
	s := serve(t, Options{IgnoreStdinEOF: true})
	_ = s.toServer.Close()
	eventually(t, "the stay-up message", func() bool {
		return strings.Contains(s.stderr.String(), "staying up until SIGTERM")
	})
	select {
	case err := <-s.done:
		t.Fatalf("Serve returned at stdin EOF: %v", err)
	default:
	}
	s.cancel() // what SIGTERM does in the command
	if err := s.wait(t); err != nil {
		t.Errorf("Serve returned %v", err)
	}
}

func TestExitAfter(t *testing.T) {
	e := &exits{}
	s := serve(t, Options{ExitAfter: time.Millisecond, Exit: e.exit})
	if err := s.wait(t); err == nil || !strings.Contains(err.Error(), "exited with code 0") {
		t.Errorf("Serve returned %v", err)
	}
	if got := e.got(); len(got) != 1 || got[0] != 0 {
		t.Errorf("exit codes %v", got)
	}
}

func TestToolsFileHidesAndAdds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tools")
	content := "# extras for the test\n-crash\n\nextra_one: The first extra.\nextra_two\n"
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	s := connect(t, Options{ToolsFile: path}, legacy())
	names := s.toolNames(t)
	if _, ok := names["crash"]; ok {
		t.Error("crash is still listed")
	}
	if names["extra_one"].Description != "The first extra." || names["extra_two"].Description != defaultExtraDescription {
		t.Errorf("extras: %+v / %+v", names["extra_one"], names["extra_two"])
	}
	if _, ok := names["echo"]; !ok {
		t.Error("echo went missing")
	}
	wantText(t, s.call(t, "extra_two", map[string]any{"message": "yo"}), "extra_two: yo")
}

func TestToolsFileMissingIsFine(t *testing.T) {
	s := connect(t, Options{ToolsFile: filepath.Join(t.TempDir(), "absent")}, legacy())
	if _, ok := s.toolNames(t)["crash"]; !ok {
		t.Error("built-ins missing")
	}
}

func TestParseToolsFileRejectsBadNames(t *testing.T) {
	if _, err := parseToolsFile(strings.NewReader("ok\nnot ok: spaces\n")); err == nil ||
		!strings.Contains(err.Error(), "line 2") {
		t.Errorf("got %v", err)
	}
}

func TestCommandFlags(t *testing.T) {
	cmd := NewCommand()
	if cmd.Use != "demo-server" || cmd.Short != "A bundled MCP server on stdio for trying run-mcp and for its tests" {
		t.Errorf("use %q short %q", cmd.Use, cmd.Short)
	}
	for _, name := range []string{"crash-at-start", "stdout-noise", "silent-handshake", "stderr-flood",
		"ignore-stdin-eof", "tools-file", "exit-after-ms"} {
		if cmd.Flags().Lookup(name) == nil {
			t.Errorf("missing flag --%s", name)
		}
	}
}

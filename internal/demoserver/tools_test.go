package demoserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"image/png"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestHandshakeAndCatalogue(t *testing.T) {
	s := connect(t, Options{}, legacy())
	if s.ServerInfo.Name != serverName || s.ServerInfo.Version != serverVersion {
		t.Errorf("server info %+v", s.ServerInfo)
	}
	if s.ProtocolVersion != mcp.LATEST_LEGACY_PROTOCOL_VERSION {
		t.Errorf("protocol %s, want the legacy pin", s.ProtocolVersion)
	}
	caps := s.Capabilities
	if caps.Tools == nil || !caps.Tools.ListChanged || caps.Resources == nil || !caps.Resources.Subscribe ||
		!caps.Resources.ListChanged || caps.Prompts == nil || caps.Logging == nil {
		t.Errorf("capabilities %+v", caps)
	}
	names := s.toolNames(t)
	for _, want := range []string{"echo", "add", "slow", "ask_name", "ask_llm", "list_roots", "log",
		"bump_counter", "add_tool", "image", "audio", "big_text", "fail", "crash", "noise", "stderr", "env"} {
		tool, ok := names[want]
		if !ok {
			t.Errorf("missing tool %s (have %s)", want, describe(names))
			continue
		}
		if tool.Description == "" {
			t.Errorf("tool %s has no description", want)
		}
	}
	if req := names["echo"].InputSchema.Required; len(req) != 1 || req[0] != "message" {
		t.Errorf("echo required = %v", req)
	}
}

func TestEcho(t *testing.T) {
	s := connect(t, Options{}, legacy())
	wantText(t, s.call(t, "echo", map[string]any{"message": "hello"}), "echo: hello")
	if r := s.call(t, "echo", nil); !r.IsError {
		t.Errorf("echo without a message should be a tool error")
	}
}

func TestAdd(t *testing.T) {
	s := connect(t, Options{}, legacy())
	result := s.call(t, "add", map[string]any{"a": 2, "b": 3.5})
	wantText(t, result, "5.5")
	structured, ok := result.StructuredContent.(map[string]any)
	if !ok || structured["sum"] != 5.5 {
		t.Errorf("structuredContent = %#v", result.StructuredContent)
	}
	if schema := s.toolNames(t)["add"].OutputSchema; schema.Properties["sum"] == nil {
		t.Errorf("add has no output schema: %+v", schema)
	}
}

func TestSlowSendsProgressForEachStep(t *testing.T) {
	s := connect(t, Options{}, legacy())
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = "slow"
	req.Params.Arguments = map[string]any{"seconds": 0.03, "steps": 3}
	req.Params.Meta = &mcp.Meta{ProgressToken: "p1"}
	result, err := s.c.CallTool(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	wantText(t, result, "done after 3 steps")
	// Notifications travel apart from the response and may come after it.
	eventually(t, "three progress notifications", func() bool {
		return len(s.notes.withMethod(string(mcp.MethodNotificationProgress))) == 3
	})
	for i, note := range s.notes.withMethod(string(mcp.MethodNotificationProgress)) {
		fields := note.Params.AdditionalFields
		if fields["progressToken"] != "p1" || fields["progress"] != float64(i+1) || fields["total"] != float64(3) {
			t.Errorf("progress %d: %v", i+1, fields)
		}
	}
}

func TestSlowWithoutTokenSendsNoProgress(t *testing.T) {
	s := connect(t, Options{}, legacy())
	wantText(t, s.call(t, "slow", map[string]any{"seconds": 0, "steps": 2}), "done after 2 steps")
	if n := len(s.notes.withMethod(string(mcp.MethodNotificationProgress))); n != 0 {
		t.Errorf("got %d progress notifications without a token", n)
	}
}

func TestSlowStopsWhenCancelled(t *testing.T) {
	s := connect(t, Options{}, legacy())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = "slow"
	// Many short steps: the first progress notification proves the handler
	// is running, so the cancellation cannot overtake the call.
	req.Params.Arguments = map[string]any{"seconds": 600, "steps": maxSlowSteps}
	req.Params.Meta = &mcp.Meta{ProgressToken: 7}
	go func() {
		poll(func() bool { return len(s.notes.withMethod(string(mcp.MethodNotificationProgress))) > 0 })
		cancel() // mcp-go sends notifications/cancelled for the call
	}()
	if _, err := s.c.CallTool(ctx, req); err == nil {
		t.Fatal("a cancelled call returned no error")
	}
	eventually(t, "the cancellation log line", func() bool {
		return strings.Contains(s.srv.stderr.String(), "slow: cancelled at step ")
	})
}

func TestFail(t *testing.T) {
	s := connect(t, Options{}, legacy())
	r := s.call(t, "fail", nil)
	if !r.IsError || text(t, r) != defaultFailMessage {
		t.Errorf("fail: isError=%v text=%q", r.IsError, text(t, r))
	}
	r = s.call(t, "fail", map[string]any{"message": "boom"})
	if !r.IsError || text(t, r) != "boom" {
		t.Errorf("fail(boom): isError=%v text=%q", r.IsError, text(t, r))
	}
}

func TestImageIsAPNG(t *testing.T) {
	s := connect(t, Options{}, legacy())
	r := s.call(t, "image", nil)
	img, ok := r.Content[0].(mcp.ImageContent)
	if !ok || img.MIMEType != "image/png" {
		t.Fatalf("got %#v", r.Content[0])
	}
	data, err := base64.StdEncoding.DecodeString(img.Data)
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if b := decoded.Bounds(); b.Dx() != imageSide || b.Dy() != imageSide {
		t.Errorf("size %v", b)
	}
}

func TestAudioIsAWAV(t *testing.T) {
	s := connect(t, Options{}, legacy())
	r := s.call(t, "audio", nil)
	audio, ok := r.Content[0].(mcp.AudioContent)
	if !ok || audio.MIMEType != "audio/wav" {
		t.Fatalf("got %#v", r.Content[0])
	}
	data, err := base64.StdEncoding.DecodeString(audio.Data)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != 44+audioSamples*2 || string(data[:4]) != "RIFF" || string(data[8:16]) != "WAVEfmt " ||
		string(data[36:40]) != "data" {
		t.Errorf("not the expected WAV: %d bytes, header %q", len(data), data[:44])
	}
}

func TestBigTextHasExactLength(t *testing.T) {
	s := connect(t, Options{}, legacy())
	for _, n := range []int{0, 1, 63, 100_000} {
		got := text(t, s.call(t, "big_text", map[string]any{"chars": n}))
		if len(got) != n {
			t.Errorf("big_text(%d) has %d characters", n, len(got))
		}
	}
	if r := s.call(t, "big_text", map[string]any{"chars": -1}); !r.IsError {
		t.Error("big_text(-1) should be a tool error")
	}
}

func TestBigTextCopesWithSeventyMillion(t *testing.T) {
	const n = 70_000_000
	got := bigText(n)
	if len(got) != n {
		t.Fatalf("bigText(%d) has %d characters", n, len(got))
	}
	if !strings.HasPrefix(got, "line 000001 lorem ipsum") {
		t.Errorf("unexpected start %q", got[:40])
	}
}

func TestEnv(t *testing.T) {
	t.Setenv("DEMO_SERVER_TEST_VAR", "it works")
	s := connect(t, Options{}, legacy())
	wantText(t, s.call(t, "env", map[string]any{"name": "DEMO_SERVER_TEST_VAR"}), `DEMO_SERVER_TEST_VAR is set: "it works"`)
	wantText(t, s.call(t, "env", map[string]any{"name": "DEMO_SERVER_SURELY_UNSET"}), "DEMO_SERVER_SURELY_UNSET is not set")
}

func TestStderrTool(t *testing.T) {
	s := connect(t, Options{}, legacy())
	wantText(t, s.call(t, "stderr", map[string]any{"lines": 3}), "wrote 3 lines")
	wantText(t, s.call(t, "stderr", nil), "wrote 1 line")
	if got := s.srv.stderr.String(); !strings.Contains(got, "stderr line 1\nstderr line 2\nstderr line 3\n") {
		t.Errorf("stderr = %q", got)
	}
}

func TestNoiseIsOneWholeLine(t *testing.T) {
	s := connect(t, Options{}, legacy())
	wantText(t, s.call(t, "noise", nil), "wrote one line of noise to stdout")
	// The client skipped the noise; the tee saw it, whole, on a line of its own.
	eventually(t, "the noise line", func() bool {
		for _, line := range s.srv.stdoutLines() {
			if line == noiseLine {
				return true
			}
		}
		return false
	})
}

func TestLogReachesAClientThatSetALevel(t *testing.T) {
	s := connect(t, Options{}, legacy())
	// Before logging/setLevel, mcp-go only sends error and above.
	wantText(t, s.call(t, "log", map[string]any{"message": "quiet"}),
		"logged (but not sent: the client's log level is error; set it with logging/setLevel)")
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	if err := s.c.SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelDebug}}); err != nil {
		t.Fatal(err)
	}
	wantText(t, s.call(t, "log", map[string]any{"level": "warning", "message": "hello log"}), "logged")
	eventually(t, "the log notification", func() bool {
		for _, note := range s.notes.withMethod(string(mcp.MethodNotificationMessage)) {
			if note.Params.AdditionalFields["data"] == "hello log" && note.Params.AdditionalFields["level"] == "warning" {
				return true
			}
		}
		return false
	})
	if r := s.call(t, "log", map[string]any{"level": "loud", "message": "x"}); !r.IsError {
		t.Error("an unknown level should be a tool error")
	}
}

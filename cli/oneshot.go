package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/wire"
)

// streams are where a command writes: stdout for the JSON result only,
// stderr for everything meant for a person.
type streams struct {
	out io.Writer
	err io.Writer
	fb  *feedback // a one-shot command's waits and progress, on a terminal only
}

// status writes one status line for a person, its control characters made
// visible (terminalSafe): it often carries the server's words.
func (s streams) status(format string, args ...any) {
	_, _ = io.WriteString(s.err, terminalSafe(fmt.Sprintf(format, args...))+"\n")
}

// printJSON writes v as indented JSON on stdout.
func (s streams) printJSON(v any) error {
	if b, ok := indentRaw(v); ok {
		if _, err := s.out.Write(b); err != nil {
			return stdoutFailed(err)
		}
		return nil
	}
	enc := json.NewEncoder(s.out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		var je *json.MarshalerError
		var ue *json.UnsupportedValueError
		if errors.As(err, &je) || errors.As(err, &ue) {
			return internalf("encode the result: %v", err)
		}
		return stdoutFailed(err)
	}
	return nil
}

func stdoutFailed(err error) error {
	return exitf(ExitToolError, "cannot write the result to stdout (%v); it may be closed (a pipe whose reader left)", err)
}

// indentRaw is what the encoder writes for v (it compacts each RawMessage,
// then indents the whole) when v is text that is JSON already, a
// json.RawMessage or a list of them (a listing, a tool result), in one pass
// over it. false leaves v to the encoder: a nil message (null), or one that
// is not JSON, whose error the encoder words as it always has.
func indentRaw(v any) ([]byte, bool) {
	var b bytes.Buffer
	switch r := v.(type) {
	case json.RawMessage:
		if r == nil || json.Indent(&b, r, "", "  ") != nil {
			return nil, false
		}
		// json.Indent keeps trailing space, which compacting drops.
		b.Truncate(len(bytes.TrimRight(b.Bytes(), " \t\r\n")))
	case []json.RawMessage:
		if r == nil {
			return nil, false
		}
		if len(r) == 0 {
			b.WriteString("[]")
			break
		}
		b.WriteString("[\n  ")
		for i, m := range r {
			if i > 0 {
				b.WriteString(",\n  ")
			}
			if m == nil || json.Indent(&b, m, "  ", "  ") != nil {
				return nil, false
			}
			b.Truncate(len(bytes.TrimRight(b.Bytes(), " \t\r\n")))
		}
		b.WriteString("\n]")
	default:
		return nil, false
	}
	b.WriteByte('\n')
	return b.Bytes(), true
}

// oneShot spawns the target, runs fn against it and stops it. SIGINT, SIGTERM
// and SIGHUP stop the target too before run-mcp exits.
func oneShot(ctx context.Context, io streams, cfg actors.Config, clientVersion string, fn func(context.Context, *actors.Conn, actors.Info) error) error {
	ctx, stop := notifyLater(ctx, stopSignals()...)
	defer stop()
	reg := actors.NewRegistry(actors.Options{Host: newShellHost(io.err), MaxConnections: 1, Words: cliWords,
		SignalAtOnce: true, // the answer is in hand: nothing is gained by waiting on a target that ignores stdin EOF
		ClientInfo:   mcp.Implementation{Name: "run-mcp", Version: clientVersion}})
	defer reg.Close()
	start := time.Now()
	io.status("%s", connectingLine(cfg))
	done := io.fb.wait("the handshake with " + cfg.Target())
	info, err := reg.Connect(ctx, "", cfg)
	done()
	if err != nil {
		return withServerSide(ctx, interrupted(ctx, authExit(connectFailure(withStartHints(withEraHint(err, cfg.Era), cfg)), false)), nil, 0)
	}
	io.status("%s", connectedLine(info, time.Since(start)))
	conn, err := reg.Resolve("", true)
	if err != nil {
		return internalf("the connection just made is not in its registry: %v", err)
	}
	shown := showRedirects(ctx, io, conn, 0)
	err = fn(ctx, conn, info)
	showRedirects(ctx, io, conn, shown) // those of the command's own requests
	// One warning for the server's whole life (start-up and the command):
	// it lived for this command alone.
	if ev, everr := conn.Evidence(context.WithoutCancel(ctx)); everr == nil {
		warnNoise(io, ev)
	}
	return withServerSide(ctx, interrupted(ctx, authExit(err, false)), conn, 0)
}

// httpLimits says what a target run-mcp did not start cannot give.
const httpLimits = "an HTTP target is a server run-mcp did not start: there is no stderr, no exit code and no stdout-noise check"

// connectingLine is the status line before a connect, as 3.0 printed it.
func connectingLine(cfg actors.Config) string {
	return fmt.Sprintf("Connecting to %s...", cfg.Target())
}

// connectedLine is the status line of a successful connect.
func connectedLine(info actors.Info, took time.Duration) string {
	who := info.Target
	if info.Pid > 0 {
		who = fmt.Sprintf("%s (PID %d)", who, info.Pid)
	}
	server := info.ServerInfo.Name
	if info.ServerInfo.Version != "" {
		server += " " + info.ServerInfo.Version
	}
	line := fmt.Sprintf("Connected to %s: %s, protocol %s (%s), in %dms", who, server, info.ProtocolVersion, info.Era, took.Milliseconds())
	if info.Negotiation != "" {
		line += "\nProtocol: " + info.Negotiation
	}
	if info.Pid == 0 {
		line += "\nNote: " + httpLimits
	}
	return line
}

// connectFailure maps a failed connect to its exit code: 66 for a command
// that does not exist, 69 for one that failed to start or connect.
func connectFailure(err error) error {
	var ce *actors.ConnectError
	if errors.As(err, &ce) {
		if ce.NotFound {
			return &ExitError{Code: ExitNoInput, Err: err}
		}
		return &ExitError{Code: ExitUnavail, Err: err}
	}
	return &ExitError{Code: ExitUnavail, Err: fmt.Errorf("Failed to connect: %w", err)}
}

// eraHint is what to try when a server refuses the legacy handshake.
const eraHint = "The server refused the legacy handshake: it may speak only the 2026-07-28 revision. Try --protocol auto (or --protocol 2026-07-28)"

// withEraHint adds eraHint to a legacy connect that the server refused
// with "Unsupported protocol version", keeping the error's type (and so its
// exit code).
func withEraHint(err error, era wire.Era) error {
	if era.Mode != wire.EraLegacy || !strings.Contains(strings.ToLower(err.Error()), "unsupported protocol version") {
		return err
	}
	return &actors.Advised{Err: err, Advice: eraHint}
}

// warnNoise tells a shell user that the server polluted its stdout.
func warnNoise(io streams, ev wire.EvidenceSnapshot) {
	if ev.NoiseTotal > 0 {
		io.status("Warning: The server wrote %d non-JSON line(s) to stdout, the protocol channel: a strict client would fail. Log to stderr instead. First: line %d: %s",
			ev.NoiseTotal, ev.Noise[0].Line, clip(ev.Noise[0].Text))
	}
	if ev.ErrorsTotal > 0 {
		io.status("Warning: %d transport error(s): %s", ev.ErrorsTotal, clip(ev.Errors[0].Message))
	}
}

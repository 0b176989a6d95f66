package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/spf13/cobra"

	"github.com/run-mcp/run-mcp/actors"
)

func TestRawAskedBeforeTheFlagsAreParsed(t *testing.T) {
	for _, tc := range []struct {
		words []string
		want  bool
	}{
		{[]string{"echo", "--raw"}, true},
		{[]string{"--raw=1", "echo"}, true},
		{[]string{"--raw=false", "echo"}, false},
		{[]string{"echo", "--", "node", "srv.js", "--raw"}, false}, // the target's
		{[]string{"echo", "message=--raw"}, false},
	} {
		if got := rawAsked(tc.words); got != tc.want {
			t.Errorf("%q: rawAsked = %v, want %v", tc.words, got, tc.want)
		}
	}
}

// The envelope's code is run-mcp's stable code, or the number of the
// JSON-RPC error the server answered with, or null.
func TestEnvelopeCodes(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{exitf(ExitToolError, "%w", &actors.TargetError{Code: -32602, Message: "bad params"}), "-32602"},
		{exitf(ExitUsage, "no target"), `"USAGE"`},
		{exitf(ExitToolError, "the record is damaged"), "null"},
	} {
		b, _ := json.Marshal(envelopeOf(tc.err).Code)
		if string(b) != tc.want {
			t.Errorf("%v: code %s, want %s", tc.err, b, tc.want)
		}
	}
}

// Under --raw a failing command writes its envelope and nothing on stderr,
// even what it printed as it went; a success writes its status lines.
func TestRawFailureHoldsStatusLines(t *testing.T) {
	for _, fail := range []bool{true, false} {
		g := &globals{}
		var out, errb bytes.Buffer
		cmd := &cobra.Command{}
		cmd.SetOut(&out)
		cmd.SetErr(&errb)
		run := withRawFailures(g, func(_ *cobra.Command, _ []string, io streams) error {
			io.status("Connecting to x...")
			if fail {
				return exitf(ExitUnavail, "Failed to connect")
			}
			return io.printJSON(json.RawMessage(`[]`))
		})
		err := run(cmd, []string{"--raw"})
		// What Execute prints of the error, as the process would.
		report(err, &errb, false)
		if fail {
			var env errorEnvelope
			if json.Unmarshal(out.Bytes(), &env) != nil || env.ExitCode != ExitUnavail || errb.Len() != 0 || CodeOf(err) != ExitUnavail {
				t.Errorf("failure: stdout %q, stderr %q, exit %d", out.String(), errb.String(), CodeOf(err))
			}
			var ee *ExitError
			if !errors.As(err, &ee) || !ee.Quiet {
				t.Errorf("the error is printed again: %v", err)
			}
			continue
		}
		if out.String() != "[]\n" || errb.String() != "Connecting to x...\n" {
			t.Errorf("success: stdout %q, stderr %q", out.String(), errb.String())
		}
	}
}

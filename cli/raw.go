package cli

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

// headlessRun is a headless command's work, writing to io.
type headlessRun func(cmd *cobra.Command, raw []string, io streams) error

// withRawFailures runs a headless command so that under --raw a failure is
// its JSON envelope on stdout and nothing on stderr: `--raw 2>&1 | jq`
// reads one JSON value whatever happened. The status lines a command prints
// as it goes (Connecting…, a warning) are held until it ends, then written
// if it succeeded and dropped if it failed, since the envelope carries what
// they would have said. Off --raw, nothing changes.
func withRawFailures(g *globals, run headlessRun) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, raw []string) error {
		errw := cmd.ErrOrStderr()
		io := streams{out: cmd.OutOrStdout(), err: errw}
		asked := rawAsked(raw)
		var held bytes.Buffer
		if asked {
			io.err = &held
		}
		err := run(cmd, raw, io)
		if !asked && !g.raw {
			return err
		}
		if err == nil {
			_, _ = held.WriteTo(errw)
			return nil
		}
		printEnvelope(io, err)
		return silenced(err)
	}
}

// rawAsked says whether the command line asks for --raw among run-mcp's
// words (before "--"). It is read before the flags are parsed, so that a
// command line the parser refuses (an unknown flag) fails as an envelope
// too.
func rawAsked(raw []string) bool {
	for _, w := range raw {
		switch {
		case w == "--":
			return false
		case w == "--raw":
			return true
		case strings.HasPrefix(w, "--raw="):
			on, err := strconv.ParseBool(strings.TrimPrefix(w, "--raw="))
			return err == nil && on
		}
	}
	return false
}

// silenced is err with its exit code and nothing more to print: stdout
// holds its envelope (or the answer that failed).
func silenced(err error) error {
	var ee *ExitError
	if errors.As(err, &ee) && ee.Quiet {
		return err
	}
	return &ExitError{Code: exitCodeOf(err), Quiet: true, Err: err}
}

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/run-mcp/run-mcp/actors"
	"github.com/run-mcp/run-mcp/internal/oauth"
)

// shellHost is the host of a headless command. Nobody answers a target's
// questions (actors.Headless declines them at once), but run-mcp's own
// authorization goes to a browser: the command in $BROWSER when it is set
// (the convention gh and Python's webbrowser follow), else, on a terminal,
// the URL printed and the platform's opener tried. With neither, nobody is
// there to ask, and the authorization fails saying what completes it.
type shellHost struct {
	actors.Headless
	err io.Writer // where the URL and the wait are said
	tty bool      // err is a terminal a person reads
}

func newShellHost(errw io.Writer) shellHost {
	f, ok := errw.(*os.File)
	return shellHost{err: errw, tty: ok && isTerminal(f)}
}

// Ask opens run-mcp's own authorization URL, and declines the rest.
func (h shellHost) Ask(ctx context.Context, q actors.Question) []actors.Answer {
	out := h.Headless.Ask(ctx, q)
	for i, it := range q.Items {
		if it.Authorize != nil {
			out[i] = h.open(it)
		}
	}
	return out
}

var accepted = actors.Answer{Result: json.RawMessage(`{"action":"accept"}`)}

func (h shellHost) open(it actors.Item) actors.Answer {
	v := it.Authorize
	if browser := os.Getenv("BROWSER"); browser != "" {
		name, err := startBrowser(browser, v.URL)
		if err != nil {
			return actors.Answer{Err: fmt.Errorf("$BROWSER could not open the authorization URL: %w", err)}
		}
		fmt.Fprintf(h.err, "run-mcp: %s needs authorization: opened the authorization URL of %s with %s ($BROWSER); waiting up to %s for the browser to come back to %s\n",
			v.Server, v.Issuer, name, fmtWait(v.Wait), v.Redirect)
		return accepted
	}
	if !h.tty {
		return actors.Decline(it)
	}
	fmt.Fprintf(h.err, "run-mcp: %s needs authorization. Open this URL in a browser to sign in with %s:\n\n  %s\n\nWaiting up to %s for the browser to come back to %s (Ctrl-C to stop)...\n",
		v.Server, v.Issuer, v.URL, fmtWait(v.Wait), v.Redirect)
	if argv := platformOpener(v.URL); argv != nil {
		_ = startCommand(argv) // best effort: the URL is printed above
	}
	return accepted
}

// startBrowser runs $BROWSER with url: a list of commands separated as
// PATH is (the first that can be found is used), each with %s standing for
// the URL or the URL added as its last word. It does not wait for the
// browser, which may run for hours; the redirect says when it is done.
func startBrowser(browser, url string) (string, error) {
	var tried []string
	for _, entry := range filepath.SplitList(browser) {
		words := strings.Fields(entry)
		if len(words) == 0 {
			continue
		}
		if strings.Contains(entry, "%s") {
			for i := range words {
				words[i] = strings.ReplaceAll(words[i], "%s", url)
			}
		} else {
			words = append(words, url)
		}
		if _, err := exec.LookPath(words[0]); err != nil {
			tried = append(tried, words[0])
			continue
		}
		return words[0], startCommand(words)
	}
	if len(tried) == 0 {
		return "", errors.New("it names no command")
	}
	return "", fmt.Errorf("none of its commands was found (%s)", strings.Join(tried, ", "))
}

// startCommand starts argv detached from run-mcp's output, and reaps it
// when it exits.
func startCommand(argv []string) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}

func fmtWait(d time.Duration) string {
	if d <= 0 {
		d = oauth.DefaultWait
	}
	return d.Round(time.Second).String()
}

// authExit gives a failed authorization exit 69 (the server could not be
// reached as the user), and rewords one nobody here could open for a
// command that ends with it: the wait in the background ends with the
// process, so what completes it is run-mcp login on a terminal.
func authExit(err error, waits bool) error {
	var oe *oauth.Error
	if errors.As(err, &oe) {
		return &ExitError{Code: ExitUnavail, Kind: "AUTHORIZATION_FAILED", Err: err}
	}
	var pe *oauth.PersonNeededError
	if !errors.As(err, &pe) {
		return err
	}
	if waits {
		// A session's daemon lives on: its wait for the redirect is real.
		return &ExitError{Code: ExitUnavail, Kind: "AUTHORIZATION_REQUIRED", Err: err}
	}
	return &ExitError{Code: ExitUnavail, Kind: "AUTHORIZATION_REQUIRED", Err: fmt.Errorf("AUTHORIZATION_REQUIRED: the server at %s needs authorization (OAuth, with the authorization server %s), "+
		"and this command has no terminal to show the authorization URL on and no browser to open it with ($BROWSER is not set). "+
		"Authorize once with `run-mcp login %s` on a terminal (or with BROWSER set to a command that opens a URL); the token is kept for this server, so then run this command again",
		pe.Visit.Server, pe.Visit.Issuer, pe.Visit.Server)}
}

// sessionNeedsLogin rewords a session whose start needed an authorization
// nobody could open: its daemon has exited with the failed start, so its
// wait for the redirect is over too.
func sessionNeedsLogin(err error, cfg actors.Config) error {
	if !cfg.IsHTTP() || !strings.Contains(err.Error(), "AUTHORIZATION_REQUIRED:") {
		return err
	}
	return &ExitError{Code: ExitUnavail, Kind: "AUTHORIZATION_REQUIRED", Err: fmt.Errorf("AUTHORIZATION_REQUIRED: the server at %s needs authorization (OAuth), and a session's daemon has no terminal to show the authorization URL on and no browser to open it with ($BROWSER is not set). "+
		"Authorize once with `run-mcp login %s` on a terminal; the token is kept for this server, so then start the session again", cfg.URL, cfg.URL)}
}

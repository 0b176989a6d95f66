package targets

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// The OAuth fixture and the stand-in for a browser, for BuildBinary.
const (
	OAuthServer = "./test/fixtures/oauthserver"
	Browser     = "./test/conformance/browser"
)

// OAuthTarget is a running test/fixtures/oauthserver: an MCP server behind
// OAuth, its authorization server, and another origin it can redirect to.
type OAuthTarget struct {
	MCP       string `json:"mcp"`
	Issuer    string `json:"issuer"`
	Elsewhere string `json:"elsewhere"`
	Control   string `json:"control"`
	log       *syncBuffer
}

// StartOAuthServer runs the fixture built at bin with flags (e.g.
// -wrong-issuer); it is stopped when the test ends.
func StartOAuthServer(tb testing.TB, bin string, flags ...string) *OAuthTarget {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := exec.CommandContext(ctx, bin, flags...)
	c.WaitDelay = 5 * time.Second
	log := &syncBuffer{}
	c.Stderr = log
	out, err := c.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := c.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cancel(); _ = c.Wait() })
	first := make(chan []byte, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			first <- append([]byte(nil), sc.Bytes()...)
		}
		close(first)
	}()
	select {
	case line, ok := <-first:
		t := &OAuthTarget{log: log}
		if !ok || json.Unmarshal(line, t) != nil {
			tb.Fatalf("the OAuth fixture did not say where it listens: %q\n%s", line, log.String())
		}
		return t
	case <-time.After(30 * time.Second):
		tb.Fatal("the OAuth fixture never said where it listens")
	}
	return nil
}

// Log is what the fixture logged so far ("as: authorize …", "as: token
// grant=…", "elsewhere: …").
func (o *OAuthTarget) Log() string { return o.log.String() }

// Count counts the log lines that contain s.
func (o *OAuthTarget) Count(s string) int { return strings.Count(o.log.String(), s) }

// Do posts to one of the fixture's control endpoints (expire, redirect).
func (o *OAuthTarget) Do(tb testing.TB, what string) {
	tb.Helper()
	resp, err := http.Post(o.Control+"/"+what, "text/plain", nil)
	if err != nil {
		tb.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("control %s: %s", what, resp.Status)
	}
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Saw waits until the log has n lines that contain s (the fixture's log
// arrives through a pipe, a moment after what it logs), and says whether
// it did within 10 s.
func (o *OAuthTarget) Saw(s string, n int) bool {
	deadline := time.Now().Add(10 * time.Second)
	for o.Count(s) < n {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

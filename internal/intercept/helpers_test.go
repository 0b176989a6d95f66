package intercept_test

import (
	"bytes"
	"encoding/base64"
	"os"
	"regexp"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/run-mcp/run-mcp/internal/intercept"
)

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// fakePNG is n bytes that sniff as PNG.
func fakePNG(n int) []byte {
	b := bytes.Repeat([]byte{0xAB}, n)
	copy(b, pngMagic)
	return b
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func newInterceptor(t *testing.T, opts intercept.Options) *intercept.Interceptor {
	t.Helper()
	if opts.OutDir == "" {
		opts.OutDir = t.TempDir()
	}
	i, err := intercept.New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return i
}

func textOf(t *testing.T, c mcp.Content) string {
	t.Helper()
	tc, ok := c.(mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want mcp.TextContent", c)
	}
	return tc.Text
}

// savedPath checks a "[Kind saved to PATH (NKB)]" note and returns PATH.
func savedPath(t *testing.T, note, kind, prefix, ext string) string {
	t.Helper()
	re := regexp.MustCompile(`^\[` + kind + ` saved to (.+/` + prefix + `_\d+_\d+\.` + ext + `) \(\d+KB\)\]$`)
	m := re.FindStringSubmatch(note)
	if m == nil {
		t.Fatalf("note = %q, want it to match %s", note, re)
	}
	return m[1]
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading saved file: %v", err)
	}
	return b
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

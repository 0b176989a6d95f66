//go:build unix

package intercept_test

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/run-mcp/run-mcp/internal/intercept"
)

func TestReadRefusesANamedPipeWithoutBlocking(t *testing.T) {
	dir := t.TempDir()
	i := newInterceptor(t, intercept.Options{OutDir: dir, MaxText: 10})
	if err := syscall.Mkfifo(filepath.Join(dir, "result_r2.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	wantNoAttackerText(t, i, "r2", "a named pipe")
}

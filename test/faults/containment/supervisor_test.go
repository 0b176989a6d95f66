//go:build !windows

package containment

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/run-mcp/run-mcp/internal/supervise"
)

// TestSupervisorStartsBeforeTheHeavyInits: the supervisor takes over in an
// init function, before mcp-go's JSON-schema compiler (most of run-mcp's
// start-up time) is initialised, so a spawn does not pay for it twice. The
// Go runtime's init trace shows which packages were initialised.
func TestSupervisorStartsBeforeTheHeavyInits(t *testing.T) {
	requireLinux(t)
	t.Parallel()
	truePath, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true on PATH")
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer statusR.Close()
	controlR, controlW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer controlW.Close()
	c := exec.Command(bin, supervise.Arg, truePath, "true")
	c.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	c.Stderr = &stderr
	c.ExtraFiles = []*os.File{statusW, controlR}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	statusW.Close()
	controlR.Close()
	status, _ := io.ReadAll(statusR) // until the supervisor exits
	if err := c.Wait(); err != nil {
		t.Fatalf("the supervisor failed: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(status)), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "pid ") || lines[1] != "exit 0" || lines[2] != "done 0" {
		t.Errorf("the supervisor's status for true = %q, want a pid, exit 0, then done 0", lines)
	}
	if !strings.Contains(stderr.String(), "init ") {
		t.Fatalf("no init trace on stderr (GODEBUG=inittrace=1 ignored?): %q", stderr.String())
	}
	for _, heavy := range []string{"santhosh-tekuri/jsonschema", "mark3labs/mcp-go", "spf13/cobra"} {
		if strings.Contains(stderr.String(), heavy) {
			t.Errorf("the supervisor initialised %s before taking over:\n%s", heavy, stderr.String())
		}
	}
}

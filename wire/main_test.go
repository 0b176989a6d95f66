package wire

import (
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/run-mcp/run-mcp/internal/supervise"
)

// The binary serves as run-mcp's supervisor of the targets its tests start
// (see supervise.Invoked): dispatch before anything else.
func TestMain(m *testing.M) {
	if supervise.Invoked(os.Args) {
		os.Exit(supervise.Main())
	}
	goleak.VerifyTestMain(m)
}

// patience bounds every wait in these tests. It is a deadline against hangs,
// not a timing assertion: nothing here should come close to it.
const patience = 20 * time.Second

// waitClosed fails the test unless ch is closed within patience.
func waitClosed(t *testing.T, what string, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(patience):
		t.Fatalf("gave up waiting for %s", what)
	}
}

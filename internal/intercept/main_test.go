package intercept_test

import (
	"os"
	"testing"

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

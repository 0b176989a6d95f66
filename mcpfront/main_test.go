package mcpfront

import (
	"context"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/run-mcp/run-mcp/internal/demoserver"
	"github.com/run-mcp/run-mcp/internal/supervise"
)

// demoEnv makes the test binary the target: with it set, the binary serves
// the bundled demo server on stdio instead of running tests.
const demoEnv = "RUN_MCP_MCPFRONT_TEST_DEMO"

func TestMain(m *testing.M) {
	// The binary serves as run-mcp's supervisor of the targets its
	// benchmarks start (see supervise.Invoked), and as its exec trampoline,
	// which runs with a target's environment: dispatch before anything
	// else.
	if supervise.Invoked(os.Args) {
		os.Exit(supervise.Main())
	}
	if os.Getenv(demoEnv) == "1" {
		if err := demoserver.Serve(context.Background(), demoserver.Options{}, os.Stdin, os.Stdout, os.Stderr); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

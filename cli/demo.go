package cli

import (
	"os"
	"os/exec"
	"path/filepath"

	"github.com/spf13/cobra"
)

// demoName is the demo server's own binary, beside run-mcp in every archive
// and package. It is not linked into run-mcp: it is built on mcp-go's server
// package, whose JSON Schema library compiles metaschemas in an init that
// cost every run-mcp process 6 to 13 ms (cmd/run-mcp-demo).
const demoName = "run-mcp-demo" + exeSuffix

// newDemoServerCmd is `run-mcp demo-server [flags]`, kept for users, docs
// and tests: it runs run-mcp-demo with every word after it, --help
// included, so the demo server parses its own flags.
func newDemoServerCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "demo-server [flags]",
		Short: "A bundled MCP server on stdio for trying run-mcp and for its tests",
		Long: "demo-server is a small MCP server that speaks on stdin/stdout, in both protocol eras.\n" +
			"Point run-mcp at it to try things out; its flags make it misbehave on purpose for tests.\n" +
			"It is the binary " + demoName + " beside run-mcp; run-mcp demo-server --help lists its flags.",
		DisableFlagParsing: true,
		SilenceUsage:       true,
		RunE: func(_ *cobra.Command, args []string) error {
			bin, err := demoBinary()
			if err != nil {
				return err
			}
			return runDemo(bin, args)
		},
	}
}

// demoBinary finds run-mcp-demo: beside run-mcp's own binary (as it was
// started, then with links resolved), else on PATH.
func demoBinary() (string, error) {
	var beside string
	if self, err := os.Executable(); err == nil {
		dirs := []string{filepath.Dir(self)}
		if real, err := filepath.EvalSymlinks(self); err == nil {
			dirs = append(dirs, filepath.Dir(real))
		}
		for _, d := range dirs {
			p := filepath.Join(d, demoName)
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				return p, nil
			}
		}
		beside = dirs[0]
	}
	if p, err := exec.LookPath(demoName); err == nil {
		return p, nil
	}
	return "", exitf(ExitNoInput, "run-mcp demo-server runs the demo server's own binary, %s, which is neither beside run-mcp (in %s) nor on PATH. "+
		"It ships beside run-mcp in every release archive and npm package: reinstall run-mcp, or in a clone run `make build` (bin/ gets both), "+
		"or put %s from the same release next to run-mcp", demoName, beside, demoName)
}

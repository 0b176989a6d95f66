package npm

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The launcher is invisible: the same stdout, stderr and exit code as the
// binary it runs, for a success and for each kind of failure.
func TestLauncherIsTheBinary(t *testing.T) {
	nodeBin := node(t)
	env := []string{"RUN_MCP_BINARY=" + bin}
	for _, args := range [][]string{
		{"--version"},
		{"list-tools", "--", bin, "demo-server"},
		{"call", "echo", `{"message":"through npm"}`, "--", bin, "demo-server"},
		{"list-tools", "--", filepath.Join(t.TempDir(), "no-such-server")}, // exit 66
		{"call", "--no-such-flag", "--", bin, "demo-server"},               // exit 64
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			direct := runCmd(t, nil, append([]string{bin}, args...)...)
			via := runCmd(t, env, append([]string{nodeBin, launcher}, args...)...)
			if via.code != direct.code {
				t.Errorf("exit code %d through the launcher, %d from the binary\nstderr: %s", via.code, direct.code, via.stderr)
			}
			if via.stdout != direct.stdout {
				t.Errorf("stdout differs through the launcher:\n%s\nfrom the binary:\n%s", via.stdout, direct.stdout)
			}
			// stderr names the spawned server's pid and a duration: compare
			// its shape, with every number masked.
			if mask(via.stderr) != mask(direct.stderr) {
				t.Errorf("stderr differs through the launcher:\n%s\nfrom the binary:\n%s", via.stderr, direct.stderr)
			}
		})
	}
}

// digits matches the numbers a run varies in (a pid, a duration).
var digits = regexp.MustCompile(`[0-9]+`)

func mask(s string) string { return digits.ReplaceAllString(s, "#") }

// Without its platform package (npm told to skip optional dependencies) the
// launcher says what to do, on stderr only, and fails.
func TestLauncherWithoutItsPlatformPackage(t *testing.T) {
	nodeBin := node(t)
	// A copy outside the repository, where no node_modules holds a platform package.
	dir := filepath.Join(t.TempDir(), "run-mcp", "bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(launcher)
	if err != nil {
		t.Fatal(err)
	}
	alone := filepath.Join(dir, "run-mcp.js")
	if err := os.WriteFile(alone, src, 0o755); err != nil {
		t.Fatal(err)
	}
	o := runCmd(t, []string{"RUN_MCP_BINARY="}, nodeBin, alone, "--version")
	if o.code != 70 || o.stdout != "" {
		t.Errorf("exit %d with stdout %q, want exit 70 and nothing on stdout", o.code, o.stdout)
	}
	for _, want := range []string{"@run-mcp/", "is not installed", "--omit=optional", "--no-optional", "RUN_MCP_BINARY"} {
		if !strings.Contains(o.stderr, want) {
			t.Errorf("stderr should mention %q:\n%s", want, o.stderr)
		}
	}
}

// RUN_MCP_BINARY naming nothing is an error that says so, not a fallback.
func TestLauncherOverrideThatDoesNotExist(t *testing.T) {
	nodeBin := node(t)
	missing := filepath.Join(t.TempDir(), "run-mcp")
	o := runCmd(t, []string{"RUN_MCP_BINARY=" + missing}, nodeBin, launcher, "--version")
	if o.code != 70 || o.stdout != "" || !strings.Contains(o.stderr, "RUN_MCP_BINARY names") || !strings.Contains(o.stderr, "does not exist") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 70, nothing, and a sentence about RUN_MCP_BINARY", o.code, o.stdout, o.stderr)
	}
}

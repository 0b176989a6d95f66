package targets

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// ModulePath is the module whose go.mod RepoRoot looks for.
const ModulePath = "github.com/run-mcp/run-mcp"

// Entry files of the npm servers, relative to the repository root. Each is
// the package's "bin" script (dist/index.js) as installed by npm ci.
const (
	EverythingEntry         = "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
	FilesystemEntry         = "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
	MemoryEntry             = "node_modules/@modelcontextprotocol/server-memory/dist/index.js"
	SequentialThinkingEntry = "node_modules/@modelcontextprotocol/server-sequential-thinking/dist/index.js"
)

// RepoRoot walks up from the working directory to the directory holding the
// go.mod of module ModulePath and returns it.
func RepoRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; {
		if isRoot(filepath.Join(dir, "go.mod")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("targets: no go.mod of module %s in %s or above", ModulePath, wd)
		}
		dir = parent
	}
}

// isRoot tells whether gomod is the go.mod of ModulePath (and not that of a
// nested module, e.g. under testdata).
func isRoot(gomod string) bool {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`) == ModulePath
		}
	}
	return false
}

// Node returns the path of the node executable.
func Node() (string, error) {
	p, err := exec.LookPath("node")
	if err != nil {
		return "", fmt.Errorf("targets: node not found in PATH (the real MCP servers need Node.js 20+): %w", err)
	}
	return p, nil
}

// Entry returns the absolute path of an npm server's entry file, given its
// path relative to the repository root (one of the *Entry constants), and
// checks that it is installed.
func Entry(rel string) (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	p := filepath.Join(root, filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("targets: %s is not installed; run `make deps` (npm ci) at %s: %w", rel, root, err)
	}
	return p, nil
}

func nodeCmd(rel string, args ...string) ([]string, error) {
	node, err := Node()
	if err != nil {
		return nil, err
	}
	entry, err := Entry(rel)
	if err != nil {
		return nil, err
	}
	return append([]string{node, entry}, args...), nil
}

// ServerEverything returns the command that starts
// @modelcontextprotocol/server-everything over stdio:
// [node, <root>/node_modules/@modelcontextprotocol/server-everything/dist/index.js, stdio].
// The server does not exit when its stdin closes: stop it with SIGTERM.
func ServerEverything() ([]string, error) {
	return nodeCmd(EverythingEntry, "stdio")
}

// ServerFilesystem returns the command that starts
// @modelcontextprotocol/server-filesystem allowing access to dir (made
// absolute). Roots declared by the client replace dir.
func ServerFilesystem(dir string) ([]string, error) {
	if dir == "" {
		return nil, errors.New("targets: ServerFilesystem needs a directory")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	return nodeCmd(FilesystemEntry, abs)
}

// ServerMemory returns the command that starts
// @modelcontextprotocol/server-memory storing its knowledge graph in
// memoryFile (made absolute; it need not exist yet). The server reads the
// file name only from the environment variable MEMORY_FILE_PATH, so the
// command is `env MEMORY_FILE_PATH=<abs> node <entry>`: env(1) execs node in
// place, so the spawned process (and its pid) is node itself. Callers that
// set the environment themselves can use ServerMemoryEnv instead.
func ServerMemory(memoryFile string) ([]string, error) {
	cmd, env, err := ServerMemoryEnv(memoryFile)
	if err != nil {
		return nil, err
	}
	envBin, err := exec.LookPath("env")
	if err != nil {
		return nil, fmt.Errorf("targets: env(1) not found: %w", err)
	}
	return append(append([]string{envBin}, env...), cmd...), nil
}

// ServerMemoryEnv is ServerMemory split into the node command and the extra
// environment ("MEMORY_FILE_PATH=<abs>") to add to the child's environment.
func ServerMemoryEnv(memoryFile string) (cmd, env []string, err error) {
	if memoryFile == "" {
		// Without the variable the server writes into node_modules.
		return nil, nil, errors.New("targets: ServerMemory needs a memory file path")
	}
	abs, err := filepath.Abs(memoryFile)
	if err != nil {
		return nil, nil, err
	}
	cmd, err = nodeCmd(MemoryEntry)
	if err != nil {
		return nil, nil, err
	}
	return cmd, []string{"MEMORY_FILE_PATH=" + abs}, nil
}

// ServerSequentialThinking returns the command that starts
// @modelcontextprotocol/server-sequential-thinking (it logs to stderr).
func ServerSequentialThinking() ([]string, error) {
	return nodeCmd(SequentialThinkingEntry)
}

// RunMCP and RunMCPDemo are run-mcp's two binaries. They ship side by side,
// and `run-mcp demo-server` runs the run-mcp-demo beside it, so a build of
// RunMCP builds both into the same directory.
const (
	RunMCP     = "./cmd/run-mcp"
	RunMCPDemo = "./cmd/run-mcp-demo"
)

// BuildBinary runs `go build -o <dir>/<name> <pkg>` from the repository root
// and returns the absolute path of the binary. pkg is a package path relative
// to the root ("./cmd/run-mcp", "./test/bench/bareclient") or an import path;
// name is its last element. For RunMCP it builds RunMCPDemo into dir too.
// Call it once per test binary (e.g. in TestMain, with dir from
// os.MkdirTemp) rather than once per test.
func BuildBinary(dir, pkg string) (string, error) {
	return BuildBinaryFlags(dir, pkg)
}

// BuildBinaryFlags is BuildBinary with extra go build flags before the
// package, e.g. "-buildvcs=true" or "-ldflags=-X main.version=1.2.3".
func BuildBinaryFlags(dir, pkg string, flags ...string) (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	name := path.Base(strings.TrimSuffix(filepath.ToSlash(pkg), "/"))
	if name == "." || name == "/" || name == "" {
		return "", fmt.Errorf("targets: cannot name a binary for package %q", pkg)
	}
	out, err := filepath.Abs(filepath.Join(dir, name))
	if err != nil {
		return "", err
	}
	// go test puts $GOROOT/bin first in PATH, so this is the go running the tests.
	gobin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("targets: go not found in PATH: %w", err)
	}
	args := append(append([]string{"build", "-o", out}, flags...), pkg)
	if path.Clean(filepath.ToSlash(pkg)) == path.Clean(RunMCP) {
		// One go build writes both into dir, named for their packages.
		args = append(append([]string{"build", "-o", filepath.Dir(out) + string(filepath.Separator)}, flags...), RunMCP, RunMCPDemo)
	}
	c := exec.Command(gobin, args...)
	c.Dir = root
	if msg, err := c.CombinedOutput(); err != nil {
		return "", fmt.Errorf("targets: go %s: %w\n%s", strings.Join(args, " "), err, msg)
	}
	return out, nil
}

// Require is for tests that need a real server: on a nil err it does
// nothing; otherwise it skips the test, except when the environment variable
// CI is "true", where a missing server is a failure (CI installs them with
// `make deps`, so a skip there would hide a broken setup).
func Require(tb testing.TB, err error) {
	tb.Helper()
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		tb.Fatalf("%v (CI=true: real servers must be installed, not skipped)", err)
	}
	tb.Skipf("skipping: %v", err)
}

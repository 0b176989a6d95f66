//go:build unix

package npm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/run-mcp/run-mcp/test/targets"
)

// testVersion is stamped into the binaries these tests install, and named
// by the launcher's package.json: the postinstall takes only its own
// version's binary.
const testVersion = "9.9.9-test"

// npmPlatform is this machine's platform package, as npm names it.
func npmPlatform() string {
	system := map[string]string{"linux": "linux", "darwin": "darwin"}[runtime.GOOS]
	cpu := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	return system + "-" + cpu
}

// tree is a node_modules as npm lays out run-mcp and its platform package:
// the launcher package (bin/run-mcp.js, install.js, package.json) and,
// when withBinary, @run-mcp/<platform> holding run-mcp and run-mcp-demo
// built with version. It returns the launcher package's directory.
func tree(t *testing.T, withBinary bool, version string) string {
	t.Helper()
	root, err := targets.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	nm := filepath.Join(t.TempDir(), "node_modules")
	pkg := filepath.Join(nm, "run-mcp")
	if err := os.MkdirAll(filepath.Join(pkg, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"bin/run-mcp.js", "install.js"} {
		b, err := os.ReadFile(filepath.Join(root, "npm", "run-mcp", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pkg, f), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	manifest, _ := json.Marshal(map[string]any{"name": "run-mcp", "version": testVersion, "bin": map[string]string{"run-mcp": "bin/run-mcp.js"}})
	if err := os.WriteFile(filepath.Join(pkg, "package.json"), manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	if withBinary {
		bins := filepath.Join(nm, "@run-mcp", npmPlatform(), "bin")
		if err := os.MkdirAll(bins, 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := targets.BuildBinaryFlags(bins, targets.RunMCP, "-ldflags=-X main.version="+version); err != nil {
			t.Fatal(err)
		}
	}
	return pkg
}

// postinstall runs install.js as npm runs a package's postinstall: in the
// package's directory, with npm's user agent.
func postinstall(t *testing.T, pkg, agent string) {
	t.Helper()
	o := runCmd(t, []string{"npm_config_user_agent=" + agent}, node(t), filepath.Join(pkg, "install.js"))
	if o.code != 0 {
		t.Fatalf("install.js exited %d; a postinstall must never fail the install\nstderr: %s", o.code, o.stderr)
	}
}

func isLauncher(t *testing.T, file string) bool {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return strings.HasPrefix(string(b), "#!/usr/bin/env node")
}

const npmAgent = "npm/11.0.0 node/v20.0.0 linux x64 workspaces/false"

// Where npm runs install scripts, the command npm links onto PATH is the
// binary itself, with the demo server beside it: no Node start in front.
func TestPostinstallPutsTheBinaryInPlaceOfTheLauncher(t *testing.T) {
	node(t)
	pkg := tree(t, true, testVersion)
	postinstall(t, pkg, npmAgent)
	cmd := filepath.Join(pkg, "bin", "run-mcp.js")
	if isLauncher(t, cmd) {
		t.Fatal("after the postinstall, bin/run-mcp.js is still the Node launcher")
	}
	// npm's link onto PATH points at that file.
	link := filepath.Join(t.TempDir(), "run-mcp")
	if err := os.Symlink(cmd, link); err != nil {
		t.Fatal(err)
	}
	if o := runCmd(t, nil, link, "--version"); o.code != 0 || !strings.HasPrefix(o.stdout, "run-mcp "+testVersion) {
		t.Errorf("run-mcp --version through the link: exit %d, %q", o.code, o.stdout)
	}
	if o := runCmd(t, nil, link, "list-tools", "--", link, "demo-server"); o.code != 0 || !strings.Contains(o.stdout, `"name": "echo"`) {
		t.Errorf("the demo server beside the installed binary: exit %d\nstdout: %s\nstderr: %s", o.code, o.stdout, o.stderr)
	}
	// A second postinstall (npm rebuild) finds the binary in place and
	// leaves it.
	postinstall(t, pkg, npmAgent)
	if o := runCmd(t, nil, link, "--version"); o.code != 0 {
		t.Errorf("after a second postinstall: exit %d, %s", o.code, o.stderr)
	}
}

// Wherever the swap is not sure to work, the launcher stays, and the
// install goes on: no platform package, a binary of another version, a
// package manager that writes its own shims.
func TestPostinstallLeavesTheLauncherWhenItCannotSwap(t *testing.T) {
	node(t)
	for _, tc := range []struct {
		name    string
		binary  bool
		version string
		agent   string
	}{
		{"no platform package", false, testVersion, npmAgent},
		{"another version's binary", true, "1.2.3", npmAgent},
		{"yarn", true, testVersion, "yarn/1.22.22 npm/? node/v20.0.0 linux x64"},
		{"pnpm", true, testVersion, "pnpm/9.0.0 npm/? node/v20.0.0 linux x64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pkg := tree(t, tc.binary, tc.version)
			postinstall(t, pkg, tc.agent)
			if !isLauncher(t, filepath.Join(pkg, "bin", "run-mcp.js")) {
				t.Error("the launcher was replaced")
			}
			if _, err := os.Stat(filepath.Join(pkg, "bin", "run-mcp-demo")); err == nil {
				t.Error("run-mcp-demo was put beside a launcher that stays")
			}
		})
	}
}

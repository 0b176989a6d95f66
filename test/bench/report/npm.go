package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/run-mcp/run-mcp/test/targets"
)

// npmPlatforms are npm's names (process.platform, process.arch) for Go's.
var npmPlatforms = map[string]string{"linux": "linux", "darwin": "darwin", "windows": "win32", "amd64": "x64", "arm64": "arm64"}

// npmVersion measures `run-mcp --version` through the npm packages,
// packed here for this platform alone (npm/build.mjs --only) and installed
// into two prefixes: one where npm ran the postinstall, which puts the
// binary in place of the Node launcher, and one with --ignore-scripts,
// where the launcher runs it. The floor is the platform package's binary.
func npmVersion(cfg config, tmp string) ([]row, error) {
	if runtime.GOOS == "windows" {
		return nil, fmt.Errorf("not measured on Windows, where npm's .cmd shim runs the launcher with node in any case")
	}
	platform := npmPlatforms[runtime.GOOS] + "-" + npmPlatforms[runtime.GOARCH]
	root, err := targets.RepoRoot()
	if err != nil {
		return nil, err
	}
	v, err := os.ReadFile(filepath.Join(root, "VERSION"))
	if err != nil {
		return nil, err
	}
	version := strings.TrimSpace(string(v))
	dir := filepath.Join(tmp, "npm")
	bins := filepath.Join(dir, "bin", runtime.GOOS+"-"+runtime.GOARCH)
	if err := os.MkdirAll(bins, 0o755); err != nil {
		return nil, err
	}
	// As make npm builds them (its STAMP less the commit and date).
	if _, err := targets.BuildBinaryFlags(bins, targets.RunMCP, "-trimpath", "-ldflags=-s -w -X main.version="+version); err != nil {
		return nil, err
	}
	packed, err := output(root, "node", "npm/build.mjs", "--version", version, "--bins", filepath.Join(dir, "bin"), "--out", dir, "--only", platform)
	if err != nil {
		return nil, err
	}
	tarballs := strings.Fields(packed)
	withScripts, without := filepath.Join(dir, "scripts"), filepath.Join(dir, "ignore-scripts")
	for _, prefix := range []string{withScripts, without} {
		args := append([]string{"install", "-g", "--offline", "--no-audit", "--no-fund", "--prefix", prefix}, tarballs...)
		if prefix == without {
			args = append(args, "--ignore-scripts")
		}
		if _, err := output(dir, "npm", args...); err != nil {
			return nil, err
		}
	}
	installed := filepath.Join(withScripts, "bin", "run-mcp")
	if head, err := firstBytes(installed, 2); err != nil || head == "#!" {
		return nil, fmt.Errorf("npm ran the postinstall, but %s is still the Node launcher (npm/run-mcp/install.js did not put the binary in place): %v", installed, err)
	}
	binary := filepath.Join(withScripts, "lib", "node_modules", "@run-mcp", platform, "bin", "run-mcp")
	version1 := func(p string) func() (run, error) { return func() (run, error) { return runCmd(nil, p, "--version") } }
	s, err := interleave(cfg.startRounds, version1(binary), version1(installed), version1(filepath.Join(without, "bin", "run-mcp")))
	if err != nil {
		return nil, err
	}
	f, x, l := median(walls(s[0])), median(walls(s[1])), median(walls(s[2]))
	r := float64(x) / float64(f)
	return []row{{measure: "`run-mcp --version` through the npm-installed package, where install scripts ran",
		floor:   fmt.Sprintf("the platform package's binary: %.2f ms", ms(f)),
		subject: fmt.Sprintf("%.2f ms: %.2f× (with --ignore-scripts, through the Node launcher: %.1f ms, %.1f×)", ms(x), r, ms(l), float64(l)/float64(f)),
		goal:    "≤ 1.2×", met: yes(r <= 1.2)}}, nil
}

// output runs a command in dir and returns its stdout, or its stderr in
// the error.
func output(dir, name string, args ...string) (string, error) {
	c := exec.Command(name, args...)
	c.Dir = dir
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}

func firstBytes(path string, n int) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b := make([]byte, n)
	k, err := f.Read(b)
	return string(b[:k]), err
}

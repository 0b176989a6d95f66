package main

import (
	"runtime/debug"
	"testing"
)

func TestVersionLine(t *testing.T) {
	vcs := func(rev, when, modified string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: when}, {Key: "vcs.modified", Value: modified}}}
	}
	for _, tc := range []struct {
		name  string
		stamp stamp
		bi    *debug.BuildInfo
		want  string
	}{
		{"release build (make, GoReleaser)",
			stamp{"0.4.0", "1a2b3c4d5e6f7a8b9c0d", "2026-12-01T10:00:00Z", "clean"}, vcs("ffff", "2000-01-01T00:00:00Z", "true"),
			"run-mcp 0.4.0 (commit 1a2b3c4d5e6f, built 2026-12-01T10:00:00Z)"},
		{"stamped from a dirty tree",
			stamp{"v0.4.0", "1a2b3c4d5e6f7a8b9c0d", "2026-12-01T10:00:00Z", "dirty"}, nil,
			"run-mcp 0.4.0 (commit 1a2b3c4d5e6f with uncommitted changes, built 2026-12-01T10:00:00Z)"},
		{"go build in a clean checkout",
			stamp{}, vcs("6adc7e6a0b1c2d3e4f", "2026-11-30T09:00:00Z", "false"),
			"run-mcp devel (commit 6adc7e6a0b1c, committed 2026-11-30T09:00:00Z)"},
		{"go build in a dirty checkout",
			stamp{}, vcs("6adc7e6a0b1c2d3e4f", "2026-11-30T09:00:00Z", "true"),
			"run-mcp devel (commit 6adc7e6a0b1c with uncommitted changes, committed 2026-11-30T09:00:00Z)"},
		{"go install …@v0.4.0 (no VCS data in a module zip)",
			stamp{}, &debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}},
			"run-mcp 0.4.0"},
		{"no build information at all", stamp{}, nil, "run-mcp devel"},
		{"a stamped version keeps the commit the go command saw",
			stamp{version: "0.5.0"}, vcs("abcdef", "2026-11-30T09:00:00Z", "false"),
			"run-mcp 0.5.0 (commit abcdef, committed 2026-11-30T09:00:00Z)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := resolve(tc.stamp, tc.bi, tc.bi != nil).String(); got != tc.want {
				t.Errorf("--version says\n  %q\nwant\n  %q", got, tc.want)
			}
		})
	}
}

func TestTemplateLiteralKeepsBraces(t *testing.T) {
	// A stamped value that looks like template syntax must print as written.
	if got, want := templateLiteral(`run-mcp {{.Name}} "x"`), `{{"run-mcp {{.Name}} \"x\""}}`; got != want {
		t.Errorf("templateLiteral = %s, want %s", got, want)
	}
}

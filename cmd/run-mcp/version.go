package main

import (
	"runtime/debug"
	"strconv"
	"strings"
)

// Stamped at build time by `make build`, `make npm` and GoReleaser:
//
//	-ldflags "-X main.version=0.4.0 -X main.commit=<sha> -X main.date=<RFC 3339> -X main.treeState=dirty"
//
// Left empty, they are read from the module's build information instead
// (`go build` in a checkout, `go install …@vX`).
var (
	version   string
	commit    string
	date      string
	treeState string // "clean" or "dirty", as GoReleaser's .GitTreeState
)

// unversioned names a build that knows no version: no stamp, and no module
// version (a `go build` outside a checkout, or with -buildvcs=false).
const unversioned = "devel"

// identity is what a build knows about itself.
type identity struct {
	Version  string // without a leading "v": "0.4.0"
	Commit   string // full revision, or ""
	Date     string // RFC 3339, or ""
	DateKind string // "built" (stamped) or "committed" (vcs.time)
	Modified bool   // built from a tree with uncommitted changes
}

// stamp is the set of values -ldflags -X can set.
type stamp struct{ version, commit, date, treeState string }

// resolve prefers the stamped values and fills what is missing from the
// build information the go command records.
func resolve(s stamp, bi *debug.BuildInfo, ok bool) identity {
	id := identity{Version: strings.TrimPrefix(s.version, "v"), Commit: s.commit, Date: s.date, Modified: s.treeState == "dirty"}
	if id.Date != "" {
		id.DateKind = "built"
	}
	if ok && bi != nil {
		if id.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			id.Version = strings.TrimPrefix(bi.Main.Version, "v")
		}
		settings := map[string]string{}
		for _, kv := range bi.Settings {
			settings[kv.Key] = kv.Value
		}
		if id.Commit == "" && settings["vcs.revision"] != "" {
			id.Commit = settings["vcs.revision"]
			id.Modified = settings["vcs.modified"] == "true"
		}
		if id.Date == "" && settings["vcs.time"] != "" {
			// The go command records when the commit was made, not when the
			// binary was built: say which.
			id.Date, id.DateKind = settings["vcs.time"], "committed"
		}
	}
	if id.Version == "" {
		id.Version = unversioned
	}
	return id
}

// shortCommit is long enough to stay unambiguous as the history grows
// (git's own --short is 7 and up).
const shortCommit = 12

// String is the --version line: "run-mcp 0.4.0 (commit 1a2b3c4d5e6f, built 2026-12-01T10:00:00Z)".
func (id identity) String() string {
	var parts []string
	if id.Commit != "" {
		c := id.Commit
		if len(c) > shortCommit {
			c = c[:shortCommit]
		}
		if id.Modified {
			c += " with uncommitted changes"
		}
		parts = append(parts, "commit "+c)
	}
	if id.Date != "" {
		parts = append(parts, id.DateKind+" "+id.Date)
	}
	if len(parts) == 0 {
		return "run-mcp " + id.Version
	}
	return "run-mcp " + id.Version + " (" + strings.Join(parts, ", ") + ")"
}

// current is this binary's identity.
func current() identity {
	bi, ok := debug.ReadBuildInfo()
	return resolve(stamp{version, commit, date, treeState}, bi, ok)
}

// templateLiteral quotes s for cobra's text/template version template, so a
// stamped value can never be read as template syntax.
func templateLiteral(s string) string {
	return "{{" + strconv.Quote(s) + "}}"
}

package snapshot

import (
	"fmt"
	"slices"
	"strings"
)

const (
	header = "Changes since last connection:"
	// maxNames is how many names one group shows before "+N more".
	maxNames = 10
)

// Diff describes what changed from before to after, one line per kind that
// either connection listed, under a header line. When nothing at all
// changed, it is the single line "Changes since last connection: none".
func Diff(before, after Listing) []string {
	lines := []string{header}
	changed := false
	afterKinds := after.kinds()
	for n, b := range before.kinds() {
		a := afterKinds[n]
		if !b.listed && !a.listed {
			continue
		}
		c := compare(b.entries, a.entries)
		changed = changed || !c.empty()
		lines = append(lines, "  "+b.label+": "+c.String())
	}
	if !changed {
		return []string{header + " none"}
	}
	return lines
}

// change holds the sorted keys added, modified and removed in one kind.
type change struct {
	added, modified, removed []string
}

func compare(before, after map[string]string) change {
	var c change
	for key, now := range after {
		was, existed := before[key]
		switch {
		case !existed:
			c.added = append(c.added, key)
		case was != now:
			c.modified = append(c.modified, key)
		}
	}
	for key := range before {
		if _, kept := after[key]; !kept {
			c.removed = append(c.removed, key)
		}
	}
	slices.Sort(c.added)
	slices.Sort(c.modified)
	slices.Sort(c.removed)
	return c
}

func (c change) empty() bool {
	return len(c.added)+len(c.modified)+len(c.removed) == 0
}

// String renders "+1 added (a), ~2 modified (b, c), -1 removed (d)",
// leaving out empty groups, or "unchanged".
func (c change) String() string {
	if c.empty() {
		return "unchanged"
	}
	var parts []string
	for _, g := range []struct {
		sign, verb string
		keys       []string
	}{{"+", "added", c.added}, {"~", "modified", c.modified}, {"-", "removed", c.removed}} {
		if len(g.keys) > 0 {
			parts = append(parts, fmt.Sprintf("%s%d %s (%s)", g.sign, len(g.keys), g.verb, names(g.keys)))
		}
	}
	return strings.Join(parts, ", ")
}

// names lists up to maxNames keys and counts the rest, so a server that
// renamed everything cannot flood the agent's context.
func names(keys []string) string {
	if len(keys) <= maxNames {
		return strings.Join(keys, ", ")
	}
	return fmt.Sprintf("%s, +%d more", strings.Join(keys[:maxNames], ", "), len(keys)-maxNames)
}

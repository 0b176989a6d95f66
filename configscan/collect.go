package configscan

import (
	"slices"
	"strings"
)

// collector gathers what one Discover call finds.
type collector struct {
	entries  []Entry
	errors   []FileError
	searched []string
	claude   claudeOff
}

func (c *collector) look(path string) { c.searched = append(c.searched, path) }

func (c *collector) fail(path, source string, err error) {
	c.errors = append(c.errors, FileError{File: path, Source: source, Reason: err.Error()})
}

// serverEntries turns a table of servers by name into entries, in name order.
func serverEntries(servers map[string]any, source, path, remote string) []Entry {
	names := make([]string, 0, len(servers))
	for name := range servers {
		names = append(names, name)
	}
	slices.Sort(names)
	base := Entry{Source: source, File: path}
	added := make([]Entry, 0, len(names))
	for _, name := range names {
		added = append(added, entryFromValue(base, name, servers[name], remote))
	}
	return added
}

// read loads one known location and adds what it holds.
func (c *collector) read(loc location, h host) {
	c.look(loc.path)
	doc, exists, err := load(loc.path, loc.toml)
	if !exists {
		return
	}
	if err != nil {
		c.fail(loc.path, loc.source, err)
		return
	}
	if loc.claude {
		c.readClaudeUser(doc, loc, h)
		return
	}
	servers, found, err := table(doc, strings.Split(loc.key, "."))
	if err != nil {
		c.fail(loc.path, loc.source, err)
	}
	if !found || err != nil {
		return
	}
	entries := serverEntries(servers, loc.source, loc.path, loc.remote)
	if loc.gemini {
		markGeminiOff(doc, entries)
	}
	c.entries = append(c.entries, entries...)
}

// result hands the findings back in a stable order, with no nil slices so
// the JSON shows [] rather than null.
func (c *collector) result() Result {
	r := Result{
		Entries:  append([]Entry{}, c.entries...),
		Errors:   append([]FileError{}, c.errors...),
		Searched: uniqueStrings(append([]string{}, c.searched...)),
	}
	sortEntries(r.Entries)
	sortErrors(r.Errors)
	return r
}

package configscan

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxScanSize is the largest stray JSON file the scan reads.
const maxScanSize = 1 << 20

// scan walks up from the cwd to the root and, in each directory (not below
// it), reads every *.json file with a top-level "mcpServers" object. Files a
// known client path already covered, node_modules, and files over 1 MiB are
// skipped.
func (c *collector) scan(h host, known map[string]bool) {
	for _, dir := range ancestors(h.cwd) {
		if slices.Contains(strings.Split(filepath.ToSlash(dir), "/"), "node_modules") {
			continue
		}
		c.look(filepath.Join(dir, "*.json"))
		for _, path := range jsonFiles(dir) {
			if !known[path] {
				c.scanFile(path)
			}
		}
	}
}

// jsonFiles lists the regular *.json files in dir no larger than maxScanSize,
// in name order. An unreadable directory simply has none.
func jsonFiles(dir string) []string {
	items, _ := os.ReadDir(dir) // sorted by name
	var out []string
	for _, item := range items {
		if item.IsDir() || !strings.HasSuffix(strings.ToLower(item.Name()), ".json") {
			continue
		}
		path := filepath.Join(dir, item.Name())
		info, err := os.Stat(path) // follows a symlink to its file
		if err == nil && info.Mode().IsRegular() && info.Size() <= maxScanSize {
			out = append(out, path)
		}
	}
	return out
}

// scanFile adds the servers of one stray file. A file that does not even
// mention mcpServers is none of our business, so its syntax is not judged;
// one that does but cannot be parsed is reported.
func (c *collector) scanFile(path string) {
	data, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(data, []byte(`"mcpServers"`)) {
		return
	}
	doc, err := decodeJSONC(data)
	if err != nil {
		c.fail(path, "scan", err)
		return
	}
	servers, found, err := table(doc, []string{"mcpServers"})
	if err != nil {
		c.fail(path, "scan", err)
	}
	if found && err == nil {
		c.entries = append(c.entries, serverEntries(servers, "scan", path, "http")...)
	}
}

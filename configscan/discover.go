package configscan

// Discover lists the MCP servers configured on this machine for opts.Cwd:
// every client path in the table (see doc.go), or only opts.File, plus a
// walk for stray files when opts.Scan is set. It never fails as a whole: what
// could not be read is in Result.Errors, and where it looked in Searched.
func Discover(opts Options) Result {
	h := newHost(opts)
	c := &collector{}
	if opts.File != "" {
		c.readOne(h, opts.File)
	} else {
		c.readKnown(h, opts.Scan)
	}
	r := c.result()
	applyFilter(&r, opts.Filter)
	return r
}

func (c *collector) readKnown(h host, scan bool) {
	locs := knownLocations(h)
	known := make(map[string]bool, len(locs))
	for _, loc := range locs {
		known[loc.path] = true
		c.read(loc, h)
	}
	c.claude.apply(c.entries)
	if scan {
		c.scan(h, known)
	}
}

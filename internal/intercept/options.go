package intercept

import (
	"cmp"
	"fmt"
	"io/fs"
	"sync"
	"time"
)

const (
	// DefaultMaxText is the number of characters (runes) of text a reply
	// keeps before the rest is spilled to a file.
	DefaultMaxText = 50_000

	// DefaultMediaThresholdKB saves every image and audio item: an inline
	// image costs the agent far more context than a file path does.
	DefaultMediaThresholdKB = 0

	// PruneAge is how old our files must be before Prune removes them.
	PruneAge = 7 * 24 * time.Hour

	// NoLimit, passed as a per-call maxText, turns truncation off.
	NoLimit = -1

	// DefaultKeepResults is how many spilled results an Interceptor keeps
	// for Read: an agent pages through a result soon after it gets it, and
	// one that lives for days would otherwise keep every result's file and
	// its entry in memory for its whole life.
	DefaultKeepResults = 100

	// DefaultKeepResultBytes bounds the files of the kept results together,
	// so that a few results near the 64 MB cap on a message cannot fill
	// the disk either.
	DefaultKeepResultBytes = 1 << 30
)

// Options configures an Interceptor. The zero value is usable.
type Options struct {
	// OutDir receives saved media and spilled text. Empty means
	// DefaultOutDir, <os.TempDir()>/run-mcp-<uid>/out.
	OutDir string
	// MaxText is the per-item text limit in characters. 0 means
	// DefaultMaxText; negative means never truncate.
	MaxText int
	// MediaThresholdKB: media whose decoded size is over this many KB is
	// saved. 0 saves always; negative (-1) keeps media inline.
	MediaThresholdKB int
	// Shell: the reader is a person or a script at a shell, which has no
	// read_result tool: a truncation note points to the file itself.
	Shell bool
	// KeepResults and KeepResultBytes bound the spilled results kept for
	// Read: past either, the oldest is forgotten and its file deleted.
	// 0 means DefaultKeepResults and DefaultKeepResultBytes.
	KeepResults     int
	KeepResultBytes int64
}

// Interceptor rewrites results and remembers the most recent texts it
// spilled so Read can page through them. It is safe for concurrent use.
type Interceptor struct {
	dir     string
	strict  bool // dir is the default: each use re-checks it is private
	maxText int  // resolved: > 0, or NoLimit
	mediaKB int
	shell   bool // notes for a shell (Options.Shell)

	mu      sync.Mutex
	lastID  int  // r<lastID> is the newest result id handed out
	firstID int  // r<firstID> is the first this Interceptor handed out (0: none yet)
	listed  bool // lastID has been read from the directory
	seq     int  // disambiguates media files created in the same millisecond
	results map[string]spilled
	kept    keptResults
}

// spilled is what Read needs to know about one result file. written is the
// file as it was when we closed it: Read opens only that same file with that
// same size, so a file swapped in by someone else is never handed back.
// ours says this Interceptor wrote it (not an earlier run-mcp): only then
// is the file deleted when the entry is forgotten.
type spilled struct {
	path    string
	chars   int // rune count, or -1 when not yet known
	written fs.FileInfo
	ours    bool
}

// New creates the output directory (0700) if needed, checks it (see
// ensureDir) and returns an Interceptor. Result ids continue after the
// highest result_r<N>.txt already in the directory, so a restarted run-mcp
// never overwrites a file an agent may still be reading.
func New(opts Options) (*Interceptor, error) {
	abs, strict, err := resolveDir(opts.OutDir)
	if err != nil {
		return nil, err
	}
	if err := ensureDir(abs, strict); err != nil {
		return nil, err
	}
	// The directory must be listable to continue the ids; listing it is put
	// off to the first spill (most calls spill nothing, and a directory an
	// agent has used for long holds many files), so only open it here.
	if err := listable(abs); err != nil {
		return nil, fmt.Errorf("listing output directory %s to continue result ids: %w", abs, err)
	}
	return &Interceptor{
		dir:     abs,
		strict:  strict,
		maxText: resolveMaxText(opts.MaxText),
		mediaKB: opts.MediaThresholdKB,
		shell:   opts.Shell,
		results: make(map[string]spilled),
		kept:    keptResults{most: cmp.Or(opts.KeepResults, DefaultKeepResults), mostBytes: cmp.Or(opts.KeepResultBytes, DefaultKeepResultBytes)},
	}, nil
}

// OutDir is the absolute directory files are written to.
func (i *Interceptor) OutDir() string { return i.dir }

func resolveMaxText(n int) int {
	switch {
	case n < 0:
		return NoLimit
	case n == 0:
		return DefaultMaxText
	default:
		return n
	}
}

// limitFor turns a per-call override into the limit to apply: 0 falls back
// to the Interceptor's own limit, negative disables truncation.
func (i *Interceptor) limitFor(maxText int) int {
	if maxText == 0 {
		return i.maxText
	}
	return resolveMaxText(maxText)
}

// pageMax bounds one Read page. It stays finite even when truncation is off
// so one Read cannot flood the agent's context.
func (i *Interceptor) pageMax() int {
	if i.maxText == NoLimit {
		return DefaultMaxText
	}
	return i.maxText
}

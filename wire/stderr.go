package wire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// A read of a target's stderr takes up to stderrChunk (the pipe's size, see
// growPipe). A flood of small lines then costs one read, one clock reading
// and one ring lock per chunk rather than per line. The buffer starts at
// stderrFirstChunk and doubles only when a read fills it, so the many
// targets that write little cost little.
const (
	stderrChunk      = 1 << 20
	stderrFirstChunk = 4 << 10
)

// StderrFeed hands the lines a target writes to stderr to its owner (the
// connection's actor, which keeps them in its Ring) without ever making the
// target wait: the drain appends to a batch under a short lock and signals
// Ready; the owner Takes the batch whenever it gets to it. Lines the owner
// has not taken yet are bounded as the ring bounds them: a batch keeps its
// first RingHead and its last RingTail lines and counts the ones between,
// which the ring would have dropped anyway.
type StderrFeed struct {
	mu sync.Mutex
	b  StderrBatch
	// spare is the buffers of a batch its owner gave back (Recycle), for
	// the next batch: a flood reuses two sets instead of allocating one
	// per Take.
	spare StderrBatch
	ready chan struct{}
	// pipe is the read end the drain reads, when it takes deadlines (nil
	// otherwise): Sync interrupts the drain's read through it.
	pipe readDeadliner
	// syncs are the Sync calls waiting for the drain to find the pipe
	// empty; ended says the drain reached the pipe's end.
	syncs []chan struct{}
	ended bool
}

// readDeadliner is a pipe whose read can be interrupted.
type readDeadliner interface{ SetReadDeadline(time.Time) error }

func newStderrFeed() *StderrFeed { return &StderrFeed{ready: make(chan struct{}, 1)} }

// syncThrough lets Sync work through pipe, the read end the drain reads,
// when it takes a read deadline (a pipe in the runtime's poller, on unix).
func (f *StderrFeed) syncThrough(pipe readDeadliner) {
	if pipe.SetReadDeadline(time.Time{}) == nil {
		f.pipe = pipe
	}
}

// Sync waits until the drain has found the stderr pipe empty, or at its
// end, after Sync was called: every line the target wrote before then is
// in the feed, for the owner to Take. A target writes its stderr before it
// answers on stdout, so a caller with an answer in hand syncs to have all
// that the target said before it, however far behind a flood the drain
// was. It returns false when it cannot tell (a pipe without deadlines, on
// Windows) or ctx ends first: the caller then waits for the lines to
// settle instead.
func (f *StderrFeed) Sync(ctx context.Context) bool {
	f.mu.Lock()
	if f.ended {
		f.mu.Unlock()
		return true
	}
	if f.pipe == nil {
		f.mu.Unlock()
		return false
	}
	done := make(chan struct{})
	f.syncs = append(f.syncs, done)
	// A deadline in the past ends the drain's read at once (drainLines).
	err := f.pipe.SetReadDeadline(time.Unix(1, 0))
	f.mu.Unlock()
	if err != nil {
		return false
	}
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}

// waiting is how many Syncs wait now: those a read that finds the pipe
// empty after this may answer.
func (f *StderrFeed) waiting() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.syncs)
}

// answer answers the first n waiting Syncs, whose start came before the
// drain found the pipe empty, and says whether more wait (begun since,
// they need another look at the pipe); when none does, the drain's reads
// may wait again.
func (f *StderrFeed) answer(n int) (more bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, done := range f.syncs[:n] {
		close(done)
	}
	f.syncs = f.syncs[n:]
	if len(f.syncs) > 0 {
		return true
	}
	f.syncs = nil
	if f.pipe != nil {
		_ = f.pipe.SetReadDeadline(time.Time{})
	}
	return false
}

// interrupted says a read ended because Sync set its deadline; the drain
// then reads on, without waiting, until the pipe is empty (the deadline
// stays set until answer clears it: reads that wait are not made then).
func (f *StderrFeed) interrupted(err error) bool {
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pipe != nil
}

// Ready is signalled (coalesced) when lines are waiting, and when the
// stderr pipe has reached its end.
func (f *StderrFeed) Ready() <-chan struct{} { return f.ready }

// Take returns what is waiting and starts a new batch.
func (f *StderrFeed) Take() StderrBatch {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := f.b
	f.b = StderrBatch{text: f.spare.text, lines: f.spare.lines}
	f.spare = StderrBatch{}
	return b
}

// maxSpare bounds the buffers a feed keeps for its next batch (its text,
// and its lines at a few dozen bytes each), so a target that once wrote
// long lines, or a great many tiny ones, does not hold their memory while
// it is quiet.
const maxSpare = 1 << 20

// Recycle gives back a batch Take returned, once its owner has copied its
// lines out and no longer reads it: the feed writes a later batch in its
// buffers.
func (f *StderrFeed) Recycle(b StderrBatch) {
	if cap(b.text) > maxSpare || cap(b.lines) > maxSpare/32 {
		return
	}
	f.mu.Lock()
	if f.spare.text == nil {
		f.spare = StderrBatch{text: b.text[:0], lines: b.lines[:0]}
	}
	f.mu.Unlock()
}

// StderrBatch is lines of stderr in the order they came, each with when it
// arrived and how many lines were dropped just before it (an owner that
// fell behind a flood); End says the pipe reached its end.
type StderrBatch struct {
	text    []byte
	lines   []fedLine
	trailer int // lines dropped after the last kept one
	End     bool
}

type fedLine struct {
	end     int // the line is text[previous end:end]
	t       time.Time
	skipped int // lines dropped just before this one
}

// Len is how many lines the batch keeps.
func (b *StderrBatch) Len() int { return len(b.lines) }

func (b *StderrBatch) line(i int) []byte {
	start := 0
	if i > 0 {
		start = b.lines[i-1].end
	}
	return b.text[start:b.lines[i].end]
}

func (f *StderrFeed) signal() {
	select {
	case f.ready <- struct{}{}:
	default:
	}
}

// appendLines adds lines that arrived together at t.
func (f *StderrFeed) appendLines(lines [][]byte, t time.Time) {
	if len(lines) == 0 {
		return
	}
	f.mu.Lock()
	b := &f.b
	for _, l := range lines {
		b.text = append(b.text, l...)
		b.lines = append(b.lines, fedLine{end: len(b.text), t: t, skipped: b.trailer})
		b.trailer = 0
	}
	if len(b.lines) > 2*(RingHead+RingTail) {
		b.compact()
	}
	f.mu.Unlock()
	f.signal()
}

// skip counts n lines dropped where the batch now ends.
func (f *StderrFeed) skip(n int) {
	f.mu.Lock()
	f.b.trailer += n
	f.mu.Unlock()
}

// end marks the pipe's end; no Sync waits past it.
func (f *StderrFeed) end() {
	f.mu.Lock()
	f.b.End, f.ended = true, true
	for _, done := range f.syncs {
		close(done)
	}
	f.syncs = nil
	f.mu.Unlock()
	f.signal()
}

// compact keeps the batch's first RingHead and last RingTail lines, counting
// the ones between as dropped before the first of the last. It works in
// place: the tail moves down over the dropped lines, so a flood reuses the
// batch's buffers instead of allocating new ones at every compaction.
func (b *StderrBatch) compact() {
	n := len(b.lines)
	keepHead, keepTail := RingHead, RingTail
	if n <= keepHead+keepTail {
		return
	}
	dropped := 0
	for i := keepHead; i < n-keepTail; i++ {
		dropped += 1 + b.lines[i].skipped
	}
	headEnd := 0
	if keepHead > 0 {
		headEnd = b.lines[keepHead-1].end
	}
	tailStart := b.lines[n-keepTail-1].end
	shift := tailStart - headEnd
	b.text = b.text[:headEnd+copy(b.text[headEnd:], b.text[tailStart:])]
	copy(b.lines[keepHead:], b.lines[n-keepTail:])
	b.lines = b.lines[:keepHead+keepTail]
	for i := keepHead; i < len(b.lines); i++ {
		b.lines[i].end -= shift
	}
	b.lines[keepHead].skipped += dropped
}

// drainLines reads r to its end and hands every line to feed: one
// timestamp per read, lines cut at limit bytes with a note of how much was
// cut, and no allocation per line.
//
// A read that Sync interrupts (its deadline set in the past) is followed by
// reads that never wait, until the pipe is empty: then everything the
// target wrote before the Sync is in the feed, and the Sync is answered.
func drainLines(r io.Reader, feed *StderrFeed, limit int) {
	defer feed.end()
	s := splitter{out: feed, limit: limit}
	buf := make([]byte, stderrFirstChunk)
	syncing := false
	for {
		var n int
		var err error
		if syncing {
			waiting := feed.waiting()
			var tried bool
			n, tried, err = tryRead(r, buf)
			if !tried || n == 0 && err == nil {
				// The pipe is empty: all the target wrote before those
				// Syncs began is in the feed.
				syncing = feed.answer(waiting)
				continue
			}
		} else {
			n, err = r.Read(buf)
		}
		if n > 0 {
			s.feed(buf[:n], time.Now())
		}
		if n == len(buf) && len(buf) < stderrChunk {
			buf = make([]byte, 2*len(buf))
		}
		if err != nil && !syncing && feed.interrupted(err) {
			syncing = true
			continue
		}
		if err != nil {
			s.finish(time.Now())
			return
		}
	}
}

// splitter turns chunks into lines. A line that spans chunks collects in
// partial (at most limit bytes of it; dropped counts the rest).
type splitter struct {
	out     *StderrFeed
	limit   int
	batch   [][]byte
	partial []byte
	open    bool // partial holds the start of a line (possibly empty so far)
	dropped int
	// fed counts the lines handed to the feed, so a flood's chunk keeps
	// what the ring's head may still need.
	fed int
}

func (s *splitter) feed(chunk []byte, t time.Time) {
	chunk = s.skipOverwritten(chunk)
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			s.collect(chunk)
			break
		}
		line := chunk[:i]
		chunk = chunk[i+1:]
		if !s.open && len(line) <= s.limit {
			s.batch = append(s.batch, trimEOL(line))
			continue
		}
		s.collect(line)
		s.flushBatch(t)
		s.hand([][]byte{s.cut()}, t)
	}
	s.flushBatch(t)
}

// skipOverwritten counts, without storing, the lines of a chunk that the
// chunk's own last RingTail lines would overwrite in the tail anyway, once
// the ring's head has what it needs, and returns the rest. A flood then
// costs a count of newlines for most lines.
func (s *splitter) skipOverwritten(chunk []byte) []byte {
	if s.open || s.fed < RingHead || len(chunk) < RingTail*2 {
		return chunk
	}
	n := bytes.Count(chunk, []byte{'\n'})
	if n <= RingTail+1 {
		return chunk
	}
	// Keep the last RingTail complete lines and whatever follows them.
	end := len(chunk)
	if chunk[end-1] != '\n' {
		end = bytes.LastIndexByte(chunk, '\n') + 1
	}
	cut := end - 1 // the newline ending the last complete line
	for range RingTail {
		cut = bytes.LastIndexByte(chunk[:cut], '\n')
	}
	s.out.skip(n - RingTail)
	return chunk[cut+1:]
}

func (s *splitter) hand(lines [][]byte, t time.Time) {
	s.fed += len(lines)
	s.out.appendLines(lines, t)
}

// collect adds part of a line that does not end in this chunk, or is too
// long to hand over as it is.
func (s *splitter) collect(b []byte) {
	s.open = true
	room := max(s.limit-len(s.partial), 0)
	keep := min(len(b), room)
	s.partial = append(s.partial, b[:keep]...)
	s.dropped += len(b) - keep
}

// cut ends the collected line: its text, with a note of the bytes cut.
func (s *splitter) cut() []byte {
	line := trimEOL(s.partial)
	if s.dropped > 0 {
		line = fmt.Appendf(line, " [... %s more bytes cut ...]", Thousands(s.dropped))
	}
	s.partial, s.open, s.dropped = s.partial[:0], false, 0
	if cap(s.partial) > maxIdleSlot {
		s.partial = nil
	}
	return line
}

func (s *splitter) flushBatch(t time.Time) {
	s.hand(s.batch, t)
	clear(s.batch)
	s.batch = s.batch[:0]
}

// finish records a last line without a newline.
func (s *splitter) finish(t time.Time) {
	if s.open && (len(s.partial) > 0 || s.dropped > 0) {
		s.hand([][]byte{s.cut()}, t)
	}
}

// trimEOL drops trailing carriage returns and newlines.
func trimEOL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\r' || b[len(b)-1] == '\n') {
		b = b[:len(b)-1]
	}
	return b
}

package wire

import (
	"bytes"
	"fmt"
	"io"
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

// drainLines reads r to its end and records every line in ring: one
// timestamp per read, lines cut at limit bytes with a note of how much was
// cut, and no allocation per line (lines that fit a chunk are handed to the
// ring as slices of the read buffer, which it copies).
func drainLines(r io.Reader, ring *Ring, limit int) {
	s := splitter{ring: ring, limit: limit}
	buf := make([]byte, stderrFirstChunk)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			s.feed(buf[:n], time.Now())
		}
		if n == len(buf) && len(buf) < stderrChunk {
			buf = make([]byte, 2*len(buf))
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
	ring    *Ring
	limit   int
	batch   [][]byte
	partial []byte
	open    bool // partial holds the start of a line (possibly empty so far)
	dropped int
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
		s.ring.appendLines([][]byte{s.cut()}, t)
	}
	s.flushBatch(t)
}

// skipOverwritten counts, without storing, the lines of a chunk that the
// chunk's own last RingTail lines would overwrite in the tail anyway, and
// returns the rest. A flood then costs a count of newlines for most lines.
func (s *splitter) skipOverwritten(chunk []byte) []byte {
	if s.open || len(chunk) < RingTail*2 {
		return chunk
	}
	n := bytes.Count(chunk, []byte{'\n'})
	if n <= RingTail+1 || !s.ring.headFull() {
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
	s.ring.skip(n - RingTail)
	return chunk[cut+1:]
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
	s.ring.appendLines(s.batch, t)
	clear(s.batch)
	s.batch = s.batch[:0]
}

// finish records a last line without a newline.
func (s *splitter) finish(t time.Time) {
	if s.open && (len(s.partial) > 0 || s.dropped > 0) {
		s.ring.appendLines([][]byte{s.cut()}, t)
	}
}

// trimEOL drops trailing carriage returns and newlines.
func trimEOL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\r' || b[len(b)-1] == '\n') {
		b = b[:len(b)-1]
	}
	return b
}

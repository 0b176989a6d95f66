package wire

import (
	"fmt"
	"time"
)

// Ring sizes from the specification: a crash diagnosis is usually in a
// server's first lines, which a plain tail would drop, so the head is kept too.
const (
	RingHead = 100
	RingTail = 1000
)

// Line is one line a target wrote, with when it arrived and its position in
// the stream (1-based, counting every line ever written, kept or not).
type Line struct {
	Seq  int       `json:"seq"`
	Time time.Time `json:"time"`
	Text string    `json:"text"`
}

// Ring keeps the first RingHead and the last RingTail lines of a stream. It
// belongs to one owner (a connection's actor), which fills it from its
// processes' StderrFeeds and answers every reader; it has no lock.
//
// One ring serves every process of a connection: positions run on across
// reconnects, with one marker line where one process ended and the next
// began (LifeMarker), so a cursor taken before a reconnect shows everything
// the new process wrote. The head is the connection's first RingHead lines
// (its first process's start-up, where a crash's cause usually is) and the
// tail its last RingTail lines, so memory stays bounded however often it is
// restarted; a report about one process reads from where that process's
// lines began.
type Ring struct {
	head  []Line
	tail  []slot // circular once full
	start int    // index of the oldest line in tail
	total int
}

// slot is one tail line. Its bytes are reused when the line is overwritten,
// so a flood of stderr costs no allocation per line: the string a reader
// gets is made when it asks, for the few lines it asks about.
type slot struct {
	seq  int
	t    time.Time
	text []byte
}

// maxIdleSlot is the capacity past which a slot's buffer is given back when
// a much shorter line takes its place, so one burst of long lines does not
// pin RingTail times their size for the rest of the connection.
const maxIdleSlot = 4 << 10

// NewRing returns an empty ring.
func NewRing() *Ring { return &Ring{} }

// Append records one line that arrived at t (run-mcp's own marker lines).
func (r *Ring) Append(text string, t time.Time) { r.put(text, nil, t) }

// AppendBatch records what a StderrFeed handed over, with the lines it
// dropped counted in their place.
func (r *Ring) AppendBatch(b StderrBatch) {
	for i, l := range b.lines {
		r.total += l.skipped
		r.put("", b.line(i), l.t)
	}
	r.total += b.trailer
}

// put records one line given as a string or as bytes (b != nil).
func (r *Ring) put(s string, b []byte, t time.Time) {
	r.total++
	switch {
	case len(r.head) < RingHead:
		if b != nil {
			s = string(b)
		}
		r.head = append(r.head, Line{Seq: r.total, Time: t, Text: s})
		return
	case len(r.tail) < RingTail:
		r.tail = append(r.tail, slot{})
	default:
		r.start = (r.start + 1) % RingTail
	}
	sl := &r.tail[(r.start+len(r.tail)-1)%len(r.tail)]
	n := len(s)
	if b != nil {
		n = len(b)
	}
	if cap(sl.text) > maxIdleSlot && cap(sl.text) > 4*n {
		sl.text = nil
	}
	if b != nil {
		sl.text = append(sl.text[:0], b...)
	} else {
		sl.text = append(sl.text[:0], s...)
	}
	sl.seq, sl.t = r.total, t
}

// LifeMarker is the line between two processes of one connection:
// "[--- process 4242 ended: The server exited with code 1.; process 4250 started ---]".
func LifeMarker(oldPid int, ended string, newPid int) string {
	return fmt.Sprintf("[--- process %d ended: %s; process %d started ---]", oldPid, ended, newPid)
}

// Total is the number of lines ever written, which is also the cursor a
// reader passes as since to see only what comes next.
func (r *Ring) Total() int { return r.total }

// Excerpt is what a reader gets: the kept lines after a cursor, and how many
// lines between them were dropped.
type Excerpt struct {
	Lines []Line
	// Elided is the number of lines dropped between the head and the tail
	// that fall in the requested range; the gap sits before the line whose
	// Seq is ElidedBefore.
	Elided       int
	ElidedBefore int
	Total        int
}

// Since returns the kept lines with Seq > since (since 0 = everything).
func (r *Ring) Since(since int) Excerpt {
	ex := Excerpt{Total: r.total}
	for _, l := range r.head {
		if l.Seq > since {
			ex.Lines = append(ex.Lines, l)
		}
	}
	tail, first := r.orderedTail(since)
	if len(r.tail) > 0 {
		lastHead := 0
		if len(r.head) > 0 {
			lastHead = r.head[len(r.head)-1].Seq
		}
		gapFrom := max(lastHead, since) + 1
		if first > gapFrom {
			ex.Elided = first - gapFrom
			ex.ElidedBefore = first
		}
	}
	ex.Lines = append(ex.Lines, tail...)
	return ex
}

// Last returns the last n kept lines (n <= 0: all of them, as Since(0)).
func (r *Ring) Last(n int) Excerpt {
	if n <= 0 {
		return r.Since(0)
	}
	ex := r.Since(max(r.total-n, 0))
	if len(ex.Lines) > n {
		ex.Lines = ex.Lines[len(ex.Lines)-n:]
	}
	if ex.Elided > 0 && len(ex.Lines) > 0 && ex.Lines[0].Seq > ex.ElidedBefore {
		ex.Elided = 0
	}
	return ex
}

// orderedTail is the tail as lines, oldest first; only lines with Seq >
// since are turned into strings.
func (r *Ring) orderedTail(since int) (lines []Line, first int) {
	n := len(r.tail)
	if n == 0 {
		return nil, 0
	}
	oldest := 0
	if n == RingTail {
		oldest = r.start
	}
	first = r.tail[oldest].seq
	for k := range n {
		sl := &r.tail[(oldest+k)%n]
		if sl.seq > since {
			lines = append(lines, Line{Seq: sl.seq, Time: sl.t, Text: string(sl.text)})
		}
	}
	return lines, first
}

// Marker is the line that stands where lines were dropped, so the gap is
// visible instead of silent: "[... 137 of 1,237 lines elided ...]".
func Marker(elided, total int) string {
	return fmt.Sprintf("[... %s of %s lines elided ...]", Thousands(elided), Thousands(total))
}

// Render formats an excerpt one line each, with the marker in its place.
// With stamps each line reads "12:01:03.412 #42 text".
func (ex Excerpt) Render(stamps bool) []string {
	out := make([]string, 0, len(ex.Lines)+1)
	for _, l := range ex.Lines {
		if ex.Elided > 0 && l.Seq == ex.ElidedBefore {
			out = append(out, Marker(ex.Elided, ex.Total))
		}
		if stamps {
			out = append(out, fmt.Sprintf("%s #%d  %s", l.Time.Format("15:04:05.000"), l.Seq, l.Text))
		} else {
			out = append(out, l.Text)
		}
	}
	return out
}

// Thousands formats n with commas, as the specification's messages do.
func Thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + Thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Trim keeps the first head and the last tail lines of an excerpt, folding
// everything between them into the one gap, so a report shows both how the
// server started (where a crash's cause usually is) and how it ended.
func (ex Excerpt) Trim(head, tail int) Excerpt {
	if len(ex.Lines) <= head+tail {
		return ex
	}
	first, last := ex.Lines[:head], ex.Lines[len(ex.Lines)-tail:]
	out := Excerpt{Total: ex.Total, Lines: append(append([]Line(nil), first...), last...)}
	out.ElidedBefore = last[0].Seq
	out.Elided = last[0].Seq - first[len(first)-1].Seq - 1
	return out
}

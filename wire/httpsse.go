package wire

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"time"
)

// Bounds on the fields of an event other than data: a longer name or value
// makes the field one the reader ignores.
const (
	maxFieldName  = 16
	maxFieldValue = 4 << 10
)

// sseEvent is one dispatched server-sent event.
type sseEvent struct {
	typ  string // "message" when the server named none
	data []byte
}

// The kinds of field a line of an event stream can carry.
const (
	fieldIgnored = iota // unknown, a comment, or over a bound
	fieldData
	fieldID
	fieldEvent
	fieldRetry
)

// sseReader reads an event stream as the WHATWG HTML standard says a browser
// does: a line ends in CRLF, LF or CR; "data" lines are joined with LF; "id"
// sets the last event ID and "retry" the reconnection time; a line that
// starts with a colon is a comment; a blank line dispatches the event; an
// event the stream ends in the middle of is dropped.
//
// No line is ever held whole: data goes straight into the event, in blocks,
// and the other fields are bounded. An event whose data is over MaxMessage
// is an error (a TooLargeError, see discardBudget), so memory stays bounded
// whatever the server sends.
type sseReader struct {
	br *bufio.Reader
	// pending is what is left of the last slice read, not yet parsed.
	pending []byte
	// readErr is the error that came with it, returned once it is parsed.
	readErr error

	// The line being read.
	lineLen  int
	name     []byte
	nameOver bool
	inValue  bool // past the colon
	lstrip   bool // a space next is the one after the colon, dropped
	field    int
	value    []byte
	valOver  bool
	afterCR  bool // the last line ended in CR: a LF next belongs to it

	// The event being read.
	counts     bool // it has data or an id: it is an event to count
	data       blocks
	hasData    bool
	discarding bool  // its data is over the cap: counted, not kept
	size       int64 // its data's size, while discarding
	typ        string

	// What a resume needs, and whether this stream brought anything.
	idBuffer string
	lastID   string
	retry    time.Duration
	hasRetry bool
	events   int // events with data or an id so far (comments do not count)
}

// sseBuffer is the read buffer of one stream. It bounds nothing (a line
// may be of any length), and every call in flight has a stream, so it is
// small.
const sseBuffer = 8 << 10

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{br: bufio.NewReaderSize(r, sseBuffer)}
}

// next returns the next event with data. The error is io.EOF when the
// stream ended, a TooLargeError (possibly wrapped) for an event over
// MaxMessage, or the read's.
func (p *sseReader) next() (sseEvent, error) {
	for {
		if len(p.pending) == 0 {
			if p.readErr != nil && !errors.Is(p.readErr, bufio.ErrBufferFull) {
				return sseEvent{}, p.endOfStream(p.readErr)
			}
			p.pending, p.readErr = p.br.ReadSlice('\n')
			if len(p.pending) == 0 && p.readErr == nil {
				continue
			}
		}
		ev, ok, err := p.parse()
		if err != nil || ok {
			return ev, err
		}
	}
}

// endOfStream is the error a stream ends with: a read error, or an event
// over the cap that the stream ended in the middle of.
func (p *sseReader) endOfStream(err error) error {
	if p.discarding && errors.Is(err, io.EOF) {
		return tooLarge(p.size, true)
	}
	return err
}

// parse consumes pending up to the end of the next event with data.
func (p *sseReader) parse() (sseEvent, bool, error) {
	for len(p.pending) > 0 {
		b := p.pending
		if p.afterCR {
			p.afterCR = false
			if b[0] == '\n' {
				p.pending = b[1:]
				continue
			}
		}
		i := lineEnd(b)
		if i < 0 {
			p.pending = nil
			return sseEvent{}, false, p.feed(b)
		}
		if err := p.feed(b[:i]); err != nil {
			return sseEvent{}, false, err
		}
		p.afterCR = b[i] == '\r'
		p.pending = b[i+1:]
		ev, ok, err := p.endLine()
		if err != nil || ok {
			return ev, ok, err
		}
	}
	return sseEvent{}, false, nil
}

// lineEnd is the index of the first CR or LF in b, or -1. (Two searches
// for one byte each are many times faster than one for either.)
func lineEnd(b []byte) int {
	lf := bytes.IndexByte(b, '\n')
	head := b
	if lf >= 0 {
		head = b[:lf]
	}
	if cr := bytes.IndexByte(head, '\r'); cr >= 0 {
		return cr
	}
	return lf
}

// feed takes the next part of a line.
func (p *sseReader) feed(b []byte) error {
	p.lineLen += len(b)
	for len(b) > 0 {
		if !p.inValue {
			colon := bytes.IndexByte(b, ':')
			name := b
			if colon >= 0 {
				name = b[:colon]
			}
			p.addName(name)
			if colon < 0 {
				return nil
			}
			p.inValue, p.lstrip = true, true
			p.startField()
			b = b[colon+1:]
			continue
		}
		if p.lstrip {
			p.lstrip = false
			if b[0] == ' ' {
				b = b[1:]
				continue
			}
		}
		return p.addValue(b)
	}
	return nil
}

func (p *sseReader) addName(b []byte) {
	if len(p.name)+len(b) > maxFieldName {
		p.nameOver = true
		return
	}
	p.name = append(p.name, b...)
}

// startField decides, once a line's name is known, what its value is for.
func (p *sseReader) startField() {
	p.field = fieldIgnored
	if p.nameOver {
		return
	}
	switch string(p.name) {
	case "data":
		p.field, p.counts = fieldData, true
		if p.hasData {
			_ = p.addData([]byte{'\n'})
		}
		p.hasData = true
	case "id":
		p.field = fieldID
	case "event":
		p.field = fieldEvent
	case "retry":
		p.field = fieldRetry
	}
}

func (p *sseReader) addValue(b []byte) error {
	switch p.field {
	case fieldData:
		return p.addData(b)
	case fieldIgnored:
		return nil
	}
	if len(p.value)+len(b) > maxFieldValue {
		p.valOver = true
		return nil
	}
	p.value = append(p.value, b...)
	return nil
}

// addData adds to the event's data; past MaxMessage the data is counted,
// not kept, until the event ends or discardBudget is spent.
func (p *sseReader) addData(b []byte) error {
	if !p.discarding {
		if p.data.write(b) {
			return nil
		}
		p.discarding, p.size = true, int64(p.data.n)
		p.data.reset()
	}
	p.size += int64(len(b))
	if p.size > MaxMessage+discardBudget {
		return tooLarge(p.size, false)
	}
	return nil
}

// endLine acts on the line just read; a blank line ends the event, which is
// returned if it has data.
func (p *sseReader) endLine() (sseEvent, bool, error) {
	blank := p.lineLen == 0
	if !blank {
		if !p.inValue { // a line without a colon is a name with an empty value
			p.startField()
		}
		p.endField()
	}
	p.lineLen, p.name, p.nameOver, p.inValue, p.lstrip = 0, p.name[:0], false, false, false
	p.field, p.value, p.valOver = fieldIgnored, p.value[:0], false
	if !blank {
		return sseEvent{}, false, nil
	}
	return p.dispatch()
}

func (p *sseReader) endField() {
	if p.valOver {
		return
	}
	switch p.field {
	case fieldID:
		if bytes.IndexByte(p.value, 0) < 0 {
			p.idBuffer, p.counts = string(p.value), true
		}
	case fieldEvent:
		p.typ = string(p.value)
	case fieldRetry:
		if len(p.value) > 0 && len(bytes.Trim(p.value, "0123456789")) == 0 {
			if ms, err := strconv.ParseInt(string(p.value), 10, 32); err == nil {
				p.retry, p.hasRetry = time.Duration(ms)*time.Millisecond, true
			}
		}
	}
}

// dispatch ends an event: the last event ID takes the ID buffer's value
// (even for an event without data, which is how a server primes a client to
// resume), and an event with data is returned.
func (p *sseReader) dispatch() (sseEvent, bool, error) {
	p.lastID = p.idBuffer
	if p.counts {
		p.events++
	}
	ev := sseEvent{typ: p.typ}
	if ev.typ == "" {
		ev.typ = "message"
	}
	discarding, size, hasData := p.discarding, p.size, p.hasData && p.data.n > 0
	if hasData {
		ev.data = p.data.bytes()
	}
	p.counts, p.hasData, p.discarding, p.size, p.typ = false, false, false, 0, ""
	p.data.reset()
	if discarding {
		return sseEvent{}, false, tooLarge(size, true)
	}
	return ev, hasData, nil
}

// defaultRetry is the wait before a stream is reopened when the server
// asked for none.
const defaultRetry = time.Second

// delay is how long to wait before reopening the stream: what the server
// asked for with its last retry field, or defaultRetry.
func (p *sseReader) delay() time.Duration {
	if p.hasRetry {
		return p.retry
	}
	return defaultRetry
}

// resumeOn goes on reading from r, a stream reopened with Last-Event-ID:
// whatever was half read is dropped, the last event ID and the retry delay
// are kept.
func (p *sseReader) resumeOn(r io.Reader) {
	p.br.Reset(r)
	p.pending, p.readErr = nil, nil
	p.lineLen, p.name, p.nameOver, p.inValue, p.lstrip = 0, p.name[:0], false, false, false
	p.field, p.value, p.valOver, p.afterCR = fieldIgnored, p.value[:0], false, false
	p.counts, p.hasData, p.discarding, p.size, p.typ = false, false, false, 0, ""
	p.data.reset()
	p.idBuffer = p.lastID
}

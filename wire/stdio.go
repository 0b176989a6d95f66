package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// WriteTimeout bounds a write to a target that stopped reading its stdin:
// the requests in that write then fail instead of waiting for ever.
const WriteTimeout = 30 * time.Second

// ClosedError is why a request can no longer be answered: the channel to the
// target is gone. Reason is why (end of file, an oversized message, a
// broken pipe).
type ClosedError struct{ Reason error }

func (e *ClosedError) Error() string {
	if e.Reason == nil || errors.Is(e.Reason, io.EOF) || errors.Is(e.Reason, os.ErrClosed) {
		return "Connection closed"
	}
	return "Connection closed: " + e.Reason.Error()
}

func (e *ClosedError) Unwrap() error { return e.Reason }

// ErrChannelClosed is what Send answers once the channel has been closed.
var ErrChannelClosed = &ClosedError{}

// Stdio is the Channel over a target's pipes. One goroutine reads the
// target's stdout and hands the sink each burst of lines it read together as
// one Inbound; writes never wait on a target that stopped reading: a write
// the pipe cannot take at once is finished by a goroutine of its own, and
// what is sent meanwhile queues behind it, in order.
type Stdio struct {
	r    io.Reader      // the target's stdout; closed once read to its end
	w    io.WriteCloser // the target's stdin
	sink chan<- Inbound

	mu       sync.Mutex // guards what follows
	queue    []queued   // frames waiting for the drain, in order
	draining bool
	closed   bool
	drained  chan struct{} // closed when the drain goroutine ends (nil: none running)

	// writeTimeout is WriteTimeout (tests shorten it).
	writeTimeout time.Duration
	done         chan struct{}

	// awaited are the tool calls sent and not yet answered: the reader
	// decodes a big answer to one as a tool result at once.
	awaited awaitedCalls
}

// queued is a frame, or the rest of one, waiting to be written.
type queued struct {
	key string
	msg []byte
}

// NewStdio starts reading r (the target's stdout) into sink and writes to w
// (its stdin). The owner must read sink until an Inbound with Closed.
func NewStdio(r io.Reader, w io.WriteCloser, sink chan<- Inbound) *Stdio {
	s := &Stdio{r: r, w: w, sink: sink, done: make(chan struct{}), writeTimeout: WriteTimeout}
	go s.readLoop()
	return s
}

var _ Channel = (*Stdio)(nil)

// Done is closed once the last Inbound has been handed over.
func (s *Stdio) Done() <-chan struct{} { return s.done }

// Forget takes key off the awaited tool calls; a late answer is the
// owner's to drop.
func (s *Stdio) Forget(key string) { s.awaited.answered(key) }

// Close closes the target's stdin. Reading goes on until the target's stdout
// ends, which the process's owner brings about by stopping it. A write
// blocked on a target that stopped reading ends at once with an error.
func (s *Stdio) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	err := s.w.Close()
	if errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}

// Send writes o as one line. The pipe takes it at once in the common case;
// otherwise it joins the queue that one goroutine writes, under the write
// deadline. It fails only once the channel is closed.
func (s *Stdio) Send(o Outbound) error {
	msg := make([]byte, len(o.Msg)+1)
	copy(msg, o.Msg)
	msg[len(o.Msg)] = '\n'
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrChannelClosed
	}
	s.awaited.sent(o) // before it is written: the answer may come at once
	if s.draining {
		s.queue = append(s.queue, queued{key: o.Key, msg: msg})
		return nil
	}
	n, tried, err := tryWrite(s.w, msg)
	switch {
	case tried && err != nil:
		return &ClosedError{Reason: fmt.Errorf("write to the server's stdin: %w", err)}
	case tried && n == len(msg):
		return nil
	}
	s.queue = append(s.queue, queued{key: o.Key, msg: msg[n:]})
	s.draining = true
	s.drained = make(chan struct{})
	go s.drain(s.drained)
	return nil
}

// drain writes the queue until it is empty, a batch per write, each under
// WriteTimeout. The requests of a batch that cannot be written are reported
// as failures; what was cut mid-line is finished before the next batch, so
// the target never reads half a line glued to another.
func (s *Stdio) drain(done chan struct{}) {
	defer close(done)
	var batch []byte
	var keys []string
	var rest []byte
	for {
		s.mu.Lock()
		frames := s.queue
		s.queue = nil
		if len(frames) == 0 && len(rest) == 0 {
			s.draining = false
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		batch, keys = append(batch[:0], rest...), keys[:0]
		for _, q := range frames {
			batch = append(batch, q.msg...)
			if q.key != "" {
				keys = append(keys, q.key)
			}
		}
		n, err := s.writeWithDeadline(batch)
		if err == nil {
			rest = nil
			continue
		}
		rest = append([]byte(nil), batch[n:]...)
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			s.fail(keys, &ClosedError{Reason: fmt.Errorf("write to the server's stdin: %w", err)})
			s.mu.Lock()
			s.queue, s.draining = nil, false
			s.mu.Unlock()
			return
		}
		s.fail(keys, fmt.Errorf("the server is not reading its stdin: a write of %d bytes did not complete within %s", len(batch), s.writeTimeout))
	}
}

type deadliner interface{ SetWriteDeadline(time.Time) error }

// writeWithDeadline writes b within WriteTimeout where the writer supports
// deadlines, and clears the deadline after, so that it cannot fail a later
// write on a target that reads fine.
func (s *Stdio) writeWithDeadline(b []byte) (int, error) {
	if d, ok := s.w.(deadliner); ok {
		_ = d.SetWriteDeadline(time.Now().Add(s.writeTimeout))
		defer func() { _ = d.SetWriteDeadline(time.Time{}) }()
	}
	return s.w.Write(b)
}

// fail reports requests that could not be written.
func (s *Stdio) fail(keys []string, err error) {
	if len(keys) == 0 {
		return
	}
	in := Inbound{Failed: make([]Failure, len(keys))}
	for i, k := range keys {
		in.Failed[i] = Failure{Key: k, Err: err}
	}
	s.sink <- in
}

// readLoop reads the target's stdout to its end. Lines read together (the
// reader's buffer still holds more) go to the sink as one Inbound.
func (s *Stdio) readLoop() {
	defer close(s.done)
	br := bufio.NewReaderSize(s.r, 16<<10)
	var in Inbound
	d := decoder{awaited: &s.awaited}
	var err error
	for {
		var line []byte
		line, err = readMessage(br, MaxMessage)
		if len(line) > 0 {
			d.line(&in, line, time.Now())
		}
		if err != nil {
			break
		}
		if br.Buffered() == 0 && !in.empty() {
			s.sink <- in
			in = Inbound{}
		}
	}
	var tooLarge *TooLargeError
	if errors.As(err, &tooLarge) {
		d.lines++
		in.Errors = append(in.Errors, TransportError{Time: time.Now(), Line: d.lines, Message: err.Error()})
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = io.EOF // the process's owner cut the pipe once its server was gone
	}
	if c, ok := s.r.(io.Closer); ok {
		_ = c.Close() // the channel is the stdout's one reader
	}
	// A write still waiting on a target that is gone would hold the drain:
	// closing stdin ends it, and the drain's failures come before the end.
	_ = s.Close()
	s.mu.Lock()
	drained := s.drained
	s.mu.Unlock()
	if drained != nil {
		<-drained
	}
	in.Closed, in.Err = true, err
	s.sink <- in
}

func (in *Inbound) empty() bool {
	return len(in.Messages) == 0 && len(in.Noise) == 0 && len(in.Errors) == 0 && len(in.Failed) == 0
}

// decoder turns the lines a target writes to stdout into messages, noise and
// transport errors, numbering the lines as it goes.
type decoder struct {
	lines   int
	awaited *awaitedCalls
}

// envelope is a JSON-RPC message as encoding/json reads it. Params and
// Result alias the line instead of copying it (a 20 MB result is then held
// once): the line belongs to this one message and is never reused.
type envelope struct {
	JSONRPC *string         `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  aliasRaw        `json:"params"`
	Result  aliasRaw        `json:"result"`
	Error   *RPCError       `json:"error"`
}

// aliasRaw keeps the bytes of a JSON value without copying them.
type aliasRaw []byte

func (a *aliasRaw) UnmarshalJSON(b []byte) error {
	*a = b
	return nil
}

// line classifies one line of the target's stdout into in.
func (d *decoder) line(in *Inbound, line []byte, now time.Time) {
	d.lines++
	line = bytes.TrimRight(line, "\r\n")
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return
	}
	if trimmed[0] != '{' {
		d.notJSONRPC(in, line, now, "a JSON value that is not a JSON-RPC message object")
		return
	}
	if len(trimmed) >= bigAnswer && d.awaited.waiting() {
		if m, ok := d.toolAnswer(trimmed, now); ok {
			in.Messages = append(in.Messages, m)
			return
		}
	}
	var env envelope
	if err := json.Unmarshal(trimmed, &env); err != nil {
		d.notJSONRPC(in, line, now, "JSON that does not fit a JSON-RPC message: "+JSONWords(err))
		return
	}
	m := Message{ID: env.ID, Params: json.RawMessage(env.Params), Result: json.RawMessage(env.Result), Error: env.Error, Line: d.lines, Time: now}
	if env.Method != nil {
		m.Method = *env.Method
	}
	if string(bytes.TrimSpace(m.ID)) == "null" {
		m.ID = nil
	}
	if problem := env.problem(); problem != "" {
		in.Errors = append(in.Errors, TransportError{Time: now, Line: d.lines, Message: problem + ": " + excerpt(line)})
		if env.Method != nil && m.ID != nil && validID(m.ID) {
			// A request with an empty method is still a request: its
			// sender waits for an answer, which the owner gives (an error).
			m.Invalid = problem
			in.Messages = append(in.Messages, m)
		}
		return
	}
	if env.Method == nil {
		d.awaited.answered(IDKey(m.ID))
	}
	in.Messages = append(in.Messages, m)
}

// notJSONRPC files a line under noise (not JSON at all) or transport errors
// (JSON, but not a JSON-RPC message).
func (d *decoder) notJSONRPC(in *Inbound, line []byte, now time.Time, reason string) {
	if !json.Valid(line) {
		in.Noise = append(in.Noise, Noise{Time: now, Line: d.lines, Text: clipText(string(line))})
		return
	}
	in.Errors = append(in.Errors, TransportError{Time: now, Line: d.lines, Message: reason + ": " + excerpt(line)})
}

// problem names how a message breaks JSON-RPC 2.0 ("" when it does not).
func (env *envelope) problem() string {
	hasID := len(env.ID) > 0 && string(bytes.TrimSpace(env.ID)) != "null"
	switch {
	case env.JSONRPC == nil || *env.JSONRPC != "2.0":
		return `a message without "jsonrpc": "2.0"`
	case env.Method != nil && *env.Method == "":
		return "a message with an empty method"
	case hasID && !validID(env.ID):
		return "a message whose id is neither a string nor a number"
	case env.Method == nil && !hasID && env.Error == nil:
		return "a message with neither a method nor an id"
	case env.Method == nil && env.Result == nil && env.Error == nil:
		return "a response with neither a result nor an error"
	}
	return ""
}

// validID says a JSON-RPC id is a string or a number.
func validID(id json.RawMessage) bool {
	id = bytes.TrimSpace(id)
	if len(id) == 0 {
		return false
	}
	switch c := id[0]; {
	case c == '"':
		return true
	case c == '-' || (c >= '0' && c <= '9'):
		var n json.Number
		return json.Unmarshal(id, &n) == nil
	}
	return false
}

func excerpt(line []byte) string {
	if len(line) > 200 {
		return string(line[:200]) + "…"
	}
	return string(line)
}

// clipText bounds one piece of evidence.
func clipText(s string) string {
	if len(s) > maxEvidenceText {
		return s[:maxEvidenceText] + "…"
	}
	return s
}

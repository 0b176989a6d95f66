package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// A message from an HTTP target is collected in blocks: growing it never
// copies what it already holds, so a message that turns out to be over
// MaxMessage has cost at most MaxMessage (plus one block) when it is
// dropped, and a body of any size is read in bounded memory.
const (
	firstBlock = 4 << 10
	maxBlock   = 1 << 20
)

// discardBudget is how much more of a message over MaxMessage is read,
// without being kept, to name its size exactly. Past it the channel stops
// reading and says the message is over what it read: an endless body must
// not keep the channel busy.
const discardBudget = MaxMessage

// blocks collects one message's bytes, up to MaxMessage. Its zero value is
// empty and ready.
type blocks struct {
	parts [][]byte
	n     int
}

// write appends p, or keeps none of it and returns false when the message
// would grow past MaxMessage.
func (b *blocks) write(p []byte) bool {
	if b.n+len(p) > MaxMessage {
		return false
	}
	b.n += len(p)
	for len(p) > 0 {
		last := len(b.parts) - 1
		if last < 0 || len(b.parts[last]) == cap(b.parts[last]) {
			size := maxBlock
			if last < 0 {
				size = firstBlock
			} else if c := 2 * cap(b.parts[last]); c < maxBlock {
				size = c
			}
			b.parts = append(b.parts, make([]byte, 0, size))
			last++
		}
		k := min(len(p), cap(b.parts[last])-len(b.parts[last]))
		b.parts[last] = append(b.parts[last], p[:k]...)
		p = p[k:]
	}
	return true
}

// bytes returns the message in one slice the caller then owns, and leaves b
// empty.
func (b *blocks) bytes() []byte {
	var out []byte
	if len(b.parts) == 1 {
		out = b.parts[0]
	} else {
		out = make([]byte, 0, b.n)
		for _, p := range b.parts {
			out = append(out, p...)
		}
	}
	b.reset()
	return out
}

func (b *blocks) reset() { b.parts, b.n = nil, 0 }

// overCapError is a message over MaxMessage that was not read to its end
// (see discardBudget): it is a TooLargeError whose Size is what was read,
// and its words say the message is over that.
type overCapError struct{ tl *TooLargeError }

func (e *overCapError) Error() string {
	return strings.Replace(e.tl.Error(), "a message of ", "a message of over ", 1)
}

func (e *overCapError) Unwrap() error { return e.tl }

// tooLarge is the error for a message of at least size bytes; finished says
// its end was read, so size is exact.
func tooLarge(size int64, finished bool) error {
	tl := &TooLargeError{Size: size}
	if finished {
		return tl
	}
	return &overCapError{tl: tl}
}

// readBody reads a JSON body of at most MaxMessage bytes. length is the
// body's declared length (-1: unknown): a body declared over the cap is
// refused without reading it, one declared under it is read into one
// buffer of that size, and one of unknown length is collected in blocks.
func readBody(r io.Reader, length int64) ([]byte, error) {
	if length > MaxMessage {
		return nil, tooLarge(length, true)
	}
	if length >= 0 { // net/http holds the body to its declared length
		data := make([]byte, length)
		_, err := io.ReadFull(r, data)
		return data, err
	}
	var b blocks
	buf := make([]byte, 16<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if !b.write(buf[:n]) {
				read := int64(b.n) + int64(n)
				b.reset()
				return nil, discardBody(r, buf, read)
			}
		}
		if errors.Is(err, io.EOF) {
			return b.bytes(), nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// discardBody reads what is left of a body over the cap, keeping none of
// it, for at most discardBudget bytes; read is what was read before.
func discardBody(r io.Reader, buf []byte, read int64) error {
	n, err := io.CopyBuffer(io.Discard, io.LimitReader(r, discardBudget+1), buf)
	read += n
	if err == nil && n <= discardBudget {
		return tooLarge(read, true)
	}
	return tooLarge(read, false)
}

// rawAlias keeps a JSON value's bytes without copying them: the body it
// points into belongs to the one message decoded from it.
type rawAlias []byte

func (a *rawAlias) UnmarshalJSON(b []byte) error {
	*a = b
	return nil
}

// rpcEnvelope is a JSON-RPC message as encoding/json decodes it.
type rpcEnvelope struct {
	JSONRPC string    `json:"jsonrpc"`
	ID      rawAlias  `json:"id"`
	Method  *string   `json:"method"`
	Params  rawAlias  `json:"params"`
	Result  rawAlias  `json:"result"`
	Error   *RPCError `json:"error"`
}

// decodeMessages reads the JSON-RPC messages in one body or SSE event: a
// message, or (from a server of the 2025-03-26 revision) a batch of them.
// What is not JSON-RPC comes back as transport errors, with an excerpt;
// where says where it came from ("the response to POST http://…").
func decodeMessages(data []byte, where string, now time.Time) ([]Message, []TransportError) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var batch []rawAlias
		if err := json.Unmarshal(trimmed, &batch); err != nil {
			return nil, []TransportError{notRPC(where, trimmed, now, "text that is not JSON ("+JSONWords(err)+")")}
		}
		var msgs []Message
		var errs []TransportError
		for _, one := range batch {
			m, terr, ok := decodeMessage(one, where, now)
			if ok {
				msgs = append(msgs, m)
			} else {
				errs = append(errs, terr)
			}
		}
		return msgs, errs
	}
	m, terr, ok := decodeMessage(trimmed, where, now)
	if !ok {
		return nil, []TransportError{terr}
	}
	return []Message{m}, nil
}

func decodeMessage(data []byte, where string, now time.Time) (Message, TransportError, bool) {
	if len(data) == 0 || data[0] != '{' {
		reason := "a JSON value that is not a JSON-RPC message object"
		if !json.Valid(data) {
			reason = "text that is not JSON"
		}
		return Message{}, notRPC(where, data, now, reason), false
	}
	var env rpcEnvelope
	if err := json.Unmarshal(data, &env); err != nil {
		return Message{}, notRPC(where, data, now, "JSON that does not fit a JSON-RPC message ("+JSONWords(err)+")"), false
	}
	id := json.RawMessage(env.ID)
	if bytes.Equal(bytes.TrimSpace(id), []byte("null")) {
		id = nil
	}
	var problem string
	switch {
	case env.JSONRPC != "2.0":
		problem = `a message without "jsonrpc": "2.0"`
	case env.Method != nil && *env.Method == "":
		problem = "a message with an empty method"
	case env.Method == nil && id == nil:
		problem = "a message with neither a method nor an id"
	case env.Method == nil && env.Result == nil && env.Error == nil:
		problem = "a response with neither a result nor an error"
	}
	if problem != "" {
		return Message{}, notRPC(where, data, now, problem), false
	}
	m := Message{ID: id, Params: json.RawMessage(env.Params), Result: json.RawMessage(env.Result),
		Error: env.Error, Time: now}
	if env.Method != nil {
		m.Method = *env.Method
	}
	return m, TransportError{}, true
}

func notRPC(where string, data []byte, now time.Time, reason string) TransportError {
	return TransportError{Time: now, Message: fmt.Sprintf("%s was %s: %s", where, reason, clip(data))}
}

// clipLen is the most of a body or message an error quotes.
const clipLen = 200

// clip quotes the start of a body for an error: valid UTF-8, runs of white
// space folded into one space, at most clipLen bytes, "…" when cut.
func clip(b []byte) string {
	head := b[:min(len(b), 4*clipLen)]
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(head), "?")), " ")
	if len(s) <= clipLen {
		if len(head) < len(b) {
			return s + "…"
		}
		return s
	}
	cut := clipLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

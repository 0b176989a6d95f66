package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/run-mcp/run-mcp/wire"
)

// Limits on one line of the protocol. A request carries tool arguments, so
// it is as large as a one-shot command allows them to be (64 MiB, the cap
// on one message on the wire, wire.MaxMessage) with room for the rest of
// the request: the command's words, working directory and env names, which
// the system's limit on a command line (ARG_MAX, 2 MiB on Linux) bounds. It
// is never unbounded: the daemon does not read a 1 GB line into memory. A
// reply carries a tool result (large text is spilled to disk by the
// interceptor before it gets here).
const (
	MaxRequest = maxArgs + 4<<20
	MaxReply   = 256 << 20
	maxArgs    = wire.MaxMessage
)

// TooLargeError is a line over the limit; Size counts what was read of it
// (all of it when the line ended before the read deadline).
type TooLargeError struct{ Size, Limit int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("request too large: %d bytes (limit %d)", e.Size, e.Limit)
}

// ReadLine reads one line of at most limit bytes (without its newline). A
// longer line is read on to its end without being kept, so the answer can
// say how long it was, and fails with *TooLargeError.
func ReadLine(r *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	var size int64
	for {
		chunk, err := r.ReadSlice('\n')
		size += int64(len(chunk))
		if size <= int64(limit)+1 { // +1: the newline does not count
			line = append(line, chunk...)
		} else {
			line = nil
		}
		switch {
		case err == nil:
			if size > int64(limit)+1 {
				return nil, &TooLargeError{Size: size - 1, Limit: int64(limit)}
			}
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case size > int64(limit):
			return nil, &TooLargeError{Size: size, Limit: int64(limit)}
		case errors.Is(err, io.EOF) && size > 0:
			return line, nil // the last line, without its newline
		}
		return nil, err
	}
}

// encodeLine is v as one line of the protocol: encoding/json, newline
// included. HTML characters are written as they are, not as \u003c and the
// like, so a request or reply is no larger than what it carries needs.
func encodeLine(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// EncodeArgs is the arguments object of a request: v in JSON, its HTML
// characters as they are (see encodeLine), so arguments a one-shot command
// takes fit a sessioned request too.
func EncodeArgs(v any) (json.RawMessage, error) {
	b, err := encodeLine(v)
	if err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b, []byte("\n")), nil
}

package wire

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
)

// MaxMessage is the cap on one message from a target. Past it the connection
// is closed: decoding a message costs several times its size in memory, and a
// tool with that much to say should write a file and return its path.
const MaxMessage = 64 << 20

// TooLargeError says a target sent a message over MaxMessage.
type TooLargeError struct{ Size int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the server sent a message of %s bytes, over the %d MB cap on one message; "+
		"run-mcp closed the connection rather than let its memory grow without bound. "+
		"A tool with that much to say should write it to a file and return the path",
		Thousands(int(e.Size)), MaxMessage>>20)
}

// readMessage reads one line into a buffer the caller owns. A line over limit
// is read to its end without being kept, so the error can name its size.
func readMessage(br *bufio.Reader, limit int) ([]byte, error) {
	chunk, err := br.ReadSlice('\n')
	if err == nil || !errors.Is(err, bufio.ErrBufferFull) {
		return append([]byte(nil), chunk...), err
	}
	buf := append(make([]byte, 0, 2*len(chunk)), chunk...)
	for {
		chunk, err = br.ReadSlice('\n')
		if len(bytes.TrimRight(chunk, "\r\n"))+len(buf) > limit {
			return nil, discardRest(br, int64(len(buf)+len(chunk)), err)
		}
		buf = appendDoubling(buf, chunk, limit)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, err
		}
	}
}

// copyStep is the most copied at once while a line grows.
const copyStep = 256 << 10

// appendDoubling is append that doubles the capacity when it grows, up to
// what the limit allows. append grows a large slice by only a quarter,
// which for a 20 MB line copies it about five times over into fresh memory.
func appendDoubling(buf, chunk []byte, limit int) []byte {
	need := len(buf) + len(chunk)
	if need > cap(buf) {
		grown := make([]byte, len(buf), max(need, min(2*cap(buf), limit+len(chunk))))
		// In steps: one copy of many megabytes cannot be preempted, and the
		// collector spins on a CPU until it ends.
		for off := 0; off < len(buf); off += copyStep {
			copy(grown[off:], buf[off:min(off+copyStep, len(buf))])
		}
		buf = grown
	}
	return append(buf, chunk...)
}

func discardRest(br *bufio.Reader, size int64, err error) error {
	for errors.Is(err, bufio.ErrBufferFull) {
		var chunk []byte
		chunk, err = br.ReadSlice('\n')
		size += int64(len(chunk))
	}
	if err == nil {
		size-- // the newline is not part of the message
	}
	return &TooLargeError{Size: size}
}

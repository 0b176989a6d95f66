package mcpfront

import (
	"bufio"
	"encoding/json"
	"io"
	"sync"
	"sync/atomic"
)

// lockedWriter makes every Write to stdout whole: mcp-go writes responses,
// its own requests to the host and our notification frames from different
// goroutines, and a torn line would corrupt the host's protocol channel.
//
// Frames are coalesced: each goes into a buffer under the lock, and the
// buffer is flushed by the writer that finds no other frame queued behind
// it, so a burst of answers leaves in a few writes instead of one system
// call per frame, and a lone frame still leaves at once.
type lockedWriter struct {
	mu     sync.Mutex
	w      io.Writer
	bw     *bufio.Writer
	queued atomic.Int64
	pass   passthrough
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	return l.writeFrame(l.pass.swap(p), len(p))
}

// writeFrame writes a frame that needs no passthrough swap; n is what Write
// reports as written.
func (l *lockedWriter) writeFrame(frame []byte, n int) (int, error) {
	l.queued.Add(1)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.bw == nil {
		l.bw = bufio.NewWriterSize(l.w, 64<<10)
	}
	_, err := l.bw.Write(frame)
	if l.queued.Add(-1) == 0 || err != nil {
		if ferr := l.bw.Flush(); err == nil {
			err = ferr
		}
	}
	if err != nil {
		// A failed flush leaves the buffer unusable; start clean, so a
		// later frame is not glued to the remains of a torn one.
		l.bw = nil
		return 0, err
	}
	return n, nil
}

// notify writes one notification frame. Frames go straight to stdout rather
// than through mcp-go's notification channel, which drops messages when it
// fills; a stderr relay or a forwarded notification must arrive.
func (l *lockedWriter) notify(method string, params any) error {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		return err
	}
	_, err = l.writeFrame(append(b, '\n'), len(b)+1)
	return err
}

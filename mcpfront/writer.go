package mcpfront

import (
	"encoding/json"
	"io"
	"sync"
)

// lockedWriter makes every Write to stdout whole: mcp-go writes responses,
// its own requests to the host and our notification frames from different
// goroutines, and a torn line would corrupt the host's protocol channel.
type lockedWriter struct {
	mu   sync.Mutex
	w    io.Writer
	pass passthrough
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	frame := l.pass.swap(p)
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.w.Write(frame); err != nil {
		return 0, err
	}
	return len(p), nil
}

// notify writes one notification frame. Frames go straight to stdout rather
// than through mcp-go's notification channel, which drops messages when it
// fills; a stderr relay or a forwarded notification must arrive.
func (l *lockedWriter) notify(method string, params any) error {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		return err
	}
	_, err = l.Write(append(b, '\n'))
	return err
}

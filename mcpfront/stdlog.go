package mcpfront

import "log"

// newStdLogger routes mcp-go's error log to our prefixed stderr.
func newStdLogger(f *front) *log.Logger {
	return log.New(&prefixWriter{f: f}, "", 0)
}

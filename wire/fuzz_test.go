package wire

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// FuzzReadMessage splits arbitrary stdout into messages with a small buffer
// and limit (the multi-chunk path MaxMessage takes in production). Seeds:
// testdata/fuzz/FuzzReadMessage. The lines read are exactly the input, in
// order; none is over the limit; an oversized line is reported with its
// exact size and ends the read, as the transport then closes.
func FuzzReadMessage(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, extra uint8) {
		limit := 16 + int(extra) // never below bufio's minimum buffer
		br := bufio.NewReaderSize(bytes.NewReader(data), 16)
		consumed := 0
		for {
			line, err := readMessage(br, limit)
			if !bytes.HasPrefix(data[consumed:], line) {
				t.Fatalf("line %q is not the next %d bytes of the input", line, len(line))
			}
			consumed += len(line)
			if n := len(bytes.TrimRight(line, "\r\n")); n > limit {
				t.Fatalf("a line of %d bytes passed a limit of %d", n, limit)
			}
			var tl *TooLargeError
			if errors.As(err, &tl) {
				rest := data[consumed:]
				if i := bytes.IndexByte(rest, '\n'); i >= 0 {
					rest = rest[:i]
				}
				if tl.Size != int64(len(rest)) || tl.Size <= int64(limit) {
					t.Fatalf("TooLargeError.Size = %d for a line of %d bytes (limit %d)", tl.Size, len(rest), limit)
				}
				return
			}
			if err != nil {
				if !errors.Is(err, io.EOF) || consumed != len(data) {
					t.Fatalf("read ended with %v after %d of %d bytes", err, consumed, len(data))
				}
				return
			}
		}
	})
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) Close() error                { return nil }

// FuzzTransportLines runs arbitrary stdout through the stdio channel's
// reader and classifier, with nothing spawned. Seeds:
// testdata/fuzz/FuzzTransportLines. It must not panic or hang; every line is
// at most one message or piece of evidence, and noise is text the server
// wrote.
func FuzzTransportLines(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		sink := make(chan Inbound, 16)
		NewStdio(bytes.NewReader(data), discard{}, sink)
		var ev Evidence
		messages := 0
		for in := range sink {
			ev.File(in)
			messages += len(in.Messages)
			if in.Closed {
				break
			}
		}
		snap := ev.Snapshot()
		lines := bytes.Count(data, []byte("\n")) + 1
		if snap.NoiseTotal+snap.ErrorsTotal+messages > lines+1 {
			t.Fatalf("%d noise, %d errors and %d messages from %d lines", snap.NoiseTotal, snap.ErrorsTotal, messages, lines)
		}
		for _, n := range snap.Noise {
			text := strings.TrimSuffix(n.Text, "…")
			if !bytes.Contains(data, []byte(text)) {
				t.Fatalf("noise %q is not in what the server wrote", n.Text)
			}
		}
	})
}

package wire

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// readAllEvents reads every event of stream, also one byte at a time, and
// checks both ways agree.
func readAllEvents(t *testing.T, stream string) ([]sseEvent, *sseReader, error) {
	t.Helper()
	read := func(r io.Reader) ([]sseEvent, *sseReader, error) {
		p := newSSEReader(r)
		var evs []sseEvent
		for {
			ev, err := p.next()
			if err != nil {
				return evs, p, err
			}
			evs = append(evs, ev)
		}
	}
	evs, p, err := read(strings.NewReader(stream))
	slow, sp, serr := read(iotest.OneByteReader(strings.NewReader(stream)))
	if len(slow) != len(evs) || sp.lastID != p.lastID || sp.retry != p.retry || (serr == nil) != (err == nil) {
		t.Fatalf("byte by byte: %q %q %v %v; at once: %q %q %v %v", slow, sp.lastID, sp.retry, serr, evs, p.lastID, p.retry, err)
	}
	for i := range evs {
		if slow[i].typ != evs[i].typ || !bytes.Equal(slow[i].data, evs[i].data) {
			t.Fatalf("byte by byte: %q; at once: %q", slow, evs)
		}
	}
	return evs, p, err
}

func TestHTTPSSEReaderFollowsTheEventStreamFormat(t *testing.T) {
	for _, c := range []struct {
		name, stream string
		want         []string // type:data
		lastID       string
		retry        time.Duration
	}{
		{name: "one event", stream: "data: {}\n\n", want: []string{"message:{}"}},
		{name: "data lines join with LF", stream: "data: a\ndata:b\ndata:  c\n\n", want: []string{"message:a\nb\n c"}},
		{name: "CRLF and CR end lines", stream: "data: a\r\ndata: b\r\rdata: c\r\n\r\n", want: []string{"message:a\nb", "message:c"}},
		{name: "comments and unknown fields are skipped", stream: ": hello\nfoo: bar\ndata: x\n:\n\n", want: []string{"message:x"}},
		{name: "event type", stream: "event: endpoint\ndata: /messages\n\nevent: message\ndata: y\n\n", want: []string{"endpoint:/messages", "message:y"}},
		{name: "a priming event sets the id, dispatches nothing", stream: "id: e-1\nretry: 500\ndata: \n\n", lastID: "e-1", retry: 500 * time.Millisecond},
		{name: "the id counts once the event ends", stream: "id: 1\ndata: a\n\nid: 2\ndata: b", want: []string{"message:a"}, lastID: "1"},
		{name: "an id with NUL is ignored", stream: "id: 1\n\nid: a\x00b\n\n", lastID: "1"},
		{name: "an empty id clears it", stream: "id: 1\n\nid\n\n"},
		{name: "retry must be digits", stream: "retry: 10\nretry: 5s\nretry: -1\n\n", retry: 10 * time.Millisecond},
		{name: "a field without a colon", stream: "data\ndata\n\n", want: []string{"message:\n"}},
		{name: "blank lines alone dispatch nothing", stream: "\n\n\r\n\n"},
		{name: "an unfinished event is dropped", stream: "data: half"},
		{name: "only the first space is dropped", stream: "data:  two\n\n", want: []string{"message: two"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs, p, err := readAllEvents(t, c.stream)
			if !errors.Is(err, io.EOF) {
				t.Fatalf("ended with %v", err)
			}
			var got []string
			for _, ev := range evs {
				got = append(got, ev.typ+":"+string(ev.data))
			}
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("events %q, want %q", got, c.want)
			}
			if p.lastID != c.lastID || p.retry != c.retry {
				t.Errorf("last id %q retry %v, want %q %v", p.lastID, p.retry, c.lastID, c.retry)
			}
		})
	}
}

// Long names and values of fields other than data are bounded, not kept.
func TestHTTPSSEReaderBoundsOtherFields(t *testing.T) {
	long := strings.Repeat("x", 2*maxFieldValue)
	evs, p, err := readAllEvents(t, "id: "+long+"\nevent: "+long+"\n"+strings.Repeat("n", 100)+": v\ndata: ok\n\n")
	if !errors.Is(err, io.EOF) || len(evs) != 1 || evs[0].typ != "message" || string(evs[0].data) != "ok" || p.lastID != "" {
		t.Fatalf("got %q, last id %q, %v", evs, p.lastID, err)
	}
}

// An event over the cap ends the stream with its size: exact when the
// event ends within the discard budget, "over" what was read when not.
func TestHTTPSSEReaderEventOverTheCap(t *testing.T) {
	over := MaxMessage + 10
	stream := io.MultiReader(strings.NewReader("data: "), io.LimitReader(newZeros(), int64(over)), strings.NewReader("\n\ndata: next\n\n"))
	_, err := newSSEReader(stream).next()
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Size != int64(over) || err.Error() != tl.Error() {
		t.Fatalf("got %v", err)
	}
	endless := io.MultiReader(strings.NewReader("data: "), newZeros())
	_, err = newSSEReader(endless).next()
	if !errors.As(err, &tl) || tl.Size <= MaxMessage {
		t.Fatalf("got %v", err)
	}
	if want := "the server sent a message of over " + Thousands(int(tl.Size)) + " bytes, over the 64 MB cap"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got  %q\nwant %q…", err, want)
	}
}

// zeros is an endless stream of '0'.
type zeros struct{ chunk []byte }

func newZeros() zeros { return zeros{chunk: bytes.Repeat([]byte("0"), 64<<10)} }

func (z zeros) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		n += copy(p[n:], z.chunk)
	}
	return n, nil
}

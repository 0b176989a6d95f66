package wire

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// pipeTarget is the far end of a Stdio over OS pipes: the test writes the
// target's stdout and reads what the channel wrote to its stdin.
type pipeTarget struct {
	ch     *Stdio
	sink   chan Inbound
	closed bool     // the test has seen the last Inbound
	stdout *os.File // the target's stdout, written by the test
	stdin  *os.File // the target's stdin, read by the test
}

func newPipeTarget(t *testing.T) *pipeTarget {
	t.Helper()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	pt := &pipeTarget{sink: make(chan Inbound, 64), stdout: outW, stdin: inR}
	pt.ch = NewStdio(outR, inW, pt.sink)
	t.Cleanup(func() {
		_ = outW.Close() // the read loop sees end of file
		_ = inR.Close()  // a write still pending fails instead of blocking
		for !pt.closed {
			pt.closed = (<-pt.sink).Closed
		}
		<-pt.ch.Done()
	})
	return pt
}

func (pt *pipeTarget) say(t *testing.T, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(pt.stdout, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
}

// next returns what the channel handed over, merged, until want says it
// has it all.
func (pt *pipeTarget) next(t *testing.T, want func(Inbound) bool) Inbound {
	t.Helper()
	var all Inbound
	deadline := time.After(10 * time.Second)
	for !want(all) {
		select {
		case in := <-pt.sink:
			all.Messages = append(all.Messages, in.Messages...)
			all.Noise = append(all.Noise, in.Noise...)
			all.Errors = append(all.Errors, in.Errors...)
			all.Failed = append(all.Failed, in.Failed...)
			all.Closed, all.Err = all.Closed || in.Closed, in.Err
			pt.closed = pt.closed || in.Closed
		case <-deadline:
			t.Fatalf("the channel handed over only %+v", all)
		}
	}
	return all
}

func TestStdioSortsWhatTheTargetWrote(t *testing.T) {
	pt := newPipeTarget(t)
	pt.say(t,
		`console.log says hello`,
		`{"jsonrpc":"2.0","id":"run-mcp-1","result":{"ok":true}}`,
		`[1,2,3]`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}}`,
		`{"jsonrpc":"2.0","id":7,"method":""}`,
		`{"id":8,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":9,"method":"roots/list"}`,
	)
	// Seven lines make nine items: one line of noise, five messages, and
	// three transport errors (the array, and the two broken requests).
	in := pt.next(t, func(in Inbound) bool { return len(in.Messages)+len(in.Noise)+len(in.Errors) >= 9 })
	if len(in.Noise) != 1 || in.Noise[0].Line != 1 || in.Noise[0].Text != "console.log says hello" {
		t.Errorf("noise: %+v", in.Noise)
	}
	var got []string
	for _, m := range in.Messages {
		got = append(got, IDKey(m.ID)+" "+m.Method+" "+m.Invalid)
	}
	// A request that breaks JSON-RPC still waits for an answer: it is
	// handed over, marked, for its error answer.
	want := []string{`"run-mcp-1"  `, ` notifications/message `, `7  a message with an empty method`, `8 ping a message without "jsonrpc": "2.0"`, `9 roots/list `}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("messages:\n got %q\nwant %q", got, want)
	}
	if len(in.Errors) != 3 {
		t.Fatalf("transport errors: %+v", in.Errors)
	}
	for i, w := range []string{"a JSON value that is not a JSON-RPC message object", "a message with an empty method", `a message without "jsonrpc": "2.0"`} {
		if !strings.Contains(in.Errors[i].Message, w) {
			t.Errorf("error %d %q does not say %q", i, in.Errors[i].Message, w)
		}
	}
	if string(in.Messages[0].Result) != `{"ok":true}` {
		t.Errorf("the result is not as sent: %s", in.Messages[0].Result)
	}
}

func TestStdioEndsWithTheTargetsStdout(t *testing.T) {
	pt := newPipeTarget(t)
	pt.say(t, `{"jsonrpc":"2.0","id":"a","result":{}}`)
	_ = pt.stdout.Close()
	in := pt.next(t, func(in Inbound) bool { return in.Closed })
	if len(in.Messages) != 1 || !errors.Is(in.Err, io.EOF) {
		t.Fatalf("want the last answer then end of file, got %+v", in)
	}
	if err := pt.ch.Send(Outbound{Msg: []byte(`{}`)}); err == nil {
		t.Error("a send after the end was accepted")
	}
}

func TestStdioClosesOverMaxMessage(t *testing.T) {
	pt := newPipeTarget(t)
	go func() {
		w := bufio.NewWriterSize(pt.stdout, 1<<20)
		_, _ = w.WriteString(`{"jsonrpc":"2.0","id":"big","result":{"text":"`)
		chunk := strings.Repeat("x", 1<<20)
		for range MaxMessage>>20 + 1 {
			_, _ = w.WriteString(chunk)
		}
		_, _ = w.WriteString("\"}}\n")
		_ = w.Flush()
	}()
	in := pt.next(t, func(in Inbound) bool { return in.Closed })
	var tl *TooLargeError
	if !errors.As(in.Err, &tl) || len(in.Errors) != 1 || !strings.Contains(in.Errors[0].Message, "over the 64 MB cap") {
		t.Fatalf("want the channel closed over the cap, got err %v, errors %+v", in.Err, in.Errors)
	}
}

// A target that stops reading its stdin never blocks Send: what the pipe
// cannot take queues, and reaches the target whole and in order once it
// reads again.
func TestStdioSendNeverBlocksOnAFullPipe(t *testing.T) {
	pt := newPipeTarget(t)
	big := strings.Repeat("y", 256<<10)
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for i := range 20 {
			msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i, "method": "pad", "params": map[string]any{"pad": big}})
			if err := pt.ch.Send(Outbound{Msg: msg, Key: IDKey(mustMarshal(i))}); err != nil {
				t.Errorf("send %d: %v", i, err)
			}
		}
	}()
	select {
	case <-sent:
	case <-time.After(10 * time.Second):
		t.Fatal("Send blocked on a target that does not read")
	}
	r := bufio.NewReaderSize(pt.stdin, 1<<20)
	for i := range 20 {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		var m struct{ ID int }
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.ID != i {
			t.Fatalf("line %d is not message %d whole: %v", i, i, err)
		}
	}
}

// A write whose deadline passes halfway through a message (the target
// stopped reading with the pipe full) must not leave half a line on the
// pipe: once the target reads again, every line it gets is a whole message.
// The requests of the cut write fail as not delivered.
func TestStdioAWriteCutByItsDeadlineLeavesNoTornLine(t *testing.T) {
	pt := newPipeTarget(t)
	pt.ch.writeTimeout = 300 * time.Millisecond
	big := strings.Repeat("x", 4<<20) // far more than the pipe holds
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "big", "method": "tools/call", "params": map[string]any{"pad": big}})
	if err := pt.ch.Send(Outbound{Msg: msg, Key: `"big"`}); err != nil {
		t.Fatal(err)
	}
	in := pt.next(t, func(in Inbound) bool { return len(in.Failed) > 0 })
	if in.Failed[0].Key != `"big"` || !strings.Contains(in.Failed[0].Err.Error(), "not reading its stdin") {
		t.Fatalf("failure: %+v", in.Failed)
	}
	if err := pt.ch.Send(Outbound{Msg: []byte(`{"jsonrpc":"2.0","id":"next","method":"ping"}`), Key: `"next"`}); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReaderSize(pt.stdin, 8<<20)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("the next request never came whole: %v", err)
		}
		var m struct{ ID string }
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("the target read a line that is not one whole message (%d bytes, starting %.60q): %v", len(line), line, err)
		}
		if m.ID == "next" {
			return
		}
	}
}

func mustMarshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

//go:build !windows

package daemon

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Garbage, old argv-style requests and a request for another session are
// refused with an error reply; none takes the daemon down or wedges it.
func TestBadRequestsAreRefusedAndTheSessionServes(t *testing.T) {
	t.Parallel()
	s := newSession(t, "target")
	s.start()
	rec := s.mustRecord()
	for _, tc := range []struct {
		line string
		code int
		want string
	}{
		{"this is not json", 65, "not valid JSON"},
		{"\x00\xff\xfe{{{", 65, "not valid JSON"},
		{`{"op":"run","argv":["demo-server","--crash-at-start","x"]}`, 64, "unknown field"},
		{`{"op":"run","argv":["demo-server","--ignore-stdin-eof"]}`, 64, "unknown field"},
		{`{"op":"run","argv":null}`, 64, "unknown field"},
		{`{"op":"run","session":"target"}`, 64, `does not know the op "run"`},
		{`{"op":"call","session":"target"}`, 64, "needs the field tool"},
		{`{"op":"call","session":"other","tool":"echo","args":{"message":"x"}}`, 64, `this daemon serves session "target", not "other"`},
		{`{"op":"call","session":"target","tool":"echo","args":{"message":"x"},"env":{"API_KEY":"sk-secret-123"}}`, 64, "unknown field"},
	} {
		r := send(t, rec.Socket, []byte(tc.line))
		if r.Code != tc.code || !strings.Contains(r.Stderr, tc.want) {
			t.Errorf("%q: got exit %d %q, want exit %d with %q", tc.line, r.Code, r.Stderr, tc.code, tc.want)
		}
		if strings.Contains(r.Stderr, "sk-secret") {
			t.Errorf("the refusal shows an env value: %s", r.Stderr)
		}
		if !alive(rec.DaemonPid) {
			t.Fatalf("%q took the daemon down; its log:\n%s", tc.line, s.log())
		}
	}
	s.echo("still here")
	if got := s.mustRecord(); got.DaemonPid != rec.DaemonPid || got.Pid != rec.Pid {
		t.Errorf("the session was restarted: %+v then %+v", rec, got)
	}
}

// A line over the limit (the 64 MiB of arguments a one-shot command takes,
// and 4 MiB for the rest of the request) is refused, and never held whole:
// the daemon keeps at most the limit of it.
func TestAnOversizedRequestIsRefused(t *testing.T) {
	requireLinux(t)
	t.Parallel()
	s := newSession(t, "big")
	s.start()
	rec := s.mustRecord()
	const limit = 68 << 20
	size := 3 * limit
	r := sendRepeated(t, rec.Socket, 'x', size)
	want := fmt.Sprintf("request too large: %d bytes (limit %d)", size, limit)
	if r.Code != 65 || !strings.Contains(r.Stderr, want) {
		t.Fatalf("got exit %d %q, want 65 with %q", r.Code, r.Stderr, want)
	}
	hwm := vmHWM(t, rec.DaemonPid)
	t.Logf("daemon peak RSS after a %d MiB request: %d kB", size>>20, hwm)
	if hwm<<10 >= size {
		t.Errorf("the daemon's peak RSS is %d kB after a %d MiB request: it was held whole", hwm, size>>20)
	}
	s.echo("after the big one")
}

// sendRepeated sends a line of n bytes b, written a MiB at a time, and
// reads the reply.
func sendRepeated(t *testing.T, socket string, b byte, n int) reply {
	t.Helper()
	c, err := net.DialTimeout("unix", socket, 5*time.Second)
	if err != nil {
		t.Fatalf("dial the daemon: %v", err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(patience))
	chunk := bytes.Repeat([]byte{b}, 1<<20)
	for left := n; left > 0; left -= len(chunk) {
		if _, err := c.Write(chunk[:min(left, len(chunk))]); err != nil {
			t.Fatalf("send: %v", err)
		}
	}
	if _, err := c.Write([]byte("\n")); err != nil {
		t.Fatalf("send: %v", err)
	}
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		t.Fatalf("the daemon did not answer a %d-byte line: %v", n, err)
	}
	var r reply
	if err := json.Unmarshal(line, &r); err != nil {
		t.Fatalf("the reply is not JSON: %q", line)
	}
	return r
}

func vmHWM(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

// A thousand requests at once are each answered, correctly.
func TestAThousandConcurrentRequests(t *testing.T) {
	t.Parallel()
	s := newSession(t, "crowd")
	s.start()
	rec := s.mustRecord()
	const n = 1000
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			line := fmt.Sprintf(`{"op":"call","session":"crowd","tool":"echo","args":{"message":"m%d"},"options":{}}`, i)
			if i%4 == 0 {
				line = `{"op":"ping","session":"crowd"}`
			}
			r := send(t, rec.Socket, []byte(line))
			switch {
			case r.Code != 0:
				errs <- fmt.Sprintf("request %d: exit %d %s", i, r.Code, r.Stderr)
			case i%4 != 0 && !strings.Contains(r.Stdout, fmt.Sprintf(`"echo: m%d"`, i)):
				errs <- fmt.Sprintf("request %d: wrong answer %s", i, r.Stdout)
			}
		}()
	}
	wg.Wait()
	close(errs)
	bad := 0
	for e := range errs {
		if bad++; bad <= 5 {
			t.Error(e)
		}
	}
	if bad > 0 {
		t.Fatalf("%d of %d requests failed", bad, n)
	}
	s.echo("after the crowd")
}

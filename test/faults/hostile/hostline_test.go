//go:build !windows

package hostile

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// lineOver64MB is a tools/call line of about 65 MB whose id comes first or,
// after a huge params holding decoy ids, last.
func lineOver64MB(id string, idLast bool) []byte {
	var b bytes.Buffer
	b.Grow(66 << 20)
	b.WriteString(`{"jsonrpc":"2.0",`)
	if !idLast {
		b.WriteString(`"id":` + id + `,`)
	}
	b.WriteString(`"method":"tools/call","params":{"name":"read_result","arguments":{"id":"r1","decoy":{"id":999}},"pad":"`)
	b.Write(bytes.Repeat([]byte("x"), 65<<20))
	b.WriteString(`"}`)
	if idLast {
		b.WriteString(`,"id":` + id)
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// Before: a host line over 64 MB was dropped with a log line and the host
// waited forever for its answer. After: a JSON-RPC error for its id (read
// from the stream, before or after the params), naming the size and the
// cap, and the server goes on answering.
func TestHostLineOver64MBGetsAnErrorForItsID(t *testing.T) {
	h := startHost(t, t.TempDir())
	for _, c := range []struct {
		id     string
		idLast bool
	}{{`4242`, false}, {`"big-one"`, true}} {
		line := lineOver64MB(c.id, c.idLast)
		go h.writeRaw(line) // the pipe holds far less; stream it
		var id any = 4242
		if c.idLast {
			id = "big-one"
		}
		m := h.await(id)
		e, ok := m["error"].(map[string]any)
		if !ok {
			t.Fatalf("id %v: answer is not an error: %v", id, m)
		}
		msg := fmt.Sprint(e["message"])
		if code, _ := e["code"].(float64); code != -32600 {
			t.Errorf("id %v: code %v, want -32600 (Invalid Request)", id, e["code"])
		}
		size := strconv.Itoa(len(line))
		for _, want := range []string{commas(size) + " bytes", "limit of 64 MB"} {
			if !strings.Contains(msg, want) {
				t.Errorf("id %v: message %q does not say %q", id, msg, want)
			}
		}
		// Still answering, in order after the big line.
		if text, isErr := h.call("read_result", map[string]any{"id": "r1"}); !isErr || !strings.Contains(text, `Unknown result id "r1"`) {
			t.Errorf("after the big line read_result answered %v %q", isErr, text)
		}
	}
	if kb := peakRSSKB(h.cmd.Process.Pid); kb > 0 {
		t.Logf("agent server peak RSS after two 65 MB lines: %d MB", kb/1024)
	}
}

func commas(s string) string {
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// peakRSSKB reads VmHWM of a live process (Linux), or 0.
func peakRSSKB(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

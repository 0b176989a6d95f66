package wire

import (
	"errors"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// twoGB is the body of issue 21, which took a one-shot call to 1.84 GB.
const twoGB = 2 << 30

// streamZeros writes n '0' bytes (or until the client goes).
func streamZeros(w http.ResponseWriter, r *http.Request, n int64) {
	buf := []byte(strings.Repeat("0", 1<<20))
	for n > 0 && r.Context().Err() == nil {
		k, err := w.Write(buf[:min(int64(len(buf)), n)])
		if err != nil {
			return
		}
		n -= int64(k)
	}
}

// heapGrowth runs f and returns how far the heap grew above where it was,
// at its highest, sampled as f runs.
func heapGrowth(f func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	stop, peak := make(chan struct{}), make(chan uint64)
	go func() {
		high := base
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			high = max(high, m.HeapAlloc)
			select {
			case <-stop:
				peak <- high - base
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(stop)
	return <-peak
}

// overCap sends one call to a server that answers with 2 GB, and checks
// the channel ends with the cap's error, in bounded memory.
func overCap(t *testing.T, answer func(w http.ResponseWriter, r *http.Request)) error {
	t.Helper()
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) { answer(w, r) })
	var end Inbound
	grew := heapGrowth(func() {
		o := newHTTPOwner(t, HTTPOptions{URL: srv.URL})
		o.call(1, "tools/call", `{"name":"huge"}`, "")
		end = o.end()
	})
	t.Logf("the heap grew by %s bytes", Thousands(int(grew)))
	if limit := uint64(MaxMessage) * 3 / 2; grew > limit {
		t.Errorf("the heap grew by %s bytes reading a 2 GB answer, more than %s", Thousands(int(grew)), Thousands(int(limit)))
	}
	var tl *TooLargeError
	if !errors.As(end.Err, &tl) {
		t.Fatalf("the channel ended with %v, not the cap", end.Err)
	}
	if len(end.Errors) != 1 || end.Errors[0].Message != end.Err.Error() {
		t.Errorf("the last Inbound's transport errors: %+v", end.Errors)
	}
	return end.Err
}

// A JSON body that says it is 2 GB is refused without being read, its size
// named exactly, in the stdio transport's words.
func TestHTTPJSONBodyDeclaredOverTheCap(t *testing.T) {
	err := overCap(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(twoGB))
		streamZeros(w, r, twoGB)
	})
	if want := (&TooLargeError{Size: twoGB}).Error(); err.Error() != want {
		t.Errorf("got  %q\nwant %q", err, want)
	}
}

// A JSON body of unknown length is read up to the cap, then (without
// being kept) a little further, and the error says it is over that.
func TestHTTPJSONBodyOverTheCap(t *testing.T) {
	err := overCap(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		streamZeros(w, r, twoGB)
	})
	if !strings.HasPrefix(err.Error(), "the server sent a message of over ") || !strings.Contains(err.Error(), "bytes, over the 64 MB cap on one message") {
		t.Errorf("got %q", err)
	}
}

// An event of 2 GB on a call's stream ends the channel the same way.
func TestHTTPEventOverTheCap(t *testing.T) {
	err := overCap(t, func(w http.ResponseWriter, r *http.Request) {
		sse(w)("data: ")
		streamZeros(w, r, twoGB)
	})
	if !strings.HasPrefix(err.Error(), "the server sent a message of over ") {
		t.Errorf("got %q", err)
	}
}

// An event just over the cap, that ends, is named exactly, and the
// messages before it were delivered.
func TestHTTPEventJustOverTheCap(t *testing.T) {
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		send := sse(w)
		send(`data: {"jsonrpc":"2.0","method":"notifications/message","params":{}}` + "\n\n")
		send("data: ")
		streamZeros(w, r, MaxMessage+1)
		send("\n\n")
		_, _ = io.WriteString(w, "data: "+result([]byte("1"), "{}")+"\n\n")
	})
	o := newHTTPOwner(t, HTTPOptions{URL: srv.URL})
	o.call(1, "tools/call", `{"name":"big"}`, "")
	o.notification("notifications/message")
	end := o.end()
	if want := (&TooLargeError{Size: MaxMessage + 1}).Error(); end.Err == nil || end.Err.Error() != want {
		t.Errorf("got  %v\nwant %s", end.Err, want)
	}
}

// The standalone stream has the same cap.
func TestHTTPStandaloneEventOverTheCap(t *testing.T) {
	srv := legacyServer(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
		if r.Method == http.MethodGet {
			sse(w)("data: ")
			streamZeros(w, r, twoGB)
			return
		}
		writeJSON(w, result(parseRPC(body).ID, `{}`))
	})
	o := newHTTPOwner(t, HTTPOptions{URL: srv.URL})
	o.initialize()
	o.ch.Listen()
	var tl *TooLargeError
	if end := o.end(); !errors.As(end.Err, &tl) {
		t.Fatalf("the channel ended with %v, not the cap", end.Err)
	}
	srv.await(t, "the session's DELETE", func(r seenRequest) bool { return r.Method == http.MethodDelete })
}

package oauth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// callbackPath is where the browser comes back.
const callbackPath = "/callback"

// callback is what the authorization server's redirect carried.
type callback struct {
	code, iss, err, description string
	hasIss                      bool
}

// loopback receives the browser's redirect on 127.0.0.1 (RFC 8252 §7.3):
// the code of the one authorization it waits for, recognized by its state.
type loopback struct {
	ln       net.Listener
	srv      *http.Server
	redirect string
	state    string
	got      chan callback
	// came is closed once the redirect was taken, before the browser is
	// answered: whoever retries after the page shows finds it closed.
	came   chan struct{}
	once   sync.Once
	served sync.WaitGroup
}

// listenLoopback listens on 127.0.0.1, on the port of prefer (the redirect
// URI a client was registered with) when it is free, else on any port.
func listenLoopback(prefer, state string) (*loopback, error) {
	addr := "127.0.0.1:0"
	if u, err := url.Parse(prefer); err == nil && u.Hostname() == "127.0.0.1" && u.Port() != "" {
		addr = "127.0.0.1:" + u.Port()
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil && addr != "127.0.0.1:0" {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		return nil, fmt.Errorf("listen on 127.0.0.1 for the browser's redirect: %w", err)
	}
	l := &loopback{ln: ln, state: state, got: make(chan callback, 1), came: make(chan struct{}),
		redirect: fmt.Sprintf("http://%s%s", ln.Addr().String(), callbackPath)}
	l.srv = &http.Server{Handler: http.HandlerFunc(l.serve), ReadHeaderTimeout: 10 * time.Second}
	l.served.Add(1)
	go func() {
		defer l.served.Done()
		_ = l.srv.Serve(ln)
	}()
	return l, nil
}

// serve takes the redirect that carries this authorization's state; any
// other request is answered and ignored.
func (l *loopback) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != callbackPath {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	if q.Get("state") != l.state {
		w.WriteHeader(http.StatusBadRequest)
		page(w, "This is not the authorization run-mcp is waiting for", "Its state does not match. Start the authorization again from run-mcp.")
		return
	}
	cb := callback{code: q.Get("code"), err: q.Get("error"), description: q.Get("error_description"), iss: q.Get("iss"), hasIss: q.Has("iss")}
	delivered := false
	l.once.Do(func() { l.got <- cb; close(l.came); delivered = true })
	switch {
	case !delivered:
		page(w, "run-mcp has this authorization already", "You can close this tab.")
	case cb.err != "":
		page(w, "The authorization server refused", cb.err+": "+cb.description+". run-mcp reports it where you started it.")
	default:
		page(w, "run-mcp is authorized", "You can close this tab and return to where you started run-mcp.")
	}
}

func page(w http.ResponseWriter, title, text string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<!doctype html><title>%s</title><h1>%s</h1><p>%s</p>\n", html.EscapeString(title), html.EscapeString(title), html.EscapeString(text))
}

// wait returns the redirect, or ctx's end.
func (l *loopback) wait(ctx context.Context) (callback, error) {
	select {
	case cb := <-l.got:
		return cb, nil
	case <-ctx.Done():
		return callback{}, context.Cause(ctx)
	}
}

// close stops listening and waits for the server's goroutines.
func (l *loopback) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := l.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		_ = l.srv.Close()
	}
	l.served.Wait()
}

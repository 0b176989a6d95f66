package wire

import (
	"errors"
	"net/http"
)

// maxListenFailures is how many times in a row the standalone stream may
// fail to open before the channel stops reopening it.
const maxListenFailures = 3

// listen keeps the standalone GET stream open until the channel stops: a
// stream the server ends is reopened after the delay it asked for (at
// least defaultRetry if it brought no event, so a server that closes it at
// once is not asked again and again), from its last event id. A 405 means
// the server offers no such stream: it ends quietly; so does a refusal to
// authorize (401, or 403 with a challenge), until Listen is called again
// with a token in place. A session the server no longer knows ends it with
// a transport error; so does failing to open it maxListenFailures times in
// a row.
func (h *HTTP) listen() {
	defer h.wg.Done()
	defer func() {
		h.mu.Lock()
		h.listened = false
		h.mu.Unlock()
	}()
	var p *sseReader
	failures, quiet := 0, false
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			wait := defaultRetry << min(failures, 4)
			if failures == 0 {
				wait = p.delay()
				if quiet {
					wait = max(wait, defaultRetry)
				}
			}
			if !sleep(h.ctx, wait) {
				return
			}
		}
		protocol := h.currentProtocol()
		session := h.sessionFor(protocol)
		hdr := getHeaders(protocol, session)
		if p != nil && p.lastID != "" {
			hdr.Set("Last-Event-ID", p.lastID)
		}
		resp, at, err := h.exchange(h.ctx, http.MethodGet, nil, hdr, true)
		switch {
		case err != nil && h.ctx.Err() != nil:
			return
		case err != nil:
			h.transportError("the standalone event stream failed: %v", err)
			failures++
		case resp.StatusCode == http.StatusMethodNotAllowed:
			drainClose(resp)
			return
		case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden && resp.Header.Get("WWW-Authenticate") != "":
			// Not authorized yet: the owner authorizes on a request of its
			// own and opens the stream again (Listen) with the token.
			drainClose(resp)
			return
		case resp.StatusCode == http.StatusNotFound && session != "":
			h.expire(session)
			h.transportError("the standalone event stream ended: %v", statusError(resp, at, true))
			return
		case resp.StatusCode != http.StatusOK || mediaType(resp) != "text/event-stream":
			h.transportError("the standalone event stream could not open: %v", statusError(resp, at, false))
			failures++
		default:
			if p == nil {
				p = newSSEReader(resp.Body)
			} else {
				p.resumeOn(resp.Body)
			}
			closeBody := closeWith(h.ctx, resp)
			before := p.events
			_, err = h.readEvents(p, "", "an event on the standalone stream from "+at.Redacted())
			closeBody()
			var tl *TooLargeError
			if errors.As(err, &tl) {
				h.stop(err)
				return
			}
			failures, quiet = 0, p.events == before
		}
		if h.ctx.Err() != nil || h.closedNow() {
			return
		}
		if failures >= maxListenFailures {
			h.transportError("the standalone event stream failed %d times in a row; run-mcp stopped reopening it", failures)
			return
		}
	}
}

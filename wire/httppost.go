package wire

import (
	"context"
	"errors"
	"net/http"
)

// post sends a notification or an answer to a server's request, after
// every earlier one (after), and closes mine once the server answered, so
// the next POST can go. The server accepts it with 202 (any 2xx will do);
// anything else is a transport error, since no request waits for it.
func (h *HTTP) post(o Outbound, after <-chan struct{}, mine chan struct{}) {
	defer h.wg.Done()
	posted := false
	defer func() {
		if !posted {
			close(mine)
		}
	}()
	ctx, cancel := context.WithTimeout(h.ctx, h.postTimeout)
	defer cancel()
	select {
	case <-after:
	case <-ctx.Done():
		return
	}
	what := o.Method
	if what == "" {
		what = "an answer to the server's request"
	}
	session := h.sessionFor(o.Protocol)
	resp, at, err := h.exchange(ctx, http.MethodPost, o.Msg, postHeaders(o, session), true)
	close(mine)
	posted = true
	switch {
	case err != nil && h.ctx.Err() != nil:
		return
	case err != nil && errors.Is(err, context.DeadlineExceeded):
		h.transportError("posting %s got no answer within %s: %v", what, h.postTimeout, err)
		return
	case err != nil:
		h.transportError("posting %s failed: %v", what, err)
		return
	}
	defer closeWith(ctx, resp)()
	switch {
	case resp.StatusCode/100 == 2:
		drainClose(resp)
	case resp.StatusCode == http.StatusNotFound && session != "":
		h.expire(session)
		h.transportError("posting %s failed: %v", what, statusError(resp, at, true))
	default:
		h.transportError("posting %s failed: %v", what, statusError(resp, at, false))
	}
}

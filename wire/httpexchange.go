package wire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// maxRedirects bounds the redirects one request follows.
const maxRedirects = 10

// exchange sends one request to the target and follows its redirects
// itself, so that credentials stay at their origin: a hop to the target's
// origin carries the configured headers and goes through the RoundTripper
// hook; a hop to any other origin goes through the plain transport with
// only hdr (the protocol's own headers). 301, 302, 307 and 308 keep the
// method and the body; 303 turns a GET into a GET and refuses anything
// else. Each redirect followed is delivered as Inbound.Redirects when
// report is set. It returns the final response and the URL it came from;
// its error says, in words, that the server could not be reached.
func (h *HTTP) exchange(ctx context.Context, method string, body []byte, hdr http.Header, report bool) (*http.Response, *url.URL, error) {
	cur := h.url
	for hop := 0; ; hop++ {
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, method, cur.String(), rd)
		if err != nil {
			return nil, cur, fmt.Errorf("could not make a request to %s: %w", cur.Redacted(), err)
		}
		client := h.foreign
		if sameOrigin(cur, h.url) {
			client = h.origin
			for k, v := range h.headers {
				req.Header[k] = slices.Clone(v)
			}
		}
		for k, v := range hdr {
			req.Header[k] = slices.Clone(v)
		}
		resp, err := client.Do(req)
		if err != nil {
			var uerr *url.Error
			if errors.As(err, &uerr) { // it repeats the method and the URL
				err = uerr.Err
			}
			return nil, cur, fmt.Errorf("could not reach the server at %s: %w", cur.Redacted(), err)
		}
		next, err := redirectTarget(resp, cur, method, hop)
		if err != nil {
			drainClose(resp)
			return nil, cur, err
		}
		if next == nil {
			return resp, cur, nil
		}
		drainClose(resp)
		if report {
			r := Redirect{From: cur.Redacted(), To: next.Redacted(), Status: resp.StatusCode}
			if !sameOrigin(next, h.url) && len(h.names) > 0 {
				r.Withheld = slices.Clone(h.names)
			}
			h.deliver(Inbound{Redirects: []Redirect{r}})
		}
		cur = next
	}
}

// redirectTarget is where a redirect sends the request (nil: resp is not a
// redirect to follow), or why it cannot be followed.
func redirectTarget(resp *http.Response, cur *url.URL, method string, hop int) (*url.URL, error) {
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
	default:
		return nil, nil
	}
	loc := resp.Header.Get("Location")
	if loc == "" {
		return nil, nil
	}
	status := statusText(resp)
	next, err := cur.Parse(loc)
	if err != nil || next.Scheme != "http" && next.Scheme != "https" || next.Host == "" {
		return nil, fmt.Errorf("the server at %s answered %s to %q, which is not an http:// or https:// URL run-mcp can follow", cur.Redacted(), status, clip([]byte(loc)))
	}
	if resp.StatusCode == http.StatusSeeOther && method != http.MethodGet {
		return nil, fmt.Errorf("the server at %s answered %s to %s, which would turn the %s into a GET; an MCP endpoint that moved answers 307 or 308", cur.Redacted(), status, next.Redacted(), method)
	}
	if hop >= maxRedirects {
		return nil, fmt.Errorf("the server at %s redirected the request %d times, the last time to %s; run-mcp stopped following", cur.Redacted(), hop+1, next.Redacted())
	}
	return next, nil
}

// sameOrigin compares scheme, host and port, the port defaulting by scheme.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// drainClose reads a little of what is left of a body, so its connection
// can serve again, and closes it.
func drainClose(resp *http.Response) {
	_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
	_ = resp.Body.Close()
}

// mediaType is the response's content type without parameters.
func mediaType(resp *http.Response) string {
	mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil {
		return ""
	}
	return strings.ToLower(mt)
}

func statusText(resp *http.Response) string {
	if strings.HasPrefix(resp.Status, strconv.Itoa(resp.StatusCode)+" ") {
		return resp.Status
	}
	return fmt.Sprintf("%d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
}

// StatusError is an HTTP answer that is not the one the channel waited
// for: an error status, or a success without a JSON body or an event
// stream. It quotes the start of the body, never a header.
type StatusError struct {
	Code    int    // the HTTP status code
	Status  string // as "404 Not Found"
	URL     string // where the answer came from, without credentials
	Type    string // the content type, for a success of the wrong kind
	Excerpt string // the start of the body, if it had one
	// SessionExpired says the request carried a session id the server no
	// longer knows (404): the next initialize starts a new session.
	SessionExpired bool
	// Authenticate are the WWW-Authenticate values of a 401 or 403: the
	// server's challenge, which starts an authorization (not a secret).
	Authenticate []string
}

func (e *StatusError) Error() string {
	var b strings.Builder
	if e.SessionExpired {
		b.WriteString("the session expired: ")
	}
	fmt.Fprintf(&b, "the server answered %s at %s", e.Status, e.URL)
	switch {
	case e.SessionExpired:
		b.WriteString(" to a request in its session, so it no longer knows the session; a new initialize starts another")
	case e.Code/100 == 2 && e.Type == "":
		b.WriteString(" without a JSON body or an event stream")
	case e.Code/100 == 2:
		fmt.Fprintf(&b, " with %s, not a JSON body or an event stream", e.Type)
	}
	if e.Excerpt != "" {
		b.WriteString(": ")
		b.WriteString(e.Excerpt)
	}
	return b.String()
}

// statusError reads the start of resp's body (and closes it) into a
// StatusError.
func statusError(resp *http.Response, at *url.URL, expired bool) *StatusError {
	head, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	drainClose(resp)
	e := &StatusError{Code: resp.StatusCode, Status: statusText(resp), URL: at.Redacted(),
		SessionExpired: expired}
	if resp.StatusCode/100 == 2 {
		e.Type = mediaType(resp)
	}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		e.Authenticate = resp.Header.Values("WWW-Authenticate")
	}
	if len(bytes.TrimSpace(head)) > 0 {
		e.Excerpt = clip(head)
	}
	return e
}

package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxDocument bounds a metadata document or an error body read.
const maxDocument = 1 << 20

// getJSON fetches a JSON document into v and records the attempt. found
// says a document came (2xx, JSON that decodes into v); a 4xx or 5xx, or a
// body that is not JSON, is recorded and not found; err is set only when
// the server could not be reached at all.
func (c *Client) getJSON(ctx context.Context, t *trail, u string, v any) (found bool, err error) {
	a := Attempt{Method: http.MethodGet, URL: redact(u)}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		a.Result = "not a URL run-mcp can request"
		t.add(a)
		return false, nil
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		a.Result = "could not be reached: " + unwrapURL(err).Error()
		t.add(a)
		return false, err
	}
	defer resp.Body.Close()
	a.Result = statusText(resp)
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, maxDocument+1))
	switch {
	case rerr != nil:
		a.Note = "the body broke off: " + rerr.Error()
	case len(body) > maxDocument:
		a.Note = fmt.Sprintf("the body is larger than %d bytes", maxDocument)
	case resp.StatusCode/100 != 2:
		if ex := excerpt(body); ex != "" {
			a.Note = "body: " + ex
		}
	case json.Unmarshal(body, v) != nil:
		a.Note = fmt.Sprintf("not a JSON object (%s): %s", mediaType(resp), excerpt(body))
	default:
		t.add(a)
		return true, nil
	}
	t.add(a)
	return false, nil
}

// statusText is "404 Not Found".
func statusText(resp *http.Response) string {
	if strings.HasPrefix(resp.Status, strconv.Itoa(resp.StatusCode)+" ") {
		return resp.Status
	}
	return fmt.Sprintf("%d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
}

func mediaType(resp *http.Response) string {
	mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil {
		return "no content type"
	}
	return mt
}

// excerpt is the start of a body, on one line, for evidence.
func excerpt(b []byte) string {
	b = bytes.TrimSpace(b)
	const limit = 300
	cut := len(b) > limit
	if cut {
		b = b[:limit]
		for len(b) > 0 && !utf8.Valid(b) {
			b = b[:len(b)-1]
		}
	}
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(b), "?")), " ")
	if cut {
		s += "…"
	}
	return s
}

// redact is a URL without its userinfo, for evidence.
func redact(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	return p.Redacted()
}

// unwrapURL drops the *url.Error wrapper, which repeats the method and URL.
func unwrapURL(err error) error {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		return uerr.Err
	}
	return err
}

package oauth

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strconv"
)

// withResource adds the resource parameter to a refresh request's form,
// which golang.org/x/oauth2 builds without it.
type withResource struct {
	base     http.RoundTripper
	resource string
}

func (w withResource) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || req.Body == nil {
		return w.base.RoundTrip(req)
	}
	b, err := io.ReadAll(io.LimitReader(req.Body, 64<<10))
	_ = req.Body.Close()
	if err != nil {
		return nil, err
	}
	form, err := url.ParseQuery(string(b))
	if err == nil && form.Get("grant_type") == "refresh_token" && !form.Has("resource") {
		form.Set("resource", w.resource)
		b = []byte(form.Encode())
	}
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(bytes.NewReader(b))
	req.ContentLength = int64(len(b))
	req.Header.Set("Content-Length", strconv.Itoa(len(b)))
	return w.base.RoundTrip(req)
}

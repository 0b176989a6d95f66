// Command browser stands in for a person's browser where nobody is: given
// an authorization URL (as $BROWSER is), it fetches it and follows its
// redirects, as a browser would, until the page at the end (run-mcp's
// loopback redirect URI, which takes the code). The conformance suite's
// authorization server grants at once, so no person is needed.
//
//	BROWSER=/path/to/browser run-mcp list-tools -- http://127.0.0.1:PORT/mcp
package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "browser: give one URL to open")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, os.Args[1], nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "browser:", err)
		os.Exit(2)
	}
	hops := 0
	client := &http.Client{CheckRedirect: func(r *http.Request, via []*http.Request) error {
		hops = len(via)
		fmt.Fprintf(os.Stderr, "browser: redirected to %s://%s%s\n", r.URL.Scheme, r.URL.Host, r.URL.Path)
		if len(via) >= 10 {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	resp, err := client.Do(req)
	if err != nil {
		fmt.Fprintln(os.Stderr, "browser:", err)
		os.Exit(1)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	fmt.Fprintf(os.Stderr, "browser: %s after %d redirects\n", resp.Status, hops)
	if resp.StatusCode/100 != 2 {
		os.Exit(1)
	}
}

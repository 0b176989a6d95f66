package demoserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// serveHTTP serves the demo over Streamable HTTP at addr (":0" picks a free
// port), for trying run-mcp's HTTP targets. The address it bound is written
// to stderr so a script or test can find it; it runs until ctx ends.
func (d *demo) serveHTTP(ctx context.Context, addr string, extras toolsFile) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	// Sessions are tracked, so a terminated (DELETEd) or unknown session id
	// gets 404 as the transport specifies; mcp-go's default only checks the
	// id's shape and would keep serving a terminated session.
	handler := server.NewStreamableHTTPServer(d.newMCPServer(extras),
		server.WithSessionIdManager(&server.InsecureStatefulSessionIdManager{}))
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	d.printf("demo-server: listening on http://%s/mcp\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err = <-errc:
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = handler.Shutdown(shutdown)
		err = srv.Shutdown(shutdown)
		<-errc
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

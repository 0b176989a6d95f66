//go:build !unix

package session

import "net"

// readArrived reads nothing: no request is sent while run-mcp starts here
// (internal/predial), so no answer can have arrived.
func readArrived(net.Conn, int) ([]byte, bool) { return nil, false }

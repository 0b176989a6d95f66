// Package session is the session daemon behind --session and its thin
// client: a typed protocol (one JSON request and one JSON reply per
// connection) over internal/safesocket, the session record on disk, and the
// daemon's lifetime (start, liveness, close).
//
// The daemon owns the protocol, the connection to the target and its own
// survival: a malformed, oversized, unknown or misaddressed request is
// answered with an error, a panicking handler is recovered, a failing accept
// backs off. What each operation prints is the Handler's business (cli
// registers it), so this package never imports cli and never runs a command
// line: a request names an operation from a fixed set, never an argv.
package session

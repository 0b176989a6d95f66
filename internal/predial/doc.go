// Package predial connects a sessioned command to its session's daemon
// while run-mcp itself is still starting.
//
// A warm sessioned call is one round trip to a daemon that has been idle:
// it has to wake, accept the connection and start reading before the
// request is any use to it. Dialled from this package's init function,
// which runs before the heavy package inits (mcp-go's JSON-schema compiler
// above all: import paths order the inits, and this one sorts before it),
// that part overlaps run-mcp's own start, and the command takes the
// connection once it has its request ready.
//
// The command line is read with a cheap, conservative guess: a headless
// subcommand with --session NAME before any "--". A wrong guess costs only
// a connection the daemon sees closed without a request, which it drops
// (as it drops a probe); the command dials as before whenever the early
// connection is not for the socket it wants, or has waited too long.
package predial

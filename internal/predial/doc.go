// Package predial connects a sessioned command to its session's daemon
// while run-mcp itself is still starting, and sends the simplest calls
// then.
//
// A warm sessioned call is one round trip to a daemon and a server that
// have been idle: each has to wake and do its part, about a millisecond on
// a small VM. Started from this package's init function, which runs before
// the heavy package inits (mcp-go's JSON-schema compiler above all: import
// paths order the inits, and this one sorts before it), that work overlaps
// run-mcp's own start. It runs on a goroutine, beside the inits rather
// than among them: woken from the thread that keeps running the inits, the
// daemon would often be put on that same CPU.
//
// The command line is read twice. A cheap, conservative guess (Session): a
// headless subcommand with --session NAME before any "--" gets the
// connection. A wrong guess costs only a connection the daemon sees closed
// without a request, which it drops (as it drops a probe); the command
// dials as before whenever the early connection is not for the socket it
// wants, or has waited too long. And an exact reading (CallLine), for
// `call TOOL [key=value ...] --session NAME` and nothing else, which also
// sends the request: the line the cli would send, byte for byte (cli's
// tests hold each one to it through the real command). A line sent is a
// call made, so the cli compares its own request with it before it takes
// the answer, and on any difference refuses (exit 70) and hangs up, which
// cancels the early call, rather than print the answer to another call.
// Before the line goes, SIGINT and SIGTERM are taken over (Interrupts), so
// an interrupt while run-mcp is still starting cancels the running call
// with the usual message and exit code, as one during the call does.
//
// This package must import nothing heavy: whatever it imports is
// initialised before it, and so before the dial.
package predial

// Package actors is the engine: supervised actors that own target
// connections. A Conn owns one target (its process or HTTP session, MCP client,
// stderr ring, stdout evidence, notification log, the server-time clocks of
// the calls in flight, open client-input rounds, the last listing, roots and
// log level); the Registry supervises the Conns by name.
//
// Each actor is one goroutine that alone owns its state and a mailbox of
// operations; front ends only send it messages and wait on the reply with
// their context. Logs fed by I/O goroutines (stderr ring, stdout evidence,
// notification log) lock internally so a read loop never waits on a mailbox.
// The one exception to the mailbox is the express path (express.go): plain
// tool calls registered in a table under its own lock, which the actor
// publishes its session into and cancels in its own operations.
//
// actors never imports a front end and never writes to stdout.
package actors

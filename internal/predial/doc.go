// Package predial is the start of a sessioned command, run before the
// heavy package inits: it connects to the session's daemon, and makes the
// simplest warm call there and then.
//
// Package inits run in the order of their import paths, each after what
// it imports, and this package sorts before mcp-go's JSON-schema compiler,
// whose init is most of what run-mcp's start adds to a hello-world
// binary's (5.1 of 8.3 ms in make bench on a slow host). A sessioned
// command needs none of that to ask its daemon.
//
// The command line is read twice.
//
//   - A cheap, conservative guess (Session): a headless subcommand with
//     --session NAME before any "--" gets its connection dialled on a
//     goroutine beside the inits, so the idle daemon wakes and accepts
//     while run-mcp starts. A wrong guess costs only a connection the
//     daemon sees closed without a request, which it drops (as it drops a
//     probe); the command dials as before whenever the early connection is
//     not for the socket it wants, or has waited too long.
//   - An exact reading (CallLine), for `call TOOL [key=value ...] --session
//     NAME` and nothing else: the request line the cli would send, byte for
//     byte (cli's tests run each one through the real command and compare).
//     The init sends it, waits for the answer, prints it as the command
//     prints a daemon's answer and exits with its code: the command itself
//     never runs. Whatever else happens once the line is sent (SIGINT or
//     SIGTERM, taken over before it went; a daemon that hangs up or answers
//     something else) is left to the command, with the connection, what
//     was read of it and the signal, and the command carries on as for any
//     call (cancel, 130 or 143, a daemon's trouble explained). A line sent is
//     a call made, so the command compares its own request with the line
//     before it reads on, and on any difference refuses (exit 70) and hangs
//     up, which cancels that call, rather than print another call's answer.
//
// This package must import nothing heavy: whatever it imports is
// initialised before it, and so before the dial.
package predial

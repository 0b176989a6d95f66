// Package supervise is the small process that stands between run-mcp and
// each target on Linux, so that nothing the target starts outlives it or
// run-mcp.
//
// run-mcp re-executes its own binary with Arg as the first argument; the
// init function of this package (Linux only) notices and runs the
// supervisor instead of the program. Being an init function, it runs before
// the packages that sort after it (mcp-go's JSON-schema compiler among them)
// are initialised, and every binary that links wire, test binaries included,
// can serve as a supervisor without more wiring.
//
// The supervisor makes itself a child subreaper, starts the target in its own
// process group on the inherited fds 0, 1 and 2, and talks to run-mcp over
// two pipes: it writes the Status lines on fd 3 and reads the Control bytes
// from fd 4. When the target ends, when run-mcp asks, or when run-mcp is gone
// (fd 4 reads end of file, or the parent-death signal arrives), it kills every
// process left below it, orphans reparented to it included, and exits.
//
// A spare supervisor (StartSpare) is one started before run-mcp knows its
// target; it is handed the target later (TakeSpare, Hand) or, for a command
// line whose target is certain from the start, at once (TakeEarly). What a
// target is given to run, Target, and its environment, TargetEnv, live here
// too, so that such an early hand-off, made from an init function before
// wire's dependencies are initialised, builds exactly what wire would.
package supervise

package supervise

// The words that turn the run-mcp binary into one of its helpers, as
// argv[2] (argv[1] is Guard).
const (
	// Arg runs the supervisor: one per wire.Spawner, talking to run-mcp on
	// ConnFD.
	Arg = "__run-mcp-supervise"
	// ExecArg runs the exec trampoline: argv[3] is the target's path and
	// argv[4:] its argv. It makes itself a child subreaper and becomes the
	// target (execve), so that what the target starts stays below it.
	ExecArg = "__run-mcp-exec"
)

// Guard is argv[1] of every helper. A binary that links wire must call Main
// when Invoked says so (cmd/run-mcp's main, and the TestMain of every test
// binary that starts targets). A test binary that forgot would otherwise run
// its whole test suite as the "supervisor", each test starting supervisors
// of its own; with this flag first it runs no test at all and exits, and
// the spawn that started it fails saying the supervisor exited.
const Guard = "-test.run=^$"

// Invoked says whether args (os.Args) start one of run-mcp's helpers, which
// Main then runs. main calls it first thing, before any of its own work.
func Invoked(args []string) bool {
	return len(args) >= 3 && args[1] == Guard && (args[2] == Arg || args[2] == ExecArg)
}

// Command is the argv that starts the supervisor, argv0 being what ps shows
// as the program's name.
func Command(argv0 string) []string { return []string{argv0, Guard, Arg} }

// execCommand is the argv that starts target t through the exec trampoline.
func execCommand(argv0 string, t Target) []string {
	return append([]string{argv0, Guard, ExecArg, t.Path}, t.Argv...)
}

// Package prespawn starts run-mcp's supervisor (see internal/supervise) for
// a one-shot command's server while run-mcp itself is still starting.
//
// A supervisor is a second start of the run-mcp binary, some milliseconds
// of Go runtime and page faults, which a one-shot command used to pay
// between its own start and its server's. Started from this package's init
// function, which runs before the heavy package inits (mcp-go's JSON-schema
// compiler above all: import paths order the inits, and this one sorts
// before it), the spare supervisor starts while run-mcp does, and the
// command hands it the server once it knows it.
//
// The command line is read with a cheap, conservative guess: a one-shot
// subcommand with a target command after "--". A wrong guess costs only the
// spare, which exits when run-mcp does; a command the guess misses starts
// its supervisor as before. Only the run-mcp command imports this package,
// and cli's tests, whose command lines (-test.* flags) are never a
// one-shot's: test binaries never start a spare.
//
// For a listing with nothing but its target after the subcommand
// (`run-mcp list-tools -- CMD ARGS...`, and list-resources, list-prompts)
// the target itself is certain before any parsing: no option can
// change what is run or fail the command line. Its spare is then handed the
// target at once (Early), so the server's own start overlaps run-mcp's
// instead of following it. The spawn keeps it only if it is the very target
// it resolved itself (path, argv, environment, directory); anything else is
// stopped and started as usual.
package prespawn

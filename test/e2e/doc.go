// Package e2e holds black-box tests of the built run-mcp binary as a shell
// user drives it: the headless subcommands, their JSON on stdout, their status
// lines on stderr and their exit codes, against the bundled demo server, a
// fixture server and real npm servers; sessions included.
package e2e

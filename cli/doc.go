// Package cli is run-mcp's command line: the cobra commands, the splitting
// of run-mcp's own words from the target command, shorthand arguments, exit
// codes, and the headless subcommands that print JSON to stdout and status
// lines to stderr.
//
// Headless stdout carries only the result JSON; everything meant for a
// person goes to stderr. cli never reaches into a Conn's state: it uses the
// engine's API, as the agent server does.
package cli

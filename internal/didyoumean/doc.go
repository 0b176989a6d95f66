// Package didyoumean finds the candidate closest to a misspelled name, for
// the "did you mean" of unknown tools, flags and connections. It has no state
// and imports nothing of run-mcp's.
package didyoumean

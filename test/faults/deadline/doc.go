//go:build !windows

// Package deadline checks, black-box, that every request run-mcp sends a
// target has a deadline in every front end: one-shot commands, sessioned
// commands, validate and the agent server, each against a server
// (test/fixtures/stuck) that completes the handshake and then never answers
// one chosen method. Each run is bounded by a deadline far above the
// budgets it sets; nothing here asserts timing.
package deadline

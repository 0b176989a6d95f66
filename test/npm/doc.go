// Package npm tests run-mcp as npm ships it: the launcher in npm/run-mcp run
// by Node against a freshly built binary (always), and the packages that
// `make npm` builds once they are installed into a prefix (when CI sets
// RUN_MCP_NPM_PREFIX to it, after `npm install -g --prefix`).
package npm

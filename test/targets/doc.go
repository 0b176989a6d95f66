// Package targets lets tests and benchmarks find the real MCP servers that
// run-mcp is exercised against, and build the repository's own binaries.
//
// The Node servers are installed into <repo>/node_modules by `make deps`
// (npm ci, from package.json and package-lock.json at the repository root):
//
//	@modelcontextprotocol/server-everything            ServerEverything
//	@modelcontextprotocol/server-filesystem            ServerFilesystem
//	@modelcontextprotocol/server-memory                ServerMemory
//	@modelcontextprotocol/server-sequential-thinking   ServerSequentialThinking
//
// Each helper returns a command line (argv) to spawn the server over stdio,
// or an error telling to run `make deps` when the server is not installed.
// Tests pass such an error to Require, which skips the test on a developer's
// machine but fails it when the environment variable CI is "true", so CI can
// never go green by skipping the real-server tests:
//
//	cmd, err := targets.ServerEverything()
//	targets.Require(t, err)
//
// Black-box tests build binaries once per test binary, typically in TestMain:
//
//	bin, err := targets.BuildBinary(dir, "./cmd/run-mcp")
package targets

// Package validate spawns a server, connects, and reports the mistakes an
// SDK forgives and a stricter client would not: stdout pollution, transport
// errors, crash signatures in stderr, capabilities advertised but not served
// (and served but not advertised), and tool and prompt entries a client
// would reject. It serves validate_mcp_server and `run-mcp validate` alike.
//
// It reads what the server sent as raw JSON, never through a library's
// types, so nothing is normalised away before it is checked. It is not a
// wire-format conformance suite.
package validate

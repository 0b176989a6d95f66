package safesocket

import "errors"

// supported refuses sessions on Windows: the specification wants a named pipe
// restricted to the user there, and this build has none yet (a Unix socket
// under %TEMP% is not access-controlled the same way).
func supported() error {
	return errors.New("sessions need a named pipe restricted to the user, which this Windows build does not have yet: " +
		"run the command without --session (each command then starts and stops its own server), " +
		"or run run-mcp under WSL for sessions")
}

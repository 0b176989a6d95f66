// Package safesocket owns the local channel between a session client and
// its daemon, and its safety. On Unix it is a socket in a directory only its
// owner can enter whose listener accepts only connections from the same
// user (peer credentials on Linux). A socket path holds about 100 bytes, so
// a long session name gets a short hashed name, and a temp directory too
// deep for any socket (a long TMPDIR) puts its sockets in the short
// directory /tmp/run-mcp-<uid>/s, made and checked the same way (Listen
// makes it, Dial checks it before it connects). On Windows it is a named pipe created as the first instance of its
// name with an access list that admits only the user's SID, and both ends
// check the pipe's owner and access list before use. Callers get a
// net.Listener and a net.Conn and cannot get the permissions wrong.
package safesocket

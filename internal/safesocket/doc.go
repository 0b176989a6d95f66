// Package safesocket owns the local channel between a session client and
// its daemon, and its safety. On Unix it is a socket in a directory only its
// owner can enter (long paths fall back to a short hashed name) whose
// listener accepts only connections from the same user (peer credentials on
// Linux). On Windows it is a named pipe created as the first instance of its
// name with an access list that admits only the user's SID, and both ends
// check the pipe's owner and access list before use. Callers get a
// net.Listener and a net.Conn and cannot get the permissions wrong.
package safesocket

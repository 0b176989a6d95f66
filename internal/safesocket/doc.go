// Package safesocket owns the local socket between a session client and its
// daemon, and its safety: the socket lives in a directory only its owner can
// enter, long paths fall back to a short hashed name, and a listener accepts
// only connections from the same user (peer credentials on Linux). Callers
// get a net.Listener and a net.Conn and cannot get the permissions wrong.
package safesocket

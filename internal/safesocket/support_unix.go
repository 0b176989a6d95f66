//go:build !windows

package safesocket

// supported: a Unix socket in an owner-only directory is restricted to the user.
func supported() error { return nil }

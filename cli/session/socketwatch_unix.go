//go:build unix

package session

import "os"

// socketWatch tells whether the socket file a daemon listens on is still
// its own: one a temp-directory cleaner removed (or a later daemon of the
// same name replaced) can bring no command to it any more.
type socketWatch struct{ info os.FileInfo }

func watchSocket(path string) socketWatch {
	info, err := os.Lstat(path)
	if err != nil {
		return socketWatch{}
	}
	return socketWatch{info: info}
}

// lost says the file at path is gone or no longer the one watched.
func (w socketWatch) lost(path string) bool {
	if w.info == nil {
		return false
	}
	now, err := os.Lstat(path)
	return err != nil || !os.SameFile(w.info, now)
}

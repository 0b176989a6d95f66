//go:build unix && !linux

package session

import "os"

// socketWatch tells whether the socket file a daemon listens on is still
// its own: one a temp-directory cleaner removed (or a later daemon of the
// same name replaced) can bring no command to it any more. Here the daemon
// looks every pollEvery.
type socketWatch struct {
	info    os.FileInfo
	changes chan struct{}
	done    chan struct{}
}

func watchSocket(path string) *socketWatch {
	w := &socketWatch{changes: make(chan struct{}, 1), done: make(chan struct{})}
	if info, err := os.Lstat(path); err == nil {
		w.info = info
		go w.poll()
	}
	return w
}

// stop ends the watch.
func (w *socketWatch) stop() { close(w.done) }

package session

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// socketWatch tells whether the socket file a daemon listens on is still
// its own: one a temp-directory cleaner removed (or a later daemon of the
// same name replaced) can bring no command to it any more. On Linux inotify
// says when anything in the socket's directory is removed, renamed or
// created, so the daemon looks then and needs no clock (where inotify is
// unavailable, it looks every pollEvery).
type socketWatch struct {
	info    os.FileInfo
	changes chan struct{}
	events  *os.File // the inotify instance; nil when polling
	done    chan struct{}
}

func watchSocket(path string) *socketWatch {
	w := &socketWatch{changes: make(chan struct{}, 1), done: make(chan struct{})}
	info, err := os.Lstat(path)
	if err != nil {
		return w // nothing to watch: it is never lost
	}
	w.info = info
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		go w.poll()
		return w
	}
	const mask = unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_CREATE | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF
	if _, err := unix.InotifyAddWatch(fd, filepath.Dir(path), mask); err != nil {
		_ = unix.Close(fd)
		go w.poll()
		return w
	}
	w.events = os.NewFile(uintptr(fd), "inotify") // non-blocking: read through the poller
	go w.read()
	return w
}

// read signals changes for every batch of events until stop closes the
// instance. Which file an event names does not matter: lost looks.
func (w *socketWatch) read() {
	buf := make([]byte, 4096)
	for {
		if _, err := w.events.Read(buf); err != nil {
			w.signal() // a watch that ends (its directory removed) is a change too
			return
		}
		w.signal()
	}
}

// stop ends the watch.
func (w *socketWatch) stop() {
	close(w.done)
	if w.events != nil {
		_ = w.events.Close()
	}
}

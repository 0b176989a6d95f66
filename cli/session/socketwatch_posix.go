//go:build unix

package session

import (
	"os"
	"time"
)

// pollEvery is how often a daemon looks at its socket file where nothing
// tells it of a change.
const pollEvery = time.Second

// changed is signalled when the socket file may have changed: lost says.
func (w *socketWatch) changed() <-chan struct{} { return w.changes }

// lost says the file at path is gone or no longer the one watched.
func (w *socketWatch) lost(path string) bool {
	if w.info == nil {
		return false
	}
	now, err := os.Lstat(path)
	return err != nil || !os.SameFile(w.info, now)
}

func (w *socketWatch) signal() {
	select {
	case w.changes <- struct{}{}:
	default:
	}
}

// poll signals a possible change every pollEvery until stop.
func (w *socketWatch) poll() {
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	for {
		select {
		case <-w.done:
			return
		case <-t.C:
			w.signal()
		}
	}
}

package actors

import (
	"encoding/json"
	"strings"
	"time"
)

// maxNotes bounds the notification log; the oldest are dropped first.
const maxNotes = 1000

// Note is one notification a target sent, with when it arrived; its params
// are as the target sent them.
type Note struct {
	Seq    int             `json:"seq"`
	Time   time.Time       `json:"time"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// ProgressEvent is one notifications/progress for a call's token.
type ProgressEvent struct {
	At       time.Duration `json:"-"`
	AtMS     int64         `json:"at_ms"`
	Progress float64       `json:"progress"`
	Total    float64       `json:"total,omitempty"`
	Message  string        `json:"message,omitempty"`
}

func incomplete(ev ProgressEvent) bool { return ev.Total > 0 && ev.Progress < ev.Total }

// noteLog is the notifications a connection's targets sent, newest last. It
// belongs to the actor and survives reconnects.
type noteLog struct {
	notes []Note
	seq   int
}

func (l *noteLog) add(method string, params json.RawMessage, now time.Time) {
	l.seq++
	l.notes = append(l.notes, Note{Seq: l.seq, Time: now, Method: method, Params: append(json.RawMessage(nil), params...)})
	if len(l.notes) > maxNotes {
		l.notes = append([]Note(nil), l.notes[len(l.notes)-maxNotes:]...)
	}
}

// query returns up to count of the newest notes whose method contains
// method (all when empty), oldest first, and clears the log when asked.
func (l *noteLog) query(count int, method string, clear bool) (notes []Note, total int) {
	for _, n := range l.notes {
		if method == "" || strings.Contains(n.Method, method) {
			notes = append(notes, n)
		}
	}
	total = len(notes)
	if count > 0 && len(notes) > count {
		notes = notes[len(notes)-count:]
	}
	if clear {
		l.notes = nil
	}
	return notes, total
}

// size is how many notes the log holds.
func (l *noteLog) size() int { return len(l.notes) }

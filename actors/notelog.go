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

// noteLog is the notifications a connection's targets sent. It belongs to
// the actor and survives reconnects. It is a ring of at most maxNotes: a
// note added to a full log takes the oldest one's place without moving the
// rest, and a read copies only the notes it returns, so a log read after
// every note (an agent polling it) costs the notes shown, not the log.
type noteLog struct {
	ring  []Note // grows to maxNotes, then is written round
	start int    // where the oldest note is, once the ring is full
	seq   int
}

func (l *noteLog) add(method string, params json.RawMessage, now time.Time) {
	l.seq++
	n := Note{Seq: l.seq, Time: now, Method: method, Params: append(json.RawMessage(nil), params...)}
	if len(l.ring) < maxNotes {
		l.ring = append(l.ring, n)
		return
	}
	l.ring[l.start] = n
	l.start = (l.start + 1) % len(l.ring)
}

// at is the k-th oldest note.
func (l *noteLog) at(k int) *Note { return &l.ring[(l.start+k)%len(l.ring)] }

// query returns up to count of the newest notes whose method contains
// method (all when count <= 0 or method is empty), oldest first, with how
// many match in all, and clears the log when asked.
func (l *noteLog) query(count int, method string, clear bool) (notes []Note, total int) {
	matches := func(n *Note) bool { return method == "" || strings.Contains(n.Method, method) }
	for k := range len(l.ring) {
		if matches(l.at(k)) {
			total++
		}
	}
	shown := total
	if count > 0 && shown > count {
		shown = count
	}
	if shown > 0 {
		notes = make([]Note, shown)
		for k, i := len(l.ring)-1, shown-1; i >= 0; k-- {
			if n := l.at(k); matches(n) {
				notes[i] = *n
				i--
			}
		}
	}
	if clear {
		l.ring, l.start = nil, 0
	}
	return notes, total
}

// size is how many notes the log holds.
func (l *noteLog) size() int { return len(l.ring) }

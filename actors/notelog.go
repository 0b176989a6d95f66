package actors

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// maxNotes bounds the notification log; the oldest are dropped first.
const maxNotes = 1000

// Note is one notification a target sent, with when it arrived.
type Note struct {
	Seq    int            `json:"seq"`
	Time   time.Time      `json:"time"`
	Method string         `json:"method"`
	Params map[string]any `json:"params,omitempty"`
}

// ProgressEvent is one notifications/progress for a call's token.
type ProgressEvent struct {
	At       time.Duration `json:"-"`
	AtMS     int64         `json:"at_ms"`
	Progress float64       `json:"progress"`
	Total    float64       `json:"total,omitempty"`
	Message  string        `json:"message,omitempty"`
}

// noteLog is fed by the transport's read loop, so it locks instead of going
// through the Conn's mailbox: a read loop must never wait on an actor.
type noteLog struct {
	mu       sync.Mutex
	notes    []Note
	seq      int
	progress map[string]*progressTrack
}

type progressTrack struct {
	started time.Time
	events  []ProgressEvent
	relay   func(ProgressEvent)
}

func newNoteLog() *noteLog { return &noteLog{progress: map[string]*progressTrack{}} }

// add records a notification and, for progress, files it under its token
// when that token belongs to a call still tracked (a target may keep sending
// progress after a call was cancelled; those are logged but not attributed).
func (l *noteLog) add(n mcp.JSONRPCNotification, now time.Time) {
	params := n.Params.AdditionalFields
	if n.Params.Meta != nil {
		params = withMeta(params, n.Params.Meta)
	}
	l.mu.Lock()
	l.seq++
	l.notes = append(l.notes, Note{Seq: l.seq, Time: now, Method: n.Method, Params: params})
	if len(l.notes) > maxNotes {
		l.notes = l.notes[len(l.notes)-maxNotes:]
	}
	var relay func(ProgressEvent)
	var ev ProgressEvent
	if n.Method == string(mcp.MethodNotificationProgress) {
		relay, ev = l.fileProgress(params, now)
	}
	l.mu.Unlock()
	if relay != nil {
		relay(ev) // outside the lock: it writes to the host
	}
}

func withMeta(params map[string]any, meta map[string]any) map[string]any {
	out := make(map[string]any, len(params)+1)
	for k, v := range params {
		out[k] = v
	}
	out["_meta"] = meta
	return out
}

func (l *noteLog) fileProgress(params map[string]any, now time.Time) (func(ProgressEvent), ProgressEvent) {
	token := fmt.Sprint(params["progressToken"])
	track, ok := l.progress[token]
	if !ok {
		return nil, ProgressEvent{}
	}
	ev := ProgressEvent{At: now.Sub(track.started), Message: asString(params["message"])}
	ev.AtMS = ev.At.Milliseconds()
	ev.Progress, _ = params["progress"].(float64)
	ev.Total, _ = params["total"].(float64)
	track.events = append(track.events, ev)
	return track.relay, ev
}

func asString(v any) string {
	s, _ := v.(string)
	return s
}

// trackProgress starts attributing progress with token to a call.
func (l *noteLog) trackProgress(token string, started time.Time, relay func(ProgressEvent)) {
	l.mu.Lock()
	l.progress[token] = &progressTrack{started: started, relay: relay}
	l.mu.Unlock()
}

// settle waits, up to max, for the last progress a call was promised: many
// servers write notifications from another goroutine than responses, so the
// final update can land just after the result.
func (l *noteLog) settle(token string, max time.Duration) {
	deadline := time.Now().Add(max)
	for time.Now().Before(deadline) {
		l.mu.Lock()
		track := l.progress[token]
		pending := track != nil && len(track.events) > 0 && incomplete(track.events[len(track.events)-1])
		l.mu.Unlock()
		if !pending {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// progressPending says whether the last progress of token's call promised
// more (settle would wait).
func (l *noteLog) progressPending(token string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	track := l.progress[token]
	return track != nil && len(track.events) > 0 && incomplete(track.events[len(track.events)-1])
}

func incomplete(ev ProgressEvent) bool { return ev.Total > 0 && ev.Progress < ev.Total }

// untrack stops attributing and returns what arrived for token.
func (l *noteLog) untrack(token string) []ProgressEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	track := l.progress[token]
	delete(l.progress, token)
	if track == nil {
		return nil
	}
	return track.events
}

// query returns up to count of the newest notes whose method contains
// method (all when empty), oldest first, and clears the log when asked.
func (l *noteLog) query(count int, method string, clear bool) (notes []Note, total int) {
	l.mu.Lock()
	defer l.mu.Unlock()
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

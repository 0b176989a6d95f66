package actors

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// notesModel is the notification log at its plainest: every note in a
// slice, the newest maxNotes kept. The ring must answer as it does.
type notesModel struct {
	notes []Note
	seq   int
}

func (m *notesModel) add(method string, params json.RawMessage, now time.Time) {
	m.seq++
	m.notes = append(m.notes, Note{Seq: m.seq, Time: now, Method: method, Params: append(json.RawMessage(nil), params...)})
	m.notes = m.notes[max(0, len(m.notes)-maxNotes):]
}

func (m *notesModel) query(count int, method string, clear bool) (notes []Note, total int) {
	for _, n := range m.notes {
		if method == "" || strings.Contains(n.Method, method) {
			notes = append(notes, n)
		}
	}
	total = len(notes)
	if count > 0 && len(notes) > count {
		notes = notes[len(notes)-count:]
	}
	if clear {
		m.notes = nil
	}
	return notes, total
}

func TestNoteLogAnswersAsAPlainList(t *testing.T) {
	methods := []string{"notifications/message", "notifications/progress", "notifications/tools/list_changed", "notifications/resources/updated"}
	filters := []string{"", "message", "list_changed", "notifications/", "nothing"}
	rng := rand.New(rand.NewPCG(1, 2))
	var log noteLog
	var model notesModel
	at := time.Unix(1_700_000_000, 0)
	for step := range 5 * maxNotes {
		for range rng.IntN(4) {
			method := methods[rng.IntN(len(methods))]
			params := json.RawMessage(`{"step":` + strings.Repeat("1", 1+step%5) + `}`)
			log.add(method, params, at)
			model.add(method, params, at)
			at = at.Add(time.Millisecond)
		}
		count, filter, clear := rng.IntN(15)-2, filters[rng.IntN(len(filters))], rng.IntN(400) == 0
		got, gotTotal := log.query(count, filter, clear)
		want, wantTotal := model.query(count, filter, clear)
		if gotTotal != wantTotal || !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d, query(%d, %q, %v): %d notes of %d, want %d of %d", step, count, filter, clear, len(got), gotTotal, len(want), wantTotal)
		}
		if log.size() != len(model.notes) {
			t.Fatalf("step %d: the log holds %d notes, want %d", step, log.size(), len(model.notes))
		}
	}
}

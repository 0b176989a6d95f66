package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/run-mcp/run-mcp/actors"
)

// waitNotice is how long a wait goes unremarked: most handshakes and calls
// end before a person wonders.
const waitNotice = time.Second

// feedback tells a person at a terminal what a one-shot command waits for
// and how a call progresses, on stderr. It is nil when stderr is not a
// terminal: a program reading stderr gets only the status lines it always
// got. Its methods are safe on a nil feedback.
type feedback struct {
	w  io.Writer
	mu sync.Mutex
	// what is the wait in progress ("" when none); shown says its line is
	// on the screen, to be erased before anything else is written.
	what  string
	start time.Time
	shown bool
}

// feedbackFor is a feedback on w when w is a terminal, else nil.
func feedbackFor(w io.Writer) *feedback {
	f, ok := w.(*os.File)
	if !ok || !isTerminal(f) {
		return nil
	}
	return &feedback{w: w}
}

// wait marks the start of a wait for what (e.g. "tools/call search"); the
// returned function ends it. After waitNotice the line
// "run-mcp: waiting for <what> (Ns) …" is shown, updated in place each
// second, and erased when the wait ends.
func (fb *feedback) wait(what string) (done func()) {
	if fb == nil {
		return func() {}
	}
	fb.mu.Lock()
	fb.what, fb.start, fb.shown = terminalSafe(what), time.Now(), false
	fb.mu.Unlock()
	stop := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		timer := time.NewTimer(waitNotice)
		defer timer.Stop()
		for {
			select {
			case <-stop:
				return
			case <-timer.C:
				fb.mu.Lock()
				fb.draw()
				fb.mu.Unlock()
				timer.Reset(time.Second)
			}
		}
	}()
	return func() {
		close(stop)
		<-finished
		fb.mu.Lock()
		fb.erase()
		fb.what = ""
		fb.mu.Unlock()
	}
}

// draw shows the wait line in place (the caller holds mu).
func (fb *feedback) draw() {
	if fb.what == "" {
		return
	}
	secs := int(time.Since(fb.start) / time.Second)
	fmt.Fprintf(fb.w, "\r\x1b[Krun-mcp: waiting for %s (%ds) …", fb.what, secs)
	fb.shown = true
}

// erase clears the wait line, if shown (the caller holds mu).
func (fb *feedback) erase() {
	if fb.shown {
		fmt.Fprint(fb.w, "\r\x1b[K")
		fb.shown = false
	}
}

// progress shows one progress update of a call as its own line, the wait
// line redrawn below it. It runs on the target's read loop: writing to a
// terminal is quick.
func (fb *feedback) progress(ev actors.ProgressEvent) {
	if fb == nil {
		return
	}
	fb.mu.Lock()
	defer fb.mu.Unlock()
	redraw := fb.shown
	fb.erase()
	fmt.Fprintf(fb.w, "run-mcp: progress %s\n", terminalSafe(progressText(ev)))
	if redraw {
		fb.draw()
	}
}

// progressText is "2/4 (50%): step 2", "3", "0.5/1 (50%)".
func progressText(ev actors.ProgressEvent) string {
	var b strings.Builder
	b.WriteString(num(ev.Progress))
	if ev.Total > 0 {
		fmt.Fprintf(&b, "/%s (%d%%)", num(ev.Total), int(ev.Progress/ev.Total*100))
	}
	if ev.Message != "" {
		b.WriteString(": " + ev.Message)
	}
	return b.String()
}

func num(f float64) string { return strings.TrimSuffix(fmt.Sprintf("%g", f), ".0") }

// callWhat names a call as its wait line does: "tools/call search".
func callWhat(req actors.CallRequest) string {
	switch req.Kind {
	case actors.KindResource:
		return "resources/read " + req.Name
	case actors.KindPrompt:
		return "prompts/get " + req.Name
	}
	return "tools/call " + req.Name
}

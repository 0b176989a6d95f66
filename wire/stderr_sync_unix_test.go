//go:build unix

package wire

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// Once Sync returns, every line written to the pipe before it is in the
// feed, however far behind the drain was: what a call's stderr shows does
// not hang on a pause in the lines, which a busy machine makes at random.
func TestSyncHasEveryLineWrittenBeforeIt(t *testing.T) {
	r, w, err := childPipe(false)
	if err != nil {
		t.Fatal(err)
	}
	feed := newStderrFeed()
	feed.syncThrough(r)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		drainLines(r, feed, maxStderrLine)
	}()
	ring := NewRing()
	written := 0
	for round := 1; round <= 20; round++ {
		// A burst of lines, more than the pipe holds at once, then a Sync.
		wrote := make(chan error, 1)
		go func() {
			var err error
			for i := 0; i < 5_000 && err == nil; i++ {
				_, err = fmt.Fprintf(w, "round %d line %d\n", round, i+1)
			}
			wrote <- err
		}()
		if err := <-wrote; err != nil {
			t.Fatal(err)
		}
		written += 5_000
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		ok := feed.Sync(ctx)
		cancel()
		if !ok {
			t.Fatalf("round %d: Sync gave up", round)
		}
		ring.AppendBatch(feed.Take())
		ex := ring.Since(0)
		if want := fmt.Sprintf("round %d line 5000", round); ex.Total != written || ex.Lines[len(ex.Lines)-1].Text != want {
			t.Fatalf("round %d: after Sync the ring has %d lines ending %q, want %d ending %q", round, ex.Total, ex.Lines[len(ex.Lines)-1].Text, written, want)
		}
	}
	w.Close()
	<-drained
	r.Close()
	if !feed.Sync(context.Background()) {
		t.Error("Sync after the pipe's end must return at once, true")
	}
}

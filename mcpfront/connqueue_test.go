package mcpfront

import (
	"sync"
	"testing"
	"time"
)

// Calls past a connection's limit wait, every one runs, and a call queued
// behind calls that never finish still runs (the queue unsticks itself).
func TestConnQueueRunsEveryCallEvenBehindStuckOnes(t *testing.T) {
	pool := newWorkers()
	defer pool.stop()
	q := connQueues{run: pool.run}
	release := make(chan struct{})
	var started sync.WaitGroup
	started.Add(perConnCalls)
	var done sync.WaitGroup
	done.Add(perConnCalls + 1)
	for range perConnCalls {
		q.add("c", func() {
			defer done.Done()
			started.Done()
			<-release // a tool that waits on a person
		})
	}
	started.Wait()
	ran := make(chan struct{})
	q.add("c", func() { defer done.Done(); close(ran) })
	select {
	case <-ran:
	case <-time.After(30 * time.Second):
		t.Fatal("a call queued behind stuck calls never ran")
	}
	close(release)
	done.Wait()
	// Another connection is never held by this one's queue.
	other := make(chan struct{})
	q.add("d", func() { close(other) })
	<-other
}

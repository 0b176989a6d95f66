package mcpfront

import "sync"

// workers runs the host's requests on goroutines that are kept for the next
// request once theirs is done. A fresh goroutine per request paid for its
// stack growing to what a call needs (morestack and copystack were a sixth
// of the agent server's CPU under load); a kept one has it grown already.
// There is no bound on how many run at once: a request never waits for
// another to finish, as each may wait on the host or on a slow target.
type workers struct {
	jobs chan func()
	wg   sync.WaitGroup
	mu   sync.Mutex
	idle int
}

// maxIdleWorkers bounds the goroutines kept waiting for work, and so the
// memory a past burst keeps.
const maxIdleWorkers = 256

func newWorkers() *workers { return &workers{jobs: make(chan func())} }

// run hands job to an idle worker, or to a new one when none is idle.
func (w *workers) run(job func()) {
	select {
	case w.jobs <- job:
	default:
		w.wg.Add(1)
		go w.loop(job)
	}
}

func (w *workers) loop(job func()) {
	defer w.wg.Done()
	for {
		job()
		w.mu.Lock()
		if w.idle >= maxIdleWorkers {
			w.mu.Unlock()
			return
		}
		w.idle++
		w.mu.Unlock()
		next, ok := <-w.jobs
		w.mu.Lock()
		w.idle--
		w.mu.Unlock()
		if !ok {
			return
		}
		job = next
	}
}

// stop ends the idle workers once no more jobs can come, and waits for them.
func (w *workers) stop() {
	close(w.jobs)
	w.wg.Wait()
}

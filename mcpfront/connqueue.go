package mcpfront

import (
	"sync"
	"time"
)

// connQueues bounds how many call_mcp_primitive run at once on each
// connection: the rest wait as queued jobs (a closure each, no goroutine),
// and a finishing call runs the next on its own goroutine. With 20,000 calls
// in flight a goroutine parked for each made the garbage collector scan
// 20,000 stacks on every cycle, and that, not the calls, was the work. A
// target gets perCall calls at once, which keeps it as busy as a direct
// client would.
//
// A queue that does not move (every running call waits on a slow tool or on
// a person) must not hold the calls behind it: when none of a connection's
// calls has finished for queueStall, the waiting ones are all started.
type connQueues struct {
	run func(func()) // runs a job on a goroutine of its own (workers.run)
	mu  sync.Mutex
	by  map[string]*connQueue
}

type connQueue struct {
	running int
	waiting []func()
	moved   time.Time // when a call last finished or started
	timer   *time.Timer
}

const (
	perConnCalls = 32
	queueStall   = time.Second
)

// add runs job now, or queues it behind the calls running on conn.
func (cq *connQueues) add(conn string, job func()) {
	cq.mu.Lock()
	if cq.by == nil {
		cq.by = map[string]*connQueue{}
	}
	q := cq.by[conn]
	if q == nil {
		q = &connQueue{}
		cq.by[conn] = q
	}
	if q.running < perConnCalls {
		q.running++
		q.moved = time.Now()
		cq.mu.Unlock()
		cq.run(func() { cq.loop(conn, job) })
		return
	}
	q.waiting = append(q.waiting, job)
	if q.timer == nil {
		q.timer = time.AfterFunc(queueStall, func() { cq.unstick(conn) })
	}
	cq.mu.Unlock()
}

// loop runs job, then the jobs queued on conn, until none is left.
func (cq *connQueues) loop(conn string, job func()) {
	for job != nil {
		job()
		job = cq.next(conn)
	}
}

func (cq *connQueues) next(conn string) func() {
	cq.mu.Lock()
	defer cq.mu.Unlock()
	q := cq.by[conn]
	q.moved = time.Now()
	if len(q.waiting) > 0 {
		job := q.waiting[0]
		q.waiting[0] = nil
		q.waiting = q.waiting[1:]
		return job
	}
	q.running--
	if q.running == 0 {
		if q.timer != nil {
			q.timer.Stop()
		}
		delete(cq.by, conn)
	}
	return nil
}

// unstick starts every waiting call of a queue that has not moved for
// queueStall, and checks again later while calls wait.
func (cq *connQueues) unstick(conn string) {
	cq.mu.Lock()
	q := cq.by[conn]
	if q == nil || q.timer == nil {
		cq.mu.Unlock()
		return
	}
	var start []func()
	if since := time.Since(q.moved); since >= queueStall {
		start, q.waiting = q.waiting, nil
		q.running += len(start)
		q.moved = time.Now()
	}
	if len(q.waiting) > 0 {
		q.timer.Reset(queueStall)
	} else {
		q.timer = nil
	}
	cq.mu.Unlock()
	for _, job := range start {
		cq.run(func() { cq.loop(conn, job) })
	}
}

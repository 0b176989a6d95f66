package wire

import (
	"context"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// A request is answered to whoever waits for it: a goroutine blocked in
// SendRequest (ch), or a function the read loop calls (fn). The second lets
// a caller send thousands of requests without parking a goroutine on each,
// and answer each on the read loop that read its response, with no hand-off
// between goroutines in between.
type waiter struct {
	ch chan *transport.JSONRPCResponse
	fn func(*transport.JSONRPCResponse, error)
}

func (w waiter) answer(resp *transport.JSONRPCResponse) {
	if w.fn != nil {
		w.fn(resp, nil)
		return
	}
	w.ch <- resp
}

// fail tells the waiter the channel closed before its answer came (reason is
// why the read loop ended).
func (w waiter) fail(reason error) {
	if w.fn != nil {
		w.fn(nil, &ClosedError{Reason: reason})
		return
	}
	close(w.ch)
}

// SendAsync writes msg, a request whose id is key (mcp.RequestId's String
// form), and arranges for answer to be called once with its response, or
// with an error when the channel closes first. answer runs on the read loop:
// it must not block for long. On an error from SendAsync itself (the channel
// is closed, the write failed) answer is not called. A caller that gives up
// on the request calls Forget.
func (t *Transport) SendAsync(key string, msg []byte, answer func(*transport.JSONRPCResponse, error)) error {
	if err := t.await(key, answer); err != nil {
		return err
	}
	if err := t.writeAsync([]string{key}, msg); err != nil {
		if _, ok := t.take(key); ok {
			return err
		}
		// The read loop ended meanwhile and already told answer.
	}
	return nil
}

// await files answer as key's waiter, unless the channel has closed.
func (t *Transport) await(key string, answer func(*transport.JSONRPCResponse, error)) error {
	t.pendingMu.Lock()
	select {
	case <-t.done:
		t.pendingMu.Unlock()
		return &ClosedError{Reason: t.doneErr}
	default:
	}
	t.pending[key] = waiter{fn: answer}
	t.pendingMu.Unlock()
	return nil
}

// Forget drops the request key without calling its answer; its response,
// if one still comes, is expected and not reported as a transport error. It
// reports whether the request was still waiting (false: answer has been or
// is being called).
func (t *Transport) Forget(key string) bool {
	t.pendingMu.Lock()
	defer t.pendingMu.Unlock()
	if _, ok := t.pending[key]; !ok {
		return false
	}
	delete(t.pending, key)
	t.cancelled[key] = true
	return true
}

// take removes a pending request, reporting whether it was there.
func (t *Transport) take(key string) (waiter, bool) {
	t.pendingMu.Lock()
	defer t.pendingMu.Unlock()
	w, ok := t.pending[key]
	delete(t.pending, key)
	return w, ok
}

// writeAsync writes msg as one line without blocking the caller on a target
// that has stopped reading. When the write lock is free and nothing is
// queued, it tries once (tryWrite: write(2) calls that never wait, no
// timer). Otherwise, or for what the pipe did not take, the frame joins the
// transport's queue, which one goroutine drains in order, a batch per write,
// under the write lock and the usual deadline. A frame that cannot be sent
// tells its request's waiter (the call fails as a blocked write does on the
// slow path).
func (t *Transport) writeAsync(keys []string, msg []byte) error {
	_, err := t.writeAsyncKept(keys, msg)
	return err
}

// writeAsyncKept is writeAsync; done says msg was written (or refused) at
// once, so its buffer is the caller's again.
func (t *Transport) writeAsyncKept(keys []string, msg []byte) (done bool, err error) {
	msg = append(msg, '\n')
	t.queueMu.Lock()
	if t.draining {
		t.queue = append(t.queue, queued{keys: keys, msg: msg})
		t.queueMu.Unlock()
		return false, nil
	}
	select {
	case t.writing <- struct{}{}:
	default: // a blocking write holds the lock: queue behind it
		t.startDrain(queued{keys: keys, msg: msg}, false)
		t.queueMu.Unlock()
		return false, nil
	}
	if len(t.rest) > 0 { // an earlier message was cut: the drain finishes it first (writeLocked)
		t.startDrain(queued{keys: keys, msg: msg}, true)
		t.queueMu.Unlock()
		return false, nil
	}
	t.queueMu.Unlock()
	n, tried, err := tryWrite(t.writer, msg)
	switch {
	case !tried:
		err = t.writeLocked(msg, time.Now().Add(defaultWriteTimeout))
		t.unlockWrite()
		return true, err
	case err != nil:
		t.unlockWrite()
		return true, &ClosedError{Reason: fmt.Errorf("write to the server's stdin: %w", err)}
	case n == len(msg):
		t.unlockWrite()
		if len(keys) > 0 {
			t.answerDue()
		}
		return true, nil
	}
	t.queueMu.Lock()
	t.startDrain(queued{keys: keys, msg: msg[n:]}, true)
	t.queueMu.Unlock()
	return false, nil
}

// queued is a frame (or the rest of one) waiting to be written.
type queued struct {
	keys []string // the requests in msg
	msg  []byte
}

// startDrain puts first at the head of the queue and starts the drain;
// locked says the caller holds the write lock, which passes to the drain.
// queueMu is held.
func (t *Transport) startDrain(first queued, locked bool) {
	t.queue = append([]queued{first}, t.queue...)
	t.draining = true
	go t.drain(locked)
}

// drain writes the queue until it is empty.
func (t *Transport) drain(locked bool) {
	if !locked {
		if err := t.lockWrite(context.Background(), time.Now().Add(defaultWriteTimeout), 0); err != nil {
			t.failQueue(err)
			return
		}
	}
	defer t.unlockWrite()
	var batch []byte
	for {
		t.queueMu.Lock()
		frames := t.queue
		t.queue = nil
		if len(frames) == 0 {
			t.draining = false
			t.queueMu.Unlock()
			return
		}
		t.queueMu.Unlock()
		batch = batch[:0]
		for _, q := range frames {
			batch = append(batch, q.msg...)
		}
		if err := t.writeLocked(batch, time.Now().Add(defaultWriteTimeout)); err != nil {
			for _, q := range frames {
				t.failWaiters(q.keys, err)
			}
			t.failQueue(err)
			return
		}
	}
}

// failQueue fails every queued frame's waiter and ends the drain.
func (t *Transport) failQueue(err error) {
	t.queueMu.Lock()
	frames := t.queue
	t.queue, t.draining = nil, false
	t.queueMu.Unlock()
	for _, q := range frames {
		t.failWaiters(q.keys, err)
	}
}

// failWaiters tells each key's waiter, if it still waits, that its request
// could not be sent.
func (t *Transport) failWaiters(keys []string, err error) {
	for _, key := range keys {
		if w, ok := t.take(key); ok {
			if w.fn != nil {
				w.fn(nil, err)
			} else {
				close(w.ch)
			}
		}
	}
}

// Batch holds requests for several transports and writes each transport's
// in one write when flushed: a reader that has read many requests at once
// (an agent with calls in flight) then pays one write per target for them,
// not one per request. A Batch belongs to the one goroutine that fills and
// flushes it.
type Batch struct {
	frames map[*Transport]*queued
	order  []*Transport
}

// SendBatched is SendAsync with the write left to b's next Flush. If the
// write then fails, answer is told.
func (t *Transport) SendBatched(b *Batch, key string, msg []byte, answer func(*transport.JSONRPCResponse, error)) error {
	if err := t.await(key, answer); err != nil {
		return err
	}
	if b.frames == nil {
		b.frames = map[*Transport]*queued{}
	}
	q := b.frames[t]
	if q == nil {
		q = &queued{}
		b.frames[t] = q
	}
	if len(q.keys) == 0 {
		b.order = append(b.order, t)
	}
	q.keys = append(q.keys, key)
	q.msg = append(append(q.msg, msg...), '\n')
	return nil
}

// Flush writes what b holds, each transport's requests in the order sent.
// A buffer written at once is kept for the next round (one that had to
// queue belongs to the queue now).
func (b *Batch) Flush() {
	for _, t := range b.order {
		q := b.frames[t]
		msg := q.msg[:len(q.msg)-1] // writeAsync ends the line itself
		kept, err := t.writeAsyncKept(q.keys, msg)
		if err != nil {
			t.failWaiters(q.keys, err)
		}
		if kept && err == nil && cap(q.msg) <= maxKeptBatch {
			q.msg, q.keys = q.msg[:0], q.keys[:0]
			continue
		}
		delete(b.frames, t)
	}
	b.order = b.order[:0]
}

// maxKeptBatch bounds a buffer a Batch keeps between rounds.
const maxKeptBatch = 256 << 10

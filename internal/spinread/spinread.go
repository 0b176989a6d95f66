package spinread

import (
	"errors"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Budget lets one Reader of a process try at a time. The zero Budget and a
// nil one let none.
type Budget struct {
	on   bool
	held atomic.Bool
	base time.Time // monotonic origin of the readers' windows
}

// NewBudget returns the Budget of a process whose Go runtime had cpus CPUs
// to run on before it was held to one P (runtime.GOMAXPROCS at start). It
// lets readers try only with two CPUs or more, so that a reader trying
// never keeps the sender from a CPU, and only while the runtime runs Go
// code on one P: with more, each hand-off between the reader that was
// trying and the next one wakes an idle thread of the runtime (wakep), on
// the CPU the sender needs, and that cost what trying saved (make bench's
// sequential call_mcp_primitive: 1.71-2.21x of a direct call on two Ps, as
// without trying; 1.32-1.58x on one).
func NewBudget(cpus int) *Budget {
	return &Budget{on: cpus >= 2 && runtime.GOMAXPROCS(0) == 1, base: time.Now()}
}

func (b *Budget) now() int64 { return int64(time.Since(b.base)) }

func (b *Budget) acquire() bool { return b != nil && b.on && b.held.CompareAndSwap(false, true) }

func (b *Budget) release() { b.held.Store(false) }

// Reader reads f, an *os.File in the runtime's poller (a pipe end in
// non-blocking mode), trying it for a while after Expect before it parks.
// One goroutine reads it; Expect may be called from any.
type Reader struct {
	f      *os.File
	budget *Budget
	until  atomic.Int64 // Budget.now at which the window Expect opened ends
	parked atomic.Bool  // a read waits in the poller
	// ends is the owner's deadline as Unix nanoseconds (0: none), which a
	// try stops at too.
	ends atomic.Int64

	mu       sync.Mutex // guards the two below and orders the file's deadline calls
	deadline time.Time  // the owner's own read deadline
	kicked   bool       // Expect set a past deadline to wake a parked read
}

// Window is how long a read tries for a message said to be due: longer
// than a fast server takes to answer a call on a busy two-CPU machine
// (0.1-0.3 ms), short enough that a slow one costs little CPU.
const Window = 500 * time.Microsecond

// New returns a Reader of f that tries within budget's limits. A file that
// is not in non-blocking mode (a terminal, a regular file) is read as
// os.File reads it, never tried.
func New(f *os.File, budget *Budget) *Reader {
	if budget != nil && !nonBlocking(f) {
		budget = nil
	}
	return &Reader{f: f, budget: budget}
}

// Close closes the file.
func (r *Reader) Close() error { return r.f.Close() }

// SetReadDeadline sets the owner's deadline on reads, as os.File's does.
func (r *Reader) SetReadDeadline(t time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.deadline = t
	r.ends.Store(0)
	if !t.IsZero() {
		r.ends.Store(max(t.UnixNano(), 1))
	}
	if r.kicked {
		return nil // the wake-up's past deadline stands; unkick puts t in its place
	}
	return r.f.SetReadDeadline(t)
}

// Expect says a message is due on the file within window: a read that
// finds nothing keeps trying until then, if it gets the budget. A read
// already parked is woken to do so.
func (r *Reader) Expect(window time.Duration) {
	if r.budget == nil || !r.budget.on {
		return
	}
	r.until.Store(r.budget.now() + int64(window))
	if !r.parked.Load() || r.budget.held.Load() {
		return // it will see the window itself, or could not try now anyway
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.kicked {
		r.kicked = true
		_ = r.f.SetReadDeadline(time.Unix(1, 0))
	}
}

// Read reads into p as os.File's Read does.
func (r *Reader) Read(p []byte) (int, error) {
	for {
		n, err := r.read(p)
		if err == nil || !errors.Is(err, os.ErrDeadlineExceeded) || !r.unkick() || r.overdue() {
			return n, err
		}
	}
}

// unkick says a deadline error was Expect's wake-up, and puts the owner's
// deadline back, which ends the next read at once if it has passed too.
func (r *Reader) unkick() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.kicked {
		return false
	}
	r.kicked = false
	_ = r.f.SetReadDeadline(r.deadline)
	return true
}

// due says a window is open.
func (r *Reader) due() bool { return r.until.Load() > r.budget.now() }

// overdue says the owner's deadline has passed.
func (r *Reader) overdue() bool {
	ends := r.ends.Load()
	return ends != 0 && time.Now().UnixNano() >= ends
}

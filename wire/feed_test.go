package wire

import "sync"

// rings are the test's owners of the processes' stderr: each process's feed
// is taken into its own ring when a test reads it, as a connection's actor
// takes it.
var rings sync.Map // *Process → *testRing

type testRing struct {
	mu   sync.Mutex
	ring *Ring
}

// ringOf takes what p's stderr feed holds into p's ring and returns it.
func ringOf(p *Process) *Ring {
	v, _ := rings.LoadOrStore(p, &testRing{ring: NewRing()})
	tr := v.(*testRing)
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.ring.AppendBatch(p.Stderr().Take())
	return tr.ring
}

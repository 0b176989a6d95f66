package wire

import (
	"os"
	"sync"

	"github.com/run-mcp/run-mcp/internal/supervise"
)

// platformSpawner holds the Spawner's supervisor process: one for all its
// targets, started by the first spawn, and started again by
// the next spawn if it was lost (killed, or found wedged and killed).
type platformSpawner struct {
	mu  sync.Mutex
	sup *supervisor
}

// start has the live supervisor start t, starting a supervisor with t as
// its first target when there is none.
func (p *platformSpawner) start(s *Spawner, t supervise.Target, stdio [3]*os.File) (*supervised, error) {
	p.mu.Lock()
	if s.isClosed() {
		p.mu.Unlock()
		return nil, ErrSpawnerClosed
	}
	if p.sup != nil && !p.sup.isLost() {
		sup := p.sup
		p.mu.Unlock()
		return sup.start(t, stdio)
	}
	if p.sup != nil {
		p.sup.close()
		p.sup = nil
	}
	sup, started, err := startSupervisor(t, stdio)
	if err != nil {
		p.mu.Unlock()
		return nil, err
	}
	p.sup = sup
	p.mu.Unlock()
	return started()
}

// close ends the supervisor: it reads end of file, kills whatever is left
// below it (nothing, when every target was stopped first) and exits.
func (p *platformSpawner) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sup != nil {
		p.sup.close()
		p.sup = nil
	}
}

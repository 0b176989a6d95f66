package wire

import (
	"sync"
)

// platformSpawner holds the Spawner's supervisor process: one for all its
// targets, started by the first spawn, and started again by
// the next spawn if it was lost (killed, or found wedged and killed).
type platformSpawner struct {
	mu  sync.Mutex
	sup *supervisor
}

// supervisor returns the live supervisor, starting one if there is none.
func (p *platformSpawner) supervisor(s *Spawner) (*supervisor, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sup != nil && !p.sup.isLost() {
		return p.sup, nil
	}
	if p.sup != nil {
		p.sup.close()
		p.sup = nil
	}
	var sup *supervisor
	var err error
	if cerr := s.onThread(func() { sup, err = startSupervisor() }); cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, err
	}
	p.sup = sup
	return sup, nil
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

package wire

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/run-mcp/run-mcp/internal/supervise"
)

// selfExe is the running binary even if it was replaced or deleted since it
// started (a rebuild of run-mcp under a live agent server).
const selfExe = "/proc/self/exe"

// directAttr is for the fallback without a supervisor: the parent-death
// signal reaches the target itself at least.
func directAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// startChild starts the target under the Spawner's supervisor (see
// internal/supervise), or directly where /proc is not mounted (the
// supervisor finds what a target left behind there).
func startChild(spawner *Spawner, path string, spec Spec, stdio [3]*os.File) (child, error) {
	if _, err := os.Stat(selfExe); err != nil {
		return startDirect(spawner, path, spec, stdio)
	}
	// The supervisor runs in the directory run-mcp had when it started it:
	// a target is given its own, absolute, so that it never depends on that.
	dir := spec.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	} else if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	t := supervise.Target{Path: path, Argv: append([]string{path}, spec.Args...), Env: BuildEnv(spec.Env), Dir: dir}
	return spawner.plat.start(spawner, t, stdio)
}

// supervised is a target the supervisor started.
type supervised struct {
	sup    *supervisor
	id     uint32
	target int

	mu        sync.Mutex
	exit      *Exit
	exited    chan struct{} // closed once the target has ended
	gone      chan struct{} // closed once nothing of it is left running
	endOnce   sync.Once
	emptyOnce sync.Once
}

// ended records how the target ended (the first word wins).
func (k *supervised) ended(e Exit) {
	k.endOnce.Do(func() {
		k.mu.Lock()
		k.exit = &e
		k.mu.Unlock()
		close(k.exited)
	})
}

func (k *supervised) emptied() { k.emptyOnce.Do(func() { close(k.gone) }) }

func (k *supervised) hasEnded() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.exit != nil
}

func (k *supervised) pid() int                { return k.target }
func (k *supervised) terminate()              { k.sup.ask(supervise.KindTerm, k) }
func (k *supervised) killAll()                { k.sup.ask(supervise.KindKill, k) }
func (k *supervised) goneCh() <-chan struct{} { return k.gone }

// serving looks for the pipe among the processes below the supervisor:
// what the target left behind is there.
func (k *supervised) serving(ino uint64) []int {
	if ino == 0 {
		return nil
	}
	return supervise.Holders(k.sup.pid, ino)
}

// wait blocks until the target has ended: the supervisor reports it, or,
// if the supervisor is lost, the target was killed by its parent-death
// signal.
func (k *supervised) wait() Exit {
	<-k.exited
	k.mu.Lock()
	defer k.mu.Unlock()
	return *k.exit
}

// release tells the supervisor to forget the target once nothing of it is
// left; killAll came first. Nothing waits on its acknowledgement: the stop
// it ends has seen the target gone already, and the next request (or end
// of file) comes after it on the socket.
func (k *supervised) release() {
	k.sup.tell(supervise.KindRelease, k)
	k.sup.forget(k)
}

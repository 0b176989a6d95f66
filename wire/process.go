package wire

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Spec says what to run.
type Spec struct {
	Command string            `json:"command"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"-"` // values are secrets: never serialised
	Dir     string            `json:"cwd,omitempty"`
}

// CommandLine is the command and its arguments as a person would type them.
func (s Spec) CommandLine() string {
	parts := make([]string, 0, 1+len(s.Args))
	for _, p := range append([]string{s.Command}, s.Args...) {
		if p == "" || strings.ContainsAny(p, " \t\"'\\$") {
			p = fmt.Sprintf("%q", p)
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " ")
}

// Stop timings. The first grace is short on purpose: a server that ignores
// stdin EOF (server-everything does) must not make run-mcp slow to exit.
const (
	// StdinGrace is how long Stop waits, after closing the target's stdin,
	// for it to exit by itself before SIGTERM.
	StdinGrace    = 20 * time.Millisecond
	termGrace     = 2 * time.Second
	drainGrace    = 200 * time.Millisecond
	maxStderrLine = 64 << 10
)

// CommandNotFoundError says the target command could not be found or run.
type CommandNotFoundError struct {
	Command string
	Err     error
}

func (e *CommandNotFoundError) Error() string {
	return fmt.Sprintf("command not found: %q (%v). Check the spelling, install it, or pass the full path.", e.Command, e.Err)
}

func (e *CommandNotFoundError) Unwrap() error { return e.Err }

// Process is one running target. Its stdin and stdout belong to the channel;
// its stderr is drained into a StderrFeed from the moment it starts.
//
// The connection lives while its pipes are served, not while the target's
// own process lives: a launcher (a wrapper that starts the real server on
// the same pipes and exits 0) ends the process, Exited is closed, and the
// server it started still answers. Only Stop (or StopAfter) ends what is
// left; Serving says who that is.
type Process struct {
	Spec      Spec
	StartedAt time.Time

	child   child
	stdin   *os.File
	stdout  *os.File
	stderrR *os.File
	stderr  *StderrFeed
	// stdoutInode identifies the stdout pipe (read once at start: the
	// channel closes the file when it is done with it).
	stdoutInode uint64

	mu          sync.Mutex
	stoppedByUs bool
	exit        *Exit
	exited      chan struct{} // closed once reaped
	drained     chan struct{} // closed once stderr hit EOF (or was cut)
	done        chan struct{} // closed once reaped and drained
	stopOnce    sync.Once
}

// Start resolves and starts spec's command through spawner.
func Start(spawner *Spawner, spec Spec) (*Process, error) {
	path, err := resolve(spec)
	if err != nil {
		return nil, err
	}
	p := &Process{Spec: spec, stderr: newStderrFeed(), exited: make(chan struct{}),
		drained: make(chan struct{}), done: make(chan struct{})}
	if err := p.start(spawner, path); err != nil {
		return nil, err
	}
	p.stdoutInode = fileInode(p.stdout)
	p.stderr.syncThrough(p.stderrR)
	go p.drainStderr()
	go p.wait()
	return p, nil
}

// start starts the target on new pipes and sets StartedAt.
func (p *Process) start(spawner *Spawner, path string) error {
	childIn, childOut, childErr, err := p.pipes()
	if err != nil {
		return err
	}
	p.child, err = startChild(spawner, path, p.Spec, [3]*os.File{childIn, childOut, childErr})
	closeAll(childIn, childOut, childErr) // the child has its own copies now
	if err != nil {
		closeAll(p.stdin, p.stdout, p.stderrR)
		return fmt.Errorf("start %s: %w", p.Spec.CommandLine(), err)
	}
	p.StartedAt = time.Now()
	return nil
}

func (p *Process) pipes() (childIn, childOut, childErr *os.File, err error) {
	var files []*os.File
	pipe := func(childReads bool) (mine, theirs *os.File) {
		if err != nil {
			return nil, nil
		}
		mine, theirs, err = childPipe(childReads)
		files = append(files, mine, theirs)
		return mine, theirs
	}
	p.stdin, childIn = pipe(true)
	p.stdout, childOut = pipe(false)
	p.stderrR, childErr = pipe(false)
	if err == nil {
		growPipe(p.stderrR)
	}
	if err != nil {
		closeAll(files...)
		if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
			return nil, nil, nil, fmt.Errorf("create pipes for the server: run-mcp has as many files open as its limit allows (%w); "+
				"stop a connection, or raise the open-file limit (ulimit -n) and start run-mcp again", err)
		}
		return nil, nil, nil, fmt.Errorf("create pipes for the server: %w", err)
	}
	return childIn, childOut, childErr, nil
}

func resolve(spec Spec) (string, error) {
	if spec.Command == "" {
		return "", &CommandNotFoundError{Command: spec.Command, Err: errors.New("no command given")}
	}
	if !strings.ContainsRune(spec.Command, filepath.Separator) {
		path, err := exec.LookPath(spec.Command)
		if err != nil {
			return "", &CommandNotFoundError{Command: spec.Command, Err: fmt.Errorf("not found on PATH %s", os.Getenv("PATH"))}
		}
		return path, nil
	}
	path := spec.Command
	if !filepath.IsAbs(path) && spec.Dir != "" {
		path = filepath.Join(spec.Dir, path)
	}
	info, err := os.Stat(path)
	if err != nil {
		return "", &CommandNotFoundError{Command: spec.Command, Err: fmt.Errorf("no such file: %s", path)}
	}
	if info.IsDir() || !runnable(info) {
		return "", &CommandNotFoundError{Command: spec.Command, Err: fmt.Errorf("%s is not an executable file%s", path, notRunnableHint())}
	}
	return path, nil
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			_ = f.Close()
		}
	}
}

// Pid is the target's process id.
func (p *Process) Pid() int { return p.child.pid() }

// Stdin is the write end of the target's stdin (supports write deadlines).
func (p *Process) Stdin() *os.File { return p.stdin }

// Stdout is the read end of the target's stdout, non-blocking and in the
// runtime's poller (so read deadlines work). Its one reader, the transport,
// closes it.
func (p *Process) Stdout() *os.File { return p.stdout }

// Stderr is the feed of the lines the target writes to stderr.
func (p *Process) Stderr() *StderrFeed { return p.stderr }

// EndSentence is how the process ended, for a ring's LifeMarker.
func (p *Process) EndSentence() string {
	if e, ok := p.Exit(); ok {
		return e.Sentence()
	}
	return "it had not exited yet"
}

// Exited is closed once the target's own process has ended. What it
// started may live on and serve its pipes (Serving).
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Done is closed once the target's own process has ended and its stderr has
// been read to the end (every process holding it closed it, or Stop cut
// it), so that an exit report carries the last words of the server.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exit reports how the target's own process ended, once it has.
func (p *Process) Exit() (Exit, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.exit == nil {
		return Exit{}, false
	}
	return *p.exit, true
}

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/run-mcp/run-mcp/test/bench/floorenv"
)

// rpc is a bare JSON-RPC client over a process's stdio: the same client
// drives the target directly (the floor) and run-mcp's agent server, so the
// difference between them is run-mcp's.
type rpc struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	writeMu sync.Mutex
	mu      sync.Mutex
	pending map[int64]chan []byte
	next    atomic.Int64
	done    chan struct{}
	stderr  *tailWriter
}

// stderrTail is the end of what the process wrote to stderr, for an error.
func (r *rpc) stderrTail() string { return strings.TrimSpace(r.stderr.String()) }

// tailWriter keeps the last few kilobytes written to it, and hands each
// whole line to tap when there is one.
type tailWriter struct {
	mu      sync.Mutex
	buf     []byte
	tap     func(line string)
	partial []byte
}

const tailMax = 4 << 10

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailMax {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailMax:]...)
	}
	if t.tap != nil {
		t.partial = append(t.partial, p...)
		for {
			i := bytes.IndexByte(t.partial, '\n')
			if i < 0 {
				break
			}
			t.tap(string(t.partial[:i]))
			t.partial = t.partial[i+1:]
		}
		if len(t.partial) > tailMax { // a line that never ends is not one to read
			t.partial = t.partial[:0]
		}
	}
	return len(p), nil
}

func (t *tailWriter) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// startRPC starts argv with exactly the environment env and talks
// JSON-RPC to it over its stdio.
func startRPC(env []string, argv ...string) (*rpc, error) { return startRPCTap(env, nil, argv...) }

// startRPCTap is startRPC that hands each line the process writes to
// stderr to tap.
func startRPCTap(env []string, tap func(line string), argv ...string) (*rpc, error) {
	c := exec.Command(argv[0], argv[1:]...)
	c.Env = env
	in, err := c.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := c.StdoutPipe()
	if err != nil {
		return nil, err
	}
	tail := &tailWriter{tap: tap}
	c.Stderr = tail
	// A grandchild that outlives the process and keeps its stderr must not
	// hold up Wait for ever.
	c.WaitDelay = 5 * time.Second
	if err := c.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	r := &rpc{cmd: c, in: in, pending: map[int64]chan []byte{}, done: make(chan struct{}), stderr: tail}
	go r.read(bufio.NewReaderSize(out, 1<<20))
	return r, nil
}

func (r *rpc) read(br *bufio.Reader) {
	defer close(r.done)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			var m struct {
				ID     *int64 `json:"id"`
				Method string `json:"method"`
			}
			if json.Unmarshal(line, &m) == nil && m.ID != nil && m.Method == "" {
				r.mu.Lock()
				ch := r.pending[*m.ID]
				delete(r.pending, *m.ID)
				r.mu.Unlock()
				if ch != nil {
					ch <- line
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// call sends a request and waits for its response line.
func (r *rpc) call(method, params string) ([]byte, error) {
	id := r.next.Add(1)
	ch := make(chan []byte, 1)
	r.mu.Lock()
	r.pending[id] = ch
	r.mu.Unlock()
	msg := `{"jsonrpc":"2.0","id":` + strconv.FormatInt(id, 10) + `,"method":"` + method + `","params":` + params + "}\n"
	r.writeMu.Lock()
	_, err := io.WriteString(r.in, msg)
	r.writeMu.Unlock()
	if err != nil {
		return nil, err
	}
	select {
	case line := <-ch:
		if strings.Contains(string(line), `"isError":true`) || strings.Contains(string(line), `"error":{`) {
			return line, fmt.Errorf("%s failed: %s", method, clip(string(line)))
		}
		return line, nil
	case <-r.done:
		return nil, errors.New("the server closed its stdout")
	case <-time.After(5 * time.Minute):
		return nil, fmt.Errorf("%s: no answer in 5 minutes", method)
	}
}

func (r *rpc) initialize() error {
	if _, err := r.call("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}`); err != nil {
		return err
	}
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	_, err := io.WriteString(r.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	return err
}

func (r *rpc) close() {
	_ = r.in.Close()
	t := time.AfterFunc(10*time.Second, func() { _ = r.cmd.Process.Kill() })
	_ = r.cmd.Wait()
	t.Stop()
}

// vmHWMKB is a live process's peak resident memory.
func vmHWMKB(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			return n
		}
	}
	return 0
}

// caller makes one call: directly, or through run-mcp's call_mcp_primitive.
type caller struct {
	r       *rpc
	through bool
	token   bool // a direct call that offers a progress token, as run-mcp does on every call
}

const echoArgs = `{"message":"hi"}`

func (c caller) echo(connection string) error {
	if !c.through {
		meta := ""
		if c.token {
			meta = `"_meta":{"progressToken":"bench"},`
		}
		_, err := c.r.call("tools/call", `{`+meta+`"name":"echo","arguments":`+echoArgs+`}`)
		return err
	}
	conn := ""
	if connection != "" {
		conn = `,"connection":"` + connection + `"`
	}
	_, err := c.r.call("tools/call", `{"name":"call_mcp_primitive","arguments":{"type":"tool","name":"echo","arguments":`+echoArgs+conn+`}}`)
	return err
}

// agentEnv starts what the agent rows compare: a direct connection to the
// target, the bare relays, and run-mcp's agent server connected to the same
// target. The direct target gets exactly the environment run-mcp gives its
// targets (targetEnv); run-mcp and the relays get the report's own, plus env.
type agentEnv struct {
	runMCP string
	relay  string // test/bench/relay
	// test/bench/pollrelay: the same copying on one thread, outside the
	// Go scheduler
	pollRelay string
	// test/bench/hoprelay: the same copying through the goroutine
	// hand-offs of run-mcp's engine, with no work
	hopRelay string
	rusage   string // test/bench/rusage, for the memory of process trees
	target   []string
	env      []string
}

func (a agentEnv) procEnv() []string { return append(os.Environ(), a.env...) }

func (a agentEnv) direct() (caller, error) {
	r, err := startRPC(floorenv.Target(), a.target...)
	if err != nil {
		return caller{}, err
	}
	return caller{r: r}, r.initialize()
}

// sides starts the three the agent rows compare: the direct connection, the
// agent server and the bare relay; closeAll stops those started.
func (a agentEnv) sides() (direct, agent, relay caller, closeAll func(), err error) {
	var started []caller
	closeAll = func() {
		for _, c := range started {
			c.r.close()
		}
	}
	for _, start := range []func() (caller, error){a.direct, func() (caller, error) { return a.agent(0) }, a.relayed} {
		c, err := start()
		if err != nil {
			if c.r != nil { // started, but its handshake failed
				c.r.close()
			}
			closeAll()
			return caller{}, caller{}, caller{}, nil, err
		}
		started = append(started, c)
	}
	return started[0], started[1], started[2], closeAll, nil
}

// relayed is a direct connection with test/bench/relay in between.
func (a agentEnv) relayed() (caller, error) { return a.relayedBy(a.relay) }

// relayedBy is a direct connection with the relay program given in between;
// one whose handshake fails is stopped.
func (a agentEnv) relayedBy(relay string) (caller, error) {
	r, err := startRPC(a.procEnv(), append([]string{relay}, a.target...)...)
	if err != nil {
		return caller{}, err
	}
	if err := r.initialize(); err != nil {
		r.close()
		return caller{}, err
	}
	return caller{r: r}, nil
}

// connectWidth is how many connect_to_mcp calls the report keeps in flight
// while it opens many named connections (and how many direct targets it
// starts at once): an agent opening its servers one by one would take
// minutes for a thousand.
const connectWidth = 8

// agent starts run-mcp's agent server and opens names named connections to
// the target (one named "bench" when names is 0).
func (a agentEnv) agent(names int, args ...string) (caller, error) {
	r, err := startRPC(a.procEnv(), append([]string{a.runMCP}, args...)...)
	if err != nil {
		return caller{}, err
	}
	if err := r.initialize(); err != nil {
		r.close()
		return caller{}, fmt.Errorf("%w (stderr: %s)", err, r.stderrTail())
	}
	cmd, _ := json.Marshal(a.target[0])
	targetArgs, _ := json.Marshal(a.target[1:])
	err = parallel(max(names, 1), connectWidth, func(i int) error {
		name := "bench"
		if names > 0 {
			name = connName(i)
		}
		_, err := r.call("tools/call", `{"name":"connect_to_mcp","arguments":{"command":`+string(cmd)+
			`,"args":`+string(targetArgs)+`,"name":"`+name+`"}}`)
		return err
	})
	if err != nil {
		r.close()
		return caller{}, err
	}
	return caller{r: r, through: true}, nil
}

// parallel runs f(0..n-1), width at a time, and returns the first error.
func parallel(n, width int, f func(i int) error) error {
	var next atomic.Int64
	var first atomic.Value
	var wg sync.WaitGroup
	for range min(width, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || first.Load() != nil {
					return
				}
				if err := f(i); err != nil {
					first.CompareAndSwap(nil, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err, _ := first.Load().(error); err != nil {
		return err
	}
	return nil
}

// treeKB is the sum of the peak RSS of the processes pids and all their
// descendants, and how many there are (test/bench/rusage -tree).
func (a agentEnv) treeKB(pids ...int) (int64, int, error) {
	t, err := readTree(a.rusage, pids...)
	return t.peakKB, t.procs, err
}

// treeMem is what test/bench/rusage -tree reads of running process trees.
type treeMem struct {
	peakKB int64   // the sum of the peak RSS of every process
	procs  int     // how many
	rssKB  int64   // the sum of their RSS now
	depth  []int64 // the sum of the peaks at each depth (0: the roots)
}

// at is the sum of the peaks at depth d.
func (t treeMem) at(d int) int64 {
	if d < len(t.depth) {
		return t.depth[d]
	}
	return 0
}

func readTree(rusage string, pids ...int) (treeMem, error) {
	args := []string{"-tree"}
	for _, p := range pids {
		args = append(args, strconv.Itoa(p))
	}
	out, err := exec.Command(rusage, args...).Output()
	if err != nil {
		return treeMem{}, fmt.Errorf("rusage -tree: %w", err)
	}
	f := strings.Fields(string(out))
	var n []int64
	for _, x := range f {
		v, err := strconv.ParseInt(x, 10, 64)
		if err != nil {
			return treeMem{}, fmt.Errorf("rusage -tree printed %q: %w", out, err)
		}
		n = append(n, v)
	}
	if len(n) < 3 {
		return treeMem{}, fmt.Errorf("rusage -tree printed %q", out)
	}
	return treeMem{peakKB: n[0], procs: int(n[1]), rssKB: n[2], depth: n[3:]}, nil
}

func connName(i int) string { return fmt.Sprintf("c%03d", i) }

// sequential makes n calls one after another and returns each one's time.
func sequential(c caller, n int) ([]time.Duration, error) {
	out := make([]time.Duration, 0, n)
	for range n {
		t := time.Now()
		if err := c.echo(""); err != nil {
			return nil, err
		}
		out = append(out, time.Since(t))
	}
	return out, nil
}

// inFlight makes n calls keeping width of them outstanding; calls per second.
func inFlight(c caller, n, width int) (float64, error) {
	var left atomic.Int64
	left.Store(int64(n))
	var wg sync.WaitGroup
	var firstErr atomic.Value
	start := time.Now()
	for range width {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for left.Add(-1) >= 0 {
				if err := c.echo(""); err != nil {
					firstErr.CompareAndSwap(nil, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err, _ := firstErr.Load().(error); err != nil {
		return 0, err
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// burst is the result of calls fired all at once.
type burst struct {
	perSec float64
	p99    time.Duration
	errors int
	rssKB  int64 // run-mcp's own peak RSS (0 for the direct side)
	treeKB int64 // the sum of the peak RSS of every process of the side
	procs  int   // how many processes that is
	supKB  int64 // the peak RSS of run-mcp's children: its supervisor
}

// fire starts calls all at once, spread over the callers by connection, and
// waits for every answer.
func fire(calls int, pick func(i int) (caller, string)) burst {
	lat := make([]time.Duration, calls)
	var errs atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for i := range calls {
		c, conn := pick(i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := time.Now()
			if err := c.echo(conn); err != nil {
				errs.Add(1)
			}
			lat[i] = time.Since(t)
		}()
	}
	wg.Wait()
	took := time.Since(start)
	return burst{perSec: float64(calls) / took.Seconds(), p99: percentile(lat, 99), errors: int(errs.Load())}
}

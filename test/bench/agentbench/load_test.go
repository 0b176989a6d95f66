package agentbench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// pipe is a bare pipelining JSON-RPC client over a child's stdio: the
// floor's client (straight to the demo server) and the agent host's (to
// run-mcp) are the same code, so the ratio is run-mcp's alone.
type pipe struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

func startPipe(tb testing.TB, args ...string) *pipe {
	cmd := exec.Command(binPath, args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	p := &pipe{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	tb.Cleanup(func() { _ = in.Close(); _ = cmd.Wait() })
	id := p.frame(tb, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "bench", "version": "0"}})
	p.await(tb, id)
	_, _ = in.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
	return p
}

func (p *pipe) frame(tb testing.TB, method string, params any) int {
	p.id++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": p.id, "method": method, "params": params})
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		tb.Fatal(err)
	}
	return p.id
}

// await reads until the response with id and fails on an error result.
func (p *pipe) await(tb testing.TB, id int) {
	for {
		got, ok := p.answer(tb)
		if got == id {
			if !ok {
				tb.Fatalf("request %d failed", id)
			}
			return
		}
	}
}

// answer reads one message: the id of a response (0 for a notification)
// and whether it succeeded.
func (p *pipe) answer(tb testing.TB) (int, bool) {
	line, err := p.out.ReadSlice('\n')
	if err != nil {
		tb.Fatalf("the child closed stdout: %v", err)
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Error  json.RawMessage `json:"error"`
		Result struct {
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if json.Unmarshal(line, &m) != nil {
		tb.Fatalf("stray line: %q", line)
	}
	id, _ := strconv.Atoi(string(m.ID))
	return id, m.Error == nil && !m.Result.IsError
}

// load is how a batch of calls went.
type load struct {
	calls   int
	errors  int
	elapsed time.Duration
	lats    []time.Duration
}

func (l load) rate() float64 { return float64(l.calls) / l.elapsed.Seconds() }

func (l load) p99() time.Duration {
	s := slices.Clone(l.lats)
	slices.Sort(s)
	return s[len(s)*99/100]
}

// run sends n copies of line (an id is put in front) keeping at most window
// in flight (0: all at once), and reads every answer.
func (p *pipe) run(tb testing.TB, n, window int, line []byte) load {
	sent := make([]time.Time, n)
	base := p.id + 1
	p.id += n
	var slots chan struct{}
	if window > 0 {
		slots = make(chan struct{}, window)
	}
	start := time.Now()
	var werr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		w := bufio.NewWriterSize(p.in, 64<<10)
		for i := range n {
			if slots != nil {
				select {
				case slots <- struct{}{}:
				default:
					if werr = w.Flush(); werr != nil {
						return
					}
					slots <- struct{}{}
				}
			}
			sent[i] = time.Now()
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,`, base+i)
			w.Write(line)
		}
		werr = w.Flush()
	}()
	l := load{calls: n, lats: make([]time.Duration, 0, n)}
	for len(l.lats) < n {
		id, ok := p.answer(tb)
		if id < base || id >= base+n {
			continue
		}
		l.lats = append(l.lats, time.Since(sent[id-base]))
		if !ok {
			l.errors++
		}
		if slots != nil {
			<-slots
		}
	}
	l.elapsed = time.Since(start)
	wg.Wait()
	if werr != nil {
		tb.Fatal(werr)
	}
	return l
}

// Request tails (everything after the id) of the floor and of run-mcp.
var (
	directEcho = []byte(`"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}` + "\n")
)

func agentEcho(conn string) []byte {
	args := map[string]any{"type": "tool", "name": "echo", "arguments": map[string]any{"message": "hi"}}
	if conn != "" {
		args["connection"] = conn
	}
	b, _ := json.Marshal(map[string]any{"name": "call_mcp_primitive", "arguments": args})
	return append(append([]byte(`"method":"tools/call","params":`), b...), "}\n"...)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// printBench prints a line the benchmark document's generator reads.
func printBench(name string, value, floor float64) {
	ratio := 0.0
	if floor != 0 {
		ratio = value / floor
	}
	fmt.Printf("BENCH name=%s value=%.4g floor=%.4g ratio=%.3f\n", name, value, floor, ratio)
}

// BenchmarkThroughput128: calls/s with 128 calls in flight, run-mcp's agent
// server against one direct connection to the same demo server, alternated
// round by round; medians (goal: ratio ≥ 0.5).
func BenchmarkThroughput128(b *testing.B) {
	const perRound, window = 5000, 128
	direct := startPipe(b, "demo-server")
	agent := startPipe(b)
	agent.await(b, agent.frame(b, "tools/call", map[string]any{"name": "connect_to_mcp", "arguments": connectArgs("bench")}))
	line := agentEcho("")
	var floors, values, floorP99, valueP99 []float64
	errs := 0
	for b.Loop() {
		d := direct.run(b, perRound, window, directEcho)
		a := agent.run(b, perRound, window, line)
		errs += d.errors + a.errors
		floors, values = append(floors, d.rate()), append(values, a.rate())
		floorP99, valueP99 = append(floorP99, ms(d.p99())), append(valueP99, ms(a.p99()))
	}
	f, v := median(floors), median(values)
	b.ReportMetric(v, "calls/s")
	b.ReportMetric(f, "floor-calls/s")
	b.ReportMetric(v/f, "ratio")
	b.ReportMetric(median(valueP99), "p99-ms")
	b.ReportMetric(median(floorP99), "floor-p99-ms")
	b.ReportMetric(float64(errs), "errors")
	b.ReportMetric(float64(procStatusKB(b, agent.cmd.Process.Pid, "VmHWM"))/1024, "MB-peak-rss")
	printBench("agent_throughput_128_calls_per_s", v, f)
	printBench("agent_throughput_128_p99_ms", median(valueP99), median(floorP99))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkBurst200: 200 named connections of one run-mcp, 20,000 calls
// written at once (100 per connection), against 200 direct connections
// given the same burst; calls/s, p99 from the burst's start, run-mcp's peak
// RSS (goal: ratio ≥ 0.5, p99 ≤ 2× direct, 0 errors, ≤ 100 MB).
func BenchmarkBurst200(b *testing.B) {
	const conns, perConn = 200, 100
	directs := make([]*pipe, conns)
	for i := range directs {
		directs[i] = startPipe(b, "demo-server")
	}
	agent := startPipe(b, "--max-connections", "256")
	for i := range conns {
		name := fmt.Sprintf("c%03d", i)
		agent.await(b, agent.frame(b, "tools/call", map[string]any{"name": "connect_to_mcp", "arguments": connectArgs(name)}))
	}
	// One burst line per call, connections interleaved as an agent's
	// parallel calls would be.
	lines := make([][]byte, conns)
	for i := range lines {
		lines[i] = agentEcho(fmt.Sprintf("c%03d", i))
	}
	rssBefore := procStatusKB(b, agent.cmd.Process.Pid, "VmRSS")
	var floors, values, floorP99, valueP99 []float64
	errs := 0
	for b.Loop() {
		d := burstDirect(b, directs, perConn)
		a := agent.runMixed(b, conns*perConn, func(i int) []byte { return lines[i%conns] })
		errs += d.errors + a.errors
		floors, values = append(floors, d.rate()), append(values, a.rate())
		floorP99, valueP99 = append(floorP99, ms(d.p99())), append(valueP99, ms(a.p99()))
	}
	f, v := median(floors), median(values)
	peak := float64(procStatusKB(b, agent.cmd.Process.Pid, "VmHWM")) / 1024
	b.ReportMetric(v, "calls/s")
	b.ReportMetric(f, "floor-calls/s")
	b.ReportMetric(v/f, "ratio")
	b.ReportMetric(median(valueP99), "p99-ms")
	b.ReportMetric(median(floorP99), "floor-p99-ms")
	b.ReportMetric(float64(errs), "errors")
	b.ReportMetric(peak, "MB-peak-rss")
	b.ReportMetric(float64(rssBefore)/1024, "MB-rss-before-burst")
	printBench("agent_burst_200x100_calls_per_s", v, f)
	printBench("agent_burst_200x100_p99_ms", median(valueP99), median(floorP99))
	printBench("agent_burst_200x100_peak_rss_mb", peak, 0)
	printBench("agent_burst_200x100_errors", float64(errs), 0)
}

// burstDirect gives each direct connection its share of the burst at once,
// all connections together, and times the whole from the common start.
func burstDirect(b *testing.B, directs []*pipe, perConn int) load {
	var mu sync.Mutex
	all := load{calls: len(directs) * perConn}
	start := time.Now()
	var wg sync.WaitGroup
	for _, p := range directs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := p.run(b, perConn, 0, directEcho)
			shift := time.Since(start) - l.elapsed // latencies from the burst's start
			mu.Lock()
			defer mu.Unlock()
			all.errors += l.errors
			for _, d := range l.lats {
				all.lats = append(all.lats, d+max(shift, 0))
			}
		}()
	}
	wg.Wait()
	all.elapsed = time.Since(start)
	return all
}

// runMixed sends n calls at once, the i-th with line(i), and reads all.
func (p *pipe) runMixed(tb testing.TB, n int, line func(int) []byte) load {
	base := p.id + 1
	p.id += n
	start := time.Now()
	var werr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		w := bufio.NewWriterSize(p.in, 64<<10)
		for i := range n {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,`, base+i)
			w.Write(line(i))
		}
		werr = w.Flush()
	}()
	l := load{calls: n, lats: make([]time.Duration, 0, n)}
	for len(l.lats) < n {
		id, ok := p.answer(tb)
		if id < base || id >= base+n {
			continue
		}
		l.lats = append(l.lats, time.Since(start))
		if !ok {
			l.errors++
		}
	}
	l.elapsed = time.Since(start)
	wg.Wait()
	if werr != nil {
		tb.Fatal(werr)
	}
	return l
}

package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/run-mcp/run-mcp/test/targets"
)

type measure struct {
	name, section string
	run           func() ([]row, error)
}

const (
	secAgent = "Agent hot path"
	secWire  = "Wire and one-shot commands"
	secStart = "Start-up"
	secPeers = "Peers (server-everything)"
)

func measures(cfg config, b bins, env []string, tmp string) []measure {
	demo := []string{b.demo}
	a := agentEnv{runMCP: b.runMCP, relay: b.relay, pollRelay: b.pollRelay, target: demo, env: env}
	cmd := func(argv ...string) func() (run, error) { return func() (run, error) { return runCmd(env, argv...) } }
	// Rows with CPU and memory figures go through the rusage wrapper.
	mcmd := func(argv ...string) func() (run, error) {
		return func() (run, error) { return runMeasured(b.rusage, env, argv...) }
	}
	return []measure{
		{"agent-latency", secAgent, func() ([]row, error) { return agentLatency(cfg, a) }},
		{"agent-throughput", secAgent, func() ([]row, error) { return agentThroughput(cfg, a) }},
		{"agent-burst", secAgent, func() ([]row, error) { return agentBurst(cfg, a) }},
		{"stderr-flood", secWire, func() ([]row, error) {
			n := strconv.FormatInt(cfg.stderrBytes, 10)
			return stderrFlood(cfg, mcmd(b.pipe, b.target, "--flood", n),
				mcmd(b.runMCP, "call", "flood_stderr", "bytes:="+n, "--", b.target))
		}},
		{"big-result", secWire, func() ([]row, error) {
			n := strconv.Itoa(cfg.bigChars)
			return bigResult(cfg, mcmd(b.big, n, tmp, b.target), mcmd(b.runMCP, "call", "big_text", "chars:="+n, "--", b.target))
		}},
		{"list-everything", secWire, func() ([]row, error) {
			ev, err := targets.ServerEverything()
			if err != nil {
				return nil, err
			}
			return listEverything(cfg, cmd(append([]string{b.bare}, ev...)...), cmd(append([]string{b.runMCP, "list-tools", "--"}, ev...)...))
		}},
		{"exit-ignore-eof", secWire, func() ([]row, error) {
			t := append(demo, "--ignore-stdin-eof")
			return exitIgnoreEOF(cfg, cmd(append([]string{b.bare}, t...)...), cmd(append([]string{b.runMCP, "list-tools", "--"}, t...)...))
		}},
		{"list-fast", secWire, func() ([]row, error) {
			return listFast(cfg, cmd(b.hello), cmd(b.runMCP, "--version"), cmd(append([]string{b.bare}, demo...)...),
				cmd(append([]string{b.runMCP, "list-tools", "--"}, demo...)...))
		}},
		{"warm-session", secWire, func() ([]row, error) { return warmSession(cfg, b, env, demo) }},
		{"start-up", secStart, func() ([]row, error) { return startUp(b, env) }},
		{"npm-version", secStart, func() ([]row, error) { return npmVersion(cfg, tmp) }},
		{"peers", secPeers, func() ([]row, error) {
			if !cfg.peers {
				return nil, nil
			}
			return peers(cfg, b, env, tmp)
		}},
	}
}

func agentLatency(cfg config, a agentEnv) ([]row, error) {
	d, t, rl, closeAll, err := a.sides()
	if err != nil {
		return nil, err
	}
	defer closeAll()
	// The same direct connection, offering a progress token as run-mcp does
	// on every call: how much of the difference is the target's own work.
	dt := caller{r: d.r, token: true}
	sides := []caller{d, dt, t, rl}
	if runtime.GOOS == "linux" { // pollrelay waits with ppoll(2)
		pr, err := a.relayedBy(a.pollRelay)
		if err != nil {
			if pr.r != nil { // started, but its handshake failed
				pr.r.close()
			}
			return nil, err
		}
		defer pr.r.close()
		sides = append(sides, pr)
	}
	times := make([][]time.Duration, len(sides))
	block := max(cfg.seqCalls/cfg.rounds, 1)
	for _, c := range sides { // warm them up
		if _, err := sequential(c, 100); err != nil {
			return nil, err
		}
	}
	for range cfg.rounds {
		for i, c := range sides {
			x, err := sequential(c, block)
			if err != nil {
				return nil, err
			}
			times[i] = append(times[i], x...)
		}
	}
	fd, fdt, ft, fr := median(times[0]), median(times[1]), median(times[2]), median(times[3])
	ratio := float64(ft) / float64(fd)
	poll := ""
	if len(times) > 4 {
		fp := median(times[4])
		poll = fmt.Sprintf("; one thread polling both pipes, test/bench/pollrelay: %.3f ms, %.2f×", ms(fp), float64(fp)/float64(fd))
	}
	return []row{{measure: fmt.Sprintf("added latency per `call_mcp_primitive` (sequential, n = %d)", len(times[2])),
		floor: fmt.Sprintf("direct `tools/call`: %.3f ms (a bare line relay in between, test/bench/relay: %.3f ms, %.2f×%s; "+
			"direct with the progress token run-mcp offers on every call: %.3f ms, %.2f×)",
			ms(fd), ms(fr), float64(fr)/float64(fd), poll, ms(fdt), float64(fdt)/float64(fd)),
		subject: fmt.Sprintf("%.3f ms: %.2f× (+%.3f ms)", ms(ft), ratio, ms(ft-fd)),
		goal:    "≤ 1.5×", met: yes(ratio <= 1.5)}}, nil
}

func agentThroughput(cfg config, a agentEnv) ([]row, error) {
	d, t, rl, closeAll, err := a.sides()
	if err != nil {
		return nil, err
	}
	defer closeAll()
	var fd, ft, fr []float64
	for range max(cfg.rounds/2, 1) {
		x, err := inFlight(d, cfg.flightCalls, 128)
		if err != nil {
			return nil, err
		}
		y, err := inFlight(t, cfg.flightCalls, 128)
		if err != nil {
			return nil, err
		}
		z, err := inFlight(rl, cfg.flightCalls, 128)
		if err != nil {
			return nil, err
		}
		fd, ft, fr = append(fd, x), append(ft, y), append(fr, z)
	}
	md, mt, mr := median(fd), median(ft), median(fr)
	return []row{{measure: "throughput, 128 calls in flight", floor: fmt.Sprintf("direct connection: %.0f calls/s (bare relay: %.0f, %.2f×)", md, mr, mr/md),
		subject: fmt.Sprintf("%.0f calls/s: %.2f×", mt, mt/md), goal: "≥ 0.5×", met: yes(mt/md >= 0.5)}}, nil
}

func agentBurst(cfg config, a agentEnv) ([]row, error) {
	var fd, ft []burst
	for range cfg.fanRounds {
		x, err := burstDirect(cfg, a)
		if err != nil {
			return nil, err
		}
		y, err := burstThrough(cfg, a)
		if err != nil {
			return nil, err
		}
		fd, ft = append(fd, x), append(ft, y)
	}
	pick := func(bs []burst, f func(burst) float64) float64 {
		xs := make([]float64, len(bs))
		for i, x := range bs {
			xs[i] = f(x)
		}
		return median(xs)
	}
	dps, tps := pick(fd, func(x burst) float64 { return x.perSec }), pick(ft, func(x burst) float64 { return x.perSec })
	dp99, tp99 := pick(fd, func(x burst) float64 { return ms(x.p99) }), pick(ft, func(x burst) float64 { return ms(x.p99) })
	errs := pick(ft, func(x burst) float64 { return float64(x.errors) })
	rssKB := int64(pick(ft, func(x burst) float64 { return float64(x.rssKB) }))
	ok := tps/dps >= 0.5 && tp99 <= 2*dp99 && errs == 0 && rssKB <= 100<<10
	return []row{{measure: fmt.Sprintf("%d named connections, %s calls at once", cfg.fanConns, thousands(int64(cfg.fanCalls))),
		floor:   fmt.Sprintf("%d direct connections: %.0f calls/s, p99 %.0f ms", cfg.fanConns, dps, dp99),
		subject: fmt.Sprintf("%.0f calls/s (%.2f×), p99 %.0f ms (%.1f× direct), %.0f errors, peak RSS %s", tps, tps/dps, tp99, tp99/dp99, errs, mib(rssKB)),
		goal:    "≥ 0.5× throughput, p99 ≤ 2× direct, 0 errors, ≤ 100 MB", met: yes(ok)}}, nil
}

func burstDirect(cfg config, a agentEnv) (burst, error) {
	cs := make([]caller, cfg.fanConns)
	errs := make([]error, cfg.fanConns)
	var wg sync.WaitGroup
	for i := range cs {
		wg.Add(1)
		go func() { defer wg.Done(); cs[i], errs[i] = a.direct() }()
	}
	wg.Wait()
	defer func() {
		for _, c := range cs {
			if c.r != nil {
				c.r.close()
			}
		}
	}()
	for _, err := range errs {
		if err != nil {
			return burst{}, err
		}
	}
	return fire(cfg.fanCalls, func(i int) (caller, string) { return cs[i%len(cs)], "" }), nil
}

func burstThrough(cfg config, a agentEnv) (burst, error) {
	t, err := a.agent(cfg.fanConns, "--max-connections", strconv.Itoa(cfg.fanConns+56))
	if err != nil {
		return burst{}, err
	}
	defer t.r.close()
	res := fire(cfg.fanCalls, func(i int) (caller, string) { return t, connName(i % cfg.fanConns) })
	res.rssKB = vmHWMKB(t.r.cmd.Process.Pid)
	return res, nil
}

var floodStats = regexp.MustCompile(`lines=(\d+) ns=(\d+) longest_write_ns=(\d+)`)

// floodRate is the lines per second the target could write, as it measured
// them, and its longest single write (how long the reader blocked it).
func floodRate(r run) (perSec float64, longest time.Duration, err error) {
	m := floodStats.FindStringSubmatch(r.out)
	if m == nil {
		return 0, 0, fmt.Errorf("no flood stats in %q", clip(r.out))
	}
	lines, _ := strconv.ParseFloat(m[1], 64)
	ns, _ := strconv.ParseFloat(m[2], 64)
	l, _ := strconv.ParseInt(m[3], 10, 64)
	return lines / (ns / 1e9), time.Duration(l), nil
}

func stderrFlood(cfg config, floor, subject func() (run, error)) ([]row, error) {
	s, err := interleave(max(cfg.rounds/2, 1), floor, subject)
	if err != nil {
		return nil, err
	}
	var fr, sr []float64
	var fl, sl []time.Duration
	for i := range s[0] {
		a, la, err := floodRate(s[0][i])
		if err != nil {
			return nil, err
		}
		b, lb, err := floodRate(s[1][i])
		if err != nil {
			return nil, err
		}
		fr, sr, fl, sl = append(fr, a), append(sr, b), append(fl, la), append(sl, lb)
	}
	f, x := median(fr), median(sr)
	kb := median(rss(s[1]))
	return []row{{measure: fmt.Sprintf("a target writing %s of stderr (100-byte lines, 64 KiB writes)", bytesIEC(cfg.stderrBytes)),
		floor:   fmt.Sprintf("plain pipe reader: %.1fM lines/s, longest write %.1f ms", f/1e6, ms(median(fl))),
		subject: fmt.Sprintf("%.1fM lines/s: %.2f×, peak RSS %s, longest write %.1f ms", x/1e6, x/f, mib(kb), ms(median(sl))),
		goal:    "≥ 0.7×, ≤ 64 MB, the target never blocked", met: yes(x/f >= 0.7 && kb <= 64<<10)}}, nil
}

func bigResult(cfg config, floor, subject func() (run, error)) ([]row, error) {
	s, err := interleave(cfg.rounds, floor, subject)
	if err != nil {
		return nil, err
	}
	fc, sc := median(cpus(s[0])), median(cpus(s[1]))
	fm, sm := median(rss(s[0])), median(rss(s[1]))
	cr, mr := float64(sc)/float64(fc), float64(sm)/float64(fm)
	return []row{{measure: fmt.Sprintf("a %s-character tool result, one-shot `call`", thousands(int64(cfg.bigChars))),
		floor:   fmt.Sprintf("bare client: CPU %.3f s, %s, %.0f ms", fc.Seconds(), mib(fm), ms(median(walls(s[0])))),
		subject: fmt.Sprintf("CPU %.3f s (%.2f×), %s (%.2f×), %.0f ms", sc.Seconds(), cr, mib(sm), mr, ms(median(walls(s[1])))),
		goal:    "CPU ≤ 1.3×, RSS ≤ 1.0×", met: yes(cr <= 1.3 && mr <= 1.0)}}, nil
}

func listEverything(cfg config, floor, subject func() (run, error)) ([]row, error) {
	s, err := interleave(cfg.rounds, floor, subject)
	if err != nil {
		return nil, err
	}
	f, x := median(walls(s[0])), median(walls(s[1]))
	r := float64(x) / float64(f)
	return []row{{measure: "one-shot `list-tools` against server-everything", floor: fmt.Sprintf("bare Go client: %.1f ms", ms(f)),
		subject: fmt.Sprintf("%.1f ms: %.3f×", ms(x), r), goal: "≤ 1.02×", met: yes(r <= 1.02)}}, nil
}

func exitIgnoreEOF(cfg config, floor, subject func() (run, error)) ([]row, error) {
	s, err := interleave(cfg.rounds, floor, subject)
	if err != nil {
		return nil, err
	}
	f, x := median(exitAfter(s[0])), median(exitAfter(s[1]))
	return []row{{measure: "exit after the answer when the target ignores stdin EOF", floor: fmt.Sprintf("bare client's answer-to-exit: %.1f ms", ms(f)),
		subject: fmt.Sprintf("%.1f ms (%+.1f ms)", ms(x), ms(x-f)), goal: "≤ +3 ms", met: yes(x-f <= 3*time.Millisecond)}}, nil
}

func listFast(cfg config, hello, version, bare, list func() (run, error)) ([]row, error) {
	s, err := interleave(cfg.startRounds, hello, version, bare, list)
	if err != nil {
		return nil, err
	}
	h, v, b, l := median(walls(s[0])), median(walls(s[1])), median(walls(s[2])), median(walls(s[3]))
	added := (l - b) - (v - h)
	// The same difference taken within each round, for its spread: the
	// host's pace drifts from one round to the next, not within one.
	perRound := make([]time.Duration, len(s[0]))
	for i := range perRound {
		perRound[i] = (s[3][i].wall - s[2][i].wall) - (s[1][i].wall - s[0][i].wall)
	}
	return []row{
		{measure: "process start: `run-mcp --version`", floor: fmt.Sprintf("hello-world Go binary: %.2f ms", ms(h)),
			subject: fmt.Sprintf("%.2f ms (+%.2f ms)", ms(v), ms(v-h)), goal: "none set (see Start-up)", met: "—"},
		{measure: "one-shot `list-tools` against a fast Go target (demo-server), beyond run-mcp's own process start",
			floor: fmt.Sprintf("bare client: %.2f ms", ms(b)),
			subject: fmt.Sprintf("%.2f ms: +%.2f ms, of which start +%.2f ms: %+.2f ms (within each round: median %+.2f ms, middle half %+.2f to %+.2f ms)",
				ms(l), ms(l-b), ms(v-h), ms(added), ms(median(perRound)), ms(percentile(perRound, 25)), ms(percentile(perRound, 75))),
			goal: "≤ +1 ms", met: yes(added <= time.Millisecond)},
	}, nil
}

func warmSession(cfg config, b bins, env []string, target []string) ([]row, error) {
	if _, err := runCmd(env, append([]string{b.runMCP, "list-tools", "--session", "bench", "--"}, target...)...); err != nil {
		return nil, err
	}
	defer func() {
		c := exec.Command(b.runMCP, "close-session", "bench")
		c.Env = append(os.Environ(), env...)
		_ = c.Run()
	}()
	version := func() (run, error) { return runCmd(env, b.runMCP, "--version") }
	call := func() (run, error) { return runCmd(env, b.runMCP, "call", "echo", "message=hi", "--session", "bench") }
	s, err := interleave(cfg.startRounds, version, call)
	if err != nil {
		return nil, err
	}
	v, c := median(walls(s[0])), median(walls(s[1]))
	return []row{{measure: "warm sessioned `call` (demo-server), beyond run-mcp's own process start", floor: fmt.Sprintf("`run-mcp --version`: %.2f ms", ms(v)),
		subject: fmt.Sprintf("%.2f ms (%+.2f ms)", ms(c), ms(c-v)), goal: "≤ +1 ms", met: yes(c-v <= time.Millisecond)}}, nil
}

// initRuns is how many runs the init figures are the median of: one run's
// clock moves by a millisecond with the machine's state.
const initRuns = 11

// startUp reads GODEBUG=inittrace=1 of `run-mcp --version`: the package
// inits run before main, and those outside the standard library are the
// part run-mcp chooses (its own packages and the libraries it links).
func startUp(b bins, env []string) ([]row, error) {
	var total, outside, schema []float64
	var last []targets.Init
	for range initRuns {
		inits, err := targets.InitTrace(context.Background(), env, b.runMCP, "--version")
		if err != nil {
			return nil, err
		}
		var t, o, sc float64
		for _, in := range inits {
			clock := ms(in.Clock)
			t += clock
			if !in.Std() {
				o += clock
			}
			if strings.Contains(in.Pkg, "santhosh-tekuri/jsonschema") {
				sc += clock
			}
		}
		total, outside, schema, last = append(total, t), append(outside, o), append(schema, sc), inits
	}
	var bytes, allocs int64
	var heaviest []targets.Init
	for _, in := range last {
		if !in.Std() {
			bytes, allocs = bytes+in.Bytes, allocs+in.Allocs
			heaviest = append(heaviest, in)
		}
	}
	slices.SortFunc(heaviest, func(x, y targets.Init) int { return cmp.Compare(y.Bytes, x.Bytes) })
	var names []string
	for _, in := range heaviest[:min(3, len(heaviest))] {
		names = append(names, fmt.Sprintf("%s %s", strings.TrimPrefix(in.Pkg, "github.com/"), bytesIEC(in.Bytes)))
	}
	o := median(outside)
	return []row{
		{measure: fmt.Sprintf("package initialisation before main (GODEBUG=inittrace=1, median of %d runs)", initRuns), floor: "—",
			subject: fmt.Sprintf("all inits %.2f ms clock, of which santhosh-tekuri/jsonschema/v6 %.2f ms", median(total), median(schema)),
			goal:    "none set", met: "—"},
		{measure: fmt.Sprintf("package inits outside the standard library (GODEBUG=inittrace=1, median of %d runs)", initRuns), floor: "—",
			subject: fmt.Sprintf("%.2f ms clock; %s in %s allocs (largest: %s)", o, bytesIEC(bytes), thousands(allocs), strings.Join(names, ", ")),
			goal:    "≤ 2 ms", met: yes(o <= 2)},
	}, nil
}

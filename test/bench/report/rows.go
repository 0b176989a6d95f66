package main

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
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
	secAB    = "Speed devices: same-run A/B"
)

func measures(cfg config, b bins, env []string, tmp string) []measure {
	demo := []string{b.demo}
	a := agentEnv{runMCP: b.runMCP, relay: b.relay, pollRelay: b.pollRelay, hopRelay: b.hopRelay, rusage: b.rusage, target: demo, env: env}
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
			return listFast(cfg, cmd(b.hello), cmd(b.runMCP, "--version"),
				cmd(b.bare, b.demo), cmd(b.runMCP, "list-tools", "--", b.demo),
				cmd(b.bare, b.target), cmd(b.runMCP, "list-tools", "--", b.target), cmd(b.bare, b.forkWrap, b.demo))
		}},
		{"warm-session", secWire, func() ([]row, error) { return warmSession(cfg, b, env, tmp, demo) }},
		{"start-up", secStart, func() ([]row, error) { return startUp(b, env) }},
		{"npm-version", secStart, func() ([]row, error) { return npmVersion(cfg, tmp) }},
		{"peers", secPeers, func() ([]row, error) {
			if !cfg.peers {
				return nil, nil
			}
			return peers(cfg, b, env, tmp)
		}},
		{"ab-stderr", secAB, func() ([]row, error) {
			n := strconv.FormatInt(cfg.stderrBytes, 10)
			flood := func(bin string) func() (run, error) {
				return mcmd(bin, "call", "flood_stderr", "bytes:="+n, "--", b.target)
			}
			var rows []row
			for _, d := range []device{stderrPipe, stderrRecycle} {
				r, err := abOneShot(cfg, b, tmp, stderrAB(d, flood))
				if err != nil {
					return nil, err
				}
				rows = append(rows, r...)
			}
			return rows, nil
		}},
		{"ab-big", secAB, func() ([]row, error) {
			n := strconv.Itoa(cfg.bigChars)
			return abOneShot(cfg, b, tmp, bigAB(func(bin string) func() (run, error) {
				return mcmd(bin, "call", "big_text", "chars:="+n, "--", b.target)
			}))
		}},
	}
}

// relayGoal is the agent server's latency goal against the bare relay: two
// more pipe hops than a direct call, as the relay has, and little more.
const relayGoal = 1.25

func agentLatency(cfg config, a agentEnv) ([]row, error) {
	d, t, rl, closeAll, err := a.sides()
	if err != nil {
		return nil, err
	}
	defer closeAll()
	// The same direct connection, offering a progress token as run-mcp does
	// on every call: how much of the difference is the target's own work.
	dt := caller{r: d.r, token: true}
	// The relay again, through the goroutine hand-offs of run-mcp's engine
	// with no work: how much of run-mcp's difference the design's hops take,
	// and how much its work per call.
	hr, err := a.relayedBy(a.hopRelay)
	if err != nil {
		return nil, err
	}
	defer hr.r.close()
	sides := []caller{d, dt, t, rl, hr}
	if runtime.GOOS == "linux" { // pollrelay waits with ppoll(2)
		pr, err := a.relayedBy(a.pollRelay)
		if err != nil {
			return nil, err
		}
		defer pr.r.close()
		sides = append(sides, pr)
	}
	times, err := latencies(cfg, sides)
	if err != nil {
		return nil, err
	}
	fd, fdt, ft, fr, fh := median(times[0]), median(times[1]), median(times[2]), median(times[3]), median(times[4])
	ratio := float64(ft) / float64(fr)
	poll := ""
	if len(times) > 5 {
		fp := median(times[5])
		poll = fmt.Sprintf("; one thread polling both pipes, test/bench/pollrelay: %.3f ms, %.2f× direct", ms(fp), float64(fp)/float64(fd))
	}
	hops := fmt.Sprintf("; the relay through run-mcp's three goroutine hand-offs with no work, test/bench/hoprelay: %.3f ms, %.2f× the relay", ms(fh), float64(fh)/float64(fr))
	return []row{{measure: fmt.Sprintf("latency per `call_mcp_primitive` (sequential, n = %d), against a bare relay process", len(times[2])),
		floor: fmt.Sprintf("a bare line relay between client and target, test/bench/relay: %.3f ms (direct `tools/call`: %.3f ms, the relay %.2f× it%s%s; "+
			"direct with the progress token run-mcp offers on every call: %.3f ms, %.2f×)",
			ms(fr), ms(fd), float64(fr)/float64(fd), poll, hops, ms(fdt), float64(fdt)/float64(fd)),
		subject: fmt.Sprintf("%.3f ms: %.2f× the relay (+%.3f ms; %.2f× direct)", ms(ft), ratio, ms(ft-fr), float64(ft)/float64(fd)),
		goal:    fmt.Sprintf("≤ %.2f× the relay", relayGoal), met: yes(ratio <= relayGoal)}}, nil
}

// latencies warms each caller up, then times cfg.seqCalls sequential calls
// per caller in blocks, the callers taking turns block by block.
func latencies(cfg config, sides []caller) ([][]time.Duration, error) {
	times := make([][]time.Duration, len(sides))
	block := max(cfg.seqCalls/cfg.rounds, 1)
	for _, c := range sides {
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
	return times, nil
}

func agentThroughput(cfg config, a agentEnv) ([]row, error) {
	d, t, rl, closeAll, err := a.sides()
	if err != nil {
		return nil, err
	}
	defer closeAll()
	rates, err := flightRates(cfg, []caller{d, t, rl})
	if err != nil {
		return nil, err
	}
	md, mt, mr := median(rates[0]), median(rates[1]), median(rates[2])
	return []row{{measure: "throughput, 128 calls in flight", floor: fmt.Sprintf("direct connection: %.0f calls/s (bare relay: %.0f, %.2f×)", md, mr, mr/md),
		subject: fmt.Sprintf("%.0f calls/s: %.2f×", mt, mt/md), goal: "≥ 0.5×", met: yes(mt/md >= 0.5)}}, nil
}

// flightRates runs cfg.flightCalls calls 128 in flight on each caller in
// turn, for half the rounds; calls per second per caller.
func flightRates(cfg config, cs []caller) ([][]float64, error) {
	out := make([][]float64, len(cs))
	for range max(cfg.rounds/2, 1) {
		for i, c := range cs {
			x, err := inFlight(c, cfg.flightCalls, 128)
			if err != nil {
				return nil, err
			}
			out[i] = append(out[i], x)
		}
	}
	return out, nil
}

// burstGoal is the memory goal of the burst: the whole tree of run-mcp
// (itself, its supervisors, the targets) against the direct servers alone.
const burstGoal = 1.3

func agentBurst(cfg config, a agentEnv) ([]row, error) {
	fd, ft, err := bursts(cfg.fanConns, cfg.fanCalls, cfg.fanRounds, a)
	if err != nil {
		return nil, err
	}
	d, t := summarise(fd), summarise(ft)
	mem := float64(t.treeKB) / float64(d.treeKB)
	ok := t.perSec/d.perSec >= 0.5 && t.p99 <= 2*d.p99 && t.errors == 0 && mem <= burstGoal
	return []row{{measure: fmt.Sprintf("%s named connections in one agent server, %s calls at once (%d each)",
		thousands(int64(cfg.fanConns)), thousands(int64(cfg.fanCalls)), cfg.fanCalls/cfg.fanConns),
		floor: fmt.Sprintf("%s direct connections: %.0f calls/s, p99 %.0f ms, memory %s (%d processes)",
			thousands(int64(cfg.fanConns)), d.perSec, d.p99, mib(d.treeKB), d.procs),
		subject: fmt.Sprintf("%.0f calls/s (%.2f×), p99 %.0f ms (%.2f× direct), %.0f errors, whole tree %s (%.2f×; %d processes: run-mcp itself %s, its supervisor %s)",
			t.perSec, t.perSec/d.perSec, t.p99, t.p99/d.p99, t.errors, mib(t.treeKB), mem, t.procs, mib(t.rssKB), mib(t.supKB)),
		goal: fmt.Sprintf("≥ 0.5× throughput, p99 ≤ 2× direct, 0 errors, whole tree memory ≤ %.1f× the direct servers'", burstGoal), met: yes(ok)}}, nil
}

// bursts runs rounds bursts of calls over conns connections, direct and
// through the agent server, taking turns. Both sides are started once and
// kept for all the rounds (starting a thousand servers takes longer than
// a burst), so the peak memory is over all the rounds.
func bursts(conns, calls, rounds int, a agentEnv) (direct, through []burst, err error) {
	t0 := time.Now()
	ds, err := startDirects(conns, a)
	defer closeAll(ds)
	if err != nil {
		return nil, nil, err
	}
	t1 := time.Now()
	t, err := startThrough(conns, a)
	if err != nil {
		return nil, nil, err
	}
	defer t.r.close()
	t2 := time.Now()
	fmt.Fprintf(os.Stderr, "  (%d direct connections started in %s, the agent server's in %s)\n", conns, t1.Sub(t0).Round(time.Millisecond), t2.Sub(t1).Round(time.Millisecond))
	for range rounds {
		direct = append(direct, fire(calls, func(i int) (caller, string) { return ds[i%len(ds)], "" }))
		through = append(through, fire(calls, func(i int) (caller, string) { return t, connName(i % conns) }))
		fmt.Fprintf(os.Stderr, "  (burst: direct %.0f calls/s, p99 %s; through run-mcp %.0f calls/s, p99 %s)\n",
			direct[len(direct)-1].perSec, direct[len(direct)-1].p99.Round(time.Millisecond), through[len(through)-1].perSec, through[len(through)-1].p99.Round(time.Millisecond))
	}
	pids := make([]int, len(ds))
	for i, c := range ds {
		pids[i] = c.r.cmd.Process.Pid
	}
	dkb, dn, err := a.treeKB(pids...)
	if err != nil {
		return nil, nil, err
	}
	tt, err := readTree(a.rusage, t.r.cmd.Process.Pid)
	if err != nil {
		return nil, nil, err
	}
	for i := range direct {
		direct[i].treeKB, direct[i].procs = dkb, dn
		through[i].treeKB, through[i].procs, through[i].rssKB, through[i].supKB = tt.peakKB, tt.procs, tt.at(0), tt.at(1)
	}
	return direct, through, nil
}

// startDirects starts conns direct connections to the target.
func startDirects(conns int, a agentEnv) ([]caller, error) {
	cs := make([]caller, conns)
	err := parallel(conns, connectWidth, func(i int) error {
		var err error
		cs[i], err = a.direct()
		return err
	})
	return cs, err
}

func closeAll(cs []caller) {
	for _, c := range cs {
		if c.r != nil {
			c.r.close()
		}
	}
}

// startThrough starts an agent server with conns named connections to the
// target (and exactly that many allowed).
func startThrough(conns int, a agentEnv) (caller, error) {
	return a.agent(conns, "--max-connections", strconv.Itoa(conns))
}

// burstSummary is the medians of several bursts (p99 in ms).
type burstSummary struct {
	perSec, p99, errors float64
	treeKB, rssKB       int64
	supKB               int64
	procs               int
}

func summarise(bs []burst) burstSummary {
	pick := func(f func(burst) float64) float64 {
		xs := make([]float64, len(bs))
		for i, x := range bs {
			xs[i] = f(x)
		}
		return median(xs)
	}
	return burstSummary{perSec: pick(func(x burst) float64 { return x.perSec }), p99: pick(func(x burst) float64 { return ms(x.p99) }),
		errors: pick(func(x burst) float64 { return float64(x.errors) }),
		treeKB: int64(pick(func(x burst) float64 { return float64(x.treeKB) })), rssKB: int64(pick(func(x burst) float64 { return float64(x.rssKB) })),
		supKB: int64(pick(func(x burst) float64 { return float64(x.supKB) })),
		procs: int(pick(func(x burst) float64 { return float64(x.procs) }))}
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
	fkb, kb := median(trees(s[0])), median(trees(s[1]))
	return []row{{measure: fmt.Sprintf("a target writing %s of stderr (100-byte lines, 64 KiB writes)", bytesIEC(cfg.stderrBytes)),
		floor: fmt.Sprintf("plain pipe reader: %.1fM lines/s, longest write %.1f ms, whole tree %s", f/1e6, ms(median(fl)), mib(fkb)),
		subject: fmt.Sprintf("%.1fM lines/s: %.2f×, whole tree %s (%s; run-mcp itself %s), longest write %.1f ms",
			x/1e6, x/f, mib(kb), procsOf(s[1]), mib(median(rss(s[1]))), ms(median(sl))),
		goal: "≥ 0.7×, whole tree ≤ 64 MB, the target never blocked", met: yes(x/f >= 0.7 && kb <= 64<<10)}}, nil
}

func bigResult(cfg config, floor, subject func() (run, error)) ([]row, error) {
	s, err := interleave(cfg.rounds, floor, subject)
	if err != nil {
		return nil, err
	}
	fc, sc := median(cpus(s[0])), median(cpus(s[1]))
	fm, sm := median(trees(s[0])), median(trees(s[1]))
	cr, mr := float64(sc)/float64(fc), float64(sm)/float64(fm)
	return []row{{measure: fmt.Sprintf("a %s-character tool result, one-shot `call`", thousands(int64(cfg.bigChars))),
		floor: fmt.Sprintf("bare client: CPU %.3f s, whole tree %s (%s), %.0f ms", fc.Seconds(), mib(fm), procsOf(s[0]), ms(median(walls(s[0])))),
		subject: fmt.Sprintf("CPU %.3f s (%.2f×), whole tree %s (%.2f×; %s, run-mcp itself %s), %.0f ms",
			sc.Seconds(), cr, mib(sm), mr, procsOf(s[1]), mib(median(rss(s[1]))), ms(median(walls(s[1])))),
		goal: "CPU ≤ 1.3×, whole tree memory ≤ 1.0×", met: yes(cr <= 1.3 && mr <= 1.0)}}, nil
}

// procsOf says how many processes the tree figures of runs counted.
func procsOf(rs []run) string {
	n := median(field(rs, func(r run) int64 { return int64(r.procs) }))
	if n == 1 {
		return "1 process"
	}
	return fmt.Sprintf("%d processes", n)
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

// fastGoal is the one-shot listing's goal against the bare client with a
// fast Go target: whole command times.
const fastGoal = 1.3

// listFast times the one-shot listing against the fast Go target, the demo
// server's own binary: an mcp-go server, as the Go servers run-mcp's users
// write are, and the one `run-mcp demo-server` runs. With
// test/fixtures/benchtarget, which does next to nothing before it answers,
// the same ratio is shown beside it: there run-mcp's own process start is
// most of the difference. So is the bare client with test/bench/forkwrap
// between it and the demo server: what a Go process standing between a
// client and its target costs at the least, as run-mcp's supervisor must.
func listFast(cfg config, hello, version, bare, list, bareLight, listLight, bareWrapped func() (run, error)) ([]row, error) {
	s, err := interleave(cfg.startRounds, hello, version, bare, list, bareLight, listLight, bareWrapped)
	if err != nil {
		return nil, err
	}
	h, v, b, l := median(walls(s[0])), median(walls(s[1])), median(walls(s[2])), median(walls(s[3]))
	bl, ll, bw := median(walls(s[4])), median(walls(s[5])), median(walls(s[6]))
	r := float64(l) / float64(b)
	// The same ratio taken within each round, for its spread: the host's
	// pace drifts from one round to the next, not within one.
	perRound := make([]float64, len(s[0]))
	for i := range perRound {
		perRound[i] = float64(s[3][i].wall) / float64(s[2][i].wall)
	}
	return []row{
		{measure: "process start: `run-mcp --version`", floor: fmt.Sprintf("hello-world Go binary: %.2f ms", ms(h)),
			subject: fmt.Sprintf("%.2f ms (+%.2f ms)", ms(v), ms(v-h)), goal: "none set (see Start-up)", met: "—"},
		{measure: "one-shot `list-tools` against a fast Go target (bin/run-mcp-demo, an mcp-go server)",
			floor: fmt.Sprintf("bare client: %.2f ms (against test/fixtures/benchtarget, which answers at once: %.2f ms; "+
				"with a minimal Go process between it and the demo server, as run-mcp's supervisor is, test/bench/forkwrap: %.2f ms, %.2f×)",
				ms(b), ms(bl), ms(bw), float64(bw)/float64(b)),
			subject: fmt.Sprintf("%.2f ms: %.2f× (within each round: median %.2f×, middle half %.2f× to %.2f×; against benchtarget: %.2f ms, %.2f×)",
				ms(l), r, median(perRound), percentileF(perRound, 25), percentileF(perRound, 75), ms(ll), float64(ll)/float64(bl)),
			goal: fmt.Sprintf("≤ %.1f×", fastGoal), met: yes(r <= fastGoal)},
	}, nil
}

// initRuns is how many runs the init figures are the median of: one run's
// clock moves with the machine's state.
const initRuns = 11

// startUp reads GODEBUG=inittrace=1 of `run-mcp --version` and of a
// one-shot listing: the package inits run before main, and those outside
// the standard library are the part run-mcp chooses (its own packages and
// the libraries it links).
func startUp(b bins, env []string) ([]row, error) {
	var rows []row
	for _, args := range [][]string{{"--version"}, {"list-tools", "--", b.target}} {
		var total, outside []float64
		var last []targets.Init
		clock := map[string][]float64{}
		for range initRuns {
			inits, err := targets.InitTrace(context.Background(), env, b.runMCP, args...)
			if err != nil {
				return nil, err
			}
			var t, o float64
			for _, in := range inits {
				c := ms(in.Clock)
				t += c
				if !in.Std() {
					o += c
					clock[in.Pkg] = append(clock[in.Pkg], c)
				}
			}
			total, outside, last = append(total, t), append(outside, o), inits
		}
		var bytes, allocs int64
		for _, in := range last {
			if !in.Std() {
				bytes, allocs = bytes+in.Bytes, allocs+in.Allocs
			}
		}
		pkgs := slices.Collect(maps.Keys(clock))
		slices.SortFunc(pkgs, func(x, y string) int { return cmp.Compare(median(clock[y]), median(clock[x])) })
		var names []string
		for _, p := range pkgs[:min(3, len(pkgs))] {
			names = append(names, fmt.Sprintf("%s %.2f ms", strings.TrimPrefix(p, "github.com/"), median(clock[p])))
		}
		command := "`run-mcp " + strings.Join(args, " ") + "`"
		if len(args) > 1 {
			command = "`run-mcp list-tools -- benchtarget`"
		}
		o := median(outside)
		rows = append(rows, row{measure: fmt.Sprintf("package inits outside the standard library, %s (GODEBUG=inittrace=1, median of %d runs)", command, initRuns), floor: "—",
			subject: fmt.Sprintf("%.2f ms clock (all inits %.2f ms); %s in %s allocs; slowest: %s", o, median(total), bytesIEC(bytes), thousands(allocs), strings.Join(names, ", ")),
			goal:    "≤ 2 ms", met: yes(o <= 2)})
	}
	return rows, nil
}

// Command report is make bench: it runs every measure of run-mcp's
// performance side by side with its floor (small standard-library programs
// under test/bench doing the least any client must), interleaved round by
// round so the machine's drift falls on both alike, takes medians, and
// writes docs/BENCHMARKS.md. Every figure in that file comes from the run.
//
//	go run ./test/bench/report [-rounds 5] [-quick] [-only REGEXP] [-runmcp BIN] [-out FILE]
//
// Knobs for longer or shorter runs are the flags below (make bench passes
// BENCHFLAGS through).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/run-mcp/run-mcp/test/targets"
)

type config struct {
	rounds      int
	startRounds int
	peerRounds  int
	seqCalls    int
	flightCalls int
	fanConns    int
	fanCalls    int
	fanRounds   int
	abRounds    int
	stderrBytes int64
	bigChars    int
	peers       bool
	ab          bool
	only        *regexp.Regexp
}

// bins are the programs measured and the floors, built once.
type bins struct {
	runMCP, demo, bare, hello, pipe, big, target, rusage, relay, pollRelay, hopRelay, forkWrap, sock, burn string
}

func main() {
	var cfg config
	var runMCP, out, only string
	flag.IntVar(&cfg.rounds, "rounds", 7, "interleaved rounds of each process measure (medians over them)")
	flag.IntVar(&cfg.startRounds, "start-rounds", 100, "interleaved rounds of the process-start measures (the fast-target listing, the warm call): "+
		"a few milliseconds each, whose medians over a dozen rounds move from one run to the next")
	flag.IntVar(&cfg.peerRounds, "peer-rounds", 3, "rounds of each peer client measure")
	flag.IntVar(&cfg.seqCalls, "seq-calls", 2000, "sequential calls per side for the agent latency")
	flag.IntVar(&cfg.flightCalls, "flight-calls", 20000, "calls per round for the 128-in-flight throughput")
	flag.IntVar(&cfg.fanConns, "fan-conns", 1000, "named connections of the burst measure (run-mcp gets --max-connections this)")
	flag.IntVar(&cfg.fanCalls, "fan-calls", 100_000, "calls fired at once over them")
	flag.IntVar(&cfg.fanRounds, "fan-rounds", 3, "rounds of the burst measure (medians over them: one burst's p99 swings widely on a shared machine)")
	flag.BoolVar(&cfg.ab, "ab", true, "measure the speed devices' same-run A/B rows, at idle and beside two CPU burners")
	flag.IntVar(&cfg.abRounds, "ab-rounds", 9, "rounds of each A/B measure, per condition (idle, beside the burners): three gave opposite verdicts on one device in two runs an hour apart")
	flag.Int64Var(&cfg.stderrBytes, "stderr-bytes", 1<<30, "bytes of stderr the flooding target writes")
	flag.IntVar(&cfg.bigChars, "big-chars", 20_000_000, "characters of the big tool result")
	flag.BoolVar(&cfg.peers, "peers", true, "measure the peer clients too (installed by test/bench/peers.sh)")
	flag.StringVar(&runMCP, "runmcp", "", "the run-mcp binary to measure (default: build ./cmd/run-mcp as make build does)")
	flag.StringVar(&out, "out", defaultOut, "where to write the report")
	flag.StringVar(&only, "only", "", "run only the measures whose name matches this regular expression")
	quick := flag.Bool("quick", false, "a short smoke run: 3 rounds, 64 MiB of stderr, smaller bursts, one A/B round, no peers")
	soak := flag.Duration("soak", 0, "instead of the benchmarks: the memory soak for this long (make soak: 10m), written into its own section of -out")
	soakMix := flag.String("soak-mix", "all", "the soak's kinds of step, by commas: all, or echo, big, stderr, log, slow, reconnect (to find which one grows)")
	flag.Parse()
	if *quick {
		cfg.rounds, cfg.startRounds, cfg.peerRounds, cfg.seqCalls, cfg.flightCalls = 3, 20, 1, 300, 3000
		cfg.fanConns, cfg.fanCalls, cfg.stderrBytes, cfg.peers = 20, 2000, 64<<20, false
		cfg.abRounds = 1
	}
	if *soak > 0 {
		if err := soakMain(*soak, *soakMix, runMCP, out); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if only != "" {
		cfg.only = regexp.MustCompile(only)
	}
	if err := realMain(cfg, runMCP, out); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func realMain(cfg config, runMCP, out string) error {
	root, err := targets.RepoRoot()
	if err != nil {
		return err
	}
	work := filepath.Join(root, "test", "bench", "out")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(work, "run-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	b, err := build(tmp, runMCP)
	if err != nil {
		return err
	}
	rep := &report{cfg: cfg, started: time.Now(), args: os.Args[1:], runMCP: b.runMCP}
	if old, err := os.ReadFile(outPath(root, out)); err == nil {
		rep.soak = soakSection(string(old)) // a full run keeps the last soak's section
	}
	env := []string{"TMPDIR=" + tmp} // spill files and session records stay in the run's directory
	ms := measures(cfg, b, env, tmp)
	results := make([][]row, len(ms))
	for _, i := range runOrder(ms) {
		m := ms[i]
		if cfg.only != nil && !cfg.only.MatchString(m.name) {
			continue
		}
		fmt.Fprintf(os.Stderr, "bench: %s …\n", m.name)
		t := time.Now()
		rows, err := m.run()
		if err != nil {
			rows = append(rows, row{measure: m.name, subject: "failed: " + firstLine(err.Error())})
			fmt.Fprintf(os.Stderr, "bench: %s failed: %v\n", m.name, err)
		}
		for _, r := range rows {
			fmt.Fprintf(os.Stderr, "  %s | %s | %s | %s\n", r.measure, r.floor, r.subject, r.goal)
		}
		fmt.Fprintf(os.Stderr, "bench: %s took %s\n", m.name, time.Since(t).Round(time.Millisecond))
		results[i] = rows
	}
	for i, m := range ms { // the report keeps the list's order, whatever order they ran in
		if results[i] != nil {
			rep.add(m.section, results[i])
		}
	}
	rep.finished = time.Now()
	path := outPath(root, out)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(rep.markdown()), 0o644); err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "bench: wrote", path)
	if cfg.only == nil && out == defaultOut {
		// Only a full run to the usual place speaks for the README.
		readme := filepath.Join(root, "README.md")
		if err := updateReadme(readme, rep.summary()); err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr, "bench: updated the summary in", readme)
	}
	return nil
}

const defaultOut = "docs/BENCHMARKS.md"

func outPath(root, out string) string {
	if filepath.IsAbs(out) {
		return out
	}
	return filepath.Join(root, out)
}

// heavy names the measures that keep both CPUs busy for seconds to a
// minute.
func heavy(name string) bool {
	switch name {
	case "agent-throughput", "agent-burst", "stderr-flood", "big-result", "peers", "ab-stderr", "ab-big":
		return true
	}
	return false
}

// runOrder runs the measures that time single processes in milliseconds
// first, then the heavy ones (the A/B rows, with their CPU burners, last of
// all). On this VM process starts are slower after sustained load, and the
// rows that time a few milliseconds move with them.
func runOrder(ms []measure) []int {
	var light, later []int
	for i, m := range ms {
		if heavy(m.name) {
			later = append(later, i)
		} else {
			light = append(light, i)
		}
	}
	return append(light, later...)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// build builds the floors and the target, and run-mcp unless given, the way
// make build does (CGO_ENABLED=0).
func build(dir, runMCP string) (bins, error) {
	var b bins
	if err := os.Setenv("CGO_ENABLED", "0"); err != nil {
		return b, err
	}
	for _, x := range []struct {
		dst *string
		pkg string
	}{{&b.bare, "./test/bench/bareclient"}, {&b.hello, "./test/bench/hello"}, {&b.pipe, "./test/bench/pipereader"},
		{&b.big, "./test/bench/bigclient"}, {&b.target, "./test/fixtures/benchtarget"}, {&b.rusage, "./test/bench/rusage"},
		{&b.relay, "./test/bench/relay"}, {&b.pollRelay, "./test/bench/pollrelay"}, {&b.hopRelay, "./test/bench/hoprelay"}, {&b.forkWrap, "./test/bench/forkwrap"}, {&b.sock, "./test/bench/sockclient"},
		{&b.burn, "./test/bench/burn"}} {
		p, err := targets.BuildBinary(dir, x.pkg)
		if err != nil {
			return b, err
		}
		*x.dst = p
	}
	if runMCP == "" {
		p, err := targets.BuildBinary(dir, targets.RunMCP) // run-mcp-demo too
		if err != nil {
			return b, err
		}
		runMCP = p
	}
	abs, err := filepath.Abs(runMCP)
	if err != nil {
		return b, err
	}
	b.runMCP = abs
	// The fast Go target is the demo server's own binary, beside run-mcp:
	// `run-mcp demo-server` would add a run-mcp start before it.
	b.demo = filepath.Join(filepath.Dir(abs), "run-mcp-demo")
	if _, err := os.Stat(b.demo); err != nil {
		return b, fmt.Errorf("the demo server is not beside %s (%w); make build builds both", abs, err)
	}
	return b, nil
}

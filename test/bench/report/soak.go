package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/run-mcp/run-mcp/test/targets"
)

// The soak's section of docs/BENCHMARKS.md lies between these markers:
// make soak rewrites it, a full make bench keeps it.
const (
	soakBegin = "<!-- bench:soak (written by make soak; make bench keeps it) -->"
	soakEnd   = "<!-- /bench:soak -->"
)

// soakEvery is how often the soak samples the resident sets.
const soakEvery = 10 * time.Second

// soakConns are the agent server's connections in the soak, each with a
// worker of its own.
const soakConns = 4

// soakPause is each worker's pause between two steps: the soak is about
// memory over time, not speed, and shares the machine.
const soakPause = 5 * time.Millisecond

// soakStats counts what the workers did.
type soakStats struct {
	steps, errors, reconnects atomic.Int64
	mu                        sync.Mutex
	firstErrs                 []string
}

func (s *soakStats) fail(what string, err error) {
	s.errors.Add(1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.firstErrs) < 3 {
		s.firstErrs = append(s.firstErrs, what+": "+clip(firstLine(err.Error())))
	}
}

// gcLine is a line of GODEBUG=gctrace=1; its third heap size is the live
// heap after the collection.
var gcLine = regexp.MustCompile(`^gc \d+ @.* \d+->\d+->(\d+) MB`)

// soakSample is one sample: when, run-mcp's own RSS, its live heap and its
// whole tree's RSS.
type soakSample struct {
	at          time.Duration
	selfKB      int64
	treeKB      int64
	liveKB      int64 // run-mcp's live heap after its last collection
	procs, done int64
}

// soakMain runs the memory soak (make soak): one agent server with four
// connections to the demo server and mixed traffic on each (calls, big
// results saved to disk, stderr written and read, log notifications,
// progress, reconnects) for d, sampling the resident set of run-mcp and of
// its whole tree every ten seconds, and writes the growth after a warm-up
// as the soak section of out.
func soakMain(d time.Duration, mix, runMCP, out string) error {
	kinds, err := soakKinds(mix)
	if err != nil {
		return err
	}
	root, err := targets.RepoRoot()
	if err != nil {
		return err
	}
	work := filepath.Join(root, "test", "bench", "out")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(work, "soak-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	b, err := build(tmp, runMCP)
	if err != nil {
		return err
	}
	started := time.Now()
	// The collector's trace gives the live heap after each collection:
	// what a leak grows, where the resident set also follows the heap goal.
	a := agentEnv{runMCP: b.runMCP, rusage: b.rusage, target: []string{b.demo}, env: []string{"TMPDIR=" + tmp, "GODEBUG=gctrace=1"}}
	var live atomic.Int64 // kB, after the last collection
	var gcs atomic.Int64
	r, err := startRPCTap(a.procEnv(), func(line string) {
		if m := gcLine.FindStringSubmatch(line); m != nil {
			mb, _ := strconv.ParseInt(m[1], 10, 64)
			live.Store(mb << 10)
			gcs.Add(1)
		}
	}, b.runMCP)
	if err != nil {
		return err
	}
	defer r.close()
	if err := r.initialize(); err != nil {
		return fmt.Errorf("%w (stderr: %s)", err, r.stderrTail())
	}
	for i := range soakConns {
		if _, err := r.call("tools/call", fmt.Sprintf(`{"name":"connect_to_mcp","arguments":{"command":%q,"name":"s%d","log_level":"debug"}}`, b.demo, i)); err != nil {
			return err
		}
	}
	warm := min(2*time.Minute, d/5)
	fmt.Fprintf(os.Stderr, "bench: soak for %s (warm-up %s), a sample every %s …\n", d, warm, soakEvery)
	var st soakStats
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range soakConns {
		wg.Add(1)
		go func() { defer wg.Done(); soakWorker(r, "s"+strconv.Itoa(i), kinds, &st, stop) }()
	}
	pid := r.cmd.Process.Pid
	var samples []soakSample
	sample := func() error {
		self := vmRSSKB(pid)
		t, err := readTree(b.rusage, pid)
		if err != nil {
			return err
		}
		procs, tree := t.procs, t.rssKB
		s := soakSample{at: time.Since(started), selfKB: self, treeKB: tree, liveKB: live.Load(), procs: int64(procs), done: st.steps.Load()}
		samples = append(samples, s)
		fmt.Fprintf(os.Stderr, "  %4.0f s: run-mcp %s (live heap %s after %d collections), whole tree %s (%d processes), %d steps, %d errors\n",
			s.at.Seconds(), mib(self), mib(s.liveKB), gcs.Load(), mib(tree), procs, s.done, st.errors.Load())
		return nil
	}
	tick := time.NewTicker(soakEvery)
	deadline := time.After(d)
	var serr error
loop:
	for {
		select {
		case <-tick.C:
			if serr = sample(); serr != nil {
				break loop
			}
		case <-deadline:
			serr = sample()
			break loop
		}
	}
	tick.Stop()
	close(stop)
	wg.Wait()
	if serr != nil {
		return serr
	}
	section := soakMarkdown(d, mix, warm, started, samples, &st)
	path := outPath(root, out)
	doc, _ := os.ReadFile(path)
	if err := os.WriteFile(path, []byte(withSoak(string(doc), section)), 0o644); err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "bench: wrote the soak section of", path)
	return nil
}

// soakSteps are the kinds of step the soak's workers take, in the order of
// a worker's round of ten steps (echo fills the rest); a reconnect comes
// every 500 steps.
var soakSteps = []string{"echo", "big", "stderr", "log", "slow", "reconnect"}

// soakKinds reads -soak-mix: "all", or kinds from soakSteps, by commas.
func soakKinds(mix string) (map[string]bool, error) {
	kinds := map[string]bool{}
	for _, k := range strings.Split(mix, ",") {
		k = strings.TrimSpace(k)
		switch {
		case k == "all":
			for _, x := range soakSteps {
				kinds[x] = true
			}
		case slices.Contains(soakSteps, k):
			kinds[k] = true
		default:
			return nil, fmt.Errorf("-soak-mix: %q is not one of all, %s", k, strings.Join(soakSteps, ", "))
		}
	}
	return kinds, nil
}

// soakWorker drives one connection until stop: mostly calls, and every few
// steps something that makes run-mcp keep, forward or discard something.
// Steps of a kind not in kinds are left out.
func soakWorker(r *rpc, conn string, kinds map[string]bool, st *soakStats, stop chan struct{}) {
	tool := func(name, args string) (string, error) {
		_, err := r.call("tools/call", `{"name":"`+name+`","arguments":`+args+`}`)
		return name, err
	}
	prim := func(name, args string) (string, error) {
		return tool("call_mcp_primitive", `{"type":"tool","name":"`+name+`","arguments":`+args+`,"connection":"`+conn+`"}`)
	}
	c := `{"connection":"` + conn + `"}`
	// One round of ten steps, then a reconnect every 500.
	var round []string
	for i := range 10 {
		k := map[int]string{6: "big", 7: "stderr", 8: "log", 9: "slow"}[i]
		if k == "" || !kinds[k] {
			k = "echo"
		}
		if k == "echo" && !kinds["echo"] {
			continue
		}
		round = append(round, k)
	}
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		case <-time.After(soakPause):
		}
		kind := "reconnect"
		if len(round) > 0 && (i%500 != 499 || !kinds["reconnect"]) {
			kind = round[i%len(round)]
		}
		var what string
		var err error
		switch kind {
		case "reconnect":
			what, err = tool("reconnect_to_mcp", c)
			st.reconnects.Add(1)
		case "big": // a big result: truncated for the host, the rest saved to disk
			what, err = prim("big_text", `{"chars":200000}`)
		case "stderr": // stderr written, then read
			if what, err = prim("stderr", `{"lines":50}`); err == nil {
				what, err = tool("get_mcp_server_stderr", `{"lines":20,"connection":"`+conn+`"}`)
			}
		case "log": // a log notification, then the notification log read
			if what, err = prim("log", `{"level":"info","message":"soak"}`); err == nil {
				what, err = tool("get_server_notifications", `{"count":10,"connection":"`+conn+`"}`)
			}
		case "slow": // progress notifications during a call
			what, err = prim("slow", `{"seconds":0.02,"steps":4}`)
		default:
			what, err = prim("echo", `{"message":"soak"}`)
		}
		st.steps.Add(1)
		if err != nil {
			st.fail(what, err)
		}
	}
}

// vmRSSKB is a live process's resident set now.
func vmRSSKB(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			return n
		}
	}
	return 0
}

// soakMarkdown is the soak's section: the resident sets at the end of the
// warm-up and at the end, the growth between them and its rate, and every
// sample.
func soakMarkdown(d time.Duration, mix string, warm time.Duration, started time.Time, samples []soakSample, st *soakStats) string {
	first := samples[0]
	for _, s := range samples {
		if s.at >= warm {
			first = s
			break
		}
	}
	last := samples[len(samples)-1]
	hours := (last.at - first.at).Hours()
	growth := func(f func(soakSample) int64) string {
		g := f(last) - f(first)
		rate := ""
		if hours > 0 {
			rate = fmt.Sprintf(", %+.1f MiB per hour", float64(g)/1024/hours)
		}
		lo, hi := f(first), f(first)
		for _, s := range samples {
			if s.at >= first.at {
				lo, hi = min(lo, f(s)), max(hi, f(s))
			}
		}
		return fmt.Sprintf("%s → %s: %+.1f MiB%s; least-squares trend %+.1f MiB per hour (between %s and %s after the warm-up)",
			mib(f(first)), mib(f(last)), float64(g)/1024, rate, trend(samples, first.at, f), mib(lo), mib(hi))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Soak\n\n%s\n\n", soakBegin)
	fmt.Fprintf(&b, "Written by `make soak` (`go run ./test/bench/report -soak %s -soak-mix %s`), not by `make bench`: one agent server, %d connections to bin/run-mcp-demo, "+
		"each driven without let-up (a pause of %s between steps) by mixed traffic (-soak-mix all): calls, 200,000-character results (truncated for the host, the rest saved to disk), "+
		"stderr written and read back, log notifications and the notification log read, progress during a call, and a reconnect every 500 steps. "+
		"The resident set (VmRSS) of run-mcp and of its whole tree (run-mcp, its supervisor, the targets) is sampled every %s, and run-mcp's live heap after its last collection (GODEBUG=gctrace=1, whole MB); "+
		"the growth is taken from the end of a %s warm-up to the end.\n\n",
		d, mix, soakConns, soakPause, soakEvery, warm)
	errs := "0 errors"
	if n := st.errors.Load(); n > 0 {
		errs = fmt.Sprintf("%d errors (first: %s)", n, strings.Join(st.firstErrs, "; "))
	}
	fmt.Fprintf(&b, "- Date: %s, for %s; %s steps, %d reconnects, %s\n- Machine: %s\n\n",
		started.Format("2006-01-02 15:04 MST"), d, thousands(last.done), st.reconnects.Load(), errs, machineLine())
	b.WriteString("| measure | after the warm-up → at the end | goal | met |\n| --- | --- | --- | --- |\n")
	fmt.Fprintf(&b, "| resident set of run-mcp itself | %s | none set yet (issue 21) | — |\n", growth(func(s soakSample) int64 { return s.selfKB }))
	fmt.Fprintf(&b, "| run-mcp's live heap after a collection | %s | none set yet (issue 21) | — |\n", growth(func(s soakSample) int64 { return s.liveKB }))
	fmt.Fprintf(&b, "| resident set of the whole tree (%d processes at the end) | %s | none set yet (issue 21) | — |\n\n", last.procs, growth(func(s soakSample) int64 { return s.treeKB }))
	var xs []string
	for _, s := range samples {
		xs = append(xs, fmt.Sprintf("%.0f s %.1f/%.0f/%.1f", s.at.Seconds(), float64(s.selfKB)/1024, float64(s.liveKB)/1024, float64(s.treeKB)/1024))
	}
	fmt.Fprintf(&b, "Samples (time: run-mcp's resident set/its live heap/the whole tree's resident set, MiB): %s.\n\n%s\n", strings.Join(xs, ", "), soakEnd)
	return b.String()
}

// trend is the least-squares slope of f over the samples from from on, in
// MiB per hour: less swayed by the last sample than the difference of two.
func trend(samples []soakSample, from time.Duration, f func(soakSample) int64) float64 {
	var n, sx, sy, sxx, sxy float64
	for _, s := range samples {
		if s.at < from {
			continue
		}
		x, y := s.at.Hours(), float64(f(s))/1024
		n, sx, sy, sxx, sxy = n+1, sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	if d := n*sxx - sx*sx; n >= 2 && d != 0 {
		return (n*sxy - sx*sy) / d
	}
	return 0
}

// soakSection is the soak's section of a written report, markers and
// heading included ("" when it has none).
func soakSection(doc string) string {
	i, j := strings.Index(doc, "## Soak\n\n"+soakBegin), strings.Index(doc, soakEnd)
	if i < 0 || j < i {
		return ""
	}
	return doc[i:j+len(soakEnd)] + "\n"
}

// withSoak puts section in place of doc's soak section, or at its end.
func withSoak(doc, section string) string {
	if old := soakSection(doc); old != "" {
		return strings.Replace(doc, old, section, 1)
	}
	if doc != "" && !strings.HasSuffix(doc, "\n\n") {
		doc = strings.TrimRight(doc, "\n") + "\n\n"
	}
	return doc + section
}

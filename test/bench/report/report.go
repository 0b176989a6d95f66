package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"
)

// row is one line of the report: a measure, its floor, run-mcp's figure
// (with the ratio or difference to the floor) and the goal.
type row struct {
	measure, floor, subject, goal, met string
}

type section struct {
	title string
	rows  []row
}

type report struct {
	cfg               config
	started, finished time.Time
	args              []string
	runMCP            string
	sections          []section
	soak              string // the soak's section, kept from the last make soak
}

func (r *report) add(title string, rows []row) {
	for i := range r.sections {
		if r.sections[i].title == title {
			r.sections[i].rows = append(r.sections[i].rows, rows...)
			return
		}
	}
	r.sections = append(r.sections, section{title: title, rows: rows})
}

func (r *report) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Benchmarks\n\n")
	fmt.Fprintf(&b, "Written by `make bench` (`go run ./test/bench/report`); every figure below comes from the run it describes. ")
	fmt.Fprintf(&b, "Each measure runs side by side with its floor (small standard-library programs under `test/bench`), interleaved round by round, and the figures are medians. ")
	fmt.Fprintf(&b, "Both sides run the same target the same way: a floor gives its target exactly the environment run-mcp gives one (PATH, HOME, SHELL and USER). ")
	fmt.Fprintf(&b, "Memory is the whole process tree on both sides, the sum of the peak RSS of every process in it (run-mcp, its supervisors and the targets; the floor and its targets): `test/bench/rusage` samples /proc while a command runs, and reads it once at the end for the servers the report keeps running. ")
	fmt.Fprintf(&b, "The measures that time single processes run first and the ones that keep both CPUs busy (throughput, burst, stderr flood, big result, peers, then the A/B rows with their CPU burners) after them, since on this VM sustained load slows the process starts that follow. ")
	fmt.Fprintf(&b, "The A/B rows measure each speed device left in the product on and off in the same run, at idle and beside two CPU-burning processes (`test/bench/burn`); a device is off in a build of this very tree with the device's code changed through `go build -overlay` (the change is named in the row; the product has no such switch), or through an environment variable the product honours.\n\n")
	fmt.Fprintf(&b, "- Date: %s (took %s)\n", r.started.Format("2006-01-02 15:04 MST"), r.finished.Sub(r.started).Round(time.Second))
	fmt.Fprintf(&b, "- Machine: %s\n", machineLine())
	fmt.Fprintf(&b, "- Command: `go run ./test/bench/report %s`\n", strings.Join(r.args, " "))
	if v := runtimeEnv(); v != "" {
		fmt.Fprintf(&b, "- Go runtime settings in the environment (run-mcp and the floors inherit them; the targets do not): %s\n", v)
	}
	fmt.Fprintf(&b, "- Knobs: %d rounds (%d for the process starts), %d sequential calls, %d calls at 128 in flight, %d connections × %d calls (%d rounds), %s of stderr, a %s-character result, peers %v; A/B %v: %d rounds per condition\n\n",
		r.cfg.rounds, r.cfg.startRounds, r.cfg.seqCalls, r.cfg.flightCalls, r.cfg.fanConns, r.cfg.fanCalls, r.cfg.fanRounds, bytesIEC(r.cfg.stderrBytes), thousands(int64(r.cfg.bigChars)), r.cfg.peers,
		r.cfg.ab, r.cfg.abRounds)
	for _, s := range r.sections {
		fmt.Fprintf(&b, "## %s\n\n| measure | floor | run-mcp | goal | met |\n| --- | --- | --- | --- | --- |\n", s.title)
		for _, x := range s.rows {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", x.measure, x.floor, x.subject, x.goal, x.met)
		}
		b.WriteString("\n")
	}
	if r.soak != "" {
		b.WriteString(r.soak)
		b.WriteString("\n")
	}
	return b.String()
}

// runtimeEnv names the Go runtime's variables set in the report's own
// environment, which change how run-mcp runs (GOMEMLIMIT=off turns off its
// soft memory limit).
func runtimeEnv() string {
	var set []string
	for _, name := range []string{"GOMAXPROCS", "GOMEMLIMIT", "GOGC", "GODEBUG"} {
		if v, ok := os.LookupEnv(name); ok {
			set = append(set, "`"+name+"="+v+"`")
		}
	}
	return strings.Join(set, ", ")
}

func machineLine() string {
	return fmt.Sprintf("%d CPUs (%s), %s memory, %s/%s, %s", runtime.NumCPU(), cpuModel(), memTotal(), runtime.GOOS, runtime.GOARCH, runtime.Version())
}

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

func memTotal() string {
	b, _ := os.ReadFile("/proc/meminfo")
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			var kb int64
			fmt.Sscan(rest, &kb)
			return bytesIEC(kb << 10)
		}
	}
	return "unknown"
}

func bytesIEC(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

func thousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func mib(kb int64) string { return fmt.Sprintf("%.1f MiB", float64(kb)/1024) }

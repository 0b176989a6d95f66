package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// run is one finished command: wall time, CPU (user+system, the command and
// the descendants it reaped), peak RSS (the largest of those processes), the
// sum of the peak RSS of every process of its tree and how many there were
// (through the rusage wrapper only), its stdout, and when its last stdout
// byte and its exit came.
type run struct {
	wall     time.Duration
	cpu      time.Duration
	maxRSSKB int64
	treeKB   int64
	procs    int
	out      string
	lastOut  time.Time
	exited   time.Time
}

// runCmd runs argv with extra environment and fails loudly on a non-zero exit.
func runCmd(env []string, argv ...string) (run, error) {
	return runWith("", env, argv...)
}

// runMeasured is runCmd through the rusage wrapper, for a true peak RSS.
func runMeasured(wrapper string, env []string, argv ...string) (run, error) {
	return runWith(wrapper, env, argv...)
}

func runWith(wrapper string, env []string, argv ...string) (run, error) {
	c := exec.Command(argv[0], argv[1:]...)
	var usageR *os.File
	if wrapper != "" {
		r, w, err := os.Pipe()
		if err != nil {
			return run{}, err
		}
		defer r.Close()
		c = exec.Command(wrapper, argv...)
		c.ExtraFiles = []*os.File{w}
		defer w.Close() // closed right after Start too; this covers a failed Start
		usageR = r
	}
	c.Env = append(os.Environ(), env...)
	var errb bytes.Buffer
	c.Stderr = &errb
	stdout, err := c.StdoutPipe()
	if err != nil {
		return run{}, err
	}
	start := time.Now()
	if err := c.Start(); err != nil {
		return run{}, fmt.Errorf("%s: %w", argv[0], err)
	}
	if usageR != nil {
		c.ExtraFiles[0].Close()
	}
	var r run
	var out bytes.Buffer
	buf := make([]byte, 64<<10)
	for {
		n, err := stdout.Read(buf)
		if n > 0 {
			r.lastOut = time.Now()
			out.Write(buf[:n])
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return run{}, err
		}
	}
	werr := c.Wait()
	r.exited = time.Now()
	r.wall = r.exited.Sub(start)
	r.out = out.String()
	if werr != nil {
		return r, fmt.Errorf("%s: %v\nstdout: %s\nstderr: %s", strings.Join(argv, " "), werr, clip(r.out), clip(errb.String()))
	}
	r.cpu, r.maxRSSKB = usage(c.ProcessState)
	if usageR != nil {
		var cpuNS, kb, tree int64
		var procs int
		if _, err := fmt.Fscan(usageR, &cpuNS, &kb, &tree, &procs); err != nil {
			return r, fmt.Errorf("read the rusage of %s: %w", argv[0], err)
		}
		r.cpu, r.maxRSSKB, r.treeKB, r.procs = time.Duration(cpuNS), kb, tree, procs
	}
	return r, nil
}

func clip(s string) string {
	if len(s) > 1500 {
		return s[:1500] + "…"
	}
	return s
}

// median of durations or numbers.
func median[T int64 | float64 | time.Duration](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// percentile p (0..100) of durations, nearest rank.
func percentile(xs []time.Duration, p float64) time.Duration {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	k := int(float64(len(s))*p/100+0.5) - 1
	return s[min(max(k, 0), len(s)-1)]
}

// percentileF is percentile for plain numbers.
func percentileF(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	k := int(float64(len(s))*p/100+0.5) - 1
	return s[min(max(k, 0), len(s)-1)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// interleave runs each variant once per round, in turn, so the machine's
// drift falls on all of them alike, and returns the samples per variant.
func interleave(rounds int, variants ...func() (run, error)) ([][]run, error) {
	out := make([][]run, len(variants))
	for range rounds {
		for i, v := range variants {
			r, err := v()
			if err != nil {
				return nil, err
			}
			out[i] = append(out[i], r)
		}
	}
	return out, nil
}

func field[T any](rs []run, f func(run) T) []T {
	out := make([]T, len(rs))
	for i, r := range rs {
		out[i] = f(r)
	}
	return out
}

func walls(rs []run) []time.Duration { return field(rs, func(r run) time.Duration { return r.wall }) }
func cpus(rs []run) []time.Duration  { return field(rs, func(r run) time.Duration { return r.cpu }) }
func rss(rs []run) []int64           { return field(rs, func(r run) int64 { return r.maxRSSKB }) }
func trees(rs []run) []int64         { return field(rs, func(r run) int64 { return r.treeKB }) }
func exitAfter(rs []run) []time.Duration {
	return field(rs, func(r run) time.Duration { return r.exited.Sub(r.lastOut) })
}

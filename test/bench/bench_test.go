// Package bench measures the headless CLI against the floor any MCP client
// pays: bareclient (the bare protocol exchange, standard library only) and
// hello (starting any Go process at all). Each iteration spawns fresh
// processes with exec.Command, as a user's shell would. Besides ns/op, every
// benchmark reports ms/op and the median iteration (p50-ms/op), which is
// what a person waiting on the command feels.
//
//	make bench                                   # everything under test/bench
//	go test -run '^$' -bench . -benchtime=10x ./test/bench/
package bench

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/run-mcp/run-mcp/test/targets"
)

// Binaries built once in TestMain.
var runMCP, bareclient, hello string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "run-mcp-bench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, b := range []struct {
		dst *string
		pkg string
	}{{&runMCP, "./cmd/run-mcp"}, {&bareclient, "./test/bench/bareclient"}, {&hello, "./test/bench/hello"}} {
		if *b.dst, err = targets.BuildBinary(dir, b.pkg); err != nil {
			fmt.Fprintln(os.Stderr, err)
			_ = os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		_ = os.RemoveAll(dir)
		os.Exit(code)
	}))
}

// timings collects one duration per iteration and reports them.
type timings []time.Duration

func (ts timings) report(b *testing.B, unit string) {
	b.Helper()
	if len(ts) == 0 {
		return
	}
	var sum time.Duration
	for _, t := range ts {
		sum += t
	}
	sorted := slices.Clone(ts)
	slices.Sort(sorted)
	median := sorted[len(sorted)/2]
	if len(sorted)%2 == 0 {
		median = (sorted[len(sorted)/2-1] + sorted[len(sorted)/2]) / 2
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(sum)/float64(len(ts)), unit)
	b.ReportMetric(ms(median), "p50-"+unit)
}

// unitOp is the unit of whole-command timings.
const unitOp = "ms/op"

// spawn runs argv to completion once and returns how long it took; want, if
// not empty, must appear in its stdout.
func spawn(b *testing.B, want string, argv ...string) time.Duration {
	b.Helper()
	var out, errb bytes.Buffer
	c := exec.Command(argv[0], argv[1:]...)
	c.Stdout, c.Stderr = &out, &errb
	c.WaitDelay = 10 * time.Second
	start := time.Now()
	err := c.Run()
	took := time.Since(start)
	if err != nil {
		b.Fatalf("%s: %v\nstdout: %s\nstderr: %s", strings.Join(argv, " "), err, clip(out.String()), clip(errb.String()))
	}
	if want != "" && !strings.Contains(out.String(), want) {
		b.Fatalf("%s: stdout lacks %q: %s", strings.Join(argv, " "), want, clip(out.String()))
	}
	return took
}

// spawnFailing runs argv, which must exit with code, and returns how long it took.
func spawnFailing(b *testing.B, code int, argv ...string) time.Duration {
	b.Helper()
	var errb bytes.Buffer
	c := exec.Command(argv[0], argv[1:]...)
	c.Stderr = &errb
	c.WaitDelay = 10 * time.Second
	start := time.Now()
	err := c.Run()
	took := time.Since(start)
	if c.ProcessState == nil || c.ProcessState.ExitCode() != code {
		b.Fatalf("%s: %v, want exit %d\nstderr: %s", strings.Join(argv, " "), err, code, clip(errb.String()))
	}
	return took
}

func clip(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}

// loop runs one spawn per iteration and reports ns/op, ms/op and p50-ms/op.
func loop(b *testing.B, once func() time.Duration) {
	b.Helper()
	ts := make(timings, 0, b.N)
	b.ResetTimer()
	for range b.N {
		ts = append(ts, once())
	}
	b.StopTimer()
	ts.report(b, unitOp)
}

func BenchmarkListToolsServerEverything(b *testing.B) {
	cmd, err := targets.ServerEverything()
	targets.Require(b, err)
	b.Run("bare", func(b *testing.B) {
		loop(b, func() time.Duration { return spawn(b, "", append([]string{bareclient}, cmd...)...) })
	})
	b.Run("run-mcp", func(b *testing.B) {
		argv := append([]string{runMCP, "list-tools", "--"}, cmd...)
		loop(b, func() time.Duration { return spawn(b, `"get-tiny-image"`, argv...) })
	})
}

func BenchmarkListToolsDemo(b *testing.B) {
	b.Run("bare", func(b *testing.B) {
		loop(b, func() time.Duration { return spawn(b, "", bareclient, runMCP, "demo-server") })
	})
	b.Run("run-mcp", func(b *testing.B) {
		loop(b, func() time.Duration { return spawn(b, `"echo"`, runMCP, "list-tools", "--", runMCP, "demo-server") })
	})
}

func BenchmarkCallEchoDemo(b *testing.B) {
	loop(b, func() time.Duration {
		return spawn(b, `"echo: hi"`, runMCP, "call", "echo", "message=hi", "--", runMCP, "demo-server")
	})
}

func BenchmarkProcessStart(b *testing.B) {
	b.Run("run-mcp-version", func(b *testing.B) {
		loop(b, func() time.Duration { return spawn(b, "", runMCP, "--version") })
	})
	b.Run("hello", func(b *testing.B) {
		loop(b, func() time.Duration { return spawn(b, "hello", hello) })
	})
}

// exitAfterAnswer runs argv once and returns the time from the last byte it
// wrote to stdout (the answer) to its exit: what a script waits for after it
// already has its result.
func exitAfterAnswer(b *testing.B, argv ...string) time.Duration {
	b.Helper()
	c := exec.Command(argv[0], argv[1:]...)
	var errb bytes.Buffer
	c.Stderr = &errb
	stdout, err := c.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Start(); err != nil {
		b.Fatal(err)
	}
	var out bytes.Buffer
	var last time.Time
	buf := make([]byte, 64<<10)
	for {
		n, err := stdout.Read(buf)
		if n > 0 {
			last = time.Now()
			out.Write(buf[:n])
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	werr := c.Wait()
	exited := time.Now()
	if werr != nil || !strings.Contains(out.String(), `"tools"`) || last.IsZero() {
		b.Fatalf("%s: %v\nstdout: %s\nstderr: %s", strings.Join(argv, " "), werr, clip(out.String()), clip(errb.String()))
	}
	return exited.Sub(last)
}

// BenchmarkExitAfterAnswer: list-tools against targets that ignore stdin EOF
// (so run-mcp must signal them) and, for comparison, one that exits at EOF.
// ms-exit-after-answer is the time from the last byte of stdout to run-mcp's
// exit; ns/op is the whole command.
func BenchmarkExitAfterAnswer(b *testing.B) {
	cases := []struct {
		name   string
		target func(b *testing.B) []string
	}{
		{"demo-ignore-eof", func(*testing.B) []string { return []string{runMCP, "demo-server", "--ignore-stdin-eof"} }},
		{"demo", func(*testing.B) []string { return []string{runMCP, "demo-server"} }},
		{"everything", func(b *testing.B) []string {
			cmd, err := targets.ServerEverything()
			targets.Require(b, err)
			return cmd
		}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			argv := append([]string{runMCP, "list-tools", "--"}, tc.target(b)...)
			after := make(timings, 0, b.N)
			ts := make(timings, 0, b.N)
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				after = append(after, exitAfterAnswer(b, argv...))
				ts = append(ts, time.Since(start))
			}
			b.StopTimer()
			ts.report(b, unitOp)
			after.report(b, "ms-exit-after-answer")
		})
	}
}

// BenchmarkDiagnosis: how long a user waits for each failure report.
func BenchmarkDiagnosis(b *testing.B) {
	b.Run("crash-at-start", func(b *testing.B) {
		loop(b, func() time.Duration {
			return spawnFailing(b, 69, runMCP, "list-tools", "--", runMCP, "demo-server", "--crash-at-start", "Cannot find module './db-config.js'")
		})
	})
	b.Run("crash-mid-call", func(b *testing.B) {
		loop(b, func() time.Duration { return spawnFailing(b, 1, runMCP, "call", "crash", "--", runMCP, "demo-server") })
	})
	b.Run("silent-handshake-500ms", func(b *testing.B) {
		loop(b, func() time.Duration {
			return spawnFailing(b, 69, runMCP, "list-tools", "--connect-timeout", "500", "--", runMCP, "demo-server", "--silent-handshake")
		})
	})
}

package wire

import (
	"testing"
	"time"
)

// startStop times one target's life as run-mcp adds it: the start and a
// graceful stop of a server that exits at stdin EOF.
func startStop(b *testing.B, sp *Spawner, start, stop *time.Duration) {
	t0 := time.Now()
	p, err := Start(sp, Spec{Command: "cat"})
	if err != nil {
		b.Fatal(err)
	}
	t1 := time.Now()
	p.Stop()
	*start += t1.Sub(t0)
	*stop += time.Since(t1)
}

func report(b *testing.B, start, stop time.Duration) {
	b.ReportMetric(float64(start.Microseconds())/float64(b.N)/1000, "start-ms")
	b.ReportMetric(float64(stop.Microseconds())/float64(b.N)/1000, "stop-ms")
}

// BenchmarkStartStop is the cost of one target's life with the supervisor
// running and no other target (on Linux, straight to execve).
func BenchmarkStartStop(b *testing.B) {
	sp := NewSpawner()
	defer sp.Close()
	var start, stop time.Duration
	for b.Loop() {
		startStop(b, sp, &start, &stop)
	}
	report(b, start, stop)
}

// BenchmarkFirstStartStop is BenchmarkStartStop for a Spawner's first
// target: on Linux the supervisor's own start is in it, as in a one-shot
// command; the Spawner's Close (the supervisor's exit) is not timed.
func BenchmarkFirstStartStop(b *testing.B) {
	var start, stop time.Duration
	for b.Loop() {
		sp := NewSpawner()
		startStop(b, sp, &start, &stop)
		sp.Close()
	}
	report(b, start, stop)
}

// BenchmarkStartStopBeside is BenchmarkStartStop with another target
// running all along: on Linux each target then starts through the exec
// trampoline, a start of this (test) binary.
func BenchmarkStartStopBeside(b *testing.B) {
	sp := NewSpawner()
	defer sp.Close()
	other, err := Start(sp, Spec{Command: "cat"})
	if err != nil {
		b.Fatal(err)
	}
	defer other.Stop()
	var start, stop time.Duration
	for b.Loop() {
		startStop(b, sp, &start, &stop)
	}
	report(b, start, stop)
}

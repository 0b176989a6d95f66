package wire

import (
	"testing"
	"time"
)

// BenchmarkStartStop is the cost of one target's life as run-mcp adds it:
// start (on Linux, the supervisor's own start included) and a graceful stop
// of a server that exits at stdin EOF.
func BenchmarkStartStop(b *testing.B) {
	sp := NewSpawner()
	defer sp.Close()
	var start, stop time.Duration
	for b.Loop() {
		t0 := time.Now()
		p, err := Start(sp, Spec{Command: "cat"})
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		p.Stop()
		start += t1.Sub(t0)
		stop += time.Since(t1)
	}
	b.ReportMetric(float64(start.Microseconds())/float64(b.N)/1000, "start-ms")
	b.ReportMetric(float64(stop.Microseconds())/float64(b.N)/1000, "stop-ms")
}

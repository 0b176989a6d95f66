//go:build !unix

package main

import (
	"os"
	"time"
)

// usage: CPU only where the rusage of a reaped process is not available.
func usage(ps *os.ProcessState) (time.Duration, int64) {
	return ps.UserTime() + ps.SystemTime(), 0
}

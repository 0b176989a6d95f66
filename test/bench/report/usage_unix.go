//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
	"time"
)

// usage is a reaped command's CPU (user+system) and peak RSS in KB; wait4
// counts the descendants it reaped too.
func usage(ps *os.ProcessState) (time.Duration, int64) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, 0
	}
	rss := int64(ru.Maxrss)
	if runtime.GOOS == "darwin" {
		rss >>= 10 // bytes there, KB on Linux
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), rss
}

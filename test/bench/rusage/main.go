//go:build unix

// Command rusage measures a command's CPU and memory for make bench's
// report, whole process tree included.
//
//	rusage COMMAND [ARG...]   (fd 3 open for writing)
//	rusage -tree PID...
//
// The first form runs COMMAND with this process's stdio and, once it has
// exited, writes "cpu_ns maxrss_kb tree_kb procs" to fd 3: the CPU
// (user+system) of the command and the descendants it reaped, and the
// largest peak RSS of any one of them, both from wait4; then the sum of the
// peak RSS (VmHWM) of every process of the command's tree (the command, the
// processes it started, theirs in turn: run-mcp's supervisors and the
// target, or a floor's target) and how many there were, sampled from /proc
// every few milliseconds while it ran (Linux; elsewhere tree_kb is
// maxrss_kb and procs 0). The report starts measured commands through this
// small parent because on Linux a child inherits its forking parent's peak
// RSS at exec, and the report process grows large during its own measures.
//
// The second form prints "tree_kb procs rss_kb depth0_kb depth1_kb ..." for
// processes that are running: the sum of the peak RSS of each PID given and
// of all its descendants, how many there are, the sum of their RSS now, and
// the sum of the peaks at each depth (the PIDs themselves, their children,
// theirs: for run-mcp, itself, its supervisor, the targets).
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: rusage COMMAND [ARG...] (fd 3 open for writing) | rusage -tree PID...")
		os.Exit(2)
	}
	if os.Args[1] == "-tree" {
		var pids []int
		for _, a := range os.Args[2:] {
			pid, err := strconv.Atoi(a)
			if err != nil {
				fmt.Fprintln(os.Stderr, "rusage: not a PID:", a)
				os.Exit(2)
			}
			pids = append(pids, pid)
		}
		t := newTree(pids...)
		t.sample()
		kb, n := t.total()
		fmt.Printf("%d %d %d", kb, n, t.rssNow)
		for _, d := range t.byDepth() {
			fmt.Printf(" %d", d)
		}
		fmt.Println()
		return
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "rusage:", err)
		os.Exit(127)
	}
	stop := sampleTree(cmd.Process.Pid)
	err := cmd.Wait()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "rusage:", err)
		os.Exit(127)
	}
	treeKB, procs := stop()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		if procs == 0 {
			treeKB = ru.Maxrss
		}
		fmt.Fprintf(os.NewFile(3, "report"), "%d %d %d %d\n", ru.Utime.Nano()+ru.Stime.Nano(), ru.Maxrss, treeKB, procs)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
